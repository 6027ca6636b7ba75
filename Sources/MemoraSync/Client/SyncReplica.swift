internal import Foundation
package import GRDB
internal import MemoraDatabase
internal import MemoraSystem
internal import MemoraHTTP

/// A device's copy of the synced data, and its outbox (Docs/Sync.md, "Client").
///
/// Local changes go to the outbox in the same transaction as the change itself; the replica keeps
/// the records as the server last sent them (`sync_rows`) and shows them with the device's unpushed
/// changes laid over (``records(in:)``): the server wins, but a record with unacknowledged changes
/// keeps them until the server has processed their push. Pulled pages and their cursor are written
/// in one transaction, so a crash at any point leaves the replica at one page or the next.
public final class SyncReplica: Sendable {
    let writer: any DatabaseWriter

    /// Opens (creating as needed) a replica in its own SQLite file.
    public init(path: String) throws(SyncError) {
        do {
            var migrator = DatabaseMigrator()
            Self.registerMigrations(in: &migrator)
            writer = try DatabasePolicy.openPool(at: path, migrator: migrator)
        } catch {
            throw .database("cannot open \(path): \(DatabaseFailure(error).reason)")
        }
    }

    /// A replica inside another database (the caption database), whose migrator ran
    /// `registerMigrations(in:)`.
    package init(writer: any DatabaseWriter) {
        self.writer = writer
    }

    /// Adds the replica's tables to a database's migrations.
    package static func registerMigrations(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("sync-v1") { db in
            try db.execute(sql: """
                CREATE TABLE sync_rows (
                    collection TEXT NOT NULL,
                    key TEXT NOT NULL,
                    version INTEGER NOT NULL,
                    deleted INTEGER NOT NULL DEFAULT 0,
                    fields TEXT NOT NULL,
                    PRIMARY KEY (collection, key)
                );
                CREATE TABLE sync_outbox (
                    mutation_id INTEGER PRIMARY KEY,
                    collection TEXT NOT NULL,
                    key TEXT NOT NULL,
                    op TEXT NOT NULL CHECK (op IN ('put', 'delete')),
                    fields TEXT NOT NULL,
                    base_version INTEGER
                );
                CREATE INDEX idx_sync_outbox_row ON sync_outbox(collection, key);
                CREATE TABLE sync_rejections (
                    mutation_id INTEGER PRIMARY KEY,
                    collection TEXT NOT NULL,
                    key TEXT NOT NULL,
                    code TEXT NOT NULL,
                    message TEXT NOT NULL
                );
                CREATE TABLE sync_client (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    device_id TEXT,
                    cursor TEXT,
                    last_acked INTEGER NOT NULL DEFAULT 0,
                    next_mutation_id INTEGER NOT NULL DEFAULT 1,
                    last_pull_at INTEGER,
                    last_push_at INTEGER
                );
                INSERT INTO sync_client (id) VALUES (1);
                """)
        }
    }

    func write<T: Sendable>(_ body: @Sendable (Database) throws -> T) throws(SyncError) -> T {
        do {
            return try writer.write(body)
        } catch let error as SyncError {
            throw error
        } catch {
            throw .database(DatabaseFailure(error).reason)
        }
    }

    func read<T: Sendable>(_ body: @Sendable (Database) throws -> T) throws(SyncError) -> T {
        do {
            return try writer.read(body)
        } catch let error as SyncError {
            throw error
        } catch {
            throw .database(DatabaseFailure(error).reason)
        }
    }

    // MARK: Local changes

    /// Creates or replaces a record (all its fields) and queues the change. Returns its mutation number.
    @discardableResult
    public func put(_ collection: SyncCollection, _ fields: [String: JSONValue]) throws(SyncError) -> Int64 {
        try write { db in try Self.enqueue(.put, collection, fields, in: db) }
    }

    /// Deletes a record (given by its key fields) and queues the change.
    @discardableResult
    public func delete(_ collection: SyncCollection, key fields: [String: JSONValue]) throws(SyncError) -> Int64 {
        try write { db in try Self.enqueue(.delete, collection, fields, in: db) }
    }

    /// Queues a put without this client's checks, as an older or foreign client would send it: the
    /// convergence simulation uses it to check that a server refuses such a change alone (a NUL in a
    /// field) while the device's other changes apply, on every store alike.
    @discardableResult
    package func putUnchecked(_ collection: SyncCollection, _ fields: [String: JSONValue]) throws(SyncError) -> Int64 {
        try write { db in try Self.enqueue(.put, collection, fields, checked: false, in: db) }
    }

