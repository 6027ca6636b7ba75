import FlyingFox
import FlyingSocks
import Foundation
import MemoraHTTP
import MemoraSystem
import Testing

/// A loopback server speaking a Memora JSON API: `/api/whoami` answers the `Authorization` and
/// `Accept` it got, `/api/echo` the JSON body it got, and the other routes fail the ways a Memora
/// server does (its error body, `Retry-After`) or the ways a proxy does (no body, an HTTP date).
private actor APIServer {
    private var task: Task<Void, any Error>?
    private(set) var base = URL(string: "http://127.0.0.1")!

    func start() async throws {
        let server = HTTPServer(address: try .inet(ip4: "127.0.0.1", port: 0), timeout: 60, logger: .disabled)
        await server.appendRoute("GET /api/whoami") { request in
            let said = ["authorization": request.headers[HTTPHeader("Authorization")] ?? "", "accept": request.headers[HTTPHeader("Accept")] ?? ""]
            return FlyingFox.HTTPResponse(statusCode: .ok, body: try JSONEncoder().encode(said))
        }
        await server.appendRoute("POST /api/echo") { request in
            let type = request.headers[HTTPHeader("Content-Type")] ?? ""
            return FlyingFox.HTTPResponse(statusCode: .created, headers: [HTTPHeader("X-Content-Type"): type], body: try await request.bodyData)
        }
        await server.appendRoute("GET /api/busy") { _ in
            let body = APIErrorBody(error: APIError(code: "rate_limited", message: "too many requests; try again in 3 s"))
            return FlyingFox.HTTPResponse(statusCode: .tooManyRequests, headers: [HTTPHeader("Retry-After"): "3"], body: try JSONEncoder().encode(body))
        }
        await server.appendRoute("GET /api/missing") { _ in
            let body = APIErrorBody(error: APIError(code: "not_found", message: "memory 12 is not on the hub",
                                                    fields: [FieldProblem(field: "id", message: "no such memory")]))
            return FlyingFox.HTTPResponse(statusCode: .notFound, body: try JSONEncoder().encode(body))
        }
        await server.appendRoute("GET /api/proxy") { _ in
            FlyingFox.HTTPResponse(statusCode: .serviceUnavailable, headers: [HTTPHeader("Retry-After"): "Wed, 21 Oct 2099 07:28:00 GMT"],
                                   body: Data("<html>upstream down</html>".utf8))
        }
        await server.appendRoute("GET /api/garbled") { _ in FlyingFox.HTTPResponse(statusCode: .ok, body: Data("{\"id\": ".utf8)) }
        await server.appendRoute("DELETE /api/people/7") { _ in FlyingFox.HTTPResponse(statusCode: .noContent) }
        task = Task { try await server.run() }
        try await server.waitUntilListening(timeout: 60)
        guard case .ip4(_, let port) = await server.listeningAddress else { throw URLError(.cannotConnectToHost) }
        base = URL(string: "http://127.0.0.1:\(port)")!
    }

    func stop() { task?.cancel() }
}

private struct Echo: Codable, Equatable {
    var name: String
    var ids: [Int]
}

@Suite("APIClient")
struct APIClientTests {
    /// Runs `body` with a client of a fresh server, and stops the server however `body` ends.
    private func withClient(token: String? = "device-token-123", _ body: (APIClient) async throws -> Void) async throws {
        let server = APIServer()
        try await server.start()
        let client = APIClient(base: await server.base, token: token, transport: URLSessionTransport(timeout: .seconds(60)))
        try await withAsyncCleanup { try await body(client) } cleanup: { await server.stop() }
    }

    @Test("the token goes as a bearer, JSON is asked for, a JSON body is sent and decoded, any 2xx or the named status is taken")
    func callsAndBodies() async throws {
        try await withClient { client in
            let said: [String: String] = try await client.call("GET", "api/whoami")
            #expect(said["authorization"] == "Bearer device-token-123")
            #expect(said["accept"] == "application/json")
            let sent = Echo(name: "Ana", ids: [1, 2, 3])
            let echoed: Echo = try await client.call("POST", "api/echo", json: sent, expecting: [201])
            #expect(echoed == sent)
            let again: Echo = try await client.call("POST", "api/echo", json: sent)
            #expect(again == sent, "any 2xx is taken unless the call names the statuses")
            let raw = try await client.send("POST", "api/echo", json: sent)
            #expect(raw.headers["x-content-type"] == "application/json")
            try await client.call("DELETE", "api/people/7", expecting: [204])
        }
        try await withClient(token: nil) { client in
            let said: [String: String] = try await client.call("GET", "api/whoami")
            #expect(said["authorization"] == "", "a client without a token sends none")
        }
    }

