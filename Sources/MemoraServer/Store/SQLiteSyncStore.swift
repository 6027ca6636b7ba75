internal import Foundation
internal import GRDB
internal import MemoraDatabase
public import MemoraSync
internal import MemoraSystem

/// The default store: one SQLite file (WAL), nothing to start. One writer at a time, so a version
/// taken from the counter inside a write transaction is in commit order (Docs/Sync.md, "Pull").
public final class SQLiteSyncStore: SyncStore {
    public var kind: String { "sqlite" }
    let pool: DatabasePool
    let epoch: String
    /// The database file.
    public let path: String

    /// Opens (creating and migrating as needed) the store at `path`.
    public init(path: String) throws(ServerError) {
        self.path = path
        do {
            // The database 0600 before SQLite opens it (issue 31: a pre-made 0755 folder gave a 0644
            // database of people, places and face embeddings); the server's own folder is
            // tightened by ServerData.
            pool = try DatabasePolicy.openPool(at: path, migrator: Self.migrator)
            epoch = try pool.read { db in try String.fetchOne(db, sql: "SELECT value FROM meta WHERE name = 'epoch'") } ?? ""
        } catch {
            throw .storage("cannot open \(path): \(DatabaseFailure(error).reason)")
        }
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            for statement in SyncTableSQL.protocolTables(dialect: .sqlite) { try db.execute(sql: statement) }
            for collection in SyncSchema.collections {
                for statement in SyncTableSQL.create(collection, dialect: .sqlite) { try db.execute(sql: statement) }
            }
            try db.execute(sql: "INSERT INTO sync_counter (id, value) VALUES (1, 0)")
            try db.execute(sql: "INSERT INTO meta (name, value) VALUES ('epoch', ?), ('horizon', '0')", arguments: [ServerSecrets.randomToken(bytes: 12)])
        }
        return migrator
    }

    private func write<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws(ServerError) -> T {
        do {
            return try await pool.write(body)
        } catch let error as ServerError {
            throw error
        } catch {
            throw .storage(DatabaseFailure(error).reason)
        }
    }

    private func read<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws(ServerError) -> T {
        do {
            return try await pool.read(body)
        } catch let error as ServerError {
            throw error
        } catch {
            throw .storage(DatabaseFailure(error).reason)
        }
    }

    // MARK: Devices

    public func register(deviceID: String, platform: String, tokenHash: String, expiresAt: Int64, now: Int64) async throws(ServerError) -> String {
        try await write { db in
            var registered = deviceID
            if let row = try Row.fetchOne(db, sql: "SELECT revoked_at, token_expires_at FROM devices WHERE device_id = ?", arguments: [deviceID]) {
                if (row["revoked_at"] as Int64?) != nil { throw ServerError.revoked }
                if (row["token_expires_at"] as Int64? ?? 0) <= now {
                    // The device's token has expired (a device offline for months): it comes back under its id.
                    try db.execute(sql: "UPDATE devices SET token_hash = ?, token_expires_at = ?, platform = ? WHERE device_id = ?",
                                   arguments: [tokenHash, expiresAt, platform, deviceID])
                    return deviceID
                }
                // Taken by a device whose token works: the newcomer gets an id of its own.
                repeat { registered = SyncCredentials.newDeviceID() }
                while try Bool.fetchOne(db, sql: "SELECT 1 FROM devices WHERE device_id = ?", arguments: [registered]) == true
            }
            try db.execute(sql: """
                INSERT INTO devices (id, device_id, platform, token_hash, token_expires_at, created_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """, arguments: [UUID().uuidString.lowercased(), registered, platform, tokenHash, expiresAt, now])
            return registered
        }
    }

    public func device(tokenHash: String, now: Int64) async throws(ServerError) -> String? {
        try await read { db in
            try String.fetchOne(db, sql: """
                SELECT device_id FROM devices WHERE token_hash = ? AND revoked_at IS NULL AND token_expires_at > ?
                """, arguments: [tokenHash, now])
        }
    }

    public func replaceToken(deviceID: String, tokenHash: String, expiresAt: Int64) async throws(ServerError) {
        try await write { db in
            try db.execute(sql: "UPDATE devices SET token_hash = ?, token_expires_at = ? WHERE device_id = ? AND revoked_at IS NULL",
                           arguments: [tokenHash, expiresAt, deviceID])
        }
    }

    public func revoke(deviceID: String, now: Int64) async throws(ServerError) -> Bool {
        try await write { db in
            try db.execute(sql: "UPDATE devices SET revoked_at = COALESCE(revoked_at, ?) WHERE device_id = ?", arguments: [now, deviceID])
            return db.changesCount > 0
        }
    }

    public func devices() async throws(ServerError) -> [RegisteredDevice] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM devices ORDER BY created_at, device_id").map { row in
                RegisteredDevice(deviceID: row["device_id"], platform: row["platform"], createdAt: row["created_at"],
                                 lastSyncAt: row["last_sync_at"], revokedAt: row["revoked_at"], lastMutationID: row["last_mutation_id"])
            }
        }
    }

    // MARK: Push and pull

    public func push(deviceID: String, mutations: [SyncMutation], now: Int64) async throws(ServerError) -> PushResponse {
        try await apply(deviceID: deviceID, mutations: mutations, numbered: true, now: now)
    }

    public func write(deviceID: String, mutation: SyncMutation, now: Int64) async throws(ServerError) -> MutationResult {
        let response = try await apply(deviceID: deviceID, mutations: [mutation], numbered: false, now: now)
        return response.results[0]
    }

    /// A push (`numbered`: in the device's mutation order, recorded) or one direct write (the
    /// preferences and error routes: outside that order, nothing recorded).
    private func apply(deviceID: String, mutations: [SyncMutation], numbered: Bool, now: Int64) async throws(ServerError) -> PushResponse {
        let touched = PushPlan.rowsTouched(by: mutations)
        let referenced = PushPlan.objectsReferenced(by: mutations)
        return try await write { db in
            let recorded = try Int64.fetchOne(db, sql: "SELECT last_mutation_id FROM devices WHERE device_id = ?", arguments: [deviceID]) ?? 0
            let last = numbered ? recorded : mutations[0].id - 1
            if let first = mutations.first(where: { $0.id > last }), first.id != last + 1 {
                throw ServerError.mutationGap(expected: last + 1)
            }
            var rows: [RowID: RowState] = [:]
            for row in touched {
                guard let collection = SyncSchema.collection(named: row.collection) else { continue }
                let owner = collection.ownerField.map { ", \($0) AS owner" } ?? ""
                if let found = try Row.fetchOne(db, sql: "SELECT version, deleted\(owner) FROM \(collection.name) WHERE key = ?", arguments: [row.key]) {
                    rows[row] = RowState(version: found["version"], deleted: found["deleted"], owner: collection.ownerField == nil ? nil : found["owner"])
                }
            }
            var rejected: [Int64: MutationResult] = [:]
            if let firstOld = mutations.first?.id, firstOld <= last {
                for row in try Row.fetchAll(db, sql: "SELECT mutation_id, error FROM mutation_rejections WHERE device_id = ? AND mutation_id BETWEEN ? AND ?",
                                            arguments: [deviceID, firstOld, last]) {
                    let id: Int64 = row["mutation_id"]
                    let error = try? JSONDecoder().decode(APIError.self, from: Data((row["error"] as String).utf8))
                    rejected[id] = MutationResult(id: id, status: .rejected, error: error)
                }
            }
            let uploaded = referenced.isEmpty ? [] : try Self.uploaded(referenced, in: db)
            let plan = PushPlan(device: deviceID, lastMutationID: last, mutations: mutations, rows: rows, earlierRejections: rejected,
                                horizon: try Self.horizon(db), missingObjects: referenced.subtracting(uploaded))
            if !plan.writes.isEmpty {
                let version = try Int64.fetchOne(db, sql: "UPDATE sync_counter SET value = value + 1 WHERE id = 1 RETURNING value")!
                for write in plan.writes { try Self.store(write, version: version, device: deviceID, now: now, in: db) }
            }
            guard numbered else { return PushResponse(lastMutationId: recorded, results: plan.results) }
            for rejection in plan.rejections {
                let text = String(decoding: try JSONEncoder().encode(rejection.error), as: UTF8.self)
                try db.execute(sql: "INSERT INTO mutation_rejections (device_id, mutation_id, error) VALUES (?, ?, ?)",
                               arguments: [deviceID, rejection.id, text])
            }
            try db.execute(sql: "UPDATE devices SET last_mutation_id = ?, last_sync_at = ? WHERE device_id = ?",
                           arguments: [plan.lastMutationID, now, deviceID])
            return PushResponse(lastMutationId: plan.lastMutationID, results: plan.results)
        }
    }

    private static func store(_ write: RowWrite, version: Int64, device: String, now: Int64, in db: Database) throws {
        guard let collection = SyncSchema.collection(named: write.row.collection) else { return }
        let names = collection.allFields.map(\.name)
        var arguments: [(any DatabaseValueConvertible)?] = [write.row.key]
        for field in collection.allFields { arguments.append(SQLiteValues.databaseValue(write.fields[field.name] ?? .null, kind: field.kind)) }
        arguments += [version, write.deleted, device, now]
        let columns = ["key"] + names + ["version", "deleted", "updated_by", "server_updated_at"]
        let updates = columns.dropFirst().map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        try db.execute(sql: """
            INSERT INTO \(collection.name) (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))
            ON CONFLICT(key) DO UPDATE SET \(updates)
            """, arguments: StatementArguments(arguments))
    }

    private static func horizon(_ db: Database) throws -> Int64 {
        Int64(try String.fetchOne(db, sql: "SELECT value FROM meta WHERE name = 'horizon'") ?? "0") ?? 0
    }

    private static func uploaded(_ hashes: Set<String>, in db: Database) throws -> Set<String> {
        var found = Set<String>()
        for hash in hashes where try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM objects WHERE sha256 = ?)", arguments: [hash]) == true {
            found.insert(hash)
        }
        return found
    }

    public func pull(deviceID: String, cursor: String?, limit: Int, now: Int64) async throws(ServerError) -> PullResponse {
        let epoch = self.epoch
        let parsed = try PullPlan.cursor(cursor)
        return try await read { db in
            let last = try Int64.fetchOne(db, sql: "SELECT last_mutation_id FROM devices WHERE device_id = ?", arguments: [deviceID]) ?? 0
            let latest = try Int64.fetchOne(db, sql: "SELECT value FROM sync_counter WHERE id = 1") ?? 0
            if let parsed, PullPlan.needsReset(parsed, epoch: epoch, horizon: try Self.horizon(db), latest: latest) {
                return PullResponse(changes: [], cursor: SyncCursor(epoch: epoch, version: 0).text, hasMore: true, reset: true, lastMutationId: last)
            }
            let after = parsed?.version ?? 0
            let pulled = SyncSchema.collections.filter(\.pulled)
            let liveOnly = after == 0 ? " AND deleted = 0" : ""
            var versions: [[Int64]] = []
            var newest: Int64 = 0
            for collection in pulled {
                versions.append(try Int64.fetchAll(db, sql: "SELECT version FROM \(collection.name) WHERE version > ?\(liveOnly) ORDER BY version LIMIT ?",
                                                   arguments: [after, limit + 1]))
                newest = max(newest, try Int64.fetchOne(db, sql: "SELECT MAX(version) FROM \(collection.name)") ?? 0)
            }
            let plan = PullPlan(after: after, limit: limit, versions: versions, newestPulled: newest, latest: latest)
            var changes: [SyncChange] = []
            for collection in pulled {
                let rows = try Row.fetchAll(db, sql: "SELECT * FROM \(collection.name) WHERE version > ? AND version <= ?\(liveOnly)",
                                            arguments: [plan.after, plan.through])
                changes += rows.map { SQLiteValues.change(from: $0, collection: collection) }
            }
            changes.sort { ($0.version, $0.collection, $0.key) < ($1.version, $1.collection, $1.key) }
            return PullResponse(changes: changes, cursor: SyncCursor(epoch: epoch, version: plan.through).text,
                                hasMore: plan.hasMore, reset: false, lastMutationId: last)
        }
    }

    public func record(collection name: String, key: String) async throws(ServerError) -> SyncChange? {
        guard let collection = SyncSchema.collection(named: name) else { return nil }
        return try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM \(collection.name) WHERE key = ? AND deleted = 0", arguments: [key])
                .map { SQLiteValues.change(from: $0, collection: collection) }
        }
    }

    public func purgeTombstones(before: Int64) async throws(ServerError) -> Int {
        try await write { db in
            var removed = 0
            var horizon = try Self.horizon(db)
            for collection in SyncSchema.collections {
                if let newest = try Int64.fetchOne(db, sql: "SELECT MAX(version) FROM \(collection.name) WHERE deleted = 1 AND server_updated_at < ?", arguments: [before]) {
                    horizon = max(horizon, newest)
                }
                try db.execute(sql: "DELETE FROM \(collection.name) WHERE deleted = 1 AND server_updated_at < ?", arguments: [before])
                removed += db.changesCount
            }
            try db.execute(sql: "UPDATE meta SET value = ? WHERE name = 'horizon'", arguments: [String(horizon)])
            return removed
        }
    }

    // MARK: Objects

    public func uploadedObjects(_ hashes: Set<String>) async throws(ServerError) -> Set<String> {
        try await read { db in try Self.uploaded(hashes, in: db) }
    }

    public func addObject(sha256: String, size: Int64, now: Int64) async throws(ServerError) -> Bool {
        try await write { db in
            try db.execute(sql: "INSERT INTO objects (sha256, size, created_at) VALUES (?, ?, ?) ON CONFLICT(sha256) DO NOTHING",
                           arguments: [sha256, size, now])
            return db.changesCount > 0
        }
    }

    public func removeOrphanObjects(before: Int64) async throws(ServerError) -> [String] {
        try await write { db in
            let candidates = try String.fetchAll(db, sql: "SELECT sha256 FROM objects WHERE created_at < ?", arguments: [before])
            var referenced = Set<String>()
            for collection in SyncSchema.collections {
                for field in collection.fields {
                    guard case .objectList = field.kind else { continue }
                    for text in try String.fetchAll(db, sql: "SELECT \(field.name) FROM \(collection.name) WHERE \(field.name) IS NOT NULL") {
                        if case .array(let items)? = JSONValue(jsonText: text) {
                            for case .string(let hash) in items { referenced.insert(hash) }
                        }
                    }
                }
            }
            let orphans = candidates.filter { !referenced.contains($0) }
            for hash in orphans { try db.execute(sql: "DELETE FROM objects WHERE sha256 = ?", arguments: [hash]) }
            return orphans
        }
    }
}
