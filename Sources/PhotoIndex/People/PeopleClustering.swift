import Foundation
import GRDB
import PhotoVisionCore

/// One person of the People picker: a cluster of faces found in the pixels (``PeopleClustering``).
public struct Person: Sendable, Hashable, Codable {
    /// A number that stays the person's (`memora people name 3 "Grandma"`).
    public var id: Int64
    /// The person's name: the one a person gave, else the name most of the faces' metadata
    /// regions give; nil until one of them does.
    public var name: String?
    /// Whether a person typed the name (metadata never replaces it).
    public var isNamedByUser: Bool
    /// Whether the person is hidden from the picker.
    public var isHidden: Bool
    /// Faces of the person in the index.
    public var faceCount: Int
    /// Photos of the person (readable ones).
    public var photoCount: Int
}

/// Groups the faces found in the pixels into people, as the People albums of Immich and Apple
/// Photos do, with two rules those get wrong: two faces of one photo are never the same person,
/// and a name from a photo's metadata (a named MWG region over the face) names the person its
/// face lands in.
///
/// The clustering is DBSCAN (PhotoVision's) on the faces' dlib embeddings (Euclidean):
/// ``distance`` 0.5 (`FaceDistance.samePerson`, measured: Docs/PhotoIndex.md) and ``minimumFaces`` 3
/// by default. Faces left over that look alike within 0.6 (two photos of one person, or three a
/// little further apart) are offered as a ``PersonSuggestion`` for a person to accept.
/// ``update()`` is incremental: faces already in a person stay there; new faces (photos indexed
/// since, or indexed again) join the person of the nearest face within ``distance``, and the rest
/// are clustered among themselves into new people. ``rebuild()`` clusters every face again and
/// gives each new cluster the id and name of the old person most of its faces came from, so names
/// survive. A person's name reaches their faces and photos (the `faces` and `people` rows), which
/// is what the picker counts and `memora collage --person` selects by. A face a user moved to a
/// person (``PhotoIndexDatabase/split(person:photos:name:)``) is pinned there: both runs put it
/// in that person, whatever the distances say, and no other face of its photo joins that person.
public struct PeopleClustering: Sendable {
    /// The index.
    public var database: PhotoIndexDatabase
    /// The largest Euclidean distance between two neighbouring faces of one person.
    public var distance: Double
    /// ``distance`` by default: PhotoVision's `FaceDistance.samePerson` (0.5), measured on labelled faces.
    public static let defaultDistance = FaceDistance.samePerson
    /// The distance within which faces no person has are offered as a ``PersonSuggestion``:
    /// `FaceDistance.likelySamePerson` (0.6, dlib's documented threshold).
    public static let defaultSuggestionDistance = FaceDistance.likelySamePerson
    /// The fewest faces that make a person.
    public var minimumFaces: Int
    /// The largest distance between neighbouring faces of a suggestion (``suggestions()``).
    public var suggestionDistance: Double = PeopleClustering.defaultSuggestionDistance

    /// What a run did.
    public struct Summary: Sendable, Hashable, Codable {
        /// Faces that joined a person already known.
        public var joined = 0
        /// People found for the first time.
        public var newPeople = 0
        /// Faces that belong to nobody yet (too few like them).
        public var unassigned = 0
        /// People in the index after the run.
        public var people = 0
    }

    /// A clustering of `database`'s faces.
    public init(database: PhotoIndexDatabase, distance: Double = PeopleClustering.defaultDistance, minimumFaces: Int = 3) {
        self.database = database
        self.distance = distance
        self.minimumFaces = minimumFaces
    }

    /// A face with an embedding, as the clustering reads it.
    struct FaceRow {
        var photoID: String
        var ordinal: Int
        var name: String?
        var personID: Int64?
        var embedding: [Float]
        /// Where the face is (for the pins).
        var box: FaceBox
        /// The person a user pinned the face to (``PinnedFaceRecord``), if any.
        var pinnedPersonID: Int64?
    }

    /// Puts the faces that belong to nobody yet into people (see the type's description).
    public func update() throws(PhotoIndexError) -> Summary {
        try run(rebuilding: false)
    }

