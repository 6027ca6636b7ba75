import Foundation
import TestSupport
import GRDB
import Testing
@testable import PhotoIndex

/// The index as migrations v1 and v2 made it (the schema of an index created before v3, as
/// SQLite keeps it): instants as REAL seconds.
private let v2Schema = """
    CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
    INSERT INTO grdb_migrations VALUES ('v1'), ('v2: covering index for year collages');
    CREATE TABLE photos (
        id TEXT PRIMARY KEY, path TEXT NOT NULL UNIQUE, size INTEGER NOT NULL, modified_ns INTEGER NOT NULL, image_hash TEXT NOT NULL,
        kind TEXT, taken_at REAL, utc_offset INTEGER, date_trusted INTEGER NOT NULL DEFAULT 0, year INTEGER, latitude REAL, longitude REAL,
        place TEXT, width INTEGER, height INTEGER, orientation INTEGER NOT NULL DEFAULT 1, keywords TEXT NOT NULL DEFAULT '[]',
        quality REAL, phash INTEGER, rating INTEGER, favorite INTEGER NOT NULL DEFAULT 0, error TEXT, indexed_at REAL NOT NULL);
    CREATE INDEX idx_photos_place ON photos(place);
    CREATE INDEX idx_photos_hash ON photos(image_hash);
    CREATE INDEX idx_photos_latitude ON photos(latitude);
    CREATE TABLE place_parts (photo_id TEXT NOT NULL REFERENCES photos(id) ON DELETE CASCADE, part TEXT NOT NULL,
        PRIMARY KEY (part, photo_id)) WITHOUT ROWID;
    CREATE INDEX idx_place_parts_photo ON place_parts(photo_id);
    CREATE TABLE embeddings (photo_id TEXT PRIMARY KEY REFERENCES photos(id) ON DELETE CASCADE, vector BLOB NOT NULL);
    CREATE TABLE people (photo_id TEXT NOT NULL REFERENCES photos(id) ON DELETE CASCADE, name TEXT NOT NULL,
        PRIMARY KEY (photo_id, name)) WITHOUT ROWID;
    CREATE INDEX idx_people_name ON people(name COLLATE NOCASE);
    CREATE TABLE faces (photo_id TEXT NOT NULL REFERENCES photos(id) ON DELETE CASCADE, ordinal INTEGER NOT NULL, name TEXT,
        x REAL NOT NULL, y REAL NOT NULL, w REAL NOT NULL, h REAL NOT NULL, PRIMARY KEY (photo_id, ordinal)) WITHOUT ROWID;
    CREATE INDEX idx_photos_year_candidates ON photos(year, error, id, taken_at, quality, phash);
    """

/// A date a whole number of milliseconds after 1970.
private func instant(_ milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }

@Suite("The photo index's schema")
struct IndexMigrationTests {
    /// A folder with an index in the v2 format: three photos (one unreadable, one taken before
    /// 1970), with place parts, people, faces and an embedding.
    func makeV2Index() throws -> (root: String, path: String) {
        let root = try temporaryFolder("index-v2")
        let path = root + "/index.sqlite"
        let old = try DatabaseQueue(path: path)
        try old.write { db in
            try db.execute(sql: v2Schema)
            try db.execute(sql: """
                INSERT INTO photos (id, path, size, modified_ns, image_hash, kind, taken_at, utc_offset, date_trusted, year, latitude, longitude,
                                    place, width, height, orientation, keywords, quality, phash, rating, favorite, error, indexed_at)
                VALUES ('a', '/p/a.jpg', 10, 1795529544365456384, 'ha', 'jpeg', 1700000000.123, 3600, 1, 2023, 45.76, 4.84,
                        'Lyon, France', 4000, 3000, 6, '["x","y"]', 0.8, -5, 5, 1, NULL, 1795529553.16754),
                       ('b', '/p/b.jpg', 11, 1795529544265456128, 'hb', NULL, NULL, NULL, 0, NULL, NULL, NULL,
                        NULL, NULL, NULL, 1, '[]', NULL, NULL, NULL, 0, 'cut short', 1795529553.17541),
                       ('c', '/p/c.png', 12, -1000000000, 'hc', 'png', -0.2504, NULL, 0, 1969, NULL, NULL,
                        NULL, 10, 20, 1, '[]', 0.3, 7, NULL, 0, NULL, 1795529553.18263);
                INSERT INTO place_parts VALUES ('a', 'lyon'), ('a', 'france');
                INSERT INTO people VALUES ('a', 'Ana'), ('c', 'Ana'), ('c', 'Ben');
                INSERT INTO faces VALUES ('a', 0, 'Ana', 0.1, 0.2, 0.5, 0.5), ('a', 1, NULL, 0.6, 0.1, 0.1, 0.1), ('c', 0, 'Ben', 0, 0, 1, 1);
                INSERT INTO embeddings VALUES ('a', x'00380000');
                """)
        }
        return (root, path)
    }

