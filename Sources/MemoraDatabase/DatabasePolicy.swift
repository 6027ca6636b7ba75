package import GRDB
internal import MemoraSystem

/// How Memora opens every SQLite database it owns (the caption database, the photo index, the
/// vault catalogue, the sync replica, the server's store): one policy, so that a rule made for one
/// holds for all. Docs/Architecture.md, "Databases", gives each rule and its reason.
///
/// - The file is 0600 and its folder 0700 before SQLite opens it (captions, names, places and
///   face embeddings are private), with its `-wal` and `-shm` files.
/// - A busy database is waited for, up to ten seconds, before `SQLITE_BUSY` is thrown: the CLI,
///   a scheduler and a server may share one.
/// - Foreign keys are enforced.
/// - `secure_delete` is on: a deleted row (a removed caption, a forgotten face, a wrapped key) is
///   overwritten with zeros, not left readable in a free page.
/// - A database that a newer Memora migrated further (a migration this build does not know) is
///   refused with ``DatabaseTooNew`` and left untouched, never opened and half-understood.
package enum DatabasePolicy {
    /// The connection settings of the policy.
    package static var configuration: Configuration {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA secure_delete = ON") }
        return configuration
    }

    /// Opens (creating as needed) the database at `path` in WAL mode, for readers beside one writer,
    /// and migrates it. `tighteningFolder` also makes an existing folder 0700 (a folder Memora owns).
    package static func openPool(at path: String, migrator: DatabaseMigrator, tighteningFolder: Bool = false) throws -> DatabasePool {
        try FileSystem.preparePrivateDatabase(path, tighteningFolder: tighteningFolder)
        let lock = try openingLock(path)
        defer { lock.unlock() }
        try refuseNewer(path, migrator: migrator)  // before the pool switches the file to WAL
        let pool = try DatabasePool(path: path, configuration: configuration)
        try migrate(pool, with: migrator, path: path)
        return pool
    }

    /// Opens (creating as needed) the database at `path` with a rollback journal (no `-wal` file
    /// that could keep deleted rows until a checkpoint; the vault catalogue's choice), and migrates it.
    package static func openQueue(at path: String, migrator: DatabaseMigrator) throws -> DatabaseQueue {
        try FileSystem.preparePrivateDatabase(path)
        let lock = try openingLock(path)
        defer { lock.unlock() }
        // Opening a queue writes nothing, and its connection rolls back a journal a crash left
        // (a read-only look first could not, and would refuse the database for good).
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        try migrate(queue, with: migrator, path: path)
        return queue
    }

    /// The lock on `PATH-open.lock` (0600) held while a process opens and migrates the file: switching
    /// a new file to WAL is refused while another connection does it ("database is locked"), and GRDB's
    /// migrator reads which migrations ran, then runs each of the others in its own transaction, so
    /// two processes opening a new file at once (two servers starting together on one folder) would
    /// both run the first one.
    private static func openingLock(_ path: String) throws -> FileLock {
        try FileLock(path + "-open.lock", .exclusive)
    }

    private static func migrate(_ writer: any DatabaseWriter, with migrator: DatabaseMigrator, path: String) throws {
        if try writer.read({ db in try migrator.hasBeenSuperseded(db) }) { throw DatabaseTooNew(path: path) }
        try migrator.migrate(writer)
    }

    /// Refuses a database a newer Memora migrated further before a pool opens it to write (the pool
    /// would switch it to WAL first, changing its header). Best effort: when a read-only look cannot
    /// read it (a journal a crash left needs a writer to roll it back), the check after opening,
    /// on the pool itself, still refuses it.
    private static func refuseNewer(_ path: String, migrator: DatabaseMigrator) throws {
        guard let status = FileSystem.statusIfPresent(of: path), status.size > 0 else { return }
        var readOnly = configuration  // with the busy timeout: a running writer may hold a lock
        readOnly.readonly = true
        let superseded: Bool
        do {
            let look = try DatabaseQueue(path: path, configuration: readOnly)
            defer { try? look.close() }
            superseded = try look.read { db in try migrator.hasBeenSuperseded(db) }
        } catch {
            return
        }
        if superseded { throw DatabaseTooNew(path: path) }
    }
}

/// A database that a newer version of Memora migrated further than this build knows: it is left
/// as it is. Each module turns it into its own error ("written by a newer Memora; update Memora").
package struct DatabaseTooNew: Error, Sendable, Hashable, CustomStringConvertible {
    /// The database file.
    package var path: String

    /// The error for the database at `path`.
    package init(path: String) { self.path = path }

    /// The message.
    package var description: String { "\(path) was written by a newer version of Memora; update Memora to open it" }
}
