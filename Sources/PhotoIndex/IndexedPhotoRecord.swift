import Foundation
import GRDB
import MemoraDatabase
import PhotoVisionCore

/// A record of the photo index: one `Codable` type per table, its snake_case columns named by its
/// `CodingKeys`, every `Date` stored as an INTEGER of milliseconds since 1970 UTC (MemoraDatabase's
/// `MillisecondRecord`; Docs/Architecture.md, "Databases").
protocol IndexRecord: MillisecondRecord {}

/// A row of `photos`: an ``IndexedPhoto`` without its people, faces and embedding (their own
/// tables), with the year it was taken in its own time zone.
struct IndexedPhotoRecord: IndexRecord, Identifiable, Equatable {
    static let databaseTableName = "photos"

    var id: String
    var path: String
    var size: Int64
    /// The file's modification time in nanoseconds since 1970, exact, for the change check.
    var modifiedNanoseconds: Int64
    /// The XMP sidecar's modification time in nanoseconds since 1970 (nil: no sidecar), for the change check.
    var sidecarModifiedNanoseconds: Int64?
    var imageHash: String
    /// A ``PhotoFileKind`` raw value.
    var kind: String?
    var takenAt: Date?
    var utcOffset: Int?
    var dateTrusted: Bool
    /// The year of ``takenAt`` in the photo's own time zone (UTC when unknown).
    var year: Int?
    var latitude: Double?
    var longitude: Double?
    var place: String?
    var width: Int?
    var height: Int?
    var orientation: Int
    /// A JSON array of strings in the column.
    var keywords: [String]
    /// v5: the scene model's labels, a JSON array (NULL when it did not run).
    var sceneLabels: [String]?
    /// v5: the theme the labels name.
    var sceneTheme: String?
    /// v8: the main subject in plain words.
    var sceneSubject: String?
    /// v8: the lines of text read in the pixels with their boxes, a JSON array (NULL when no reader ran).
    var textLines: [TextLine]?
    var quality: Double?
    /// The 64-bit perceptual hash as a signed integer (the same bits).
    var phash: Int64?
    var rating: Int?
    var favorite: Bool
    var error: String?
    var indexedAt: Date

