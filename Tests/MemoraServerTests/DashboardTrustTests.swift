import Foundation
import MemoraServer
import MemoraSync
import MemoraSystem
import MemoraSyncTesting
import ServerTestSupport
import Testing
import TestSupport

/// Issue 31, item 4: the dashboard trusts its key, not the TCP peer. Behind a reverse proxy on the hub
/// every visitor comes from 127.0.0.1, so the loopback opens nothing; a pairing code is made only when a
/// person asks; pages are served only under the hub's own names (DNS rebinding); the client address
/// comes from `X-Forwarded-For` only through a trusted proxy. Item 15: the pairing address is where the
/// hub runs, and a busy port gets a plain message.
@Suite("Dashboard trust and the hub's address")
struct DashboardTrustTests {
    /// One request on a raw socket (the test sets `Host`, `Origin` and `X-Forwarded-For` itself): the status and the whole answer.
    static func request(_ port: Int, _ method: String, _ path: String, host: String = "127.0.0.1", headers: [String: String] = [:]) async throws -> (status: Int, text: String) {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\nContent-Length: 0\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        let answer = try await RawSocket.exchange(port: port, Data((head + "\r\n").utf8))
        let status = answer.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return (status, answer)
    }

    /// Opens a dashboard session with the key, as a browser does: the `Cookie` header its answer sets, and the answer.
    static func signIn(_ port: Int, key: String, host: String = "127.0.0.1", headers: [String: String] = [:]) async throws -> (cookie: String, text: String) {
        let answer = try await request(port, "GET", "/?key=\(key)", host: host, headers: headers)
        let line = answer.text.components(separatedBy: "\r\n").first { $0.lowercased().hasPrefix("set-cookie: memora_dashboard=") } ?? ""
        let pair = line.dropFirst("set-cookie: ".count).split(separator: ";").first.map(String.init) ?? ""
        return (pair, answer.text)
    }

    @Test("from the loopback too, the dashboard needs its key; a page view makes no pairing code; the button does, from the page's own origin only")
    func keyOnly() async throws {
        let folder = try temporaryFolder("dashboard-trust")
        let server = try await LoopbackSyncServer(folder: folder + "/server")
        try await withAsyncCleanup {
            let key = try await ServerData.open(folder + "/server").dashboardKey
            let port = server.port
            let cookie = try await Self.signIn(port, key: key).cookie

            // The loopback is not a key: every page and picture refuses without one.
            for path in ["/", "/people/1", "/dashboard/thumbnails/1", "/dashboard/avatars/1"] {
                #expect(try await Self.request(port, "GET", path).status == 401, "\(path)")
            }
            #expect(try await Self.request(port, "POST", "/dashboard/pair").status == 401)
            let withKey = try await Self.request(port, "GET", "/?key=\(key)")
            #expect(withKey.status == 303 && withKey.text.contains("HttpOnly") && withKey.text.contains("SameSite=Strict"))

            // A page view shows a button, not a code.
            let home = try await Self.request(port, "GET", "/", headers: ["Cookie": cookie])
            #expect(home.status == 200)
            #expect(home.text.contains("id=\"pair-button\"") && !home.text.contains("authToken"))
            #expect(home.text.contains("form-action 'self'"))

            // The button's POST makes one, from the page itself.
            let origin = "http://127.0.0.1:\(port)"
            let pair = try await Self.request(port, "POST", "/dashboard/pair", host: "127.0.0.1:\(port)",
                                              headers: ["Cookie": cookie, "Origin": origin, "Sec-Fetch-Site": "same-origin"])
            #expect(pair.status == 200 && pair.text.contains("authToken"), "\(pair.text.prefix(300))")
            #expect(pair.text.contains("Devices reach the hub at 127.0.0.1, port \(port)"))
            // A form on another site cannot (SameSite=Strict keeps the cookie home; the origin is checked too).
            for headers in [["Origin": "http://attacker.example"], ["Origin": "null"], ["Sec-Fetch-Site": "cross-site"]] {
                let forged = try await Self.request(port, "POST", "/dashboard/pair", host: "127.0.0.1:\(port)", headers: headers.merging(["Cookie": cookie]) { $1 })
                #expect(forged.status == 403 && !forged.text.contains("authToken"), "\(headers)")
            }
        } cleanup: {
            await server.stop()
        }
    }

