import Foundation
import GRDB
public import MemoraSystem

/// What splitting a person moves (``PhotoIndexDatabase/split(person:photos:name:)``), or would move
/// (``PhotoIndexDatabase/checkSplit(person:photos:name:)``): the person's faces in some photos go
/// to another person, a new one or the one already called the name given.
public struct PersonSplit: Sendable, Hashable, Codable {
    /// The person split, as they were before the split.
    public var person: Person
    /// The photos whose faces of ``person`` move, by the paths the index holds, in the order given.
    public var photos: [String]
    /// How many faces move (one a photo, unless a merge left two faces of one photo in the person).
    public var faceCount: Int
    /// The person the faces move to: the one already called ``name``, or, once split, the new
    /// person; nil in a dry run that would make a new person.
    public var target: Int64?
    /// Whether ``target`` is a person who was there before (one already called ``name``).
    public var joinsExistingPerson: Bool
    /// The name of the person the faces move to: the one given, else (once split) the one their
    /// photos' metadata gives them, if any.
    public var name: String?
}

extension PhotoIndexDatabase {
    /// A dry run of ``split(person:photos:name:)``: what it would move, after the same checks.
    public func checkSplit(person id: Int64, photos: [String], name: String? = nil) throws(PhotoIndexError) -> PersonSplit {
        let name = try name.map { name throws(PhotoIndexError) in try Self.personName(name) }
        return try read { db in try Self.planSplit(person: id, photos: photos, name: name, in: db).split }
    }

    /// Moves the faces of person `id` in `photos` (paths as indexed, relative paths from the current
    /// folder, or photo ids) to another person, in one transaction: a new person, named `name` when
    /// given, or the one person already called `name`. The faces are pinned to that person, so the
    /// split survives indexing the photos again, ``PeopleClustering/update()`` and
    /// ``PeopleClustering/rebuild()``. Refused: a person that does not exist, no photos, a photo not
    /// indexed or without a face of the person, all of the person's faces (rename them instead), a
    /// name that is the person's own or several people's, and a person called `name` who is in one
    /// of the photos already (two faces of one photo are never one person).
    @discardableResult
    public func split(person id: Int64, photos: [String], name: String? = nil) throws(PhotoIndexError) -> PersonSplit {
        let name = try name.map { name throws(PhotoIndexError) in try Self.personName(name) }
        return try write { db in
            // Planned in the transaction: another process may have changed the people since a dry run.
            var (split, faces) = try Self.planSplit(person: id, photos: photos, name: name, in: db)
            let target: Int64
            if let existing = split.target {
                target = existing
            } else {
                try PersonRecord(id: nil, name: name, namedByUser: name != nil, hidden: false, createdAt: clock.now()).insert(db)
                target = db.lastInsertedRowID
                split.target = target
            }
            for face in faces {
                // The person's name leaves the faces and photos it reached through them.
                if let old = split.person.name {
                    try db.execute(sql: "UPDATE faces SET name = NULL WHERE photo_id = ? AND ordinal = ? AND name = ?",
                                   arguments: [face.photoID, face.ordinal, old])
                    try db.execute(sql: "DELETE FROM people WHERE photo_id = ? AND name = ?", arguments: [face.photoID, old])
                }
                try db.execute(sql: "UPDATE faces SET person_id = ? WHERE photo_id = ? AND ordinal = ?",
                               arguments: [target, face.photoID, face.ordinal])
                try PinnedFaceRecord(photoID: face.photoID, personID: target, box: face.box).insert(db)
            }
            try PeopleClustering.settleNames(db)
            split.name = try PersonRecord.fetchOne(db, key: target)?.name
            return split
        }
    }

    /// The split of person `id`'s faces in `references` to `name` (trimmed already), with the face
    /// rows that move, after every check; throws ``PhotoIndexError`` for a split that cannot be.
    private static func planSplit(person id: Int64, photos references: [String], name: String?,
                                  in db: Database) throws -> (split: PersonSplit, faces: [FaceRecord]) {
        let person = try person(id, in: db)
        guard !references.isEmpty else {
            throw PhotoIndexError.invalidRequest("name the photos whose face of person \(id) is someone else")
        }
        var photos: [IndexedPhotoRecord] = []
        for reference in references {
            guard let photo = try indexedPhoto(reference, in: db) else {
                throw PhotoIndexError.invalidRequest("\(reference) is not in the photo index: give the path of a photo `memora index` indexed")
            }
            if !photos.contains(where: { $0.id == photo.id }) { photos.append(photo) }
        }
        var faces: [FaceRecord] = []
        for photo in photos {
            let found = try FaceRecord.of(photo.id).filter(Column(FaceRecord.CodingKeys.personID) == id).fetchAll(db)
            guard !found.isEmpty else {
                throw PhotoIndexError.invalidRequest("\(photo.path) has no face of person \(id): give only photos of person \(id)")
            }
            faces += found
        }
        guard faces.count < person.faceCount else {
            throw PhotoIndexError.invalidRequest(
                "these are all the photos of person \(id): nothing of them would remain. To call them someone else, rename them: memora people name \(id) NAME")
        }
        var existing: Int64?
        if let name {
            let named = try Int64.fetchAll(db, sql: "SELECT id FROM persons WHERE name = ? COLLATE NOCASE ORDER BY id", arguments: [name])
            if named.contains(id) {
                throw PhotoIndexError.invalidRequest("person \(id) is called \(name) already: give the faces split off another name, or none")
            }
            if named.count > 1 {
                throw PhotoIndexError.invalidRequest("\(named.count) people are called \(name) (\(named.map(String.init).joined(separator: ", "))): "
                                                     + "split without a name, then merge the new person into the right one")
            }
            existing = named.first
            if let existing, let clash = try photos.first(where: { photo in
                try FaceRecord.of(photo.id).filter(Column(FaceRecord.CodingKeys.personID) == existing).fetchCount(db) > 0
            }) {
                throw PhotoIndexError.invalidRequest(
                    "person \(existing) (\(name)) is in \(clash.path) already, and two faces of one photo are never one person: leave that photo out")
            }
        }
        let split = PersonSplit(person: person, photos: photos.map(\.path), faceCount: faces.count, target: existing,
                                joinsExistingPerson: existing != nil, name: name)
        return (split, faces)
    }

    /// The indexed photo `reference` names: its path as indexed, its id, or its path from the current folder.
    static func indexedPhoto(_ reference: String, in db: Database) throws -> IndexedPhotoRecord? {
        let path = IndexedPhotoRecord.Columns.path
        return try IndexedPhotoRecord.filter(path == reference).fetchOne(db)
            ?? IndexedPhotoRecord.fetchOne(db, key: reference)
            ?? IndexedPhotoRecord.filter(path == SystemPath.normalized(FileSystem.absolutePath(reference))).fetchOne(db)
    }
}
