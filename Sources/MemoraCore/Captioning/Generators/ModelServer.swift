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
    /// What carries the requests (``Endpoint/transport(_:timeout:)``).
    let transport: any HTTPTransport

    /// A server at `endpoint`; `transport` nil: a `URLSessionTransport` that waits `timeout`.
    init(endpoint: URL, headers: [String: String] = [:], timeout: Duration, transport: (any HTTPTransport)?) {
        self.endpoint = endpoint
        self.headers = headers
        self.timeout = timeout
        self.transport = Endpoint.transport(transport, timeout: timeout)
    }

    /// Whether the server is on this machine, so pixels sent to it stay on the device.
    var isLoopback: Bool { Endpoint.isLoopback(endpoint) }

    /// `path` joined to the base URL.
    func url(_ path: String) -> URL { ProviderReply.url(endpoint, path) }

    /// POSTs `body` as JSON to `path`, waiting ``timeout``, and returns the JSON object of a 2xx
    /// answer; any other answer, or none, is the ``MemoraError`` it means for `provider`.
    func post(_ path: String, body: [String: Any], provider: String) async throws(MemoraError) -> [String: Any] {
        let reply = try await transport.exchange(Endpoint.post(url(path), body: body, headers: headers, timeout: timeout))
        try ProviderReply.check(reply, provider: provider)
        return try ProviderReply.object(reply, provider: provider)
    }

    /// GETs `path`, waiting `wait`: the answer, or the ``MemoraError`` of not getting one.
    func get(_ path: String, wait: Duration) async throws(MemoraError) -> HTTPResponse {
        try await transport.exchange(Endpoint.get(url(path), headers: headers, timeout: wait))
    }

    /// Available when GET `path` (a listing or a model's description) answers 2xx within ten seconds.
    func availability(probing path: String, provider: String) async -> GeneratorAvailability {
        await ProviderReply.availability(probing: Endpoint.get(url(path), headers: headers, timeout: .seconds(10)),
                                         transport: transport, provider: provider)
    }
}
