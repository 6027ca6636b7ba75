import Foundation
import GRDB

// The tables that hang off `photos` (each row deleted with its photo), one record type each:
// its columns, its schema and its queries. None has changed since migration v1.

/// A row of a table that hangs off `photos` by its `photo_id` column.
protocol PhotoDetailRecord: IndexRecord {
    /// The table and its indexes, as migration v1 created them (unchanged since).
    static var schema: String { get }
}

extension PhotoDetailRecord {
    /// The rows of photo `photoID`.
    static func of(_ photoID: String) -> QueryInterfaceRequest<Self> { filter(Column("photo_id") == photoID) }

    /// Replaces the rows of photo `photoID` by `records`.
    static func replace(_ records: some Sequence<Self>, of photoID: String, in db: Database) throws {
        try of(photoID).deleteAll(db)
        for record in records { try record.insert(db) }
    }
}

// MARK: - place_parts

/// A row of `place_parts`: one comma-separated part of a photo's place name, lower-cased, for
/// indexed place lookups ("Lyon" and "France" for "Lyon, France").
struct PlacePartRecord: PhotoDetailRecord, Equatable {
    static let databaseTableName = "place_parts"

    var photoID: String
    var part: String

    enum CodingKeys: String, CodingKey {
        case part
        case photoID = "photo_id"
    }

    /// The rows of photo `photoID` with the place name `place`.
    static func rows(_ photoID: String, place: String?) -> [PlacePartRecord] {
        Set(PhotoIndexDatabase.placeParts(place ?? "")).map { PlacePartRecord(photoID: photoID, part: $0) }
    }

    /// Created by migration v1, unchanged since.
    static let schema = """
        CREATE TABLE place_parts (
            photo_id TEXT NOT NULL REFERENCES photos(id) ON DELETE CASCADE,
            part TEXT NOT NULL,
            PRIMARY KEY (part, photo_id)
        ) WITHOUT ROWID;
        CREATE INDEX idx_place_parts_photo ON place_parts(photo_id);
        """
}

// MARK: - embeddings

/// A row of `embeddings`: a photo's embedding as little-endian half floats. Embeddings live in
/// their own table, so scans of `photos` stay small.
struct EmbeddingRecord: PhotoDetailRecord, Equatable {
    static let databaseTableName = "embeddings"

    var photoID: String
    var vector: Data

    enum CodingKeys: String, CodingKey {
        case vector
        case photoID = "photo_id"
    }

    /// The row of photo `photoID` with `embedding`, none without.
    static func rows(_ photoID: String, embedding: [Float]?) -> [EmbeddingRecord] {
        embedding.map { [EmbeddingRecord(photoID: photoID, vector: Data(HalfFloat.encode($0)))] } ?? []
    }

    /// The embedding of photo `photoID`, if it has one.
    static func embedding(of photoID: String, in db: Database) throws -> [Float]? {
        try fetchOne(db, key: photoID).map { HalfFloat.decode([UInt8]($0.vector)) }
    }

    /// Created by migration v1, unchanged since.
    static let schema = """
        CREATE TABLE embeddings (
            photo_id TEXT PRIMARY KEY REFERENCES photos(id) ON DELETE CASCADE,
            vector BLOB NOT NULL
        );
        """
}

// MARK: - people

/// A row of `people`: a person named in a photo.
struct PhotoPersonRecord: PhotoDetailRecord, Equatable {
    static let databaseTableName = "people"

    var photoID: String
    var name: String

    enum CodingKeys: String, CodingKey {
        case name
        case photoID = "photo_id"
    }

    /// The rows of photo `photoID` naming `names`.
    static func rows(_ photoID: String, names: [String]) -> [PhotoPersonRecord] {
        Set(names).map { PhotoPersonRecord(photoID: photoID, name: $0) }
    }

    /// The people of photo `photoID`, by name.
    static func names(of photoID: String, in db: Database) throws -> [String] {
        try of(photoID).order(Column(CodingKeys.name)).fetchAll(db).map(\.name)
    }