    /// Queues a change inside the caller's transaction (the caption database's, with its own change).
    package static func enqueue(_ op: SyncMutation.Operation, _ collection: SyncCollection, _ fields: [String: JSONValue],
                                checked: Bool = true, in db: Database) throws -> Int64 {
        let problems = checked ? collection.validate(fields, path: collection.name, keyOnly: op == .delete) : []
        guard problems.isEmpty, let key = collection.key(of: fields) else {
            throw SyncError.invalidRecord(collection: collection.name, problems)
        }
        let id = try Int64.fetchOne(db, sql: "SELECT next_mutation_id FROM sync_client WHERE id = 1") ?? 1
        let base = try Int64.fetchOne(db, sql: "SELECT version FROM sync_rows WHERE collection = ? AND key = ?", arguments: [collection.name, key])
        try db.execute(sql: """
            INSERT INTO sync_outbox (mutation_id, collection, key, op, fields, base_version) VALUES (?, ?, ?, ?, ?, ?)
            """, arguments: [id, collection.name, key, op.rawValue, JSONValue.object(fields).jsonText, base])
        try db.execute(sql: "UPDATE sync_client SET next_mutation_id = ? WHERE id = 1", arguments: [id + 1])
        return id
    }

    /// The id of the device this replica syncs as, once it has joined a server.
    package static func deviceID(in db: Database) throws -> String? {
        try String.fetchOne(db, sql: "SELECT device_id FROM sync_client WHERE id = 1")
    }

    /// The id of the device this replica syncs as, nil before it joined a server.
    public func deviceID() throws(SyncError) -> String? {
        try read { db in try Self.deviceID(in: db) }
    }

    /// Records the device's id (on registration); returns whether it was new.
    func setDeviceID(_ id: String) throws(SyncError) -> Bool {
        try write { db in
            let old = try Self.deviceID(in: db)
            try db.execute(sql: "UPDATE sync_client SET device_id = ? WHERE id = 1", arguments: [id])
            return old != id
        }
    }

    // MARK: Reading

