import Foundation
internal import MemoraSystem
import GRDB

/// The photo index: one SQLite file through GRDB (WAL, migrations). Schema in `Docs/PhotoIndex.md`.
public final class PhotoIndexDatabase: Sendable {
    let pool: DatabasePool
    /// The database file.
    public let path: String

    /// Opens (creating and migrating as needed) the index at `path`.
    public init(path: String) throws(PhotoIndexError) {
        self.path = path
        do {
            try FileSystem.makeFolder(SystemPath.folder(of: path))
            var configuration = Configuration()
            configuration.foreignKeysEnabled = true
            configuration.busyMode = .timeout(10)
            pool = try DatabasePool(path: path, configuration: configuration)
            try Self.migrator.migrate(pool)
        } catch {
            throw .database(path: path, cause: error)
        }
    }

    /// `$XDG_DATA_HOME/memora/index.sqlite` (or `$HOME/.local/share/memora/index.sqlite`).
    public static var defaultPath: String {
        ApplicationFolders().data + "/index.sqlite"
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
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
                CREATE TABLE place_parts (
                    photo_id TEXT NOT NULL REFERENCES photos(id) ON DELETE CASCADE,
                    part TEXT NOT NULL,
                    PRIMARY KEY (part, photo_id)
                ) WITHOUT ROWID;
                CREATE INDEX idx_place_parts_photo ON place_parts(photo_id);
                CREATE TABLE embeddings (
                    photo_id TEXT PRIMARY KEY REFERENCES photos(id) ON DELETE CASCADE,
                    vector BLOB NOT NULL
                );
                CREATE TABLE people (
                    photo_id TEXT NOT NULL REFERENCES photos(id) ON DELETE CASCADE,
                    name TEXT NOT NULL,
                    PRIMARY KEY (photo_id, name)
                ) WITHOUT ROWID;
                CREATE INDEX idx_people_name ON people(name COLLATE NOCASE);
                CREATE TABLE faces (
                    photo_id TEXT NOT NULL REFERENCES photos(id) ON DELETE CASCADE,
                    ordinal INTEGER NOT NULL,
                    name TEXT,
                    x REAL NOT NULL, y REAL NOT NULL, w REAL NOT NULL, h REAL NOT NULL,
                    PRIMARY KEY (photo_id, ordinal)
                ) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("v2: covering index for year collages") { db in
            // A year's candidates are read from this index alone, without a lookup into the
            // table per photo; it also serves every lookup by year, so it replaces the old index.
            try db.execute(sql: """
                DROP INDEX idx_photos_year;
                CREATE INDEX idx_photos_year_candidates ON photos(year, error, id, taken_at, quality, phash);
                """)
        }
        return migrator
    }

    func read<T>(_ body: (Database) throws -> T) throws(PhotoIndexError) -> T {
        do { return try pool.read(body) } catch { throw .database(path: path, cause: error) }
    }

    func write<T>(_ body: (Database) throws -> T) throws(PhotoIndexError) -> T {
        do { return try pool.write(body) } catch { throw .database(path: path, cause: error) }
    }

