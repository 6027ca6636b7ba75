package import Foundation
package import MemoraServer
package import MemoraHTTP
package import MemoraSync
package import MemoraSyncTesting
package import MemoraSystem
internal import Testing

/// A real memora-server on loopback for the tests (``LoopbackSyncServer``), with the tests' own
/// set-up: a store per test, rate limits, SQL on its database, a writer held open.
package final class TestServer: Sendable {
    package let server: LoopbackSyncServer
    package var folder: String { server.folder }
    /// The PostgreSQL database the store uses, nil for SQLite in `folder`.
    package var database: String? { server.database }
    package var joinCode: String { server.joinCode }
    package var port: Int { server.port }
    package var url: URL { server.url }

    /// Rate limits (requests at once, per second) for IPs and devices; nil: effectively none. `clock`
    /// is the server's (``ServerConfiguration/clock``): nil for the system's. `log`, when given, keeps
    /// every line the server logs at `info`.
    package init(folder: String, store: TestStore = .sqlite, limits: (ip: (Int, Double), device: (Int, Double))? = nil, host: String = "127.0.0.1",
                 clock: (any MemoraClock)? = nil, log: CapturedLog? = nil) async throws {
        let database = try await store.makeDatabase()
        server = try await LoopbackSyncServer(folder: folder, database: database, joinCode: "test-join-code-0123456789") { configuration in
            configuration.host = host
            if let clock { configuration.clock = clock }
            if let log { configuration.logger = log.logger(level: .info) }
            if let limits {
                (configuration.ipBurst, configuration.ipPerSecond) = limits.ip
                (configuration.deviceBurst, configuration.devicePerSecond) = limits.device
            }
        }
    }

    /// A second server on the same database and folder as `other` (a fleet: its own port).
    package init(sharingDataOf other: TestServer) async throws {
        server = try await LoopbackSyncServer(folder: other.folder, database: other.database, joinCode: other.joinCode)
    }

    package func stop() async { await server.stop() }

    /// Stops and starts the server again on the same port and data.
    package func restart() async throws { try await server.restart() }

    /// Runs SQL on the server's database (test set-up: triggers that inject failures).
    package func execute(_ sql: String) async throws {
        if let database {
            try await PostgresAdmin.execute(sql, server: database)
        } else {
            let queue = try DatabaseQueue(path: folder + "/memora-server.sqlite")
            try await queue.write { db in try db.execute(sql: sql) }
        }
    }

    /// The one integer a query on the server's database answers (a count).
    package func count(_ sql: String) async throws -> Int64 {
        if let database {
            return try await PostgresAdmin.withClient(database) { client in
                for try await value in try await client.query(PostgresQuery(unsafeSQL: sql)).decode(Int64.self) { return value }
                return 0
            }
        }
        let queue = try DatabaseQueue(path: folder + "/memora-server.sqlite")
        return try await queue.read { db in try Int64.fetchOne(db, sql: sql) ?? 0 }
    }

    /// Runs `body` while another connection holds a write transaction open on the server's database
    /// (SQLite: the write lock; PostgreSQL: the version counter's row), then lets it commit.
    package func whileWriterHeldOpen<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        let locked = AsyncStream<Void>.makeStream(), release = AsyncStream<Void>.makeStream()
        let holding: Task<Void, any Error>
        if let database {
            holding = Task {
                try await PostgresAdmin.withClient(database) { client in
                    try await client.withTransaction(logger: PostgresAdmin.logger) { connection in
                        try await connection.query("SELECT value FROM sync_counter WHERE id = 1 FOR UPDATE", logger: PostgresAdmin.logger)
                        locked.continuation.yield()
                        var iterator = release.stream.makeAsyncIterator()
                        _ = await iterator.next()
                    }
                }
            }
        } else {
            let queue = try DatabaseQueue(path: folder + "/memora-server.sqlite")
            let gate = DispatchSemaphore(value: 0)
            let relay = Task.detached { var iterator = release.stream.makeAsyncIterator(); _ = await iterator.next(); gate.signal() }
            holding = Task.detached {
                try queue.inTransaction(.immediate) { db in
                    try db.execute(sql: "INSERT INTO meta (name, value) VALUES ('held', '1')")
                    locked.continuation.yield()
                    gate.wait()
                    return .commit
                }
                _ = relay
            }
        }
        var iterator = locked.stream.makeAsyncIterator()
        _ = await iterator.next()
        do {
            let result = try await body()
            release.continuation.yield()
            try await holding.value
            return result
        } catch {
            release.continuation.yield()
            _ = try? await holding.value
            throw error
        }
    }

    /// The store, opened beside the running server.
    package func store() async throws -> SyncStore {
        try await ServerData.open(folder, database: database).store
    }
}

