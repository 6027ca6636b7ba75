public import MemoraSync
internal import Foundation
internal import MemoraDatabase
internal import MemoraHTTP

/// A registered device as the server knows it.
public struct RegisteredDevice: Sendable, Hashable {
    /// The device's own id.
    public var deviceID: String
    /// Its platform.
    public var platform: String
    /// When it registered (milliseconds, the server's clock).
    public var createdAt: Int64
    /// When it last pushed or pulled.
    public var lastSyncAt: Int64?
    /// When its token was revoked, if it was.
    public var revokedAt: Int64?
    /// Its last processed mutation.
    public var lastMutationID: Int64
}

/// Where a server keeps its sync data: an SQLite file (``sqlite(path:)``) or a PostgreSQL database
/// (``postgres(url:)``). The store is written once, as transactions of statements on either database
/// (the differences of the two dialects are named where they appear); the protocol's decisions
/// (`PushPlan`, `PullPlan`) are pure. Every method is one transaction.
///
/// Several server processes may share one PostgreSQL database:
/// - a push first locks the device's row and then the counter row (`UPDATE sync_counter … RETURNING`),
///   so pushes are applied one at a time, each reads what the previous one committed, and versions
///   increase in commit order (SQLite has one writer at a time, which gives the same order);
/// - a pull reads in one snapshot (`REPEATABLE READ`; SQLite's read transaction), in which a version
///   is visible only if every lower one is (a lower version's transaction held the counter row until
///   it committed);
/// - the schema is created under a transaction-scoped advisory lock, so servers starting together
///   do not race.
public final class SyncStore: Sendable {
    let database: any SQLDatabase
    let epoch: String
    /// `sqlite` or `postgres`.
    public var kind: String { database.dialect == .sqlite ? "sqlite" : "postgres" }
    /// Where the store is, for people: the SQLite file, or the PostgreSQL host and database (never a password).
    public let location: String

    private init(database: any SQLDatabase, location: String) async throws(ServerError) {
        self.database = database
        self.location = location
        epoch = try await database.value("SELECT value FROM meta WHERE name = 'epoch'", as: String.self) ?? ""
    }

    /// Opens (creating and migrating as needed) the SQLite store at `path`.
    public static func sqlite(path: String) async throws(ServerError) -> SyncStore {
        let database = try SQLiteDatabase(path: path, migrations: migrations(.sqlite))
        return try await SyncStore(database: database, location: "SQLite: \(path)")
    }

    /// Connects to the PostgreSQL database at `url` (`postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`),
    /// creating and migrating the schema as needed.
    public static func postgres(url: String) async throws(ServerError) -> SyncStore {
        let database = try PostgresDatabase(url: url)
        do {
            try await database.migrate(lock: 724562019, migrations(.postgres))
            return try await SyncStore(database: database, location: database.description)
        } catch {
            database.close()
            throw .storage("cannot use the \(database.description) database: \(error.message)")
        }
    }

    /// Closes a PostgreSQL store's connections (nothing for SQLite, whose file closes with the store).
    public func close() {
        (database as? PostgresDatabase)?.close()
    }

    /// The store's migrations (v1: the protocol's tables, one table for each collection, the counter,
    /// the epoch that tells this database's cursors from another's, the retention horizon).
    static func migrations(_ dialect: SyncTableSQL.Dialect) -> [(name: String, statements: [SQLStatement])] {
        var v1 = SyncTableSQL.protocolTables(dialect: dialect).map { SQLStatement($0) }
        for collection in SyncSchema.collections { v1 += SyncTableSQL.create(collection, dialect: dialect).map { SQLStatement($0) } }
        v1.append(SQLStatement("INSERT INTO sync_counter (id, value) VALUES (1, 0)"))
        v1.append(SQLStatement("INSERT INTO meta (name, value) VALUES ('epoch', ?), ('horizon', '0')", [.text(ServerSecrets.randomToken(bytes: 12))]))
        return [("v1", v1)]
    }

    // MARK: Devices

