public import Foundation
public import MemoraSystem
import GRDB
import MemoraDatabase
public import MemoraSync

/// Memora's local SQLite database (GRDB, WAL): the seed's `processing_queue`,
/// single-row `preferences`, plus `caption_history`, `operations`, the sync replica's tables,
/// `original_metadata`, `scan_state` and `error_logs`. The schema is in `Docs/Captioning.md`.
public final class CaptionDatabase: Sendable {
    let pool: DatabasePool
    /// The database file.
    public let path: String
    /// Where the time of what is recorded is read (queue, history, preferences, error reports).
    public let clock: any MemoraClock

    /// Opens (creating and migrating as needed) the database at `path`; `clock` stamps what it records
    /// (the system's unless a test moves time).
    public init(path: String, clock: any MemoraClock = SystemClock()) throws(MemoraError) {
        self.path = path
        self.clock = clock
        do {
            pool = try DatabasePolicy.openPool(at: path, migrator: Self.migrator(clock: clock))  // captions and history: 0600
        } catch {
            throw .database(error, opening: path)
        }
    }

    /// `$XDG_DATA_HOME/memora/memora.sqlite` (or `$HOME/.local/share/memora/memora.sqlite`).
    public static var defaultPath: String {
        ApplicationFolders().data + "/memora.sqlite"
    }

    /// The six columns `caption_history` has had since v1: v1 created them and v2 kept them when it
    /// rebuilt the table to widen `kind`'s CHECK (SQLite cannot alter one). Text of two released
    /// migrations, so it never changes: the tests pin the schema each migration builds. Joined with
    /// the indentation of the lines around it, so both run the bytes they ran when they were released.
    private static let historyColumnsSinceV1 = [
        "id INTEGER PRIMARY KEY AUTOINCREMENT,", "asset_id TEXT NOT NULL,", "caption TEXT,", "alt_text TEXT,", "model_used TEXT NOT NULL,",
        "was_manual_edit INTEGER NOT NULL DEFAULT 0,",
    ].joined(separator: "\n    ")