/// Raw HTTP against the test server, for the routes' own tests.
package struct RawClient {
    package let base: URL
    package let transport = URLSessionTransport(timeout: .seconds(20))

    /// A client of the server at `base`.
    package init(base: URL) { self.base = base }

    package func send(_ method: String, _ path: String, token: String? = nil, json: String? = nil, body: Data? = nil,
              headers extra: [String: String] = [:]) async throws -> HTTPResponse {
        var headers = ["Content-Type": "application/json"].merging(extra) { $1 }
        if let token { headers["Authorization"] = "Bearer \(token)" }
        let url = path.contains("?") ? URL(string: base.absoluteString + (base.absoluteString.hasSuffix("/") ? "" : "/") + path)! : base.appendingPathComponent(path)
        let response = try await transport.send(HTTPRequest(method: method, url: url, headers: headers,
                                                                body: body ?? Data((json ?? "").utf8)))
        // Every answer must be what Docs/openapi.json says (this is what keeps the document true).
        for problem in OpenAPIDocument.shared.problems(method: method, path: url.path, status: response.status, body: response.body) {
            Issue.record("Docs/openapi.json: \(problem)")
        }
        return response
    }

    package func register(_ deviceID: String, joinCode: String) async throws -> String {
        let response = try await send("POST", "api/devices/register", json: #"{"deviceId":"\#(deviceID)","platform":"linux","joinCode":"\#(joinCode)"}"#)
        guard response.status == 201 else { throw APIError(code: "test", message: "register: \(response.status) \(String(decoding: response.body, as: UTF8.self))") }
        return try JSONDecoder().decode(DeviceToken.self, from: response.body).token
    }

    package func push(_ token: String, _ mutations: [SyncMutation]) async throws -> HTTPResponse {
        try await send("POST", "api/sync/push", token: token, body: try JSONEncoder().encode(PushRequest(mutations: mutations)))
    }

    package func pull(_ token: String, cursor: String?, limit: Int = 500) async throws -> PullResponse {
        let response = try await send("POST", "api/sync/pull", token: token, body: try JSONEncoder().encode(PullRequest(cursor: cursor, limit: limit)))
        guard response.status == 200 else { throw APIError(code: "test", message: "pull: \(response.status) \(String(decoding: response.body, as: UTF8.self))") }
        return try JSONDecoder().decode(PullResponse.self, from: response.body)
    }

    package static func error(_ response: HTTPResponse) -> APIError? {
        try? JSONDecoder().decode(APIErrorBody.self, from: response.body).error
    }
}

/// Records for the tests.
package enum Records {
    package static func uuid(_ n: Int) -> String {
        String(format: "00000000-0000-4000-8000-%012x", n)
    }

    package static func place(_ n: Int, name: String, latitude: Double = 41.15, updatedAt: Int64? = nil) -> [String: JSONValue] {
        var fields: [String: JSONValue] = ["id": .string(uuid(n)), "name": .string(name), "latitude": .number(latitude),
                                           "longitude": .number(-8.61), "radius_meters": .number(150)]
        if let updatedAt { fields["created_at"] = .integer(updatedAt) }
        return fields
    }
}

/// The store a test server uses: SQLite, or a new database on the PostgreSQL server that
/// `scripts/test-postgres.sh` starts (`MEMORA_TEST_POSTGRES`, set by `make test`).
package enum TestStore: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgres

    package var testDescription: String { rawValue }

    /// The stores to run against: PostgreSQL too when `MEMORA_TEST_POSTGRES` names a server.
    /// `MEMORA_REQUIRE_POSTGRES=1` (set by `make test`) makes a missing server a failure, not a skip.
    package static var available: [TestStore] {
        let environment = ProcessInfo.processInfo.environment
        if environment["MEMORA_TEST_POSTGRES"] != nil || environment["MEMORA_REQUIRE_POSTGRES"] == "1" { return [.sqlite, .postgres] }
        return [.sqlite]
    }

    /// A fresh database for one server: nil for SQLite (the folder is fresh).
    package func makeDatabase() async throws -> String? {
        guard self == .postgres else { return nil }
        guard let admin = ProcessInfo.processInfo.environment["MEMORA_TEST_POSTGRES"] else {
            throw APIError(code: "test", message: "MEMORA_TEST_POSTGRES is not set: run scripts/test-postgres.sh (make test does)")
        }
        let name = "memora_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        try await PostgresAdmin.createDatabase(String(name), server: admin)
        var parts = URLComponents(string: admin)!
        parts.path = "/" + name
        return parts.string
    }
}

package import PostgresNIO
internal import GRDB
package import Logging

/// The tests' own PostgreSQL connections: creating databases, set-up SQL, held-open transactions.
package enum PostgresAdmin {
    package static let logger = Logger(label: "memora-tests.postgres")

    package static func withClient<T: Sendable>(_ server: String, _ body: @Sendable (PostgresClient) async throws -> T) async throws -> T {
        let parts = URLComponents(string: server)!
        let configuration = PostgresClient.Configuration(host: parts.host ?? "127.0.0.1", port: parts.port ?? 5432, username: parts.user ?? "postgres",
                                                         password: parts.password, database: String(parts.path.dropFirst()), tls: .disable)
        let client = PostgresClient(configuration: configuration)
        let running = Task { await client.run() }
        defer { running.cancel() }
        return try await body(client)
    }

    package static func createDatabase(_ name: String, server: String) async throws {
        try await execute("CREATE DATABASE \(name)", server: server)
    }

    package static func execute(_ sql: String, server: String) async throws {
        try await withClient(server) { client in _ = try await client.query(PostgresQuery(unsafeSQL: sql)) }
    }
}