    /// Registers a device under `deviceID`, or under a new random id when a device whose token still
    /// works has it: a device id belongs to the token that registered it, so a second registration
    /// never takes a working device's place (its token, its preferences). A device whose token has
    /// expired (offline for months) registers again under its own id, keeping its records. Returns
    /// the id registered. Throws ``ServerError/revoked`` for a revoked device.
    public func register(deviceID: String, platform: String, tokenHash: String, expiresAt: Int64, now: Int64) async throws(ServerError) -> String {
        let forUpdate = database.forUpdate
        return try await database.transaction { (transaction) async throws(ServerError) in
            var registered = deviceID
            if let row = try await transaction.rows("SELECT revoked_at, token_expires_at FROM devices WHERE device_id = ?\(forUpdate)", [.text(deviceID)]).first {
                let revokedAt: Int64? = try row["revoked_at"], tokenExpiresAt: Int64 = try row["token_expires_at"]
                if revokedAt != nil { throw ServerError.revoked }
                if tokenExpiresAt <= now {
                    // The device's token has expired (a device offline for months): it comes back under its id.
                    try await transaction.execute("UPDATE devices SET token_hash = ?, token_expires_at = ?, platform = ? WHERE device_id = ?",
                                                  [.text(tokenHash), .integer(expiresAt), .text(platform), .text(deviceID)])
                    return deviceID
                }
                // Taken by a device whose token works: the newcomer gets an id of its own.
                repeat { registered = SyncCredentials.newDeviceID() }
                while try await !transaction.rows("SELECT 1 FROM devices WHERE device_id = ?", [.text(registered)]).isEmpty
            }
            try await transaction.execute("""
                INSERT INTO devices (id, device_id, platform, token_hash, token_expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?)
                """, [.text(UUID().uuidString.lowercased()), .text(registered), .text(platform), .text(tokenHash), .integer(expiresAt), .integer(now)])
            return registered
        }
    }

    /// The device whose unexpired, unrevoked token has this hash.
    public func device(tokenHash: String, now: Int64) async throws(ServerError) -> String? {
        try await database.value("SELECT device_id FROM devices WHERE token_hash = ? AND revoked_at IS NULL AND token_expires_at > ?",
                                 [.text(tokenHash), .integer(now)], as: String.self)
    }

    /// Replaces a device's token.
    public func replaceToken(deviceID: String, tokenHash: String, expiresAt: Int64) async throws(ServerError) {
        _ = try await database.rows("UPDATE devices SET token_hash = ?, token_expires_at = ? WHERE device_id = ? AND revoked_at IS NULL",
                                    [.text(tokenHash), .integer(expiresAt), .text(deviceID)])
    }

    /// Revokes a device's token; false when there is no such device.
    public func revoke(deviceID: String, now: Int64) async throws(ServerError) -> Bool {
        !(try await database.rows("UPDATE devices SET revoked_at = COALESCE(revoked_at, ?) WHERE device_id = ? RETURNING device_id",
                                  [.integer(now), .text(deviceID)])).isEmpty
    }

    /// Revokes a device's token now (`memora-server revoke`); false when there is no such device.
    public func revoke(deviceID: String) async throws(ServerError) -> Bool {
        try await revoke(deviceID: deviceID, now: Instant.now)
    }

    /// Every registered device.
    public func devices() async throws(ServerError) -> [RegisteredDevice] {
        try await database.read("""
            SELECT device_id, platform, created_at, last_sync_at, revoked_at, last_mutation_id FROM devices ORDER BY created_at, device_id
            """).map { (row) throws(ServerError) in
            RegisteredDevice(deviceID: try row["device_id"], platform: try row["platform"], createdAt: try row["created_at"], lastSyncAt: try row["last_sync_at"],
                             revokedAt: try row["revoked_at"], lastMutationID: try row["last_mutation_id"])
        }
    }

    // MARK: Push and pull

    /// Applies a push (mutations numbered consecutively) in one transaction. Throws
    /// ``ServerError/mutationGap(expected:)`` when the first new mutation is not the next one.
    public func push(deviceID: String, mutations: [SyncMutation], now: Int64) async throws(ServerError) -> PushResponse {
        try await apply(deviceID: deviceID, mutations: mutations, numbered: true, now: now)
    }

    /// Applies one mutation outside the device's numbered order (the `PUT /api/preferences` and
    /// `POST /api/errors/log` routes): checked and versioned as a push's, but not recorded as processed.
    public func write(deviceID: String, mutation: SyncMutation, now: Int64) async throws(ServerError) -> MutationResult {
        try await apply(deviceID: deviceID, mutations: [mutation], numbered: false, now: now).results[0]
    }

