/// What goes wrong sending an HTTP request when no usable answer came back (an answer with any
/// status is an ``HTTPResponse``, not an error). The caption generators, the sync client and the hub
/// client turn it into their own module's error.
public struct HTTPError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure it is. New codes may be added in later versions, so a `switch` over
    /// codes needs a `default` branch.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code's stable kebab-case name ("connection-failed").
        public var rawValue: String

        /// A code with this name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The kebab-case name.
        public var description: String { rawValue }

        /// The server could not be reached, or the connection broke before the answer was complete.
        public static let connectionFailed = Code(rawValue: "connection-failed")
        /// No bytes of the answer came within the timeout.
        public static let timedOut = Code(rawValue: "timed-out")
        /// The task sending the request was cancelled.
        public static let cancelled = Code(rawValue: "cancelled")
        /// The answer is larger than the transport takes.
        public static let responseTooLarge = Code(rawValue: "response-too-large")
        /// What came back is not an HTTP answer.
        public static let malformedResponse = Code(rawValue: "malformed-response")
        /// The server's certificate chain does not end at a root its host is pinned to, or names
        /// another host (a pinned transport's refusal; not retryable: the same chain comes back).
        public static let untrustedCertificate = Code(rawValue: "untrusted-certificate")
    }

    /// What kind of failure it is.
    public var code: Code
    /// The address, without query string or credentials (``HTTPRequest/redactedURL``).
    public var endpoint: String
    /// What happened, in words (the system's reason when it gave one).
    public var reason: String
    /// Whether sending the same request later may succeed: the connection failed or timed out.
    public var isRetryable: Bool

    /// An error with every field given.
    public init(_ code: Code, endpoint: String, reason: String, isRetryable: Bool = false) {
        self.code = code
        self.endpoint = endpoint
        self.reason = reason
        self.isRetryable = isRetryable
    }

    /// The endpoint and the reason.
    public var description: String { "\(endpoint): \(reason)" }
}
