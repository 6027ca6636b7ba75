import Foundation
import GRDB

/// A row of `pinned_faces` (migration v6): a user's decision that the face at this box of photo
/// `photoID` is person `personID`, whatever the clustering says (`memora people split`).
///
/// A pin names a photo and a box, not a face row: indexing a photo again replaces its face rows
/// (and their person), and a pin finds its face again by the box (``assign(to:)``), as a metadata
/// region names a face found in the pixels. The clustering (``PeopleClustering``) puts a pinned
/// face in its person in an update and in a rebuild alike. A pin goes with its person (`ON DELETE
/// CASCADE`; a merge moves it to the person merged into) and with its photo: not through a foreign
/// key, because indexing a photo again replaces its `photos` row, which would cascade, but by
/// ``deleteOrphans(_:)`` before each clustering (photo ids are kept when a photo is edited or moved).
struct PinnedFaceRecord: IndexRecord, Equatable {
    static let databaseTableName = "pinned_faces"

    var photoID: String
    var personID: Int64
    var x: Double
    var y: Double
    var width: Double
    var height: Double

    enum CodingKeys: String, CodingKey {
        case x, y
        case photoID = "photo_id", personID = "person_id", width = "w", height = "h"
    }

    enum Columns {
        static let photoID = Column(CodingKeys.photoID)
        static let personID = Column(CodingKeys.personID)
    }

    /// A pin of the face at `box` of photo `photoID` to person `personID`.
    init(photoID: String, personID: Int64, box: FaceBox) {
        (self.photoID, self.personID) = (photoID, personID)
        (x, y, width, height) = (box.x, box.y, box.width, box.height)
    }

    /// The pinned box.
    var box: FaceBox { FaceBox(name: nil, x: x, y: y, width: width, height: height) }

    /// v6: the table (literal SQL: a migration never changes).
    static func create(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE pinned_faces (
                photo_id TEXT NOT NULL,
                person_id INTEGER NOT NULL REFERENCES persons(id) ON DELETE CASCADE,
                x REAL NOT NULL, y REAL NOT NULL, w REAL NOT NULL, h REAL NOT NULL
            );
            CREATE INDEX idx_pinned_faces_photo ON pinned_faces(photo_id);
            CREATE INDEX idx_pinned_faces_person ON pinned_faces(person_id);
            """)
    }

    /// Removes the pins of photos no longer in the index.
    static func deleteOrphans(_ db: Database) throws {
        try db.execute(sql: "DELETE FROM pinned_faces WHERE photo_id NOT IN (SELECT id FROM photos)")
    }

    /// Moves the pins of person `id` to person `target` (a merge).
    static func move(person id: Int64, to target: Int64, in db: Database) throws {
        try filter(Columns.personID == id).updateAll(db, Columns.personID.set(to: target))
    }

    /// Sets each face's ``PeopleClustering/FaceRow/pinnedPersonID`` from the pins of its photo: each
    /// pin takes the face of its photo it overlaps most (intersection over union at least 0.3, or
    /// the pin's centre inside the face), one face per pin.
    static func assign(to faces: inout [PeopleClustering.FaceRow], in db: Database) throws {
        let pins = Dictionary(grouping: try fetchAll(db), by: \.photoID)
        guard !pins.isEmpty else { return }
        let rowsOfPhoto = Dictionary(grouping: faces.indices, by: { faces[$0].photoID })
        for (photo, photoPins) in pins {
            var free = rowsOfPhoto[photo] ?? []
            for pin in photoPins {
                let box = pin.box
                let candidates = free.filter { faces[$0].box.isMarked(by: box) }
                guard let best = candidates.max(by: { faces[$0].box.overlap(box) < faces[$1].box.overlap(box) }) else { continue }
                faces[best].pinnedPersonID = pin.personID
                free.removeAll { $0 == best }
            }
        }
    }
}