    /// A push (`numbered`: in the device's mutation order, recorded) or one direct write (the
    /// preferences and error routes: outside that order, nothing recorded).
    private func apply(deviceID: String, mutations: [SyncMutation], numbered: Bool, now: Int64) async throws(ServerError) -> PushResponse {
        let touched = PushPlan.rowsTouched(by: mutations)
        let referenced = PushPlan.objectsReferenced(by: mutations)
        let dialect = database.dialect, forUpdate = database.forUpdate
        return try await database.transaction { (transaction) async throws(ServerError) in
            // The device's row first (one push per device at a time), then, when something may be
            // written, the counter row: every push from here on sees what the previous one committed,
            // and takes the next version.
            let recorded = try await transaction.value("SELECT last_mutation_id FROM devices WHERE device_id = ?\(forUpdate)", [.text(deviceID)], as: Int64.self) ?? 0
            let last = numbered ? recorded : mutations[0].id - 1
            if let first = mutations.first(where: { $0.id > last }), first.id != last + 1 {
                throw ServerError.mutationGap(expected: last + 1)
            }
            let version = mutations.contains { $0.id > last }
                ? try await transaction.value("UPDATE sync_counter SET value = value + 1 WHERE id = 1 RETURNING value", as: Int64.self) ?? 0
                : 0
            let rows = try await Self.states(of: touched, dialect: dialect, in: transaction)
            var rejected: [Int64: MutationResult] = [:]
            if let firstOld = mutations.first?.id, firstOld <= last {
                for row in try await transaction.rows("SELECT mutation_id, error FROM mutation_rejections WHERE device_id = ? AND mutation_id BETWEEN ? AND ?",
                                                      [.text(deviceID), .integer(firstOld), .integer(last)]) {
                    let id: Int64 = try row["mutation_id"]
                    let error = try (row["error"] as String?).flatMap { try? JSONDecoder().decode(APIError.self, from: Data($0.utf8)) }
                    rejected[id] = MutationResult(id: id, status: .rejected, error: error)
                }
            }
            let uploaded = try await Self.uploaded(referenced, in: transaction)
            let horizon = try await Self.horizon(transaction)
            let plan = PushPlan(device: deviceID, lastMutationID: last, mutations: mutations, rows: rows, earlierRejections: rejected,
                                horizon: horizon, missingObjects: referenced.subtracting(uploaded))
            try await Self.store(plan.writes, version: version, device: deviceID, now: now, dialect: dialect, in: transaction)
            guard numbered else { return PushResponse(lastMutationId: recorded, results: plan.results) }
            for chunk in Self.chunks(plan.rejections, of: 500) {
                var values: [SQLValue] = []
                for rejection in chunk {
                    let text = String(decoding: (try? JSONEncoder().encode(rejection.error)) ?? Data("null".utf8), as: UTF8.self)
                    values += [.text(deviceID), .integer(rejection.id), .text(text)]
                }
                try await transaction.execute("INSERT INTO mutation_rejections (device_id, mutation_id, error) VALUES "
                                              + Array(repeating: "(?, ?, ?)", count: chunk.count).joined(separator: ", "), values)
            }
            try await transaction.execute("UPDATE devices SET last_mutation_id = ?, last_sync_at = ? WHERE device_id = ?",
                                          [.integer(plan.lastMutationID), .integer(now), .text(deviceID)])
            return PushResponse(lastMutationId: plan.lastMutationID, results: plan.results)
        }
    }

    /// The rows a push touches, as they are: a few statements for each collection, however many rows.
    private static func states(of touched: Set<RowID>, dialect: SyncTableSQL.Dialect, in transaction: any SQLTransaction)
        async throws(ServerError) -> [RowID: RowState] {
        var rows: [RowID: RowState] = [:]
        for (name, keys) in Dictionary(grouping: touched, by: \.collection) {
            guard let collection = SyncSchema.collection(named: name) else { continue }
            let owner = collection.ownerField.map { dialect == .postgres ? "\($0)::text" : $0 } ?? "NULL"
            for chunk in chunks(keys.map(\.key).sorted(), of: 500) {
                for found in try await transaction.rows("SELECT key, version, deleted, \(owner) AS owner FROM \(collection.name) WHERE key IN (\(SQLStatement.marks(chunk.count)))",
                                                        chunk.map { .text($0) }) {
                    rows[RowID(collection: name, key: try found["key"])] = RowState(version: try found["version"], deleted: try found["deleted"], owner: try found["owner"])
                }
            }
        }
        return rows
    }

