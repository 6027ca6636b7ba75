import Foundation
internal import MemoraHTTP

/// The model server a generator asks: its base address, the headers that carry its key, how long a
/// caption may take, and the transport that reaches it. The Ollama, Gemini and OpenAI generators
/// each hold one and send every request through it, so joining a path to the address, the wait,
/// the key's header and reading a reply are written once.
struct ModelServer: Sendable {
    /// The base URL the generator's paths are joined to.
    let endpoint: URL
    /// The headers every request carries (the API key's, or none).
    let headers: [String: String]
    /// How long to wait for a caption.
    let timeout: Duration
    /// What carries the requests.
    let transport: any HTTPTransport

    /// A server at `endpoint`. `transport` nil: its own `URLSessionTransport` that waits as long as a
    /// caption may take, `timeout` (URLSession on Linux stops at the transport's timeout, whatever the
    /// request asks), checking certificates as the system trusts them; a front end that pins the cloud
    /// endpoints' roots passes MemoraPinning's `PinnedTransport`, as `memora caption` does.
    init(endpoint: URL, headers: [String: String] = [:], timeout: Duration, transport: (any HTTPTransport)?) {
        self.endpoint = endpoint
        self.headers = headers
        self.timeout = timeout
        self.transport = transport ?? URLSessionTransport(timeout: max(timeout, .seconds(1)))
    }

    /// Whether the server is on this machine, so pixels sent to it stay on the device.
    var isLoopback: Bool { Self.isLoopback(endpoint) }

    /// Whether `url` points at this machine (localhost, 127.0.0.0/8, ::1).
    static func isLoopback(_ url: URL) -> Bool {
        guard let host = url.host?.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]")) else { return false }
        return host == "localhost" || host.hasSuffix(".localhost") || host == "::1" || host.hasPrefix("127.")
    }

    /// `path` joined to the base URL, whatever slashes each has.
    func url(_ path: String) -> URL {
        var text = endpoint.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return URL(string: text + "/" + path.drop(while: { $0 == "/" })) ?? endpoint
    }

    /// POSTs `body` as JSON to `path`, waiting ``timeout``, and returns the JSON object of a 2xx
    /// answer; any other answer, or none, is the ``MemoraError`` it means for `provider`.
    func post(_ path: String, body: [String: Any], provider: String) async throws(MemoraError) -> [String: Any] {
        let request = HTTPRequest(method: "POST", url: url(path), headers: headers.merging(["Content-Type": "application/json"]) { mine, _ in mine },
                                  body: ProviderReply.json(body), timeout: timeout)
        let reply = try await exchange(request)
        try ProviderReply.check(reply, provider: provider)
        return try ProviderReply.object(reply, provider: provider)
    }

    /// GETs `path`, waiting `wait`: the answer, or the ``MemoraError`` of not getting one.
    func get(_ path: String, wait: Duration) async throws(MemoraError) -> HTTPResponse {
        try await exchange(HTTPRequest(method: "GET", url: url(path), headers: headers, timeout: wait))
    }

    /// Available when GET `path` (a listing or a model's description) answers 2xx within ten seconds.
    func availability(probing path: String, provider: String) async -> GeneratorAvailability {
        do {
            try ProviderReply.check(try await get(path, wait: .seconds(10)), provider: provider)
            return .available
        } catch {
            return .unavailable(reason: "\(error)")
        }
    }

    /// Sends `request`; a failure to get an answer becomes MemoraCore's error with the transport's
    /// code (``MemoraError/http(_:timeout:)``).
    private func exchange(_ request: HTTPRequest) async throws(MemoraError) -> HTTPResponse {
        do {
            return try await transport.send(request)
        } catch {
            throw .http(error, timeout: request.timeout)
        }
    }
}
