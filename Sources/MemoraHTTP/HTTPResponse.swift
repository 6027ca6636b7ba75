public import Foundation

/// The answer to an ``HTTPRequest``: status, headers (names lower-cased) and body.
public struct HTTPResponse: Sendable, Hashable {
    /// The HTTP status code.
    public var status: Int
    /// The headers, keyed by lower-cased name.
    public var headers: [String: String]
    /// The body.
    public var body: Data

    /// A response.
    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
