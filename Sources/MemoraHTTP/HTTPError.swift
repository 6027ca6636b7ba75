public import MemoraSystem

/// What goes wrong with an HTTP request: no usable answer came back (a transport's failure), or,
/// through an ``APIClient``, the server answered with a status the request does not take
/// (``Code/unexpectedStatus``, with the server's ``APIError`` and ``retryAfter`` when it sent them).
/// The caption generators, the sync client and the hub client turn it into their own module's
/// error, keeping its code (``HTTPFailureCode``).
public struct HTTPError: CodedError, Hashable {
    /// What kind of failure it is. New codes may be added in later versions, so a `switch` over
    /// codes needs a `default` branch. The transport's codes are ``HTTPFailureCode``'s.
    public struct Code: HTTPFailureCode {
        /// The code's stable kebab-case name ("connection-failed").
        public var rawValue: String

        /// A code with this name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The server answered with a status the request does not take (``HTTPError/status``).
        public static let unexpectedStatus = Code(rawValue: "unexpected-status")
    }

    /// What kind of failure it is.
    public var code: Code
    /// The address, without query string or credentials (``HTTPRequest/redactedURL``).
    public var endpoint: String
    /// What happened, in words (the system's reason, or the server's message, when it gave one).
    public var reason: String
    /// The HTTP status, when the server answered.
    public var status: Int?
    /// The server's error body, when it answered with Memora's (``APIErrorBody``).
    public var apiError: APIError?
    /// How long the server asked to wait (`Retry-After`, `retry-after-ms`), when it said.
    public var retryAfter: Duration?
    /// Whether sending the same request later may succeed: the connection failed or timed out, or
    /// the server was busy (408, 429) or failed on its side (5xx).
    public var isRetryable: Bool

    /// An error with every field given.
    public init(_ code: Code, endpoint: String, reason: String, status: Int? = nil, apiError: APIError? = nil,
                retryAfter: Duration? = nil, isRetryable: Bool = false) {
        self.code = code
        self.endpoint = endpoint
        self.reason = reason
        self.status = status
        self.apiError = apiError
        self.retryAfter = retryAfter
        self.isRetryable = isRetryable
    }

    /// The endpoint and the reason.
    public var message: String { "\(endpoint): \(reason)" }

    /// The server answered `response` to a request to `endpoint`, with a status the request does not
    /// take: the error says the status, the server's ``APIError`` when its body is one, and the wait
    /// it asked for. Retryable for 408, 429 and 5xx.
    public static func unexpected(_ response: HTTPResponse, endpoint: String) -> HTTPError {
        let apiError = response.apiError
        let status = response.status
        return HTTPError(.unexpectedStatus, endpoint: endpoint, reason: apiError?.description ?? "HTTP \(status)",
                         status: status, apiError: apiError, retryAfter: response.retryAfter(),
                         isRetryable: status == 408 || status == 429 || (500...599).contains(status))
    }
}

/// The codes of a failure to get an answer, shared by ``HTTPError`` and every module error that
/// wraps one (sync, hub, captions): a module keeps the transport's code as it is, so a timeout is
/// `timed-out` and a cancelled request `cancelled` whichever client sent it.
public protocol HTTPFailureCode: ErrorCode {}

extension HTTPFailureCode {
    /// The server could not be reached, or the connection broke before the answer was complete.
    public static var connectionFailed: Self { Self(rawValue: "connection-failed") }
    /// No bytes of the answer came within the timeout.
    public static var timedOut: Self { Self(rawValue: "timed-out") }
    /// The task sending the request was cancelled.
    public static var cancelled: Self { Self(rawValue: "cancelled") }
    /// The answer is larger than the transport takes.
    public static var responseTooLarge: Self { Self(rawValue: "response-too-large") }
    /// What came back is not an HTTP answer, or not the answer the protocol expects.
    public static var malformedResponse: Self { Self(rawValue: "malformed-response") }
    /// The server's certificate chain does not end at a root its host is pinned to, or names
    /// another host (a pinned transport's refusal; not retryable: the same chain comes back).
    public static var untrustedCertificate: Self { Self(rawValue: "untrusted-certificate") }

    /// The same code in this set: a transport's failure, kept as it is.
    public init(_ code: HTTPError.Code) { self.init(rawValue: code.rawValue) }
}
