import Foundation
import MemoraServer
import MemoraSyncTesting
import ServerTestSupport
import Testing
import TestSupport
import MemoraSystem

/// Issue 41, item 9: HTTP's own rules, on raw sockets (an HTTP client library would normalise each of
/// these requests): one `Host` line, absolute-form targets, the path's own `Allow`, `HEAD` wherever
/// `GET` is, `501` for a method HTTP does not define, and a forwarded address without its port.
@Suite("HTTP rules on raw sockets")
struct HTTPRulesTests {
    /// The status, the head's lines and the body of the server's answer to `text` (CRLF line ends added).
    static func exchange(_ port: Int, _ lines: [String], body: String = "") async throws -> (status: Int, head: [String], body: String) {
        let answer = try await RawSocket.exchange(port: port, Data((lines.joined(separator: "\r\n") + "\r\n\r\n" + body).utf8))
        let parts = answer.components(separatedBy: "\r\n\r\n")
        let head = parts[0].components(separatedBy: "\r\n")
        let status = head.first?.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return (status, head, parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    /// A header's value in an answer's head, by its name in any case.
    static func header(_ name: String, in head: [String]) -> String? {
        head.first { $0.lowercased().hasPrefix(name.lowercased() + ":") }.map { String($0.dropFirst(name.count + 1)).trimmingCharacters(in: .whitespaces) }
    }

    @Test("two Host lines are a 400 (RFC 9112 §3.2), whichever comes first; one is served")
    func twoHosts() async throws {
        let server = try await LoopbackSyncServer(folder: try temporaryFolder("http-two-hosts") + "/server")
        try await withAsyncCleanup {
            let port = server.port
            #expect(try await Self.exchange(port, ["GET /api/health HTTP/1.1", "Host: 127.0.0.1:\(port)", "Connection: close"]).status == 200)
            for hosts in [["127.0.0.1:\(port)", "evil.example"], ["evil.example", "127.0.0.1:\(port)"], ["127.0.0.1:\(port)", "127.0.0.1:\(port)"]] {
                let answer = try await Self.exchange(port, ["GET /api/health HTTP/1.1"] + hosts.map { "Host: \($0)" } + ["Connection: close"])
                #expect(answer.status == 400 && answer.body.contains("Host"), "\(hosts): \(answer)")
            }
        } cleanup: {
            await server.stop()
        }
    }

    @Test("an absolute-form target is judged by its authority, not by its Host header")
    func absoluteForm() async throws {
        let folder = try temporaryFolder("http-absolute")
        let server = try await LoopbackSyncServer(folder: folder + "/server")
        try await withAsyncCleanup {
            let key = try await ServerData.open(folder + "/server").dashboardKey
            let port = server.port
            // The dashboard is served only under the hub's own names: the target's authority decides (303: the key is taken).
            let evil = try await Self.exchange(port, ["GET http://evil.example/?key=\(key) HTTP/1.1", "Host: 127.0.0.1:\(port)", "Connection: close"])
            #expect(evil.status == 403, "\(evil.head)")
            let ours = try await Self.exchange(port, ["GET http://127.0.0.1:\(port)/?key=\(key) HTTP/1.1", "Host: evil.example", "Connection: close"])
            #expect(ours.status == 303, "\(ours.head)")
            // The path and query of an absolute target are routed as usual.
            #expect(try await Self.exchange(port, ["GET http://127.0.0.1:\(port)/api/health?probe=1 HTTP/1.1", "Host: 127.0.0.1:\(port)", "Connection: close"]).status == 200)
            #expect(try await Self.exchange(port, ["GET HTTP://127.0.0.1:\(port)/api/nothing-here HTTP/1.1", "Host: 127.0.0.1:\(port)", "Connection: close"]).status == 404)
        } cleanup: {
            await server.stop()
        }
    }

    @Test("Allow lists the path's own methods on a 405 (TRACE and CONNECT too) and on OPTIONS; HEAD is served wherever GET is, without a body")
    func allowAndHead() async throws {
        let server = try await LoopbackSyncServer(folder: try temporaryFolder("http-allow") + "/server")
        try await withAsyncCleanup {
            let port = server.port
            let host = "Host: 127.0.0.1:\(port)"
            for (method, path, allow) in [("TRACE", "/api/people", "GET, HEAD, POST"), ("DELETE", "/api/people", "GET, HEAD, POST"),
                                          ("TRACE", "/api/health", "GET, HEAD"), ("POST", "/api/health", "GET, HEAD"),
                                          ("GET", "/api/sync/push", "POST"), ("TRACE", "/api/objects/abc", "HEAD, PUT")] {
                let answer = try await Self.exchange(port, ["\(method) \(path) HTTP/1.1", host, "Content-Length: 0", "Connection: close"])
                #expect(answer.status == 405 && Self.header("Allow", in: answer.head) == allow, "\(method) \(path): \(answer.head)")
            }
            let options = try await Self.exchange(port, ["OPTIONS /api/people/12 HTTP/1.1", host, "Connection: close"])
            #expect(options.status == 204 && Self.header("Allow", in: options.head) == "GET, HEAD, PUT, DELETE, OPTIONS", "\(options.head)")
            // HEAD: GET's status and headers, no body.
            let get = try await Self.exchange(port, ["GET /api/health HTTP/1.1", host, "Connection: close"])
            let head = try await Self.exchange(port, ["HEAD /api/health HTTP/1.1", host, "Connection: close"])
            #expect(head.status == 200 && head.body.isEmpty, "\(head)")
            #expect(Self.header("Content-Length", in: head.head) == Self.header("Content-Length", in: get.head) && Self.header("Content-Length", in: get.head) != nil)
            #expect(Self.header("Content-Type", in: head.head) == "application/json; charset=utf-8")
            // A device's route still needs its token.
            #expect(try await Self.exchange(port, ["HEAD /api/people HTTP/1.1", host, "Connection: close"]).status == 401)
            #expect(try await Self.exchange(port, ["HEAD / HTTP/1.1", host, "Connection: close"]).status == 401)
        } cleanup: {
            await server.stop()
        }
    }

    @Test("a method HTTP does not define is a 501, whether or not the parser knows it; a defined one a path does not take stays a 405")
    func unknownMethods() async throws {
        let server = try await LoopbackSyncServer(folder: try temporaryFolder("http-methods") + "/server")
        try await withAsyncCleanup {
            let port = server.port
            for method in ["FOO", "BREW", "PROPFIND", "MKCOL"] {
                let answer = try await Self.exchange(port, ["\(method) /api/health HTTP/1.1", "Host: 127.0.0.1:\(port)", "Content-Length: 0", "Connection: close"])
                #expect(answer.status == 501 && answer.body.contains("not_implemented"), "\(method): \(answer)")
            }
            #expect(try await Self.exchange(port, ["PUT /api/health HTTP/1.1", "Host: 127.0.0.1:\(port)", "Content-Length: 0", "Connection: close"]).status == 405)
        } cleanup: {
            await server.stop()
        }
    }

    @Test("from a trusted proxy, X-Forwarded-For with a port (IP:port, [IPv6]:port) counts the address alone: ports are not buckets of their own")
    func forwardedPorts() async throws {
        let server = try await LoopbackSyncServer(folder: try temporaryFolder("http-forwarded") + "/server") { configuration in
            configuration.trustedProxies = ["127.0.0.1"]
            (configuration.ipBurst, configuration.ipPerSecond) = (2, 0.001)
        }
        try await withAsyncCleanup {
            let port = server.port
            func status(_ forwarded: String) async throws -> Int {
                try await Self.exchange(port, ["GET /api/health HTTP/1.1", "Host: 127.0.0.1:\(port)", "X-Forwarded-For: \(forwarded)", "Connection: close"]).status
            }
            var statuses: [Int] = []
            for forwarded in ["198.51.100.7:40001", "198.51.100.7:40002", "198.51.100.7:40003"] { statuses.append(try await status(forwarded)) }
            #expect(statuses == [200, 200, 429])
            statuses = []
            for forwarded in ["[2001:db8::7]:40001", "[2001:DB8::7]:40002", "2001:db8::7"] { statuses.append(try await status(forwarded)) }
            #expect(statuses == [200, 200, 429])
            #expect(try await status("198.51.100.8") == 200, "another client has its own bucket")
        } cleanup: {
            await server.stop()
        }
    }
}