    /// Clusters every face again; people keep their ids and names where most of their faces stay together.
    public func rebuild() throws(PhotoIndexError) -> Summary {
        try run(rebuilding: true)
    }

    private func run(rebuilding: Bool) throws(PhotoIndexError) -> Summary {
        // A pinned face is in its pin's person before anything else is decided.
        let faces = try database.read { db in try Self.faces(db) }.map { face in
            var face = face
            face.personID = face.pinnedPersonID ?? face.personID
            return face
        }
        var summary = Summary()
        let known = rebuilding ? [] : faces.filter { $0.personID != nil }
        let fresh = rebuilding ? faces : faces.filter { $0.personID == nil }
        let dbscan = DBSCAN(epsilon: distance, minimumPoints: minimumFaces, metric: .euclidean)
        var photoGroups: [String: Int] = [:]
        func group(_ face: FaceRow) -> Int {
            if let group = photoGroups[face.photoID] { return group }
            photoGroups[face.photoID] = photoGroups.count
            return photoGroups.count - 1
        }
        var assignments: [(face: FaceRow, label: Int)] = []
        var existingPeople: [Int64] = []
        do {
            if fresh.isEmpty {
                // Nothing new: only names may have to be settled.
            } else if known.isEmpty {
                let result = try dbscan.cluster(EmbeddingMatrix(fresh.map(\.embedding)), groups: fresh.map(group))
                assignments = zip(fresh, result.labels).map { ($0, $1) }
            } else {
                existingPeople = Array(Set(known.compactMap(\.personID))).sorted()
                let index = Dictionary(uniqueKeysWithValues: existingPeople.enumerated().map { ($1, $0) })
                let existing = DBSCANResult(labels: known.map { index[$0.personID!]! }, clusterCount: existingPeople.count,
                                            isCore: Array(repeating: true, count: known.count))
                let result = try dbscan.assign(EmbeddingMatrix(fresh.map(\.embedding)), groups: fresh.map(group),
                                               to: EmbeddingMatrix(known.map(\.embedding)), clustering: existing,
                                               existingGroups: known.map(group))
                assignments = zip(fresh, result.labels).map { ($0, $1) }
            }
        } catch {
            throw .vision(error)
        }
        let existingCount = existingPeople.count
        try database.write { db in
            // The people of new clusters: with a rebuild, the old person most of a cluster's faces came from.
            var labelPeople: [Int: Int64] = [:]
            for (label, person) in existingPeople.enumerated() { labelPeople[label] = person }
            let newLabels = Set(assignments.map(\.label).filter { $0 >= existingCount })
            var claimed = Set<Int64>()
            // A person a user merged others into takes every cluster whose faces were mostly theirs.
            let merged = Set(try Int64.fetchAll(db, sql: "SELECT id FROM persons WHERE merged_by_user = 1"))
            for label in newLabels.sorted() {
                // Pinned faces go to their pins' people whatever their cluster; the others decide the cluster's person.
                let members = assignments.filter { $0.label == label && $0.face.pinnedPersonID == nil }.map(\.face)
                guard !members.isEmpty else { continue }
                let previous = Dictionary(grouping: members.compactMap(\.personID), by: { $0 }).max {
                    ($0.value.count, $1.key) < ($1.value.count, $0.key)
                }?.key
                if rebuilding, let previous, !claimed.contains(previous) || merged.contains(previous) {
                    labelPeople[label] = previous
                    claimed.insert(previous)
                } else {
                    try PersonRecord(id: nil, name: nil, namedByUser: false, hidden: false, createdAt: database.clock.now()).insert(db)
                    labelPeople[label] = db.lastInsertedRowID
                    summary.newPeople += 1
                }
            }
            // A person pinned in a photo takes no other face of it (a rebuild's cluster may hold one).
            let pinnedPhotos = Set(faces.compactMap { face in face.pinnedPersonID.map { PinnedPhoto(person: $0, photo: face.photoID) } })
            for (face, label) in assignments {
                var person = face.pinnedPersonID ?? (label == DBSCANResult.noise ? nil : labelPeople[label])
                if face.pinnedPersonID == nil, let found = person, pinnedPhotos.contains(PinnedPhoto(person: found, photo: face.photoID)) {
                    person = nil
                }
                if person != nil, label < existingCount { summary.joined += 1 }
                if person == nil { summary.unassigned += 1 }
                try Self.setPerson(person, of: face, in: db)
            }
            if !rebuilding {
                // Faces of photos indexed again lost their person; their pins give it back.
                for face in known where face.pinnedPersonID != nil {
                    try Self.setPerson(face.pinnedPersonID, of: face, in: db)
                }
            }
            try PinnedFaceRecord.deleteOrphans(db)
            if rebuilding {
                // People no face belongs to any more (and nobody named) go.
                try db.execute(sql: "DELETE FROM persons WHERE named_by_user = 0 AND id NOT IN (SELECT person_id FROM faces WHERE person_id IS NOT NULL)")
            }
            try Self.settleNames(db)
            summary.people = try PersonRecord.fetchCount(db)
        }
        return summary
    }