    @Test("a 429 is retryable with the server's error and its Retry-After as a Duration")
    func rateLimited() async throws {
        try await withClient { client in
            do throws(HTTPError) {
                let _: [String: String] = try await client.call("GET", "api/busy")
                Issue.record("a 429 must throw")
            } catch {
                #expect(error.code == .unexpectedStatus)
                #expect(error.status == 429)
                #expect(error.apiError?.code == "rate_limited")
                #expect(error.retryAfter == .seconds(3))
                #expect(error.isRetryable)
                #expect(error.endpoint.hasSuffix("/api/busy"))
                #expect(!error.message.contains("device-token-123"), "the token is never in an error")
            }
        }
    }

    @Test("a 404 keeps the server's code and fields and is not retryable; a 200 that does not decode is malformed")
    func refusedAndMalformed() async throws {
        try await withClient { client in
            do throws(HTTPError) {
                let _: [String: String] = try await client.call("GET", "api/missing")
                Issue.record("a 404 must throw")
            } catch {
                #expect(error.status == 404 && !error.isRetryable && error.retryAfter == nil)
                #expect(error.apiError?.code == "not_found")
                #expect(error.apiError?.fields == [FieldProblem(field: "id", message: "no such memory")])
                #expect(error.reason.contains("memory 12 is not on the hub"))
            }
            do throws(HTTPError) {
                let _: Echo = try await client.call("GET", "api/garbled")
                Issue.record("a body that is not the answer must throw")
            } catch {
                #expect(error.code == .malformedResponse && error.status == 200 && !error.isRetryable, "\(error)")
            }
        }
    }

    @Test("a proxy's 503 without Memora's body is retryable, and its HTTP-date Retry-After is held to a day")
    func proxyFailure() async throws {
        try await withClient { client in
            do throws(HTTPError) {
                let _: Echo = try await client.call("GET", "api/proxy")
                Issue.record("a 503 must throw")
            } catch {
                #expect(error.status == 503 && error.isRetryable && error.apiError == nil)
                #expect(error.reason == "HTTP 503")
                #expect(error.retryAfter == HTTPResponse.longestRetryAfter)
            }
        }
    }

    @Test("no answer keeps the transport's code: a refused connection is connection-failed and retryable")
    func noAnswer() async throws {
        let port = try ClosedPort()
        let client = APIClient(base: URL(string: "http://127.0.0.1:\(port.port)")!, transport: URLSessionTransport(timeout: .seconds(30)))
        do throws(HTTPError) {
            let _: Echo = try await client.call("GET", "api/whoami")
            Issue.record("a refused connection must throw")
        } catch {
            #expect(error.code == .connectionFailed && error.isRetryable && error.status == nil, "\(error)")
        }
    }

    @Test("Retry-After: milliseconds first, then seconds or an HTTP date; a negative, a fraction of nothing or garbage is no wait")
    func retryAfterHeaders() {
        let now = Date(timeIntervalSince1970: 1_000_000_000)
        func wait(_ headers: [String: String]) -> Duration? { HTTPResponse(status: 429, headers: headers).retryAfter(now: now) }
        #expect(wait([:]) == nil)
        #expect(wait(["retry-after": "12"]) == .seconds(12))
        #expect(wait(["retry-after": " 2.5 "]) == .milliseconds(2500))
        #expect(wait(["retry-after": "9", "retry-after-ms": "250"]) == .milliseconds(250))
        #expect(wait(["retry-after": "-3"]) == nil)
        #expect(wait(["retry-after": "nan"]) == nil)
        #expect(wait(["retry-after": "soon"]) == nil)
        #expect(wait(["retry-after": "1e300"]) == HTTPResponse.longestRetryAfter)
        #expect(wait(["retry-after": "inf"]) == HTTPResponse.longestRetryAfter)
        // 2001-09-09 01:46:40 GMT is `now`; a date 90 s later is a 90 s wait, one in the past none.
        #expect(wait(["retry-after": "Sun, 09 Sep 2001 01:48:10 GMT"]) == .seconds(90))
        #expect(wait(["retry-after": "Sun, 09 Sep 2001 01:40:00 GMT"]) == .zero)
    }
}
