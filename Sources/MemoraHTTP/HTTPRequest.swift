public import Foundation

/// One HTTP request: what the caption generators, the sync client and the hub client send through
/// an ``HTTPTransport``.
public struct HTTPRequest: Sendable, Hashable {
    /// `GET`, `POST`, `PUT`, `PATCH`, `DELETE`, `HEAD`.
    public var method: String
    /// The full address. Its query string may hold a key: errors and logs name ``redactedURL`` instead.
    public var url: URL
    /// Headers. An `Authorization` or key header is secret: transports never log or repeat it.
    public var headers: [String: String]
    /// The body; ignored for `GET` and `HEAD`.
    public var body: Data
    /// How long the transport waits for the next bytes of the answer; nil for the transport's own
    /// timeout (``URLSessionTransport`` holds a request to a shorter one than its own).
    public var timeout: Duration?

    /// A request.
    public init(method: String, url: URL, headers: [String: String] = [:], body: Data = Data(), timeout: Duration? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }

    /// The address as errors and logs may show it: scheme, host, port and path, never a query
    /// string (which may hold a key) or a user and password.
    public var redactedURL: String { Self.redacted(url) }

    /// `url` as errors and logs may show it: scheme, host, port and path only.
    public static func redacted(_ url: URL) -> String {
        guard let host = url.host else { return "the server" }
        return "\(url.scheme ?? "http")://\(host)\(url.port.map { ":\($0)" } ?? "")\(url.path)"
    }
}