    /// The person of each face found in the pixels (nil: nobody yet), by photo id, in the faces'
    /// order in the photo: how memora-bench checks a clustering against the people it planted.
    package func personOfEachFace() throws(PhotoIndexError) -> [String: [Int64?]] {
        try database.read { db in
            var people: [String: [Int64?]] = [:]
            let rows = try Row.fetchCursor(db, sql: "SELECT photo_id, person_id FROM faces WHERE embedding IS NOT NULL ORDER BY photo_id, ordinal")
            while let row = try rows.next() { people[row[0], default: []].append(row[1]) }
            return people
        }
    }

    /// A person and a photo they are pinned in.
    private struct PinnedPhoto: Hashable {
        var person: Int64
        var photo: String
    }

    /// Puts `face` in `person` (nil: nobody).
    private static func setPerson(_ person: Int64?, of face: FaceRow, in db: Database) throws {
        try db.execute(sql: "UPDATE faces SET person_id = ? WHERE photo_id = ? AND ordinal = ?", arguments: [person, face.photoID, face.ordinal])
    }

    /// Every face with an embedding, in a stable order, with the person each is pinned to.
    static func faces(_ db: Database) throws -> [FaceRow] {
        var faces = try Row.fetchAll(db, sql: """
            SELECT photo_id, ordinal, name, person_id, embedding, x, y, w, h FROM faces WHERE embedding IS NOT NULL ORDER BY photo_id, ordinal
            """).map { row in
            FaceRow(photoID: row["photo_id"], ordinal: row["ordinal"], name: row["name"], personID: row["person_id"],
                    embedding: HalfFloat.decode([UInt8](row["embedding"] as Data)),
                    box: FaceBox(name: nil, x: row["x"], y: row["y"], width: row["w"], height: row["h"]))
        }
        try PinnedFaceRecord.assign(to: &faces, in: db)
        return faces
    }

    /// Names each person not named by a user after the name most of its faces carry, then gives
    /// every person's name to its unnamed faces and to its photos (the picker's `people` rows).
    static func settleNames(_ db: Database) throws {
        let persons = try PersonRecord.fetchAll(db)
        for var person in persons {
            guard let id = person.id else { continue }
            if !person.namedByUser {
                let votes = try Row.fetchAll(db, sql: """
                    SELECT name, COUNT(*) AS n FROM faces WHERE person_id = ? AND name IS NOT NULL GROUP BY name ORDER BY n DESC, name LIMIT 1
                    """, arguments: [id])
                let name: String? = votes.first?["name"]
                if name != person.name {
                    person.name = name
                    try person.update(db)
                }
            }
            guard let name = person.name else { continue }
            try db.execute(sql: "UPDATE faces SET name = ? WHERE person_id = ? AND name IS NULL", arguments: [name, id])
            try db.execute(sql: """
                INSERT OR IGNORE INTO people (photo_id, name) SELECT DISTINCT photo_id, ? FROM faces WHERE person_id = ?
                """, arguments: [name, id])
        }
    }
}