    /// The people named in at least `minimum` readable photos, with their photo counts, most photos first.
    static func counts(minimum: Int, in db: Database) throws -> [CountedValue] {
        try Row.fetchAll(db, sql: """
            SELECT name, COUNT(*) AS n FROM people JOIN photos ON photos.id = people.photo_id WHERE photos.error IS NULL
            GROUP BY name HAVING COUNT(*) >= ? ORDER BY n DESC, name
            """, arguments: [minimum]).map { CountedValue(value: $0["name"], count: $0["n"]) }
    }

    /// Created by migration v1, unchanged since.
    static let schema = """
        CREATE TABLE people (
            photo_id TEXT NOT NULL REFERENCES photos(id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            PRIMARY KEY (photo_id, name)
        ) WITHOUT ROWID;
        CREATE INDEX idx_people_name ON people(name COLLATE NOCASE);
        """
}

// MARK: - faces

/// A row of `faces`: a photo's face box number `ordinal` (from 0, in the photo's order).
struct FaceRecord: PhotoDetailRecord, Equatable {
    static let databaseTableName = "faces"

    var photoID: String
    var ordinal: Int
    var name: String?
    var x: Double
    var y: Double
    var width: Double
    var height: Double
    /// v5: the detector's score (NULL for a metadata region).
    var confidence: Double?
    /// v5: the face's embedding as half floats (NULL for a metadata region).
    var embedding: Data?
    /// v5: the person the face was clustered into (`persons`), when it was.
    var personID: Int64?

    enum CodingKeys: String, CodingKey {
        case ordinal, name, x, y, confidence, embedding
        case photoID = "photo_id", width = "w", height = "h", personID = "person_id"
    }

    /// The columns ``box(_:from:)`` reads, in its order, of `table` (the table's name or alias in the query).
    static func boxColumns(of table: String) -> String {
        ["name", "x", "y", "w", "h", "confidence"].map { table + "." + $0 }.joined(separator: ", ")
    }

    /// The rows of photo `photoID` with `faces`, numbered in their order.
    static func rows(_ photoID: String, faces: [FaceBox]) -> [FaceRecord] {
        faces.enumerated().map { ordinal, face in
            FaceRecord(photoID: photoID, ordinal: ordinal, name: face.name, x: face.x, y: face.y, width: face.width, height: face.height,
                       confidence: face.confidence, embedding: face.embedding.map { Data(HalfFloat.encode($0)) })
        }
    }

    /// The faces of photo `photoID`, in order.
    static func faces(of photoID: String, in db: Database) throws -> [FaceBox] {
        try of(photoID).order(Column(CodingKeys.ordinal)).fetchAll(db).map(\.box)
    }

    /// The public value.
    var box: FaceBox {
        FaceBox(name: name, x: x, y: y, width: width, height: height, confidence: confidence,
                embedding: embedding.map { HalfFloat.decode([UInt8]($0)) })
    }

    /// v5: a face's score, embedding and person, for faces found in the pixels.
    static func addDetection(_ db: Database) throws {
        try db.alter(table: databaseTableName) { table in
            table.add(column: CodingKeys.confidence.rawValue, .double)
            table.add(column: CodingKeys.embedding.rawValue, .blob)
            table.add(column: CodingKeys.personID.rawValue, .integer).references("persons", onDelete: .setNull)
        }
        try db.create(index: "idx_faces_person", on: databaseTableName, columns: [CodingKeys.personID.rawValue])
    }

    /// The face box in the columns ``boxColumns(of:)`` of `row`, from column `first` (rows read by
    /// position, where a lookup by name would cost more than the rest of the row).
    static func box(_ row: Row, from first: Int) -> FaceBox {
        FaceBox(name: row[first], x: row[first + 1], y: row[first + 2], width: row[first + 3], height: row[first + 4], confidence: row[first + 5])
    }

    /// Created by migration v1, unchanged since.
    static let schema = """
        CREATE TABLE faces (
            photo_id TEXT NOT NULL REFERENCES photos(id) ON DELETE CASCADE,
            ordinal INTEGER NOT NULL,
            name TEXT,
            x REAL NOT NULL, y REAL NOT NULL, w REAL NOT NULL, h REAL NOT NULL,
            PRIMARY KEY (photo_id, ordinal)
        ) WITHOUT ROWID;
        """
}
