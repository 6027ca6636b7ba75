internal import Foundation
internal import Logging
public import MemoraSync
internal import PostgresNIO

/// The store for more than one machine: PostgreSQL through PostgresNIO (`memora-server --database
/// postgres://…`). Several server processes may share one database:
/// - a push first locks the counter row (`UPDATE sync_counter … RETURNING`), so pushes are applied one
///   at a time, each reads what the previous one committed, and versions increase in commit order;
/// - a pull reads in one `REPEATABLE READ` snapshot, in which a version is visible only if every lower
///   one is (a lower version's transaction held the counter row until it committed);
/// - the schema is created under a transaction-scoped advisory lock, so servers starting together
///   do not race.
public final class PostgresSyncStore: SyncStore {
    public var kind: String { "postgres" }
    let client: PostgresClient
    let running: Task<Void, Never>
    let epoch: String
    let logger: Logger

    /// Connects to `url` (`postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`), creating and migrating the
    /// schema as needed.
    public static func connect(url: String) async throws(ServerError) -> PostgresSyncStore {
        guard let parts = URLComponents(string: url), ["postgres", "postgresql"].contains(parts.scheme ?? ""),
              let host = parts.host, !host.isEmpty, let user = parts.user, !user.isEmpty else {
            throw .invalidRequest("the database address is not postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE", [])
        }
        let database = String(parts.path.drop { $0 == "/" })
        var configuration = PostgresClient.Configuration(host: host, port: parts.port ?? 5432, username: user, password: parts.password,
                                                         database: database.isEmpty ? nil : database, tls: .disable)
        configuration.options.maximumConnections = 16
        let client = PostgresClient(configuration: configuration)
        let running = Task { await client.run() }
        var logger = Logger(label: "memora-server.postgres")
        logger.logLevel = .warning
        do {
            let epoch = try await Self.migrate(client, logger: logger)
            return PostgresSyncStore(client: client, running: running, epoch: epoch, logger: logger)
        } catch {
            running.cancel()
            throw .storage("cannot use the PostgreSQL database at \(host): \(Self.describe(error))")
        }
    }

    private init(client: PostgresClient, running: Task<Void, Never>, epoch: String, logger: Logger) {
        self.client = client
        self.running = running
        self.epoch = epoch
        self.logger = logger
    }

    deinit { running.cancel() }

    /// Closes the connections.
    public func close() { running.cancel() }