extension PhotoIndexDatabase {
    /// The people of the picker (``PeopleClustering``), most photos first; hidden ones only when asked.
    public func people(includingHidden: Bool = false) throws(PhotoIndexError) -> [Person] {
        try read { db in try Self.people(includingHidden: includingHidden, in: db) }
    }

    /// The people (only person `id` when given), most photos first, in `db`'s transaction.
    static func people(includingHidden: Bool, only id: Int64? = nil, in db: Database) throws -> [Person] {
        let conditions: [String] = (includingHidden ? [] : ["persons.hidden = 0"]) + (id == nil ? [] : ["persons.id = ?"])
        return try Row.fetchAll(db, sql: """
            SELECT persons.id, persons.name, persons.named_by_user, persons.hidden, COUNT(faces.ordinal) AS faces,
                   COUNT(DISTINCT faces.photo_id) AS photos
            FROM persons LEFT JOIN faces ON faces.person_id = persons.id
            \(conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND "))
            GROUP BY persons.id ORDER BY photos DESC, persons.id
            """, arguments: StatementArguments(id.map { [$0] } ?? [])).map { row in
            Person(id: row["id"], name: row["name"], isNamedByUser: row["named_by_user"], isHidden: row["hidden"],
                   faceCount: row["faces"], photoCount: row["photos"])
        }
    }

    /// Person `id` (hidden or not), or `PhotoIndexError.noSuchPerson(_:)`.
    public func person(_ id: Int64) throws(PhotoIndexError) -> Person {
        try read { db in try Self.person(id, in: db) }
    }

    /// Person `id` (hidden or not) in `db`'s transaction, or `PhotoIndexError.noSuchPerson(_:)`.
    static func person(_ id: Int64, in db: Database) throws -> Person {
        guard let person = try people(includingHidden: true, only: id, in: db).first else { throw PhotoIndexError.noSuchPerson(id) }
        return person
    }

    /// Names person `id` `name` (it then never changes by itself); their faces and photos take the
    /// name, in place of the one they had from the person. A name another person has (in any case) is
    /// refused: two people of one name would make `collage --person NAME` pick either's faces.
    public func name(person id: Int64, _ name: String) throws(PhotoIndexError) {
        let name = try Self.personName(name)
        try write { db in
            guard var person = try PersonRecord.fetchOne(db, key: id) else { throw PhotoIndexError.noSuchPerson(id) }
            if let other = try Int64.fetchOne(db, sql: "SELECT id FROM persons WHERE name = ? COLLATE NOCASE AND id != ? ORDER BY id LIMIT 1",
                                              arguments: [name, id]) {
                throw PhotoIndexError.invalidRequest("person \(other) is already called \"\(name)\": if they are the same person, merge them "
                                                     + "(memora people merge \(id) \(other)); else choose another name")
            }
            if let old = person.name {
                try db.execute(sql: "UPDATE faces SET name = NULL WHERE person_id = ? AND name = ?", arguments: [id, old])
                try db.execute(sql: """
                    DELETE FROM people WHERE name = ? AND photo_id IN (SELECT photo_id FROM faces WHERE person_id = ?)
                    """, arguments: [old, id])
            }
            person.name = name
            person.namedByUser = true
            try person.update(db)
            try PeopleClustering.settleNames(db)
        }
    }