    @Test("a v2 index is migrated in place: instants in milliseconds, every row kept, its indexes rebuilt")
    func v2Migrated() throws {
        let (root, path) = try makeV2Index()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let database = try PhotoIndexDatabase(path: path)

        let photos = try database.allPhotos()
        #expect(photos.map(\.id) == ["a", "b", "c"])
        let a = try #require(photos.first)
        #expect(a.takenAt == instant(1_700_000_000_123) && a.utcOffset == 3600 && a.dateTrusted)
        #expect(a.modified == Date(timeIntervalSince1970: Double(1_795_529_544_365_456_384 as Int64) / 1_000_000_000))
        #expect(a.kind == .jpeg && a.place == "Lyon, France" && a.latitude == 45.76 && a.width == 4000 && a.orientation == 6)
        #expect(a.keywords == ["x", "y"] && a.quality == 0.8 && a.perceptualHash == UInt64(bitPattern: -5) && a.rating == 5 && a.favorite)
        #expect(a.people == ["Ana"] && a.faces == [FaceBox(name: "Ana", x: 0.1, y: 0.2, width: 0.5, height: 0.5),
                                                  FaceBox(name: nil, x: 0.6, y: 0.1, width: 0.1, height: 0.1)])
        #expect(a.embedding == [0.5, 0])
        #expect(photos[1].takenAt == nil && photos[1].error == "cut short" && photos[1].kind == nil)
        #expect(photos[2].takenAt == instant(-250) && photos[2].people == ["Ana", "Ben"])

        try database.pool.read { db throws in
            #expect(try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid").suffix(6)
                    == ["v3: instants in milliseconds", "v4: sidecar modification times", "v5: faces and scenes from the pixels",
                        "v6: faces pinned to a person by a user", "v7: people merged by a user", "v8: the subject and the text from the pixels"])
            #expect(try String?.fetchAll(db, sql: "SELECT text_lines FROM photos") == [nil, nil, nil], "v8 adds empty columns")
            #expect(try Row.fetchAll(db, sql: "PRAGMA table_info(persons)").contains { $0["name"] == "merged_by_user" }, "v7 adds the column")
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM pinned_faces") == 0, "v6 adds an empty table")
            #expect(try Row.fetchAll(db, sql: "SELECT confidence, embedding FROM faces").allSatisfy { $0[0] as Double? == nil && $0[1] as Data? == nil },
                    "v5 adds empty face columns")
            #expect(try Int64?.fetchAll(db, sql: "SELECT sidecar_modified_ns FROM photos") == [nil, nil, nil], "v4 adds an empty column")
            #expect(try Int64?.fetchAll(db, sql: "SELECT taken_at FROM photos ORDER BY id") == [1_700_000_000_123, nil, -250])
            #expect(try Int64.fetchAll(db, sql: "SELECT indexed_at FROM photos ORDER BY id") == [1_795_529_553_168, 1_795_529_553_175, 1_795_529_553_183])
            #expect(try String.fetchAll(db, sql: "SELECT DISTINCT typeof(indexed_at) FROM photos") == ["integer"])
            #expect(try String.fetchAll(db, sql: "SELECT type FROM pragma_table_info('photos') WHERE name IN ('taken_at', 'indexed_at')") == ["INTEGER", "INTEGER"])
            let counts = try ["photos", "place_parts", "people", "faces", "embeddings"].map { try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \($0)") }
            #expect(counts == [3, 2, 3, 3, 1])
            #expect(try Set(db.indexes(on: "photos").map(\.name)).isSuperset(of: [
                "idx_photos_year_candidates", "idx_photos_place", "idx_photos_hash", "idx_photos_latitude"]))
            #expect(try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").isEmpty)
            let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT p.id, p.taken_at, p.quality, p.phash FROM photos p WHERE p.error IS NULL AND p.year = ?",
                                        arguments: [2023]).map { $0["detail"] as String }
            #expect(plan.contains { $0.contains("COVERING INDEX idx_photos_year_candidates") }, "\(plan)")
        }

        // The converted instants serve the queries: the picker, collages by date range, cascades.
        let cache = try PersonCache(database: database, minimumPhotosPerPerson: 1)
        #expect(cache.photos == 3 && cache.unreadable == 1 && cache.untrustedDates == 1)
        #expect(cache.years.map(\.value) == ["2023", "1969"] && cache.people.map(\.value) == ["Ana", "Ben"])
        let selector = CollageSelector(database: database)
        let now = instant(1_700_000_000_123 + 86_400_000)
        #expect(try selector.select(CollageRequest(source: .everything, range: .lastYear, now: now)).photos.map(\.id) == ["a"])
        #expect(try selector.select(CollageRequest(source: .person("ben"))).photos.map(\.id) == ["c"])
        let chosen = try #require(try selector.select(CollageRequest(source: .place("lyon"))).photos.first)
        #expect(chosen.takenAt == instant(1_700_000_000_123) && chosen.orientation == 6 && chosen.faces.count == 2)
        try database.write { db in _ = try IndexedPhotoRecord.deleteOne(db, id: "a") }
        try database.pool.read { db throws in
            #expect(try ["place_parts", "people", "faces", "embeddings"].map { try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \($0)") } == [0, 2, 1, 0])
        }
    }

    @Test("an instant that is not a number stops the migration, and the index stays as it was")
    func unreadableInstant() throws {
        let (root, path) = try makeV2Index()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let old = try DatabaseQueue(path: path)
        try old.write { db in try db.execute(sql: "UPDATE photos SET taken_at = 'yesterday' WHERE id = 'c'") }

        #expect(throws: PhotoIndexError.self) { try PhotoIndexDatabase(path: path) }
        try old.read { db throws in
            #expect(try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid").last == "v2: covering index for year collages")
            #expect(try Double?.fetchAll(db, sql: "SELECT taken_at FROM photos WHERE id != 'c' ORDER BY id") == [1_700_000_000.123, nil])
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM faces") == 3)
        }
    }

    @Test("a new index round-trips every field, instants to the millisecond and modification times to the nanosecond")
    func roundTrip() throws {
        let root = try temporaryFolder("index-new")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let database = try PhotoIndexDatabase(path: root + "/index.sqlite")
        let photo = IndexedPhoto(
            id: "id-1", path: root + "/a.jpg", size: 123, modified: Date(timeIntervalSince1970: 1_700_000_000.5), imageHash: "abc", kind: .heif,
            takenAt: instant(1_700_000_000_123), utcOffset: -18000, dateTrusted: true, latitude: 1.5, longitude: -2.25, place: "Oslo, Norway",
            width: 3, height: 2, orientation: 8, keywords: ["sea", "ü"], people: ["Ana", "Ben"],
            faces: [FaceBox(name: "Ben", x: 0.5, y: 0.5, width: 0.25, height: 0.25), FaceBox(name: nil, x: 0, y: 0, width: 0.1, height: 0.1)],
            quality: 0.75, perceptualHash: UInt64.max, rating: -1, favorite: false, embedding: [1, -2, 0.5], error: nil)
        let before = Date()
        try database.save([photo])
        #expect(try database.photo(atPath: photo.path) == photo)
        #expect(try database.allPhotos() == [photo])
        try database.pool.read { db throws in
            let row = try #require(try Row.fetchOne(db, sql: "SELECT taken_at, indexed_at, modified_ns, year, phash FROM photos"))
            #expect(row["taken_at"] as Int64 == 1_700_000_000_123 && row["modified_ns"] as Int64 == 1_700_000_000_500_000_000)
            #expect(row["indexed_at"] as Int64 >= IndexedPhotoRecord.milliseconds(before) - 1 && row["year"] as Int == 2023 && row["phash"] as Int64 == -1)
            #expect(try String.fetchOne(db, sql: "SELECT keywords FROM photos") == #"["sea","ü"]"#)
            #expect(try String.fetchAll(db, sql: "SELECT part FROM place_parts ORDER BY part") == ["norway", "oslo"])
        }
    }
}