    /// Writes a push's rows (each inserted, or replaced whole), a few statements for each collection.
    /// A row written twice keeps its last write, as two upserts in turn would.
    private static func store(_ writes: [RowWrite], version: Int64, device: String, now: Int64, dialect: SyncTableSQL.Dialect,
                              in transaction: any SQLTransaction) async throws(ServerError) {
        var last: [RowID: Int] = [:]
        for (index, write) in writes.enumerated() { last[write.row] = index }
        let kept = writes.indices.filter { last[writes[$0].row] == $0 }.map { writes[$0] }
        for (name, group) in Dictionary(grouping: kept, by: \.row.collection) {
            guard let collection = SyncSchema.collection(named: name) else { continue }
            let columns = ["key"] + collection.allFields.map(\.name) + ["version", "deleted", "updated_by", "server_updated_at"]
            let tuple = "(" + (["?"] + collection.allFields.map { SyncValues.placeholder($0.kind, dialect: dialect) } + ["?", "?", "?", "?"])
                .joined(separator: ", ") + ")"
            let updates = columns.dropFirst().map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
            for chunk in chunks(group, of: 200) {
                var values: [SQLValue] = []
                for write in chunk {
                    values.append(.text(write.row.key))
                    for field in collection.allFields { values.append(SyncValues.value(write.fields[field.name] ?? .null, kind: field.kind)) }
                    values += [.integer(version), .boolean(write.deleted), .text(device), .integer(now)]
                }
                try await transaction.execute("""
                    INSERT INTO \(collection.name) (\(columns.joined(separator: ", "))) VALUES \(Array(repeating: tuple, count: chunk.count).joined(separator: ", "))
                    ON CONFLICT (key) DO UPDATE SET \(updates)
                    """, values)
            }
        }
    }

    /// `items` in runs of at most `size` (a statement's values stay far below either database's limit).
    private static func chunks<Item>(_ items: [Item], of size: Int) -> [ArraySlice<Item>] {
        stride(from: 0, to: items.count, by: size).map { items[$0..<min($0 + size, items.count)] }
    }

    /// The retention horizon: tombstones at or below it were purged.
    private static func horizon(_ transaction: any SQLTransaction) async throws(ServerError) -> Int64 {
        Int64(try await transaction.value("SELECT value FROM meta WHERE name = 'horizon'", as: String.self) ?? "0") ?? 0
    }

    /// Which of `hashes` are uploaded objects.
    private static func uploaded(_ hashes: Set<String>, in transaction: any SQLTransaction) async throws(ServerError) -> Set<String> {
        guard !hashes.isEmpty else { return [] }
        var found = Set<String>()
        for chunk in chunks(hashes.sorted(), of: 500) {
            for row in try await transaction.rows("SELECT sha256 FROM objects WHERE sha256 IN (\(SQLStatement.marks(chunk.count)))", chunk.map { .text($0) }) {
                found.insert(try row["sha256"])
            }
        }
        return found
    }

    /// A page of changes after `cursor`, in version order, never splitting a version.
    public func pull(deviceID: String, cursor: String?, limit: Int, now: Int64) async throws(ServerError) -> PullResponse {
        let parsed = try PullPlan.cursor(cursor)
        let epoch = self.epoch, dialect = database.dialect
        return try await database.transaction(snapshot: true) { (transaction) async throws(ServerError) in
            let last = try await transaction.value("SELECT last_mutation_id FROM devices WHERE device_id = ?", [.text(deviceID)], as: Int64.self) ?? 0
            let latest = try await transaction.value("SELECT value FROM sync_counter WHERE id = 1", as: Int64.self) ?? 0
            if let parsed, PullPlan.needsReset(parsed, epoch: epoch, horizon: try await Self.horizon(transaction), latest: latest) {
                return PullResponse(changes: [], cursor: SyncCursor(epoch: epoch, version: 0).text, hasMore: true, reset: true, lastMutationId: last)
            }
            let after = parsed?.version ?? 0
            let liveOnly = after == 0 ? " AND NOT deleted" : ""
            var versions: [[Int64]] = []
            var newest: Int64 = 0
            let pulled = SyncSchema.collections.filter(\.pulled)
            for collection in pulled {
                versions.append(try await transaction.rows("SELECT version FROM \(collection.name) WHERE version > ?\(liveOnly) ORDER BY version LIMIT ?",
                                                           [.integer(after), .integer(Int64(limit) + 1)]).column("version", as: Int64.self))
                newest = max(newest, try await transaction.value("SELECT COALESCE(MAX(version), 0) AS newest FROM \(collection.name)", as: Int64.self) ?? 0)
            }
            let plan = PullPlan(after: after, limit: limit, versions: versions, newestPulled: newest, latest: latest)
            var changes: [SyncChange] = []
            for collection in pulled {
                changes += try await transaction.rows("""
                    SELECT \(SyncValues.selectList(collection, dialect: dialect)) FROM \(collection.name) WHERE version > ? AND version <= ?\(liveOnly)
                    """, [.integer(plan.after), .integer(plan.through)]).map { (row) throws(ServerError) in try SyncValues.change(from: row, collection: collection) }
            }
            changes.sort { ($0.version, $0.collection, $0.key) < ($1.version, $1.collection, $1.key) }
            return PullResponse(changes: changes, cursor: SyncCursor(epoch: epoch, version: plan.through).text, hasMore: plan.hasMore, reset: false,
                                lastMutationId: last)
        }
    }

