public import Foundation

/// A client of a Memora server's JSON API (sync or hub): bearer token, JSON bodies, and one reading
/// of a failed answer for every client. Any status the request does not take is an ``HTTPError``
/// with ``HTTPError/Code/unexpectedStatus``, the status, the server's ``APIError`` and the wait it
/// asked for (`Retry-After`); 408, 429 and 5xx are retryable. No answer at all is the transport's
/// error, its code kept. The sync and hub clients turn both into their own module's error.
///
/// ```swift
/// let api = APIClient(base: server, token: token, transport: URLSessionTransport())
/// let people: [Person] = try await api.call("GET", "api/people")
/// ```
public struct APIClient: Sendable {
    /// The server's address; paths are under it.
    public var base: URL
    /// The bearer token sent as `Authorization`, when the device has one. Never logged.
    public var token: String?
    /// What sends the requests.
    public var transport: any HTTPTransport
    /// How long a JSON request waits for the next bytes of its answer; nil for the transport's.
    public var timeout: Duration?

    /// A client of the API at `base`.
    public init(base: URL, token: String? = nil, transport: any HTTPTransport, timeout: Duration? = nil) {
        self.base = base
        self.token = token
        self.transport = transport
        self.timeout = timeout
    }

    /// The address of `path` under ``base``, with `query` when there is one.
    public func url(_ path: String, query: [URLQueryItem] = []) -> URL {
        let url = base.appendingPathComponent(path)
        guard !query.isEmpty, var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        parts.queryItems = query
        return parts.url ?? url
    }

    // MARK: JSON calls

    /// Every 2xx status: what a call takes unless it says which.
    public static let success = Set(200...299)

    /// Sends `body` as JSON to `path` and decodes the answer, which must have one of `expecting` (any 2xx unless given).
    public func call<Body: Encodable, Answer: Decodable>(_ method: String, _ path: String, query: [URLQueryItem] = [],
                                                         json body: Body, expecting: Set<Int> = APIClient.success) async throws(HTTPError) -> Answer {
        let response = try await send(method, path, query: query, json: body)
        return try answer(response, path, expecting: expecting)
    }

    /// Sends `method` to `path` without a body and decodes the answer, which must have one of `expecting` (any 2xx unless given).
    public func call<Answer: Decodable>(_ method: String, _ path: String, query: [URLQueryItem] = [],
                                        expecting: Set<Int> = APIClient.success) async throws(HTTPError) -> Answer {
        let response = try await send(method, path, query: query)
        return try answer(response, path, expecting: expecting)
    }

    /// Sends `method` to `path` without a body; the answer, whose body is ignored, must have one of `expecting`.
    public func call(_ method: String, _ path: String, expecting: Set<Int>) async throws(HTTPError) {
        let response = try await send(method, path)
        try Self.check(response, expecting: expecting, endpoint: HTTPRequest.redacted(url(path)))
    }

    // MARK: Sending

    /// Sends `body` as JSON to `path`; returns the answer whatever its status.
    public func send<Body: Encodable>(_ method: String, _ path: String, query: [URLQueryItem] = [], json body: Body) async throws(HTTPError) -> HTTPResponse {
        let data: Data
        do {
            data = try JSONEncoder().encode(body)
        } catch {
            throw HTTPError(.malformedResponse, endpoint: HTTPRequest.redacted(url(path)), reason: "the request cannot be encoded as JSON: \(error)")
        }
        return try await send(HTTPRequest(method: method, url: url(path, query: query), headers: ["Content-Type": "application/json"],
                                          body: data, timeout: timeout))
    }

    /// Sends `method` to `path` without a body; returns the answer whatever its status.
    public func send(_ method: String, _ path: String, query: [URLQueryItem] = []) async throws(HTTPError) -> HTTPResponse {
        try await send(HTTPRequest(method: method, url: url(path, query: query), timeout: timeout))
    }

    /// Sends `request` with the token as `Authorization` and JSON as the answer asked for; returns
    /// the answer whatever its status. `progress` hears the body's bytes as they are sent.
    public func send(_ request: HTTPRequest, progress: HTTPProgress? = nil) async throws(HTTPError) -> HTTPResponse {
        var request = request
        if request.headers["Accept"] == nil { request.headers["Accept"] = "application/json" }
        if let token { request.headers["Authorization"] = "Bearer \(token)" }
        return try await transport.send(request, progress: progress)
    }

    // MARK: Reading answers

    /// `response` checked against `expecting` and decoded; an error names `path`'s address without its query.
    private func answer<Answer: Decodable>(_ response: HTTPResponse, _ path: String, expecting: Set<Int>) throws(HTTPError) -> Answer {
        let endpoint = HTTPRequest.redacted(url(path))
        try Self.check(response, expecting: expecting, endpoint: endpoint)
        return try Self.decode(response, endpoint: endpoint)
    }

    /// Returns when `response` has one of `expecting`; otherwise throws ``HTTPError/unexpected(_:endpoint:)``.
    public static func check(_ response: HTTPResponse, expecting: Set<Int>, endpoint: String) throws(HTTPError) {
        guard !expecting.contains(response.status) else { return }
        throw .unexpected(response, endpoint: endpoint)
    }

    /// The answer's JSON body as `Answer`, or a ``HTTPFailureCode/malformedResponse`` error that says
    /// what does not fit.
    public static func decode<Answer: Decodable>(_ response: HTTPResponse, endpoint: String) throws(HTTPError) -> Answer {
        do {
            return try JSONDecoder().decode(Answer.self, from: response.body)
        } catch {
            throw HTTPError(.malformedResponse, endpoint: endpoint, reason: "the answer is not what the API sends: \(error)", status: response.status)
        }
    }
}