    static func migrator(clock: any MemoraClock) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE processing_queue (
                    id TEXT PRIMARY KEY,
                    asset_id TEXT UNIQUE NOT NULL,
                    asset_uri TEXT NOT NULL,
                    status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'processing', 'completed', 'failed')),
                    caption TEXT,
                    alt_text TEXT,
                    model_used TEXT,
                    error_message TEXT,
                    retry_count INTEGER DEFAULT 0,
                    force INTEGER NOT NULL DEFAULT 0,
                    created_at INTEGER NOT NULL,
                    updated_at INTEGER NOT NULL
                );
                CREATE INDEX idx_queue_status ON processing_queue(status);
                CREATE INDEX idx_queue_updated ON processing_queue(updated_at);
                CREATE TABLE preferences (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    background_enabled INTEGER DEFAULT 1,
                    ai_mode TEXT DEFAULT 'on-device',
                    auto_process_new INTEGER DEFAULT 1,
                    process_existing INTEGER DEFAULT 0,
                    wifi_only INTEGER DEFAULT 1,
                    charging_only INTEGER DEFAULT 0,
                    updated_at INTEGER NOT NULL
                );
                CREATE TABLE sync_state (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    last_pull_at INTEGER,
                    last_push_at INTEGER,
                    pending_push INTEGER DEFAULT 0
                );
                CREATE TABLE caption_history (
                    \(Self.historyColumnsSinceV1)
                    kind TEXT NOT NULL CHECK (kind IN ('generated', 'manual', 'rollback')),
                    created_at INTEGER NOT NULL
                );
                CREATE INDEX idx_caption_history_asset_created ON caption_history(asset_id, created_at);
                CREATE TABLE original_metadata (
                    asset_id TEXT PRIMARY KEY,
                    snapshot BLOB NOT NULL,
                    caption TEXT,
                    alt_text TEXT,
                    created_at INTEGER NOT NULL
                );
                CREATE TABLE scan_state (
                    root TEXT PRIMARY KEY,
                    last_scan_at INTEGER NOT NULL
                );
                CREATE TABLE error_logs (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    asset_id TEXT,
                    error_type TEXT NOT NULL,
                    error_message TEXT,
                    context TEXT,
                    created_at INTEGER NOT NULL
                );
                CREATE INDEX idx_error_logs_created ON error_logs(created_at);
                """)
            try db.execute(sql: "INSERT INTO preferences (id, updated_at) VALUES (1, ?)", arguments: [clock.milliseconds()])
            try db.execute(sql: "INSERT INTO sync_state (id) VALUES (1)")
        }
        // v2: one history for every write. `caption_history` also records `metadata write` and
        // location strips, and each entry keeps the metadata it replaced (`snapshot`, NULL for the
        // first entry, whose snapshot is the original's, and for entries recorded before v2).
        // `pending` is 1 from just before the photo is replaced until the write is confirmed.
        migrator.registerMigration("v2") { db in
            try db.execute(sql: """
                CREATE TABLE caption_history_v2 (
                    \(Self.historyColumnsSinceV1)
                    kind TEXT NOT NULL CHECK (kind IN ('generated', 'manual', 'rollback', 'metadata-write', 'strip-location')),
                    snapshot BLOB,
                    pending INTEGER NOT NULL DEFAULT 0,
                    created_at INTEGER NOT NULL
                );
                INSERT INTO caption_history_v2 (id, asset_id, caption, alt_text, model_used, was_manual_edit, kind, created_at)
                    SELECT id, asset_id, caption, alt_text, model_used, was_manual_edit, kind, created_at FROM caption_history;
                DROP TABLE caption_history;
                ALTER TABLE caption_history_v2 RENAME TO caption_history;
                CREATE INDEX idx_caption_history_asset_created ON caption_history(asset_id, created_at);
                """)
        }
        // v3: operations, and the queue's intent keeps the extended description too (a photo finished
        // after a crash gets the same three texts as one finished at once). Each command that writes (a caption run, `metadata write`, a strip, an edit,
        // a restore) is one operation; its entries carry its id, so a restore undoes the last
        // operation on the files it touched, not the last write to every file it is given.
        migrator.registerMigration("v3") { db in
            try db.execute(sql: """
                CREATE TABLE operations (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    kind TEXT NOT NULL,
                    created_at INTEGER NOT NULL
                );
                ALTER TABLE caption_history ADD COLUMN operation_id INTEGER REFERENCES operations(id);
                CREATE INDEX idx_caption_history_operation ON caption_history(operation_id);
                ALTER TABLE processing_queue ADD COLUMN extended_description TEXT;
                """)
        }
        // Sync (Docs/Sync.md): the replica's tables (the server's records, the outbox) live here so
        // that a local change and its queued mutation commit together.
        SyncReplica.registerMigrations(in: &migrator)
        // v4: the seed's single-row `sync_state` (last pull and push times) was never read: the
        // replica's own tables keep where sync stands.
        migrator.registerMigration("v4") { db in
            try db.execute(sql: "DROP TABLE sync_state")
        }
        return migrator
    }

    /// The sync replica in this database: the outbox and the records pulled from a Memora server.
    public var syncReplica: SyncReplica { SyncReplica(writer: pool) }

    func read<T>(_ body: (Database) throws -> T) throws(MemoraError) -> T {
        do { return try pool.read(body) } catch { throw .database(error) }
    }

    func write<T>(_ body: (Database) throws -> T) throws(MemoraError) -> T {
        do { return try pool.write(body) } catch { throw .database(error) }
    }

    /// Records an error in `error_logs` (best effort: a logging failure is not an error of its own).
    public func logError(asset: String?, type: String, message: String, context: [String: String] = [:]) {
        let json = (try? JSONSerialization.data(withJSONObject: context, options: [.sortedKeys])).map { String(decoding: $0, as: UTF8.self) }
        _ = try? write { db in
            try ErrorLogRecord(assetID: asset, errorType: type, errorMessage: message, context: json, createdAt: clock.now()).insert(db)
            try CaptionSync.queueError(db.lastInsertedRowID, in: db)
        }
    }

    /// The most recent error log entries, newest first.
    public func recentErrors(limit: Int = 20) throws(MemoraError) -> [ErrorLogEntry] {
        try read { db in try ErrorLogRecord.order(Column("id").desc).limit(limit).fetchAll(db).map(\.entry) }
    }
}

extension MemoraError {
    /// `queryFailed`, or `openFailed` when `opening` the database at that path, for an error caught
    /// around GRDB: SQLite's own message and result code (not GRDB's description, which quotes the
    /// SQL), a failed system call's phrase and `errno`; retryable when the database was busy or
    /// locked, or the system call failed transiently. Our own errors pass through.
    static func database(_ cause: any Error, opening path: String? = nil) -> MemoraError {
        if let error = cause as? MemoraError { return error }
        let failure = DatabaseFailure(cause, describing: MemoraError.reason(of:))
        guard let path else {
            return .queryFailed(reason: failure.reason, systemCode: failure.systemCode, libraryCode: failure.libraryCode, isRetryable: failure.isRetryable)
        }
        return .openFailed(path: path, reason: failure.reason, systemCode: failure.systemCode, libraryCode: failure.libraryCode,
                           isRetryable: failure.isRetryable)
    }
}

/// One row of `error_logs`.
public struct ErrorLogEntry: Sendable, Hashable, Codable {
    /// The photo, when the error concerned one.
    public var asset: String?
    /// A short category (`generation`, `write`, `read`…).
    public var type: String
    /// The message.
    public var message: String?
    /// When it happened.
    public var date: Date
}
