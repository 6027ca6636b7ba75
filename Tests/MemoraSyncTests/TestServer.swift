import Foundation
import MemoraServer
import MemoraSync
import Synchronization

/// A real memora-server on loopback for the tests: started on a free port, restartable on the same port
/// and data folder (a server restart), stopped by cancelling its task.
final class TestServer: Sendable {
    let folder: String
    let joinCode = "test-join-code-0123456789"
    private let state = Mutex<(task: Task<Void, any Error>?, port: Int)>((nil, 0))

    init(folder: String) async throws {
        self.folder = folder
        try await start(port: 0)
    }

    var port: Int { state.withLock { $0.port } }
    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    func start(port: Int) async throws {
        let data = try ServerData.open(folder)
        var configuration = ServerConfiguration(joinCode: joinCode)
        configuration.port = port
        configuration.logLevel = "critical"  // stopping by cancellation logs errors of its own
        configuration.ipBurst = 100_000
        configuration.ipPerSecond = 100_000
        configuration.deviceBurst = 100_000
        configuration.devicePerSecond = 100_000
        let server = SyncServer(configuration: configuration, store: data.store, objects: data.objects)
        let ready = AsyncStream<Int>.makeStream()
        let task = Task {
            try await server.run(gracefulShutdown: false) { port in ready.continuation.yield(port) }
        }
        var iterator = ready.stream.makeAsyncIterator()
        guard let bound = await iterator.next() else { throw CancellationError() }
        state.withLock { $0 = (task, bound) }
    }

    func stop() async {
        let task = state.withLock { $0.task }
        task?.cancel()
        _ = try? await task?.value
    }

    /// Stops and starts the server again on the same port and data.
    func restart() async throws {
        let port = self.port
        await stop()
        try await start(port: port)
    }

    /// The store, opened beside the running server (SQLite allows it).
    func store() throws -> SQLiteSyncStore {
        try SQLiteSyncStore(path: folder + "/memora-server.sqlite")
    }
}

/// Raw HTTP against the test server, for the routes' own tests.
struct RawClient {
    let base: URL
    let transport = URLSessionSyncTransport(timeout: 20)

    func send(_ method: String, _ path: String, token: String? = nil, json: String? = nil, body: Data? = nil) async throws -> SyncHTTPResponse {
        var headers = ["Content-Type": "application/json"]
        if let token { headers["Authorization"] = "Bearer \(token)" }
        return try await transport.send(SyncHTTPRequest(method: method, url: base.appendingPathComponent(path), headers: headers,
                                                        body: body ?? Data((json ?? "").utf8)))
    }

    func register(_ deviceID: String, joinCode: String) async throws -> String {
        let response = try await send("POST", "api/devices/register", json: #"{"deviceId":"\#(deviceID)","platform":"linux","joinCode":"\#(joinCode)"}"#)
        guard response.status == 201 else { throw APIError(code: "test", message: "register: \(response.status) \(String(decoding: response.body, as: UTF8.self))") }
        return try JSONDecoder().decode(DeviceToken.self, from: response.body).token
    }

    func push(_ token: String, _ mutations: [SyncMutation]) async throws -> SyncHTTPResponse {
        try await send("POST", "api/sync/push", token: token, body: try JSONEncoder().encode(PushRequest(mutations: mutations)))
    }

    func pull(_ token: String, cursor: String?, limit: Int = 500) async throws -> PullResponse {
        let response = try await send("POST", "api/sync/pull", token: token, body: try JSONEncoder().encode(PullRequest(cursor: cursor, limit: limit)))
        guard response.status == 200 else { throw APIError(code: "test", message: "pull: \(response.status) \(String(decoding: response.body, as: UTF8.self))") }
        return try JSONDecoder().decode(PullResponse.self, from: response.body)
    }

    static func error(_ response: SyncHTTPResponse) -> APIError? {
        try? JSONDecoder().decode(APIErrorBody.self, from: response.body).error
    }
}

/// Records for the tests.
enum Records {
    static func uuid(_ n: Int) -> String {
        String(format: "00000000-0000-4000-8000-%012x", n)
    }

    static func place(_ n: Int, name: String, latitude: Double = 41.15, updatedAt: Int64? = nil) -> [String: JSONValue] {
        var fields: [String: JSONValue] = ["id": .string(uuid(n)), "name": .string(name), "latitude": .number(latitude),
                                           "longitude": .number(-8.61), "radius_meters": .number(150)]
        if let updatedAt { fields["created_at"] = .integer(updatedAt) }
        return fields
    }
}
