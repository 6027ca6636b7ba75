import Foundation
import MemoraServer
import MemoraSyncTesting
import ServerTestSupport
import Testing
import TestSupport
import MemoraSystem

/// Issue 41, item 11: Docs/Sync.md says the server logs each request's route and status; it logs them
/// at `info`, by the route's pattern, never a path's ids, a query, a token or a body.
@Suite("The server's request log")
struct RequestLogTests {
    @Test("at info, one line per request: method, route pattern, status, milliseconds; no id, query, key or token")
    func requestLines() async throws {
        let folder = try temporaryFolder("request-log")
        let log = CapturedLog()
        let server = try await LoopbackSyncServer(folder: folder + "/server") { $0.logger = log.logger(level: .info) }
        try await withAsyncCleanup {
            let key = try await ServerData.open(folder + "/server").dashboardKey
            let port = server.port
            func get(_ path: String, _ headers: [String: String] = [:]) async throws -> Int {
                try await DashboardTrustTests.request(port, "GET", path, host: "127.0.0.1:\(port)", headers: headers).status
            }
            #expect(try await get("/api/health") == 200)
            #expect(try await get("/api/people/987654", ["Authorization": "Bearer secret-token-abcdef0123456789"]) == 401)
            #expect(try await get("/?key=\(key)") == 303)
            #expect(try await get("/api/no-such-route-424242?probe=777") == 404)
            let lines = log.text.filter { $0.hasPrefix("info request ") }
            for expected in ["method=GET ms=", "route=/api/health status=200", "route=/api/people/{id} status=401", "route=/ status=303", "route=(none) status=404"] {
                #expect(lines.contains { $0.contains(expected) }, "\(expected) in \(lines)")
            }
            #expect(lines.count == 4, "\(lines)")
            for secret in ["987654", "secret-token", key, "no-such-route", "probe", "777"] {
                #expect(!log.text.contains { $0.contains(secret) }, "\(secret) logged: \(log.text)")
            }
        } cleanup: {
            await server.stop()
        }
    }
}