    /// A device's own record of a collection (its preferences), nil when it has none.
    public func record(collection name: String, key: String) async throws(ServerError) -> SyncChange? {
        guard let collection = SyncSchema.collection(named: name) else { return nil }
        return try await database.read("SELECT \(SyncValues.selectList(collection, dialect: database.dialect)) FROM \(collection.name) WHERE key = ? AND NOT deleted",
                                       [.text(key)]).first.map { (row) throws(ServerError) in try SyncValues.change(from: row, collection: collection) }
    }

    /// Removes tombstones written before `before` (server clock) and moves the retention horizon past
    /// them; devices whose cursor is older then get a reset. Returns how many were removed.
    public func purgeTombstones(before: Int64) async throws(ServerError) -> Int {
        let forUpdate = database.forUpdate
        return try await database.transaction { (transaction) async throws(ServerError) in
            // The counter row first, as a push does: no push commits tombstones while the horizon moves.
            try await transaction.execute("SELECT value FROM sync_counter WHERE id = 1\(forUpdate)")
            var horizon = try await Self.horizon(transaction)
            var removed = 0
            for collection in SyncSchema.collections {
                let versions = try await transaction.rows("DELETE FROM \(collection.name) WHERE deleted AND server_updated_at < ? RETURNING version",
                                                          [.integer(before)]).column("version", as: Int64.self)
                removed += versions.count
                horizon = max(horizon, versions.max() ?? 0)
            }
            try await transaction.execute("UPDATE meta SET value = ? WHERE name = 'horizon'", [.text(String(horizon))])
            return removed
        }
    }

    // MARK: Objects

    /// Which of these objects (SHA-256 values) are uploaded.
    public func uploadedObjects(_ hashes: Set<String>) async throws(ServerError) -> Set<String> {
        try await database.transaction(snapshot: true) { (transaction) async throws(ServerError) in try await Self.uploaded(hashes, in: transaction) }
    }

    /// Records an uploaded object (idempotent); false when it was already there.
    public func addObject(sha256: String, size: Int64, now: Int64) async throws(ServerError) -> Bool {
        !(try await database.rows("INSERT INTO objects (sha256, size, created_at) VALUES (?, ?, ?) ON CONFLICT (sha256) DO NOTHING RETURNING sha256",
                                  [.text(sha256), .integer(size), .integer(now)])).isEmpty
    }

    /// Objects uploaded before `before` that no record references, removed from the catalogue.
    public func removeOrphanObjects(before: Int64) async throws(ServerError) -> [String] {
        let dialect = database.dialect, forUpdate = database.forUpdate
        return try await database.transaction { (transaction) async throws(ServerError) in
            var referenced = Set<String>()
            for collection in SyncSchema.collections {
                for field in collection.fields {
                    guard case .objectList = field.kind else { continue }
                    let column = dialect == .postgres ? "\(field.name)::text" : field.name
                    for row in try await transaction.rows("SELECT \(column) AS \(field.name) FROM \(collection.name) WHERE \(field.name) IS NOT NULL", []) {
                        if case .array(let items)? = try (row[field.name] as String?).flatMap({ JSONValue(jsonText: $0) }) {
                            for case .string(let hash) in items { referenced.insert(hash) }
                        }
                    }
                }
            }
            let candidates = try await transaction.rows("SELECT sha256 FROM objects WHERE created_at < ?\(forUpdate)", [.integer(before)])
                .column("sha256", as: String.self)
            let orphans = candidates.filter { !referenced.contains($0) }
            for chunk in Self.chunks(orphans, of: 500) {
                try await transaction.execute("DELETE FROM objects WHERE sha256 IN (\(SQLStatement.marks(chunk.count)))", chunk.map { .text($0) })
            }
            return orphans
        }
    }
}