    enum CodingKeys: String, CodingKey {
        case id, path, size, kind, year, latitude, longitude, place, width, height, orientation, keywords, quality, phash, rating, favorite, error
        case modifiedNanoseconds = "modified_ns", imageHash = "image_hash", takenAt = "taken_at", utcOffset = "utc_offset"
        case sidecarModifiedNanoseconds = "sidecar_modified_ns", sceneLabels = "scene_labels", sceneTheme = "scene_theme"
        case sceneSubject = "scene_subject", textLines = "text_lines"
        case dateTrusted = "date_trusted", indexedAt = "indexed_at"
    }

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let path = Column(CodingKeys.path)
        static let size = Column(CodingKeys.size)
        static let modifiedNanoseconds = Column(CodingKeys.modifiedNanoseconds)
        static let sidecarModifiedNanoseconds = Column(CodingKeys.sidecarModifiedNanoseconds)
        static let imageHash = Column(CodingKeys.imageHash)
        static let dateTrusted = Column(CodingKeys.dateTrusted)
        static let error = Column(CodingKeys.error)
    }

    /// The row of `photo`, indexed at `indexedAt`, its sidecar modified at `sidecarModified`.
    init(_ photo: IndexedPhoto, sidecarModified: Date? = nil, indexedAt: Date) {
        (id, path, size, modifiedNanoseconds) = (photo.id, photo.path, photo.size, PhotoIndexDatabase.nanoseconds(photo.modified))
        sidecarModifiedNanoseconds = sidecarModified.map(PhotoIndexDatabase.nanoseconds)
        (imageHash, kind, takenAt, utcOffset, dateTrusted) = (photo.imageHash, photo.kind?.rawValue, photo.takenAt, photo.utcOffset, photo.dateTrusted)
        year = photo.takenAt.map { date in
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(secondsFromGMT: photo.utcOffset ?? 0) ?? TimeZone(identifier: "UTC")!
            return calendar.component(.year, from: date)
        }
        (latitude, longitude, place, width, height) = (photo.latitude, photo.longitude, photo.place, photo.width, photo.height)
        (orientation, keywords, quality, phash) = (photo.orientation, photo.keywords, photo.quality, photo.perceptualHash.map { Int64(bitPattern: $0) })
        (sceneLabels, sceneTheme, sceneSubject, textLines) = (photo.sceneLabels, photo.sceneTheme, photo.sceneSubject, photo.text)
        (rating, favorite, error, self.indexedAt) = (photo.rating, photo.favorite, photo.error, indexedAt)
    }

    /// The public value, with its people, faces and embedding read from their tables.
    func photo(in db: Database) throws -> IndexedPhoto {
        var photo = IndexedPhoto(
            id: id, path: path, size: size, modified: Date(timeIntervalSince1970: Double(modifiedNanoseconds) / 1_000_000_000),
            imageHash: imageHash, kind: kind.flatMap(PhotoFileKind.init(rawValue:)), takenAt: takenAt, utcOffset: utcOffset,
            dateTrusted: dateTrusted, latitude: latitude, longitude: longitude, place: place, width: width, height: height,
            orientation: orientation, keywords: keywords, people: try PhotoPersonRecord.names(of: id, in: db),
            faces: try FaceRecord.faces(of: id, in: db), quality: quality, perceptualHash: phash.map { UInt64(bitPattern: $0) },
            rating: rating, favorite: favorite, embedding: try EmbeddingRecord.embedding(of: id, in: db), error: error)
        (photo.sceneLabels, photo.sceneTheme, photo.sceneSubject, photo.text) = (sceneLabels, sceneTheme, sceneSubject, textLines)
        return photo
    }

    // MARK: Writes

    /// Saves `photo` (inserted, or replacing the row with the same id or path) with its place
    /// parts, people, faces and embedding, indexed at `date`, in `db`'s transaction.
    static func save(_ photo: IndexedPhoto, sidecarModified: Date? = nil, at date: Date, in db: Database) throws {
        try filter(Columns.path == photo.path && Columns.id != photo.id).deleteAll(db)
        try IndexedPhotoRecord(photo, sidecarModified: sidecarModified, indexedAt: date).insert(db, onConflict: .replace)
        try EmbeddingRecord.replace(EmbeddingRecord.rows(photo.id, embedding: photo.embedding), of: photo.id, in: db)
        try PlacePartRecord.replace(PlacePartRecord.rows(photo.id, place: photo.place), of: photo.id, in: db)
        try PhotoPersonRecord.replace(PhotoPersonRecord.rows(photo.id, names: photo.people), of: photo.id, in: db)
        try FaceRecord.replace(FaceRecord.rows(photo.id, faces: photo.faces), of: photo.id, in: db)
    }

    /// Moves photo `id` to `asset`'s path (a row already there is deleted) with its size and modification times.
    static func move(_ id: String, to asset: PhotoAsset, in db: Database) throws {
        try filter(Columns.path == asset.path && Columns.id != id).deleteAll(db)
        try filter(id: id).updateAll(
            db, Columns.path.set(to: asset.path), Columns.size.set(to: asset.size),
            Columns.modifiedNanoseconds.set(to: PhotoIndexDatabase.nanoseconds(asset.modified)),
            Columns.sidecarModifiedNanoseconds.set(to: asset.sidecarModified.map(PhotoIndexDatabase.nanoseconds)))
    }

    /// v5: the scene model's labels.
    static func addSceneLabels(_ db: Database) throws {
        try db.alter(table: databaseTableName) { table in
            table.add(column: CodingKeys.sceneLabels.rawValue, .text)
            table.add(column: CodingKeys.sceneTheme.rawValue, .text)
        }
    }

    /// v8: the subject in plain words and the text read in the pixels.
    static func addSubjectAndText(_ db: Database) throws {
        try db.alter(table: databaseTableName) { table in
            table.add(column: CodingKeys.sceneSubject.rawValue, .text)
            table.add(column: CodingKeys.textLines.rawValue, .text)
        }
    }

    /// Adds the column of the sidecars' modification times (rows of photos with a sidecar are then indexed once again).
    static func addSidecarStamp(_ db: Database) throws {
        try db.alter(table: databaseTableName) { table in table.add(column: CodingKeys.sidecarModifiedNanoseconds.rawValue, .integer) }
    }

    /// Deletes the photos at `paths` (their people, faces and the rest go with them).
    static func delete(atPaths paths: [String], in db: Database) throws {
        for path in paths { try filter(Columns.path == path).deleteAll(db) }
    }

    // MARK: Reads

    /// What the indexer's change check reads of each row: a read-only view of six of the record's
    /// columns, read by the record's own ``Columns`` so that a column's name is written once.
    struct Stamp: FetchableRecord {
        let id: String
        let path: String
        let size: Int64
        let modifiedNanoseconds: Int64
        let sidecarModifiedNanoseconds: Int64?
        let imageHash: String

        /// The stamp in a row selected by ``IndexedPhotoRecord/stamps(_:)``.
        init(row: Row) throws {
            (id, path, size) = (try row.decode(forColumn: Columns.id), try row.decode(forColumn: Columns.path), try row.decode(forColumn: Columns.size))
            modifiedNanoseconds = try row.decode(forColumn: Columns.modifiedNanoseconds)
            sidecarModifiedNanoseconds = try row.decode(forColumn: Columns.sidecarModifiedNanoseconds)
            imageHash = try row.decode(forColumn: Columns.imageHash)
        }

        /// Whether `asset`'s file and sidecar are as this row saw them (same size and times).
        func matches(_ asset: PhotoAsset) -> Bool {
            size == asset.size && modifiedNanoseconds == PhotoIndexDatabase.nanoseconds(asset.modified) && sidecarMatches(asset)
        }

        /// Whether `asset`'s sidecar (or its absence) is as this row saw it.
        func sidecarMatches(_ asset: PhotoAsset) -> Bool {
            sidecarModifiedNanoseconds == asset.sidecarModified.map(PhotoIndexDatabase.nanoseconds)
        }
    }

    /// Every row's stamp.
    static func stamps(_ db: Database) throws -> [Stamp] {
        try select(Columns.id, Columns.path, Columns.size, Columns.modifiedNanoseconds, Columns.sidecarModifiedNanoseconds, Columns.imageHash)
            .asRequest(of: Stamp.self).fetchAll(db)
    }

    /// Photos in the index, unreadable ones, and readable ones dated only by their file.
    static func counts(_ db: Database) throws -> (photos: Int, unreadable: Int, untrustedDates: Int) {
        (try fetchCount(db), try filter(Columns.error != nil).fetchCount(db),
         try filter(Columns.dateTrusted == false && Columns.error == nil).fetchCount(db))
    }

    /// The years of the readable photos with their photo counts, newest first.
    static func yearCounts(_ db: Database) throws -> [CountedValue] {
        try Row.fetchAll(db, sql: "SELECT year, COUNT(*) AS n FROM photos WHERE year IS NOT NULL AND error IS NULL GROUP BY year ORDER BY year DESC")
            .map { CountedValue(value: String($0["year"] as Int), count: $0["n"]) }
    }

    /// The place names of the readable photos with their photo counts, most photos first.
    static func placeCounts(_ db: Database) throws -> [CountedValue] {
        try Row.fetchAll(db, sql: "SELECT place, COUNT(*) AS n FROM photos WHERE place IS NOT NULL AND error IS NULL GROUP BY place ORDER BY n DESC, place")
            .map { CountedValue(value: $0["place"], count: $0["n"]) }
    }

    // MARK: Schema

    /// Migration v1: instants as REAL seconds.
    static func createV1(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE photos (
                id TEXT PRIMARY KEY,
                path TEXT NOT NULL UNIQUE,
                size INTEGER NOT NULL,
                modified_ns INTEGER NOT NULL,
                image_hash TEXT NOT NULL,
                kind TEXT,
                taken_at REAL,
                utc_offset INTEGER,
                date_trusted INTEGER NOT NULL DEFAULT 0,
                year INTEGER,
                latitude REAL,
                longitude REAL,
                place TEXT,
                width INTEGER,
                height INTEGER,
                orientation INTEGER NOT NULL DEFAULT 1,
                keywords TEXT NOT NULL DEFAULT '[]',
                quality REAL,
                phash INTEGER,
                rating INTEGER,
                favorite INTEGER NOT NULL DEFAULT 0,
                error TEXT,
                indexed_at REAL NOT NULL
            );
            CREATE INDEX idx_photos_year ON photos(year);
            CREATE INDEX idx_photos_place ON photos(place);
            CREATE INDEX idx_photos_hash ON photos(image_hash);
            CREATE INDEX idx_photos_latitude ON photos(latitude);
            """)
    }

    /// Migration v2: a year's collage candidates are read from this index alone, without a
    /// lookup into the table per photo; it also serves every lookup by year, so it replaces v1's.
    static func coverYearCandidates(_ db: Database) throws {
        try db.execute(sql: """
            DROP INDEX idx_photos_year;
            CREATE INDEX idx_photos_year_candidates ON photos(year, error, id, taken_at, quality, phash);
            """)
    }

    /// Migration v3: `taken_at` and `indexed_at` become INTEGER milliseconds (they were REAL
    /// seconds), and `id` NOT NULL. The table is rebuilt with every row, and its indexes again.
    static func storeInstantsInMilliseconds(_ db: Database) throws {
        let rows = try fetchCount(db)
        // v1 and v2 wrote numbers only; anything else would have no millisecond value, so it stops the migration.
        let unreadable = try Int.fetchOne(db, sql: """
            SELECT COUNT(*) FROM photos
            WHERE typeof(taken_at) NOT IN ('real', 'integer', 'null') OR typeof(indexed_at) NOT IN ('real', 'integer')
            """) ?? 0
        guard unreadable == 0 else {
            throw DatabaseError(resultCode: .SQLITE_MISMATCH, message: "\(unreadable) photos have a taken_at or indexed_at that is not a number of seconds")
        }
        try db.execute(sql: """
            CREATE TABLE photos_v3 (
                id TEXT PRIMARY KEY NOT NULL, path TEXT NOT NULL UNIQUE, size INTEGER NOT NULL,
                modified_ns INTEGER NOT NULL,      -- the file's modification time, nanoseconds since 1970 (the change check)
                image_hash TEXT NOT NULL, kind TEXT,
                taken_at INTEGER,                  -- milliseconds since 1970 UTC
                utc_offset INTEGER, date_trusted INTEGER NOT NULL DEFAULT 0,
                year INTEGER,                      -- the year in the photo's own time zone (UTC when unknown)
                latitude REAL, longitude REAL, place TEXT, width INTEGER, height INTEGER, orientation INTEGER NOT NULL DEFAULT 1,
                keywords TEXT NOT NULL DEFAULT '[]',  -- JSON array
                quality REAL, phash INTEGER,       -- the 64-bit hash as a signed integer (same bits)
                rating INTEGER, favorite INTEGER NOT NULL DEFAULT 0, error TEXT,
                indexed_at INTEGER NOT NULL        -- milliseconds since 1970 UTC
            );
            INSERT INTO photos_v3 (id, path, size, modified_ns, image_hash, kind, taken_at, utc_offset, date_trusted, year, latitude,
                                   longitude, place, width, height, orientation, keywords, quality, phash, rating, favorite, error, indexed_at)
            SELECT id, path, size, modified_ns, image_hash, kind, CAST(ROUND(taken_at * 1000) AS INTEGER), utc_offset, date_trusted, year,
                   latitude, longitude, place, width, height, orientation, keywords, quality, phash, rating, favorite, error,
                   CAST(ROUND(indexed_at * 1000) AS INTEGER)
            FROM photos;
            DROP TABLE photos;
            ALTER TABLE photos_v3 RENAME TO photos;
            CREATE INDEX idx_photos_year_candidates ON photos(year, error, id, taken_at, quality, phash);
            CREATE INDEX idx_photos_place ON photos(place);
            CREATE INDEX idx_photos_hash ON photos(image_hash);
            CREATE INDEX idx_photos_latitude ON photos(latitude);
            """)
        guard try fetchCount(db) == rows else {
            throw DatabaseError(resultCode: .SQLITE_ERROR, message: "migration v3 did not keep the \(rows) photos")
        }
    }
}

// MARK: - Collage queries

extension IndexedPhotoRecord {
    /// The candidates of `request`'s source and date range (readable photos), from one query
    /// over every indexed photo of the source (a year's from its covering index alone), which
    /// also counts those left out as unreadable or outside the date range; plus one query for
    /// the faces of a person collage. A place's name must have at least one part
    /// (``PhotoIndexDatabase/placeParts(_:)``).
    /// A person collage of an unnamed person (`personNumber`) takes the photos with a face of that
    /// person, whose faces carry the source's label ("person 3") for the face rule.
    static func collageCandidates(_ request: CollageRequest, personNumber: Int64? = nil, in db: Database) throws -> CollageSelector.Candidates {
        var conditions: [String] = []
        var arguments: [any DatabaseValueConvertible] = []
        var join = ""
        switch request.source {
        case .year(let year):
            conditions.append("p.year = ?")
            arguments.append(year)
        case .place(let name):
            // Every part of the query must be a part of the photo's place ("Lyon" or "Lyon, France").
            for (index, part) in PhotoIndexDatabase.placeParts(name).enumerated() {
                join += " JOIN place_parts pp\(index) ON pp\(index).photo_id = p.id AND pp\(index).part = ?"
                arguments.append(part)
            }
        case .area(let latitude, let longitude, let radius):
            // A bounding box in SQL, the exact distance below.
            let latitudeDelta = radius / 111.2
            let longitudeDelta = radius / max(0.01, 111.2 * cos(latitude * .pi / 180))
            conditions.append("p.latitude BETWEEN ? AND ? AND p.longitude BETWEEN ? AND ?")
            arguments += [latitude - latitudeDelta, latitude + latitudeDelta, longitude - longitudeDelta, longitude + longitudeDelta]
        case .person(let name):
            if let personNumber {
                join = "JOIN (SELECT DISTINCT photo_id FROM faces WHERE person_id = ?) n ON n.photo_id = p.id"
                arguments.append(personNumber)
            } else {
                join = "JOIN people n ON n.photo_id = p.id AND n.name = ? COLLATE NOCASE"
                arguments.append(name)
            }
        case .theme(let theme):
            join = "JOIN themes t ON t.photo_id = p.id AND t.theme = ? COLLATE NOCASE"
            arguments.append(theme)
        case .everything:
            break
        }
        let start = request.range.start(now: request.now).map(milliseconds)
        let end = milliseconds(request.now)
        var columns = "p.id, p.taken_at, p.quality, p.phash, p.error IS NOT NULL"
        if case .area = request.source { columns += ", p.latitude, p.longitude" }
        let sql = "SELECT \(columns) FROM photos p \(join)" + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
        var found = CollageSelector.Candidates()
        var positions: [String: Int] = [:]
        let rows = try Row.fetchCursor(db, sql: sql, arguments: StatementArguments(arguments))
        // Columns by position, in the order of the SELECT (a lookup by name costs more than the rest of the row).
        while let row = try rows.next() {
            if case .area(let latitude, let longitude, let radius) = request.source {
                guard let lat: Double = row[5], let lon: Double = row[6],
                      CollageSelector.kilometres(latitude, longitude, lat, lon) <= radius else { continue }
            }
            found.indexed += 1
            if row[4] as Bool {
                found.unreadable += 1
                continue
            }
            let taken: Int64? = row[1]
            if let start {
                guard let taken, taken >= start, taken <= end else {
                    found.outsideDateRange += 1
                    continue
                }
            }
            let id: String = row[0]
            let phash: Int64? = row[3]
            positions[id] = found.candidates.count
            found.candidates.append(CollageSelector.Candidate(id: id, takenAt: taken.map { date(milliseconds: $0) },
                                                              quality: row[2] ?? 0, hash: phash.map { UInt64(bitPattern: $0) }, faces: []))
        }
        if case .person(let label) = request.source, !found.candidates.isEmpty {
            // An unnamed person's faces are theirs by number: only those, named with the label.
            let ownFaces = personNumber == nil ? "" : " AND f.person_id = ?"
            let faceSQL = "SELECT f.photo_id, \(FaceRecord.boxColumns(of: "f")) FROM faces f JOIN photos p ON p.id = f.photo_id \(join) WHERE p.error IS NULL"
                + ownFaces + " ORDER BY f.photo_id, f.ordinal"
            let faceRows = try Row.fetchCursor(db, sql: faceSQL, arguments: StatementArguments(arguments + (personNumber.map { [$0] } ?? [])))
            while let row = try faceRows.next() {
                guard let index = positions[row[0]] else { continue }
                var face = FaceRecord.box(row, from: 1)
                if personNumber != nil { face.name = label }
                found.candidates[index].faces.append(face)
            }
        }
        return found
    }

    /// Path and orientation of each of `ids`, and the faces of `facesOf`, 500 ids to a query.
    static func collageDetails(of ids: [String], facesOf faceIDs: [String], in db: Database) throws -> [String: CollageSelector.Details] {
        func batches(_ ids: [String]) -> [(ids: [String], marks: String)] {
            let unique = Array(Set(ids))
            return stride(from: 0, to: unique.count, by: 500).map { start in
                let batch = Array(unique[start..<min(start + 500, unique.count)])
                return (batch, Array(repeating: "?", count: batch.count).joined(separator: ", "))
            }
        }
        var details: [String: CollageSelector.Details] = [:]
        for batch in batches(ids) {
            let rows = try Row.fetchCursor(db, sql: "SELECT id, path, orientation FROM photos WHERE id IN (\(batch.marks))",
                                           arguments: StatementArguments(batch.ids))
            while let row = try rows.next() { details[row[0]] = CollageSelector.Details(path: row[1], orientation: row[2]) }
        }
        for batch in batches(faceIDs) {
            let rows = try Row.fetchCursor(db, sql: "SELECT photo_id, \(FaceRecord.boxColumns(of: "faces")) FROM faces WHERE photo_id IN (\(batch.marks)) ORDER BY photo_id, ordinal",
                                           arguments: StatementArguments(batch.ids))
            while let row = try rows.next() {
                let id: String = row[0]
                details[id]?.faces.append(FaceRecord.box(row, from: 1))
            }
        }
        return details
    }
}