    static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] { return message }
            return "\(error.code)"
        }
        return "\(error)"
    }

    private static func migrate(_ client: PostgresClient, logger: Logger) async throws -> String {
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(724562019)", logger: logger)
            try await connection.query("CREATE TABLE IF NOT EXISTS memora_migrations (name TEXT PRIMARY KEY)", logger: logger)
            let applied = try await connection.query("SELECT name FROM memora_migrations", logger: logger).collect()
                .compactMap { try? $0.decode(String.self) }
            if !applied.contains("v1") {
                for statement in SyncTableSQL.protocolTables(dialect: .postgres) {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                for collection in SyncSchema.collections {
                    for statement in SyncTableSQL.create(collection, dialect: .postgres) {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                }
                try await connection.query("INSERT INTO sync_counter (id, value) VALUES (1, 0)", logger: logger)
                let epoch = ServerSecrets.randomToken(bytes: 12)
                try await connection.query("INSERT INTO meta (name, value) VALUES ('epoch', \(epoch)), ('horizon', '0')", logger: logger)
                try await connection.query("INSERT INTO memora_migrations (name) VALUES ('v1')", logger: logger)
            }
            let rows = try await connection.query("SELECT value FROM meta WHERE name = 'epoch'", logger: logger).collect()
            return try rows.first?.decode(String.self) ?? ""
        }
    }

    private func run<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws(ServerError) -> T {
        do {
            return try await client.withConnection(body)
        } catch let error as ServerError {
            throw error
        } catch {
            throw .storage(Self.describe(error))
        }
    }

    private func transaction<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws(ServerError) -> T {
        do {
            let logger = self.logger
            return try await client.withTransaction(logger: logger) { connection in try await body(connection) }
        } catch let error as ServerError {
            throw error
        } catch let error as PostgresTransactionError {
            // A refusal of ours inside the transaction (rolled back): the refusal, not a storage failure.
            if let refusal = error.closureError as? ServerError { throw refusal }
            throw .storage(Self.describe(error.closureError ?? error.commitError ?? error.beginError ?? error))
        } catch {
            throw .storage(Self.describe(error))
        }
    }

    // MARK: Devices

    public func register(deviceID: String, platform: String, tokenHash: String, expiresAt: Int64, now: Int64) async throws(ServerError) -> String {
        let logger = self.logger
        return try await transaction { connection in
            var registered = deviceID
            let rows = try await connection.query("SELECT revoked_at, token_expires_at FROM devices WHERE device_id = \(deviceID) FOR UPDATE", logger: logger).collect()
            if let row = rows.first {
                let (revoked, expires) = try row.decode((Int64?, Int64?).self)
                if revoked != nil { throw ServerError.revoked }
                if (expires ?? 0) <= now {
                    // The device's token has expired (a device offline for months): it comes back under its id.
                    try await connection.query("UPDATE devices SET token_hash = \(tokenHash), token_expires_at = \(expiresAt), platform = \(platform) WHERE device_id = \(deviceID)", logger: logger)
                    return deviceID
                }
                // Taken: the newcomer gets an id of its own.
                repeat { registered = SyncCredentials.newDeviceID() }
                while try await !connection.query("SELECT 1 FROM devices WHERE device_id = \(registered)", logger: logger).collect().isEmpty
            }
            let id = UUID().uuidString.lowercased()
            try await connection.query("""
                INSERT INTO devices (id, device_id, platform, token_hash, token_expires_at, created_at)
                VALUES (\(id), \(registered), \(platform), \(tokenHash), \(expiresAt), \(now))
                """, logger: logger)
            return registered
        }
    }

    public func device(tokenHash: String, now: Int64) async throws(ServerError) -> String? {
        let logger = self.logger
        return try await run { connection in
            try await connection.query("""
                SELECT device_id FROM devices WHERE token_hash = \(tokenHash) AND revoked_at IS NULL AND token_expires_at > \(now)
                """, logger: logger).collect().first?.decode(String.self)
        }
    }

    public func replaceToken(deviceID: String, tokenHash: String, expiresAt: Int64) async throws(ServerError) {
        let logger = self.logger
        try await run { connection in
            _ = try await connection.query("UPDATE devices SET token_hash = \(tokenHash), token_expires_at = \(expiresAt) WHERE device_id = \(deviceID) AND revoked_at IS NULL", logger: logger)
        }
    }

    public func revoke(deviceID: String, now: Int64) async throws(ServerError) -> Bool {
        let logger = self.logger
        return try await run { connection in
            try await connection.query("UPDATE devices SET revoked_at = COALESCE(revoked_at, \(now)) WHERE device_id = \(deviceID) RETURNING device_id", logger: logger)
                .collect().isEmpty == false
        }
    }

    public func devices() async throws(ServerError) -> [RegisteredDevice] {
        let logger = self.logger
        return try await run { connection in
            try await connection.query("""
                SELECT device_id, platform, created_at, last_sync_at, revoked_at, last_mutation_id FROM devices ORDER BY created_at, device_id
                """, logger: logger).collect().map { row in
                let (id, platform, created, synced, revoked, last) = try row.decode((String, String, Int64, Int64?, Int64?, Int64).self)
                return RegisteredDevice(deviceID: id, platform: platform, createdAt: created, lastSyncAt: synced, revokedAt: revoked, lastMutationID: last)
            }
        }
    }

    // MARK: Push and pull

    public func push(deviceID: String, mutations: [SyncMutation], now: Int64) async throws(ServerError) -> PushResponse {
        try await apply(deviceID: deviceID, mutations: mutations, numbered: true, now: now)
    }

    public func write(deviceID: String, mutation: SyncMutation, now: Int64) async throws(ServerError) -> MutationResult {
        try await apply(deviceID: deviceID, mutations: [mutation], numbered: false, now: now).results[0]
    }

    private func apply(deviceID: String, mutations: [SyncMutation], numbered: Bool, now: Int64) async throws(ServerError) -> PushResponse {
        let touched = PushPlan.rowsTouched(by: mutations)
        let referenced = PushPlan.objectsReferenced(by: mutations)
        let logger = self.logger
        return try await transaction { connection in
            // The device's row first (one push per device at a time), then the counter row: every push
            // from here on sees what the previous one committed, and takes the next version.
            let recorded = try await connection.query("SELECT last_mutation_id FROM devices WHERE device_id = \(deviceID) FOR UPDATE", logger: logger)
                .collect().first?.decode(Int64.self) ?? 0
            let last = numbered ? recorded : mutations[0].id - 1
            if let first = mutations.first(where: { $0.id > last }), first.id != last + 1 {
                throw ServerError.mutationGap(expected: last + 1)
            }
            let hasNew = mutations.contains { $0.id > last }
            let version = hasNew
                ? try await connection.query("UPDATE sync_counter SET value = value + 1 WHERE id = 1 RETURNING value", logger: logger).collect().first?.decode(Int64.self) ?? 0
                : 0
            var rows: [RowID: RowState] = [:]
            for row in touched {
                guard let collection = SyncSchema.collection(named: row.collection) else { continue }
                let owner = collection.ownerField ?? "NULL"
                var binds = PostgresBindings()
                binds.append(row.key)
                let found = try await connection.query(PostgresQuery(unsafeSQL: "SELECT version, deleted, \(owner)::text FROM \(collection.name) WHERE key = $1", binds: binds), logger: logger).collect()
                if let found = found.first {
                    let (version, deleted, ownerValue) = try found.decode((Int64, Bool, String?).self)
                    rows[row] = RowState(version: version, deleted: deleted, owner: ownerValue)
                }
            }
            var rejected: [Int64: MutationResult] = [:]
            if let firstOld = mutations.first?.id, firstOld <= last {
                for row in try await connection.query("""
                    SELECT mutation_id, error FROM mutation_rejections WHERE device_id = \(deviceID) AND mutation_id BETWEEN \(firstOld) AND \(last)
                    """, logger: logger).collect() {
                    let (id, text) = try row.decode((Int64, String).self)
                    rejected[id] = MutationResult(id: id, status: .rejected, error: try? JSONDecoder().decode(APIError.self, from: Data(text.utf8)))
                }
            }
            var uploaded = Set<String>()
            if !referenced.isEmpty {
                let list = Array(referenced)
                for row in try await connection.query("SELECT sha256 FROM objects WHERE sha256 = ANY(\(list))", logger: logger).collect() {
                    uploaded.insert(try row.decode(String.self))
                }
            }
            let horizonText = try await connection.query("SELECT value FROM meta WHERE name = 'horizon'", logger: logger).collect().first?.decode(String.self)
            let plan = PushPlan(device: deviceID, lastMutationID: last, mutations: mutations, rows: rows, earlierRejections: rejected,
                                horizon: Int64(horizonText ?? "0") ?? 0, missingObjects: referenced.subtracting(uploaded))
            for write in plan.writes { try await Self.store(write, version: version, device: deviceID, now: now, on: connection, logger: logger) }
            guard numbered else { return PushResponse(lastMutationId: recorded, results: plan.results) }
            for rejection in plan.rejections {
                let text = String(decoding: try JSONEncoder().encode(rejection.error), as: UTF8.self)
                try await connection.query("INSERT INTO mutation_rejections (device_id, mutation_id, error) VALUES (\(deviceID), \(rejection.id), \(text))", logger: logger)
            }
            try await connection.query("UPDATE devices SET last_mutation_id = \(plan.lastMutationID), last_sync_at = \(now) WHERE device_id = \(deviceID)", logger: logger)
            return PushResponse(lastMutationId: plan.lastMutationID, results: plan.results)
        }
    }

    private static func store(_ write: RowWrite, version: Int64, device: String, now: Int64, on connection: PostgresConnection, logger: Logger) async throws {
        guard let collection = SyncSchema.collection(named: write.row.collection) else { return }
        var binds = PostgresBindings()
        var placeholders: [String] = []
        func add(_ value: JSONValue, kind: SyncField.Kind?) {
            let index = binds.count + 1
            switch value {
            case .null: binds.appendNull()
            case .bool(let flag): binds.append(flag)
            case .integer(let number):
                if case .real? = kind { binds.append(Double(number)) } else { binds.append(number) }
            case .number(let number): binds.append(number)
            case .string(let text): binds.append(text)
            case .array, .object: binds.append(value.jsonText)
            }
            switch kind {
            case .jsonObject?, .objectList?: placeholders.append("$\(index)::jsonb")
            default: placeholders.append("$\(index)")
            }
        }
        add(.string(write.row.key), kind: nil)
        for field in collection.allFields { add(write.fields[field.name] ?? .null, kind: field.kind) }
        add(.integer(version), kind: nil)
        add(.bool(write.deleted), kind: nil)
        add(.string(device), kind: nil)
        add(.integer(now), kind: nil)
        let columns = ["key"] + collection.allFields.map(\.name) + ["version", "deleted", "updated_by", "server_updated_at"]
        let updates = columns.dropFirst().map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        try await connection.query(PostgresQuery(unsafeSQL: """
            INSERT INTO \(collection.name) (\(columns.joined(separator: ", "))) VALUES (\(placeholders.joined(separator: ", ")))
            ON CONFLICT (key) DO UPDATE SET \(updates)
            """, binds: binds), logger: logger)
    }

    /// A collection's columns as text-decodable values (JSON columns as text).
    private static func selectList(_ collection: SyncCollection) -> String {
        (["key", "version", "deleted"] + collection.allFields.map { field in
            switch field.kind {
            case .jsonObject, .objectList: "\(field.name)::text AS \(field.name)"
            default: field.name
            }
        }).joined(separator: ", ")
    }

    private static func change(from row: PostgresRow, collection: SyncCollection) throws -> SyncChange {
        let cells = row.makeRandomAccess()
        let deleted = try cells["deleted"].decode(Bool.self)
        var fields: [String: JSONValue] = [:]
        if !deleted {
            for field in collection.allFields {
                let cell = cells[field.name]
                let value: JSONValue
                switch field.kind {
                case .text, .identifier, .deviceID, .sha256, .choice: value = try cell.decode(String?.self).map(JSONValue.string) ?? .null
                case .integer, .timestamp: value = try cell.decode(Int64?.self).map(JSONValue.integer) ?? .null
                case .real: value = try cell.decode(Double?.self).map(JSONValue.number) ?? .null
                case .boolean: value = try cell.decode(Bool?.self).map(JSONValue.bool) ?? .null
                case .jsonObject, .objectList: value = try cell.decode(String?.self).flatMap { JSONValue(jsonText: $0) } ?? .null
                }
                if value != .null { fields[field.name] = value }
            }
        }
        return SyncChange(collection: collection.name, key: try cells["key"].decode(String.self), version: try cells["version"].decode(Int64.self),
                          deleted: deleted, fields: fields)
    }

    public func pull(deviceID: String, cursor: String?, limit: Int, now: Int64) async throws(ServerError) -> PullResponse {
        let parsed = try PullPlan.cursor(cursor)
        let epoch = self.epoch, logger = self.logger
        return try await transaction { connection in
            try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: logger)
            let last = try await connection.query("SELECT last_mutation_id FROM devices WHERE device_id = \(deviceID)", logger: logger).collect().first?.decode(Int64.self) ?? 0
            let latest = try await connection.query("SELECT value FROM sync_counter WHERE id = 1", logger: logger).collect().first?.decode(Int64.self) ?? 0
            let horizon = Int64(try await connection.query("SELECT value FROM meta WHERE name = 'horizon'", logger: logger).collect().first?.decode(String.self) ?? "0") ?? 0
            if let parsed, PullPlan.needsReset(parsed, epoch: epoch, horizon: horizon, latest: latest) {
                return PullResponse(changes: [], cursor: SyncCursor(epoch: epoch, version: 0).text, hasMore: true, reset: true, lastMutationId: last)
            }
            let after = parsed?.version ?? 0
            let liveOnly = after == 0 ? " AND NOT deleted" : ""
            var versions: [[Int64]] = []
            var newest: Int64 = 0
            let pulled = SyncSchema.collections.filter(\.pulled)
            for collection in pulled {
                var binds = PostgresBindings()
                binds.append(after)
                binds.append(Int64(limit + 1))
                versions.append(try await connection.query(PostgresQuery(unsafeSQL: "SELECT version FROM \(collection.name) WHERE version > $1\(liveOnly) ORDER BY version LIMIT $2", binds: binds), logger: logger)
                    .collect().map { try $0.decode(Int64.self) })
                newest = max(newest, try await connection.query(PostgresQuery(unsafeSQL: "SELECT MAX(version) FROM \(collection.name)"), logger: logger)
                    .collect().first?.decode(Int64?.self) ?? 0)
            }
            let plan = PullPlan(after: after, limit: limit, versions: versions, newestPulled: newest, latest: latest)
            var changes: [SyncChange] = []
            for collection in pulled {
                var binds = PostgresBindings()
                binds.append(plan.after)
                binds.append(plan.through)
                let rows = try await connection.query(PostgresQuery(unsafeSQL: "SELECT \(Self.selectList(collection)) FROM \(collection.name) WHERE version > $1 AND version <= $2\(liveOnly)", binds: binds), logger: logger).collect()
                changes += try rows.map { try Self.change(from: $0, collection: collection) }
            }
            changes.sort { ($0.version, $0.collection, $0.key) < ($1.version, $1.collection, $1.key) }
            return PullResponse(changes: changes, cursor: SyncCursor(epoch: epoch, version: plan.through).text, hasMore: plan.hasMore, reset: false, lastMutationId: last)
        }
    }

    public func record(collection name: String, key: String) async throws(ServerError) -> SyncChange? {
        guard let collection = SyncSchema.collection(named: name) else { return nil }
        let logger = self.logger
        return try await run { connection in
            var binds = PostgresBindings()
            binds.append(key)
            return try await connection.query(PostgresQuery(unsafeSQL: "SELECT \(Self.selectList(collection)) FROM \(collection.name) WHERE key = $1 AND NOT deleted", binds: binds), logger: logger)
                .collect().first.map { try Self.change(from: $0, collection: collection) }
        }
    }

    public func purgeTombstones(before: Int64) async throws(ServerError) -> Int {
        let logger = self.logger
        return try await transaction { connection in
            // The counter row first, as a push does: no push commits tombstones while the horizon moves.
            try await connection.query("SELECT value FROM sync_counter WHERE id = 1 FOR UPDATE", logger: logger)
            var horizon = Int64(try await connection.query("SELECT value FROM meta WHERE name = 'horizon'", logger: logger).collect().first?.decode(String.self) ?? "0") ?? 0
            var removed = 0
            for collection in SyncSchema.collections {
                var binds = PostgresBindings()
                binds.append(before)
                let versions = try await connection.query(PostgresQuery(unsafeSQL: "DELETE FROM \(collection.name) WHERE deleted AND server_updated_at < $1 RETURNING version", binds: binds), logger: logger)
                    .collect().map { try $0.decode(Int64.self) }
                removed += versions.count
                horizon = max(horizon, versions.max() ?? 0)
            }
            try await connection.query("UPDATE meta SET value = \(String(horizon)) WHERE name = 'horizon'", logger: logger)
            return removed
        }
    }

    // MARK: Objects

    public func uploadedObjects(_ hashes: Set<String>) async throws(ServerError) -> Set<String> {
        let logger = self.logger
        let list = Array(hashes)
        return try await run { connection in
            Set(try await connection.query("SELECT sha256 FROM objects WHERE sha256 = ANY(\(list))", logger: logger).collect().map { try $0.decode(String.self) })
        }
    }

    public func addObject(sha256: String, size: Int64, now: Int64) async throws(ServerError) -> Bool {
        let logger = self.logger
        return try await run { connection in
            try await connection.query("INSERT INTO objects (sha256, size, created_at) VALUES (\(sha256), \(size), \(now)) ON CONFLICT (sha256) DO NOTHING RETURNING sha256", logger: logger)
                .collect().isEmpty == false
        }
    }

    public func removeOrphanObjects(before: Int64) async throws(ServerError) -> [String] {
        let logger = self.logger
        return try await transaction { connection in
            var referenced = Set<String>()
            for collection in SyncSchema.collections {
                for field in collection.fields {
                    guard case .objectList = field.kind else { continue }
                    let rows = try await connection.query(PostgresQuery(unsafeSQL: "SELECT jsonb_array_elements_text(\(field.name)) FROM \(collection.name) WHERE \(field.name) IS NOT NULL"), logger: logger).collect()
                    for row in rows { referenced.insert(try row.decode(String.self)) }
                }
            }
            let candidates = try await connection.query("SELECT sha256 FROM objects WHERE created_at < \(before) FOR UPDATE", logger: logger).collect().map { try $0.decode(String.self) }
            let orphans = candidates.filter { !referenced.contains($0) }
            if !orphans.isEmpty {
                try await connection.query("DELETE FROM objects WHERE sha256 = ANY(\(orphans))", logger: logger)
            }
            return orphans
        }
    }
}