    static func nanoseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1_000_000_000).rounded()) }

    /// Inserts or replaces `photo` with its people and faces, in `db`'s transaction.
    static func save(_ photo: IndexedPhoto, in db: Database) throws {
        let keywords = String(decoding: (try? JSONEncoder().encode(photo.keywords)) ?? Data("[]".utf8), as: UTF8.self)
        let year: Int? = photo.takenAt.map { date in
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(secondsFromGMT: photo.utcOffset ?? 0) ?? TimeZone(identifier: "UTC")!
            return calendar.component(.year, from: date)
        }
        try db.execute(sql: "DELETE FROM photos WHERE path = ? AND id != ?", arguments: [photo.path, photo.id])
        try db.execute(sql: """
            INSERT OR REPLACE INTO photos (id, path, size, modified_ns, image_hash, kind, taken_at, utc_offset, date_trusted, year,
                latitude, longitude, place, width, height, orientation, keywords, quality, phash, rating, favorite, error, indexed_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [
                photo.id, photo.path, photo.size, nanoseconds(photo.modified), photo.imageHash, photo.kind?.rawValue,
                photo.takenAt?.timeIntervalSince1970, photo.utcOffset, photo.dateTrusted, year,
                photo.latitude, photo.longitude, photo.place, photo.width, photo.height, photo.orientation, keywords, photo.quality,
                photo.perceptualHash.map { Int64(bitPattern: $0) }, photo.rating, photo.favorite, photo.error, Date().timeIntervalSince1970,
            ])
        // Embeddings live in their own table, so scans of the photos table stay small.
        if let embedding = photo.embedding {
            try db.execute(sql: "INSERT OR REPLACE INTO embeddings (photo_id, vector) VALUES (?, ?)",
                           arguments: [photo.id, Data(HalfFloat.encode(embedding))])
        } else {
            try db.execute(sql: "DELETE FROM embeddings WHERE photo_id = ?", arguments: [photo.id])
        }
        // Each comma-separated part of the place name, lower-cased, for indexed place lookups.
        try db.execute(sql: "DELETE FROM place_parts WHERE photo_id = ?", arguments: [photo.id])
        for part in Set(placeParts(photo.place ?? "")) {
            try db.execute(sql: "INSERT INTO place_parts (photo_id, part) VALUES (?, ?)", arguments: [photo.id, part])
        }
        try db.execute(sql: "DELETE FROM people WHERE photo_id = ?", arguments: [photo.id])
        for name in Set(photo.people) {
            try db.execute(sql: "INSERT INTO people (photo_id, name) VALUES (?, ?)", arguments: [photo.id, name])
        }
        try db.execute(sql: "DELETE FROM faces WHERE photo_id = ?", arguments: [photo.id])
        for (ordinal, face) in photo.faces.enumerated() {
            try db.execute(sql: "INSERT INTO faces (photo_id, ordinal, name, x, y, w, h) VALUES (?, ?, ?, ?, ?, ?, ?)",
                           arguments: [photo.id, ordinal, face.name, face.x, face.y, face.width, face.height])
        }
    }

    /// Saves `photos` (inserted, or replacing the rows with the same id or path), in one transaction.
    public func save(_ photos: [IndexedPhoto]) throws(PhotoIndexError) {
        try write { db in for photo in photos { try Self.save(photo, in: db) } }
    }

    /// Moves the write-ahead log into the database file, so the file's size is the index's size.
    public func checkpoint() throws(PhotoIndexError) {
        do { _ = try pool.writeWithoutTransaction { db in try db.checkpoint(.truncate) } } catch { throw .database(path: path, cause: error) }
    }

    /// The lower-cased, trimmed comma-separated parts of a place name.
    static func placeParts(_ place: String) -> [String] {
        place.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
    }

    /// The photo stored at `path`, if indexed.
    public func photo(atPath path: String) throws(PhotoIndexError) -> IndexedPhoto? {
        try read { db in try Row.fetchOne(db, sql: "SELECT * FROM photos WHERE path = ?", arguments: [path]).map { try Self.photo(from: $0, db: db) } }
    }

    /// Every indexed photo, by path.
    public func allPhotos() throws(PhotoIndexError) -> [IndexedPhoto] {
        try read { db in try Row.fetchAll(db, sql: "SELECT * FROM photos ORDER BY path").map { try Self.photo(from: $0, db: db) } }
    }

    static func photo(from row: Row, db: Database) throws -> IndexedPhoto {
        let id: String = row["id"]
        let people = try String.fetchAll(db, sql: "SELECT name FROM people WHERE photo_id = ? ORDER BY name", arguments: [id])
        let faces = try Row.fetchAll(db, sql: "SELECT * FROM faces WHERE photo_id = ? ORDER BY ordinal", arguments: [id]).map {
            FaceBox(name: $0["name"], x: $0["x"], y: $0["y"], width: $0["w"], height: $0["h"])
        }
        let keywordsText: String = row["keywords"]
        let embedding = try Data.fetchOne(db, sql: "SELECT vector FROM embeddings WHERE photo_id = ?", arguments: [id])
        let phash: Int64? = row["phash"]
        let taken: Double? = row["taken_at"]
        let modified: Int64 = row["modified_ns"]
        return IndexedPhoto(
            id: id, path: row["path"], size: row["size"], modified: Date(timeIntervalSince1970: Double(modified) / 1_000_000_000),
            imageHash: row["image_hash"], kind: (row["kind"] as String?).flatMap(PhotoFileKind.init(rawValue:)),
            takenAt: taken.map(Date.init(timeIntervalSince1970:)), utcOffset: row["utc_offset"], dateTrusted: row["date_trusted"],
            latitude: row["latitude"], longitude: row["longitude"], place: row["place"], width: row["width"], height: row["height"],
            orientation: row["orientation"], keywords: (try? JSONDecoder().decode([String].self, from: Data(keywordsText.utf8))) ?? [],
            people: people, faces: faces, quality: row["quality"], perceptualHash: phash.map { UInt64(bitPattern: $0) },
            rating: row["rating"], favorite: row["favorite"], embedding: embedding.map { HalfFloat.decode([UInt8]($0)) }, error: row["error"])
    }
}

extension PhotoIndexError {
    /// `database` for an error caught around GRDB: SQLite's own message and result code (not GRDB's
    /// description, which quotes the SQL), a failed system call's phrase and `errno`; retryable when
    /// the database was busy or locked, or the system call failed transiently. Our own errors pass through.
    static func database(path: String, cause: any Error) -> PhotoIndexError {
        switch cause {
        case let error as PhotoIndexError: error
        case let error as DatabaseError:
            .database(path: path, reason: error.message ?? "SQLite error \(error.resultCode.rawValue)", libraryCode: error.extendedResultCode.rawValue,
                      isRetryable: error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED)
        case let error as SystemError: .database(path: path, reason: error.reason, systemCode: error.systemCode, isRetryable: error.isTransient)
        default: .database(path: path, reason: String(describing: cause))
        }
    }
}