    @Test("a page asked for under another site's name (DNS rebinding) is refused, even with the key; a configured server name is served")
    func hostCheck() async throws {
        let folder = try temporaryFolder("dashboard-host")
        let server = try await LoopbackSyncServer(folder: folder + "/server") { $0.serverNames = ["Photos.Example.Home"] }
        try await withAsyncCleanup {
            let key = try await ServerData.open(folder + "/server").dashboardKey
            let port = server.port
            for host in ["attacker.example", "attacker.example:\(port)", "127.0.0.1.attacker.example", ""] {
                let answer = try await Self.request(port, "GET", "/?key=\(key)", host: host)
                #expect(answer.status == 403 || (host.isEmpty && answer.status == 400), "\(host): \(answer.text.prefix(200))")
                #expect(!answer.text.contains("Set-Cookie"))
            }
            let cookie = try await Self.signIn(port, key: key).cookie
            for host in ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)", "photos.example.home", "PHOTOS.example.home:443"] {
                #expect(try await Self.request(port, "GET", "/", host: host, headers: ["Cookie": cookie]).status == 200, "\(host)")
            }
            // The API is not the dashboard: a device's requests carry its token and any Host.
            #expect(try await Self.request(port, "GET", "/api/health", host: "attacker.example").status == 200)
        } cleanup: {
            await server.stop()
        }
    }

    @Test("the cookie holds a session, not the key: signing out ends it, a new key ends them all; Secure when a trusted proxy says HTTPS")
    func sessions() async throws {
        let folder = try temporaryFolder("dashboard-sessions")
        let server = try await LoopbackSyncServer(folder: folder + "/server") { $0.trustedProxies = ["127.0.0.1"] }
        try await withAsyncCleanup {
            let key = try await ServerData.open(folder + "/server").dashboardKey
            let port = server.port
            // The key itself opens nothing as a cookie; the session the key opens does, and holds nothing of the key.
            #expect(try await Self.request(port, "GET", "/", headers: ["Cookie": "memora_dashboard=\(key)"]).status == 401)
            let (cookie, answer) = try await Self.signIn(port, key: key)
            #expect(cookie.hasPrefix("memora_dashboard=") && cookie.count > "memora_dashboard=".count + 40 && !cookie.contains(key), "\(cookie)")
            #expect(answer.contains("HttpOnly") && answer.contains("SameSite=Strict") && !answer.contains("Secure"), "\(answer)")
            #expect(try await Self.request(port, "GET", "/", headers: ["Cookie": cookie]).status == 200)
            // Signing out ends the session on the hub (a copy of the cookie no longer works) and clears the cookie.
            let other = try await Self.signIn(port, key: key).cookie
            let origin = ["Origin": "http://127.0.0.1:\(port)", "Sec-Fetch-Site": "same-origin"]
            #expect(try await Self.request(port, "POST", "/dashboard/logout", host: "127.0.0.1:\(port)", headers: ["Cookie": cookie, "Origin": "http://attacker.example"]).status == 403)
            let out = try await Self.request(port, "POST", "/dashboard/logout", host: "127.0.0.1:\(port)", headers: origin.merging(["Cookie": cookie]) { $1 })
            #expect(out.status == 200 && out.text.contains("Max-Age=0") && out.text.contains("signed out"), "\(out.text.prefix(400))")
            #expect(try await Self.request(port, "GET", "/", headers: ["Cookie": cookie]).status == 401)
            #expect(try await Self.request(port, "GET", "/", headers: ["Cookie": other]).status == 200, "another browser's session stays")
            // A new key ends every session at once, on the running hub; the old key opens nothing, the new one does.
            let newKey = try await ServerData.open(folder + "/server").rotateDashboardKey()
            #expect(newKey != key)
            #expect(try await Self.request(port, "GET", "/", headers: ["Cookie": other]).status == 401)
            #expect(try await Self.request(port, "GET", "/?key=\(key)").status == 401)
            let renewed = try await Self.signIn(port, key: newKey)
            #expect(try await Self.request(port, "GET", "/", headers: ["Cookie": renewed.cookie]).status == 200)
            // Through the trusted proxy over HTTPS the cookie is Secure; a client's own header from an untrusted peer changes nothing.
            let secure = try await Self.signIn(port, key: newKey, headers: ["X-Forwarded-Proto": "https", "X-Forwarded-For": "198.51.100.7"])
            #expect(secure.text.contains("; Secure") || secure.text.contains("Secure;"), "\(secure.text.prefix(400))")
            let direct = try await LoopbackSyncServer(folder: folder + "/direct")
            try await withAsyncCleanup {
                let directKey = try await ServerData.open(folder + "/direct").dashboardKey
                let untrusted = try await Self.signIn(direct.port, key: directKey, headers: ["X-Forwarded-Proto": "https"])
                #expect(untrusted.cookie.hasPrefix("memora_dashboard=") && !untrusted.text.contains("Secure"), "\(untrusted.text.prefix(400))")
            } cleanup: {
                await direct.stop()
            }
        } cleanup: {
            await server.stop()
        }
    }

    @Test("behind a trusted proxy each client has its own rate-limit bucket; from any other peer X-Forwarded-For changes nothing")
    func trustedProxy() async throws {
        let folder = try temporaryFolder("dashboard-proxy")
        let proxied = try await LoopbackSyncServer(folder: folder + "/proxied") { configuration in
            configuration.trustedProxies = ["127.0.0.1"]
            (configuration.ipBurst, configuration.ipPerSecond) = (2, 0.001)
        }
        try await withAsyncCleanup {
            // Client A spends its bucket; client B, behind the same proxy, still gets in.
            for expected in [200, 200, 429] {
                #expect(try await Self.request(proxied.port, "GET", "/api/health", headers: ["X-Forwarded-For": "198.51.100.7"]).status == expected)
            }
            #expect(try await Self.request(proxied.port, "GET", "/api/health", headers: ["X-Forwarded-For": "198.51.100.8"]).status == 200)
            // A client that writes its own header before the proxy's cannot pick another bucket: the proxy's last entry counts.
            #expect(try await Self.request(proxied.port, "GET", "/api/health", headers: ["X-Forwarded-For": "198.51.100.9, 198.51.100.7"]).status == 429)

            let direct = try await LoopbackSyncServer(folder: folder + "/direct") { configuration in
                (configuration.ipBurst, configuration.ipPerSecond) = (2, 0.001)
            }
            try await withAsyncCleanup {
                var statuses: [Int] = []
                for client in ["198.51.100.1", "198.51.100.2", "198.51.100.3"] {
                    statuses.append(try await Self.request(direct.port, "GET", "/api/health", headers: ["X-Forwarded-For": client]).status)
                }
                #expect(statuses == [200, 200, 429], "an untrusted X-Forwarded-For must not give a new bucket")
            } cleanup: {
                await direct.stop()
            }
        } cleanup: {
            await proxied.stop()
        }
    }

    @Test("the pairing address is where the running hub listens; a stopped hub says so; a busy port is a plain message")
    func hubAddress() async throws {
        let folder = try temporaryFolder("hub-address")
        let server = try await LoopbackSyncServer(folder: folder + "/server")
        let data = try await ServerData.open(folder + "/server")
        let running = data.hubAddress()
        #expect(running.host == "127.0.0.1" && running.port == server.port, "\(running)")
        #expect(running.reason.contains("loopback"))
        #expect(data.hubAddress(host: "10.0.0.5", port: 9000) == HubAddress(host: "10.0.0.5", port: 9000, reason: "the address given"))

        // A second server on the same port: refused with a message a person can act on.
        var configuration = ServerConfiguration(joinCode: "test-join-code-0123456789")
        configuration.port = server.port
        configuration.logger.logLevel = .critical
        do {
            let second = try await SyncServer(configuration: configuration, data: try await ServerData.open(folder + "/other")).start()
            await second.stop()
            Issue.record("a second server listened on a busy port")
        } catch {
            #expect("\(error)".contains("port \(server.port) on 127.0.0.1 is in use"), "\(error)")
            #expect(!"\(error)".contains("bind("), "\(error)")
        }

        #expect(data.isServerRunning)
        await server.stop()
        #expect(!data.isServerRunning)
        let stopped = data.hubAddress()
        #expect(stopped.port == 8787 && stopped.reason.contains("no memora-server is running"), "\(stopped)")
        #expect(!FileSystem.exists(folder + "/server/listening"))
    }

    @Test("a join code that leaked is replaced: the new one registers, the old one no longer does, registered devices keep working")
    func rotateJoinCode() async throws {
        let folder = try temporaryFolder("join-code-rotate")
        let first = try await ServerData.open(folder + "/server")
        let old = first.joinCode
        let before = try await LoopbackSyncServer(folder: folder + "/server", joinCode: old)
        let token = try await RawClient(base: before.url).register("device-before-rotation", joinCode: old)
        await before.stop()
        let new = try await first.rotateJoinCode()
        let reopened = try await ServerData.open(folder + "/server")
        #expect(new != old && reopened.joinCode == new)
        let server = try await LoopbackSyncServer(folder: folder + "/server", joinCode: reopened.joinCode)
        try await withAsyncCleanup {
            let after = RawClient(base: server.url)
            #expect(try await after.send("POST", "api/devices/register", json: #"{"deviceId":"device-with-old-code","platform":"linux","joinCode":"\#(old)"}"#).status == 401)
            _ = try await after.register("device-with-new-code", joinCode: new)
            _ = try await after.pull(token, cursor: nil)  // the device registered before still works
        } cleanup: {
            await server.stop()
        }
    }

    @Test("this machine's addresses: the loopback's among them, a private network address preferred", arguments: [
        ("127.0.0.1", NetworkAddress.Kind.loopback), ("::1", .loopback), ("192.168.1.20", .privateNetwork), ("10.1.2.3", .privateNetwork),
        ("172.20.0.1", .privateNetwork), ("172.32.0.1", .other), ("192.0.2.2", .other), ("fd12::1", .privateNetwork), ("photos.example", .other),
    ])
    func addressKinds(address: String, kind: NetworkAddress.Kind) {
        #expect(NetworkAddress.kind(of: address) == kind)
        #expect(NetworkAddress.all().contains("127.0.0.1"))
        if let chosen = NetworkAddress.localIPv4() { #expect(NetworkAddress.kind(of: chosen) != .loopback) }
    }
}
