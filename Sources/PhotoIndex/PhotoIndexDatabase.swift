import Foundation
public import MemoraSystem
import GRDB
import MemoraDatabase

/// The photo index: one SQLite file through GRDB (WAL, migrations). Schema in `Docs/PhotoIndex.md`.
public final class PhotoIndexDatabase: Sendable {
    let pool: DatabasePool
    /// The database file.
    public let path: String
    /// Where the time of what is recorded is read (when a photo was indexed, a person made).
    public let clock: any MemoraClock

    /// Opens (creating and migrating as needed) the index at `path`.
    public convenience init(path: String) throws(PhotoIndexError) {
        try self.init(path: path, creatingIfMissing: true)
    }

    /// Opens the index at `path`, migrating it as needed. Without `creatingIfMissing`, an index
    /// that does not exist yet (no file, or an empty one) is not created: `PhotoIndexError.noIndex(path:isEmpty:)`
    /// is thrown and nothing is written, which is what a reader of the index (a collage) wants.
    /// `clock` stamps what the index records (the system's unless a test moves time).
    public init(path: String, creatingIfMissing: Bool = true, clock: any MemoraClock = SystemClock()) throws(PhotoIndexError) {
        self.path = path
        self.clock = clock
        if !creatingIfMissing {
            guard let status = FileSystem.statusIfPresent(of: path), status.size > 0 else { throw .noIndex(path: path) }
        }
        do {
            pool = try DatabasePolicy.openPool(at: path, migrator: Self.migrator)  // names, places, faces and their embeddings: 0600
        } catch {
            throw .database(path: path, cause: error)
        }
    }

    /// `$XDG_DATA_HOME/memora/index.sqlite` (or `$HOME/.local/share/memora/index.sqlite`).
    public static var defaultPath: String {
        ApplicationFolders().data + "/index.sqlite"
    }

    /// The index's migrations, oldest first. Each table's schema and its changes live in its
    /// record type (`IndexedPhotoRecord.swift`, `PhotoDetailRecords.swift`). A migration never
    /// changes once released: a change to a table is a new migration, registered last, that
    /// converts the rows in place.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try IndexedPhotoRecord.createV1(db)
            for table in [PlacePartRecord.self, EmbeddingRecord.self, PhotoPersonRecord.self, FaceRecord.self] as [any PhotoDetailRecord.Type] {
                try db.execute(sql: table.schema)
            }
        }
        migrator.registerMigration("v2: covering index for year collages") { db in try IndexedPhotoRecord.coverYearCandidates(db) }
        migrator.registerMigration("v3: instants in milliseconds") { db in try IndexedPhotoRecord.storeInstantsInMilliseconds(db) }
        migrator.registerMigration("v4: sidecar modification times") { db in try IndexedPhotoRecord.addSidecarStamp(db) }
        migrator.registerMigration("v5: faces and scenes from the pixels") { db in
            try PersonRecord.create(db)
            try ThemeClustering.create(db)
            try FaceRecord.addDetection(db)
            try IndexedPhotoRecord.addSceneLabels(db)
        }
        migrator.registerMigration("v6: faces pinned to a person by a user") { db in try PinnedFaceRecord.create(db) }
        migrator.registerMigration("v7: people merged by a user") { db in try PersonRecord.addMergedByUser(db) }
        migrator.registerMigration("v8: the subject and the text from the pixels") { db in try IndexedPhotoRecord.addSubjectAndText(db) }
        return migrator
    }

    func read<T>(_ body: (Database) throws -> T) throws(PhotoIndexError) -> T {
        do { return try pool.read(body) } catch { throw .database(path: path, cause: error) }
    }

    func write<T>(_ body: (Database) throws -> T) throws(PhotoIndexError) -> T {
        do { return try pool.write(body) } catch { throw .database(path: path, cause: error) }
    }

    static func nanoseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1_000_000_000).rounded()) }

    /// Inserts or replaces `photo` with its people and faces, indexed at `date`, in `db`'s transaction.
    static func save(_ photo: IndexedPhoto, sidecarModified: Date? = nil, at date: Date, in db: Database) throws {
        try IndexedPhotoRecord.save(photo, sidecarModified: sidecarModified, at: date, in: db)
    }

    /// Saves `photos` (inserted, or replacing the rows with the same id or path), in one transaction.
    public func save(_ photos: [IndexedPhoto]) throws(PhotoIndexError) {
        let now = clock.now()
        try write { db in for photo in photos { try Self.save(photo, at: now, in: db) } }
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
        try read { db in try IndexedPhotoRecord.filter(IndexedPhotoRecord.Columns.path == path).fetchOne(db)?.photo(in: db) }
    }

    /// How many photos the index holds, readable or not.
    public func photoCount() throws(PhotoIndexError) -> Int {
        try read { db in try IndexedPhotoRecord.fetchCount(db) }
    }

    /// Every indexed photo, by path.
    public func allPhotos() throws(PhotoIndexError) -> [IndexedPhoto] {
        try read { db in try IndexedPhotoRecord.order(IndexedPhotoRecord.Columns.path).fetchAll(db).map { try $0.photo(in: db) } }
    }
}

extension PhotoIndexError {
    /// `database` for an error caught around GRDB: SQLite's own message and result code (not GRDB's
    /// description, which quotes the SQL), a failed system call's phrase and `errno`; retryable when
    /// the database was busy or locked, or the system call failed transiently. Our own errors pass through.
    static func database(path: String, cause: any Error) -> PhotoIndexError {
        if let error = cause as? PhotoIndexError { return error }
        let failure = DatabaseFailure(cause)
        return .database(path: path, reason: failure.reason, systemCode: failure.systemCode, libraryCode: failure.libraryCode,
                         isRetryable: failure.isRetryable)
    }
}
