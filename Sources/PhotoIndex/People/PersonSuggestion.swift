import Foundation
import GRDB
import PhotoVisionCore

/// Faces no person has, in a few photos, that look like one person: too few, or too far apart, to
/// be made a person without asking. Offered for a person to accept (`memora people accept N`).
public struct PersonSuggestion: Sendable, Hashable, Codable {
    /// Its number in the list (``PeopleClustering/suggestions()``), as `memora people accept` takes it.
    public var number: Int
    /// The photos (paths as indexed), one face in each.
    public var photos: [String]
    /// The largest distance between two neighbouring faces of the group.
    public var distance: Double
}

extension PeopleClustering {
    /// Groups of two or more faces no person has, each in a photo of its own, whose neighbours are
    /// within ``suggestionDistance`` of each other: two photos of one person, or three whose faces
    /// are a little further apart than ``distance``, are a suggestion, not a person. Two faces of one
    /// photo are never in one group. In a stable order (by first photo path), numbered from 1.
    public func suggestions() throws(PhotoIndexError) -> [PersonSuggestion] {
        try database.read { db in try Self.suggestionGroups(in: db, distance: suggestionDistance) }.enumerated().map { index, group in
            PersonSuggestion(number: index + 1, photos: group.paths, distance: group.distance)
        }
    }

    /// Makes a person of suggestion `number` (as ``suggestions()`` lists them now), called `name` when
    /// given: their faces are pinned to them, so later clusterings keep them together.
    @discardableResult
    public func accept(suggestion number: Int, name: String? = nil) throws(PhotoIndexError) -> Person {
        let name = try name.map { name throws(PhotoIndexError) in try PhotoIndexDatabase.personName(name) }
        return try database.write { db in
            let groups = try Self.suggestionGroups(in: db, distance: suggestionDistance)
            guard number >= 1, number <= groups.count else {
                throw PhotoIndexError.invalidRequest("there is no suggestion \(number): `memora people suggestions` lists \(groups.count)")
            }
            if let name, let other = try Int64.fetchOne(db, sql: "SELECT id FROM persons WHERE name = ? COLLATE NOCASE LIMIT 1", arguments: [name]) {
                throw PhotoIndexError.invalidRequest("person \(other) is already called \"\(name)\": accept the suggestion without a name, then merge them")
            }
            try PersonRecord(id: nil, name: name, namedByUser: name != nil, hidden: false, createdAt: database.clock.now()).insert(db)
            let person = db.lastInsertedRowID
            for face in groups[number - 1].faces {
                try db.execute(sql: "UPDATE faces SET person_id = ? WHERE photo_id = ? AND ordinal = ?", arguments: [person, face.photoID, face.ordinal])
                try PinnedFaceRecord(photoID: face.photoID, personID: person, box: face.box).insert(db)
            }
            try Self.settleNames(db)
            return try PhotoIndexDatabase.person(person, in: db)
        }
    }

    /// A suggestion's faces, their photos' paths and its largest link.
    struct SuggestionGroup {
        var faces: [FaceRow]
        var paths: [String]
        var distance: Double
    }

    /// The unassigned faces' groups (single linkage within `distance`, one face per photo) of two
    /// or more faces, ordered by their first path. At most 4,000 faces are compared.
    static func suggestionGroups(in db: Database, distance: Double) throws -> [SuggestionGroup] {
        let faces = try Self.faces(db).filter { $0.personID == nil && $0.pinnedPersonID == nil }.prefix(4000).map { $0 }
        guard faces.count >= 2 else { return [] }
        var parent = Array(faces.indices)
        func root(_ index: Int) -> Int {
            var index = index
            while parent[index] != index { parent[index] = parent[parent[index]]; index = parent[index] }
            return index
        }
        var links: [(Int, Int, Double)] = []
        for first in faces.indices {
            for second in (first + 1)..<faces.count where faces[first].photoID != faces[second].photoID {
                let gap = Double(FaceDistance.between(faces[first].embedding, faces[second].embedding))
                if gap <= distance { links.append((first, second, gap)) }
            }
        }
        // Closest links first; a link that would put two faces of one photo together is skipped.
        var photos = faces.indices.map { Set([faces[$0].photoID]) }
        var widest = Array(repeating: 0.0, count: faces.count)
        for (first, second, gap) in links.sorted(by: { $0.2 < $1.2 }) {
            let (a, b) = (root(first), root(second))
            guard a != b, photos[a].isDisjoint(with: photos[b]) else { continue }
            parent[b] = a
            photos[a].formUnion(photos[b])
            widest[a] = max(widest[a], widest[b], gap)
        }
        let members = Dictionary(grouping: faces.indices, by: root).values.filter { $0.count >= 2 }
        let paths = try Dictionary(uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT id, path FROM photos").map { row -> (String, String) in (row["id"], row["path"]) })
        return members.map { group in
            let sorted = group.sorted { (paths[faces[$0].photoID] ?? "") < (paths[faces[$1].photoID] ?? "") }
            return SuggestionGroup(faces: sorted.map { faces[$0] }, paths: sorted.map { paths[faces[$0].photoID] ?? faces[$0].photoID },
                                   distance: widest[root(group[0])])
        }.sorted { $0.paths.lexicographicallyPrecedes($1.paths) }
    }
}