    /// `name` trimmed, if it can name a person: one line of text, no direction overrides (which would
    /// show it reordered), at most 200 bytes.
    static func personName(_ name: String) throws(PhotoIndexError) -> String {
        let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty, !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0.isDirectionOverride }) else {
            throw .invalidRequest("a person's name is one line of text, without control or text-direction characters")
        }
        guard name.utf8.count <= 200 else { throw .invalidRequest("a person's name is at most 200 bytes") }
        return name
    }

    /// Whom `reference` names: a person's name (any case) as the index keeps it, or a person's
    /// number (`memora people`) when no one is called so; a number of a person with no name yet is
    /// that person by number. Anything else is kept as given (a name in the photos' metadata only).
    enum PersonReference: Equatable {
        case name(String)
        case number(Int64)
    }

    /// The person `reference` names (see ``PersonReference``), in `db`'s transaction.
    static func personReference(_ reference: String, in db: Database) throws -> PersonReference {
        let reference = reference.trimmingCharacters(in: .whitespacesAndNewlines)
        if let name = try String.fetchOne(db, sql: "SELECT name FROM persons WHERE name = ? COLLATE NOCASE LIMIT 1", arguments: [reference]) {
            return .name(name)
        }
        if try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM people WHERE name = ? COLLATE NOCASE)", arguments: [reference]) == true {
            return .name(reference)
        }
        guard let id = Int64(reference) else { return .name(reference) }
        return try Self.person(id, in: db).name.map(PersonReference.name) ?? .number(id)
    }

    /// A dry run of ``merge(person:into:)``: person `id` as it is, after the merge's checks.
    public func checkMerge(person id: Int64, into target: Int64) throws(PhotoIndexError) -> Person {
        guard id != target else { throw .invalidRequest("a person cannot be merged into itself") }
        _ = try person(target)
        return try person(id)
    }

    /// Moves every face of person `id` to person `target` and removes `id` (two clusters that are one person).
    public func merge(person id: Int64, into target: Int64) throws(PhotoIndexError) {
        _ = try checkMerge(person: id, into: target)
        try write { db in
            // Checked again in the transaction: another process may have changed the people since.
            guard let person = try PersonRecord.fetchOne(db, key: id) else { throw PhotoIndexError.noSuchPerson(id) }
            guard try PersonRecord.exists(db, key: target) else { throw PhotoIndexError.noSuchPerson(target) }
            if let old = person.name {
                try db.execute(sql: "UPDATE faces SET name = NULL WHERE person_id = ? AND name = ?", arguments: [id, old])
            }
            try db.execute(sql: "UPDATE faces SET person_id = ? WHERE person_id = ?", arguments: [target, id])
            try db.execute(sql: "UPDATE persons SET merged_by_user = 1 WHERE id = ?", arguments: [target])
            try PinnedFaceRecord.move(person: id, to: target, in: db)
            _ = try PersonRecord.deleteOne(db, key: id)
            try PeopleClustering.settleNames(db)
        }
    }

    /// The photos person `id` is in (a face of theirs), newest first: paths as indexed.
    public func photos(ofPerson id: Int64) throws(PhotoIndexError) -> [String] {
        _ = try person(id)
        return try read { db in
            try String.fetchAll(db, sql: """
                SELECT photos.path FROM photos WHERE photos.id IN (SELECT photo_id FROM faces WHERE person_id = ?)
                ORDER BY photos.taken_at DESC, photos.path
                """, arguments: [id])
        }
    }

    /// Hides person `id` from the picker (or shows them again).
    public func setHidden(person id: Int64, _ hidden: Bool) throws(PhotoIndexError) {
        try write { db in
            guard var person = try PersonRecord.fetchOne(db, key: id) else { throw PhotoIndexError.noSuchPerson(id) }
            person.hidden = hidden
            try person.update(db)
        }
    }
}

extension PhotoIndexDatabase {
    /// The names a person gave (`memora people name`, ``name(person:_:)``) to the people whose faces are
    /// in the photo `reference` names (its path as indexed, its id, or its path from here), left to
    /// right: the only names the on-device description takes from the index. A name the clustering
    /// spread from other photos' metadata is not a person's confirmation and is left out; so are
    /// hidden people. Empty when the photo is not indexed.
    public func confirmedNames(inPhoto reference: String) throws(PhotoIndexError) -> [String] {
        try read { db in
            guard let photo = try Self.indexedPhoto(reference, in: db) else { return [] }
            let names = try String.fetchAll(db, sql: """
                SELECT persons.name FROM faces JOIN persons ON persons.id = faces.person_id
                WHERE faces.photo_id = ? AND persons.named_by_user = 1 AND persons.hidden = 0 AND persons.name IS NOT NULL
                ORDER BY faces.x
                """, arguments: [photo.id])
            var seen = Set<String>()
            return names.filter { seen.insert($0.lowercased()).inserted }
        }
    }
}