    /// The records of a collection as the device sees them: the server's, with unpushed changes laid
    /// over in order. Keyed by record key.
    public func records(in collection: SyncCollection) throws(SyncError) -> [String: [String: JSONValue]] {
        try read { db in
            var records: [String: [String: JSONValue]] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT key, fields FROM sync_rows WHERE collection = ? AND deleted = 0", arguments: [collection.name]) {
                if case .object(let fields)? = JSONValue(jsonText: row["fields"]) { records[row["key"]] = fields }
            }
            for row in try Row.fetchAll(db, sql: "SELECT key, op, fields FROM sync_outbox WHERE collection = ? ORDER BY mutation_id", arguments: [collection.name]) {
                let key: String = row["key"]
                if (row["op"] as String) == SyncMutation.Operation.delete.rawValue {
                    records[key] = nil
                } else if case .object(let fields)? = JSONValue(jsonText: row["fields"]) {
                    records[key] = fields.filter { $0.value != .null }
                }
            }
            return records
        }
    }

    /// The server's records of a collection as last pulled, with their versions (no local changes).
    public func confirmedRecords(in collection: SyncCollection) throws(SyncError) -> [String: (version: Int64, fields: [String: JSONValue])] {
        let rows = try read { db in
            try Row.fetchAll(db, sql: "SELECT key, version, fields FROM sync_rows WHERE collection = ? AND deleted = 0", arguments: [collection.name])
                .map { (key: $0["key"] as String, version: $0["version"] as Int64, fields: $0["fields"] as String) }
        }
        var records: [String: (version: Int64, fields: [String: JSONValue])] = [:]
        for row in rows {
            if case .object(let fields)? = JSONValue(jsonText: row.fields) { records[row.key] = (row.version, fields) }
        }
        return records
    }

    /// The unpushed changes, oldest first, at most `limit`.
    public func pending(limit: Int = PushRequest.maxMutations) throws(SyncError) -> [SyncMutation] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM sync_outbox ORDER BY mutation_id LIMIT ?", arguments: [limit]).map { row in
                let fields: [String: JSONValue]
                if case .object(let values)? = JSONValue(jsonText: row["fields"]) { fields = values } else { fields = [:] }
                return SyncMutation(id: row["mutation_id"], collection: row["collection"],
                                    op: SyncMutation.Operation(rawValue: row["op"]) ?? .put, fields: fields, baseVersion: row["base_version"])
            }
        }
    }

    /// How many changes wait to be pushed.
    public func pendingCount() throws(SyncError) -> Int {
        try read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sync_outbox") ?? 0 }
    }

    /// The changes the server refused for good: what they were and why.
    public func rejections() throws(SyncError) -> [MutationResult] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM sync_rejections ORDER BY mutation_id").map { row in
                MutationResult(id: row["mutation_id"], status: .rejected, error: APIError(code: row["code"], message: row["message"]))
            }
        }
    }

    /// The cursor of the last pulled page, nil before the first pull.
    public func cursor() throws(SyncError) -> String? {
        try read { db in try String.fetchOne(db, sql: "SELECT cursor FROM sync_client WHERE id = 1") }
    }

    // MARK: Applying the server's answers

    /// Drops the acknowledged changes (up to `lastMutationID`) and records the refused ones.
    func acknowledge(_ lastMutationID: Int64, results: [MutationResult], now: Int64) throws(SyncError) {
        try write { db in
            for result in results where result.status == .rejected && result.id <= lastMutationID {
                guard let row = try Row.fetchOne(db, sql: "SELECT collection, key FROM sync_outbox WHERE mutation_id = ?", arguments: [result.id]) else { continue }
                try db.execute(sql: "INSERT OR REPLACE INTO sync_rejections (mutation_id, collection, key, code, message) VALUES (?, ?, ?, ?, ?)",
                               arguments: [result.id, row["collection"] as String, row["key"] as String, result.error?.code ?? "rejected", result.error?.message ?? ""])
            }
            try Self.dropAcknowledged(lastMutationID, in: db)
            try db.execute(sql: "UPDATE sync_client SET last_push_at = ? WHERE id = 1", arguments: [now])
        }
    }

    private static func dropAcknowledged(_ lastMutationID: Int64, in db: Database) throws {
        try db.execute(sql: "DELETE FROM sync_outbox WHERE mutation_id <= ?", arguments: [lastMutationID])
        try db.execute(sql: "UPDATE sync_client SET last_acked = MAX(last_acked, ?), next_mutation_id = MAX(next_mutation_id, ? + 1) WHERE id = 1",
                       arguments: [lastMutationID, lastMutationID])
    }

    /// Numbers the unpushed changes again from `first` (after the server said it expects `first`: it
    /// lost mutations it had acknowledged, for example restored from a backup).
    func renumberPending(from first: Int64) throws(SyncError) {
        try write { db in
            let ids = try Int64.fetchAll(db, sql: "SELECT mutation_id FROM sync_outbox ORDER BY mutation_id")
            guard let lowest = ids.first, lowest != first else { return }
            // Two steps through negative numbers so no two rows ever share a number.
            try db.execute(sql: "UPDATE sync_outbox SET mutation_id = -mutation_id")
            for (offset, id) in ids.enumerated() {
                try db.execute(sql: "UPDATE sync_outbox SET mutation_id = ? WHERE mutation_id = ?", arguments: [first + Int64(offset), -id])
            }
            try db.execute(sql: "UPDATE sync_client SET next_mutation_id = ?, last_acked = ? WHERE id = 1",
                           arguments: [first + Int64(ids.count), first - 1])
        }
    }

    /// Applies a pulled page and its cursor in one transaction. A reset drops every pulled record first.
    func apply(_ page: PullResponse, now: Int64) throws(SyncError) {
        try write { db in
            if page.reset {
                try db.execute(sql: "DELETE FROM sync_rows")
            } else if let old = try String.fetchOne(db, sql: "SELECT cursor FROM sync_client WHERE id = 1"),
                      let oldCursor = SyncCursor(old), let newCursor = SyncCursor(page.cursor),
                      oldCursor.epoch == newCursor.epoch, newCursor.version < oldCursor.version {
                throw SyncError.malformedResponse("the server's cursor went backwards (\(newCursor.version) after \(oldCursor.version))")
            }
            // Tombstones are kept (fields empty): a record the device deletes and creates again is
            // based on the deletion's version, which the server takes as "seen the delete".
            for change in page.changes {
                try db.execute(sql: """
                    INSERT INTO sync_rows (collection, key, version, deleted, fields) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT(collection, key) DO UPDATE SET version = excluded.version, deleted = excluded.deleted, fields = excluded.fields
                    WHERE excluded.version >= sync_rows.version
                    """, arguments: [change.collection, change.key, change.version, change.deleted,
                                     change.deleted ? "{}" : JSONValue.object(change.fields).jsonText])
            }
            try Self.dropAcknowledged(page.lastMutationId, in: db)
            try db.execute(sql: "UPDATE sync_client SET cursor = ?, last_pull_at = ? WHERE id = 1", arguments: [page.cursor, now])
        }
    }
}
