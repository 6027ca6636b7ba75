public import MemoraSystem
public import MemoraHTTP

/// What goes wrong when a device syncs: a code a program can switch on (an extensible set of
/// static values, not a frozen enum), a message a person can act on, and whether trying again can
/// help. Every failure leaves the device's unpushed changes queued.
///
/// Match on ``code`` (`error.code == .rateLimited`); build errors with the static functions, named
/// like the codes (`throw .connectionFailed(server: url, reason: "timed out")`).
public struct SyncError: CodedError, Hashable {
    /// What kind of failure it is. New codes may be added in later versions, so a `switch` over
    /// codes needs a `default` branch. When no answer came, the code is the transport's
    /// (MemoraHTTP's `HTTPFailureCode`: `connectionFailed`, `timedOut`, `cancelled`, `malformedResponse`…).
    public struct Code: HTTPFailureCode {
        /// The code's stable kebab-case name ("rate-limited").
        public var rawValue: String

        /// A code with this name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The device has no token for this server and no join code was given.
        public static let notRegistered = Code(rawValue: "not-registered")
        /// The server refused the token or the join code.
        public static let unauthorized = Code(rawValue: "unauthorized")
        /// The server revoked this device.
        public static let revoked = Code(rawValue: "revoked")
        /// The server asks to wait (``SyncError/retryAfter``).
        public static let rateLimited = Code(rawValue: "rate-limited")
        /// The server answered with another error (``SyncError/status`` and ``SyncError/apiError``).
        public static let serverError = Code(rawValue: "server-error")
        /// The local sync database failed.
        public static let database = Code(rawValue: "database")
        /// A record given to the replica is not valid for its collection (``SyncError/problems``).
        public static let invalidRecord = Code(rawValue: "invalid-record")
        /// The device is set to sync on an unmetered network only (`wifi_only`) and is not on one; retryable.
        public static let waitingForNetwork = Code(rawValue: "waiting-for-network")
    }

    /// What kind of failure it is.
    public var code: Code
    /// What happened and what to do, in words.
    public var message: String
    /// The HTTP status, when the server answered.
    public var status: Int?
    /// The server's error body, when it sent one.
    public var apiError: APIError?
    /// The fields at fault, for ``Code/invalidRecord``.
    public var problems: [FieldProblem]
    /// How long the server asked to wait (``Code/rateLimited``, or a busy server's `Retry-After`).
    public var retryAfter: Duration?
    /// Whether trying again later, without changing anything, may succeed: the server could not be
    /// reached, was busy, or failed on its side (5xx).
    public var isRetryable: Bool

    /// An error with every field given.
    public init(_ code: Code, _ message: String, status: Int? = nil, apiError: APIError? = nil, problems: [FieldProblem] = [],
                retryAfter: Duration? = nil, isRetryable: Bool = false) {
        self.code = code
        self.message = message
        self.status = status
        self.apiError = apiError
        self.problems = problems
        self.retryAfter = retryAfter
        self.isRetryable = isRetryable
    }

    // MARK: The errors MemoraSync throws

    /// The device has no token for `server` and no join code was given.
    public static func notRegistered(server: String) -> SyncError {
        SyncError(.notRegistered, "this device has not joined \(server): give the join code that `memora-server join-code` prints (memora sync --join CODE)")
    }

    /// The server refused the token or the join code; `message` is the server's.
    public static func unauthorized(_ message: String) -> SyncError {
        SyncError(.unauthorized, "the server refused this device: \(message)", status: 401)
    }

    /// The server revoked this device.
    public static var revoked: SyncError {
        SyncError(.revoked, "the server revoked this device; its owner can list devices with `memora-server devices`", status: 403)
    }

    /// The server asks to wait `retryAfter`.
    public static func rateLimited(retryAfter: Duration) -> SyncError {
        SyncError(.rateLimited, "the server is busy: try again in \(retryAfter.wholeSecondsRoundedUp) s (nothing was lost; changes stay queued)",
                  status: 429, retryAfter: retryAfter, isRetryable: true)
    }

    /// The server answered HTTP `status` with `error`; retryable when the server failed on its side
    /// (5xx) or timed out (408), after `retryAfter` when it said.
    public static func server(status: Int, _ error: APIError, retryAfter: Duration? = nil) -> SyncError {
        SyncError(.serverError, "the server answered HTTP \(status): \(error)", status: status, apiError: error, retryAfter: retryAfter,
                  isRetryable: status >= 500 || status == 408)
    }

    /// `server` could not be reached.
    public static func connectionFailed(server: String, reason: String) -> SyncError {
        SyncError(.connectionFailed, "cannot reach \(server): \(reason) (changes stay queued until the next sync)", isRetryable: true)
    }

    /// MemoraHTTP's error. No answer keeps the transport's code (MemoraHTTP's `HTTPFailureCode`); an answer
    /// with an error status is the sync protocol's: 401 ``Code/unauthorized``, 403 `revoked`
    /// ``Code/revoked``, 429 ``Code/rateLimited``, any other ``Code/serverError``.
    public static func http(_ error: HTTPError) -> SyncError {
        if let status = error.status, error.code == .unexpectedStatus {
            let body = error.apiError ?? APIError(code: "http_\(status)", message: "HTTP \(status) without Memora's error body")
            switch status {
            case 401: return .unauthorized(body.message)
            case 403 where body.code == "revoked": return .revoked
            case 429: return .rateLimited(retryAfter: error.retryAfter ?? .seconds(1))
            default: return .server(status: status, body, retryAfter: error.retryAfter)
            }
        }
        let said: String
        switch error.code {
        case .connectionFailed: return .connectionFailed(server: error.endpoint, reason: error.reason)
        case .timedOut: said = "\(error.endpoint) did not answer in time: \(error.reason) (changes stay queued until the next sync)"
        case .cancelled: said = "the sync with \(error.endpoint) was cancelled (changes stay queued until the next sync)"
        case .malformedResponse, .responseTooLarge: said = "the server's answer is not Memora's sync protocol: \(error.reason)"
        default: said = "\(error.endpoint): \(error.reason)"
        }
        return SyncError(Code(error.code), said, status: error.status, isRetryable: error.isRetryable)
    }

    /// The server's answer is not the protocol's.
    public static func malformedResponse(_ reason: String) -> SyncError {
        SyncError(.malformedResponse, "the server's answer is not Memora's sync protocol: \(reason)")
    }

    /// Sync waits for an unmetered network: the device is on `network` ("cellular") and set to sync on Wi-Fi or Ethernet only.
    public static func waitingForNetwork(_ network: String) -> SyncError {
        SyncError(.waitingForNetwork, "wifi_only is set and this device is on \(network): sync waits for Wi-Fi or Ethernet (or run it with --any-network)",
                  isRetryable: true)
    }

    /// The local sync database failed.
    public static func database(_ reason: String) -> SyncError {
        SyncError(.database, "the local sync database failed: \(reason)")
    }

    /// A record of `collection` is not valid: `problems` name the fields.
    public static func invalidRecord(collection: String, _ problems: [FieldProblem]) -> SyncError {
        SyncError(.invalidRecord, "the \(collection) record is not valid: \(problems.prefix(5).map(\.description).joined(separator: "; "))",
                  problems: problems)
    }
}
