import FlyingFox
import FlyingSocks
import Foundation
import MemoraHTTP
import MemoraSystem
import Testing

/// A loopback HTTP server (FlyingFox) with three routes: `/echo` answers the body it got, `/big`
/// answers 2 MiB, `/slow` waits 30 s before answering (far longer than any bound below, so a
/// test that waits for it fails clearly instead of by a few hundred milliseconds on a busy machine).
private actor EchoServer {
    private var task: Task<Void, any Error>?
    private(set) var base = URL(string: "http://127.0.0.1")!

    func start() async throws {
        let server = HTTPServer(address: try .inet(ip4: "127.0.0.1", port: 0), timeout: 60, logger: .disabled)
        await server.appendRoute("POST /echo") { request in
            let body = try await request.bodyData
            return HTTPResponse(statusCode: .ok, headers: [HTTPHeader("X-Echo-Length"): String(body.count)], body: body)
        }
        await server.appendRoute("GET /big") { _ in HTTPResponse(statusCode: .ok, body: Data(count: 2 << 20)) }
        await server.appendRoute("GET /slow") { _ in
            try await Task.sleep(for: .seconds(30))
            return HTTPResponse(statusCode: .ok)
        }
        task = Task { try await server.run() }
        try await server.waitUntilListening(timeout: 60)
        guard case .ip4(_, let port) = await server.listeningAddress else { throw URLError(.cannotConnectToHost) }
        base = URL(string: "http://127.0.0.1:\(port)")!
    }

    func stop() { task?.cancel() }
}

/// Blocks the calling thread (a thread of the cooperative pool, in the test that calls it).
private func holdThread(seconds: Double) { Thread.sleep(forTimeInterval: seconds) }

@Suite("URLSessionTransport")
struct URLSessionTransportTests {
    @Test("an upload's body arrives whole, progress ends at the body's size, and header names come back lower-cased")
    func uploadProgress() async throws {
        let server = EchoServer()
        try await server.start()
        let base = await server.base
        let body = Data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let seen = Locked<[Int64]>([])
        let response = try await URLSessionTransport().send(
            MemoraHTTP.HTTPRequest(method: "POST", url: base.appendingPathComponent("echo"), body: body)) { sent, total in
            #expect(total == Int64(body.count))
            seen.withLock { $0.append(sent) }
        }
        await server.stop()
        #expect(response.status == 200)
        #expect(response.body == body)
        #expect(response.headers["x-echo-length"] == String(body.count))
        let reported = seen.withLock { $0 }
        #expect(reported.last == Int64(body.count), "\(reported.suffix(3))")
        #expect(reported == reported.sorted(), "progress never goes back")
    }

    @Test("an answer larger than the limit is refused (response-too-large), not kept in memory")
    func boundedAnswer() async throws {
        let server = EchoServer()
        try await server.start()
        let url = await server.base.appendingPathComponent("big")
        do {
            _ = try await URLSessionTransport(maximumResponseBytes: 1 << 20).send(MemoraHTTP.HTTPRequest(method: "GET", url: url))
            Issue.record("a 2 MiB answer passed a 1 MiB limit")
        } catch {
            #expect(error.code == .responseTooLarge && !error.isRetryable, "\(error)")
        }
        // Within the limit it comes whole.
        let whole = try await URLSessionTransport(maximumResponseBytes: 4 << 20).send(MemoraHTTP.HTTPRequest(method: "GET", url: url))
        #expect(whole.body.count == 2 << 20)
        await server.stop()
    }

    @Test("no answer within the request's timeout is timed-out and retryable")
    func timeout() async throws {
        let server = EchoServer()
        try await server.start()
        let url = await server.base.appendingPathComponent("slow")
        do {
            _ = try await URLSessionTransport().send(MemoraHTTP.HTTPRequest(method: "GET", url: url, timeout: .milliseconds(500)))
            Issue.record("the slow route answered within 0.5 s")
        } catch {
            #expect(error.code == .timedOut && error.isRetryable, "\(error)")
        }
        await server.stop()
    }

    @Test("a process too busy to read its answer does not blame the server: with every thread of the pool held past the timeout, the answer that came meanwhile is taken")
    func busyProcess() async throws {
        // The server is a child python3, on its own clock: it answers 1.5 s after the request. The
        // timeout is 1 s, but every thread of the cooperative pool sleeps from just after the request
        // for 2.5 s, so the watchdog cannot count that silence. URLSession's own timer, on the wall
        // clock, used to, and gave up at 1 s.
        let folder = FileManager.default.temporaryDirectory.path + "/memora-busy-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let script = """
            import os, socket, sys, time
            s = socket.socket()
            s.bind(('127.0.0.1', 0))
            s.listen(1)
            open(sys.argv[1] + '/port.tmp', 'w').write(str(s.getsockname()[1]))
            os.rename(sys.argv[1] + '/port.tmp', sys.argv[1] + '/port')
            s.settimeout(60)
            c, _ = s.accept()
            c.recv(65536)
            time.sleep(1.5)
            c.sendall(b'HTTP/1.1 200 OK\\r\\nContent-Length: 4\\r\\nConnection: close\\r\\n\\r\\nsoon')
            c.close()
            """
        let child = Task { try await BlockingWork.waiting.run { () throws -> Int32 in try ChildProcess.run("/usr/bin/python3", ["-c", script, folder]).status } }
        var port: String?
        for _ in 0..<1000 where port == nil {
            port = try? String(contentsOfFile: folder + "/port", encoding: .utf8)
            if port == nil { try await Task.sleep(for: .milliseconds(10)) }
        }
        let url = try #require(port.flatMap { URL(string: "http://127.0.0.1:\($0)/soon") })
        let transport = URLSessionTransport(timeout: .seconds(1))
        let answer = Task { try await transport.send(MemoraHTTP.HTTPRequest(method: "GET", url: url)) }
        try await Task.sleep(for: .milliseconds(50))
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<ProcessInfo.processInfo.activeProcessorCount {
                group.addTask { holdThread(seconds: 2.5) }
            }
        }
        let response = try await answer.value
        #expect(response.status == 200 && response.body == Data("soon".utf8))
        #expect(try await child.value == 0)
    }

    @Test("a refused connection is connection-failed, and the error names the address without its query (a key may be there)")
    func refusedAndRedacted() async throws {
        // A port held without listening: no other test's server can be given it.
        let closed = try ClosedPort()
        let url = URL(string: "http://127.0.0.1:\(closed.port)/v1/models?key=SECRET-KEY")!
        do {
            _ = try await URLSessionTransport(timeout: .seconds(5)).send(MemoraHTTP.HTTPRequest(method: "GET", url: url))
            Issue.record("a closed port answered")
        } catch {
            #expect(error.code == .connectionFailed && error.isRetryable, "\(error)")
            #expect(!error.description.contains("SECRET") && error.endpoint.hasSuffix("/v1/models"), "\(error)")
        }
    }

    @Test("cancelling the task cancels the request")
    func cancellation() async throws {
        let server = EchoServer()
        try await server.start()
        let url = await server.base.appendingPathComponent("slow")
        let task = Task { try await URLSessionTransport().send(MemoraHTTP.HTTPRequest(method: "GET", url: url)) }
        try await Task.sleep(for: .milliseconds(300))
        let started = ContinuousClock.now
        task.cancel()
        do {
            _ = try await task.value
            Issue.record("a cancelled request answered")
        } catch let error as HTTPError {
            #expect(error.code == .cancelled, "\(error)")
        }
        #expect(ContinuousClock.now - started < .seconds(15), "the request ended when cancelled, not when the server answered 30 s later")
        await server.stop()
    }
}
