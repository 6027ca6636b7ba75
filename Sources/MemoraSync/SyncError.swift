public import MemoraHTTP

/// What goes wrong when a device syncs: a code a program can switch on (an extensible set of
/// static values, not a frozen enum), a message a person can act on, and whether trying again can
/// help. Every failure leaves the device's unpushed changes queued.
///
/// Match on ``code`` (`error.code == .rateLimited`); build errors with the static functions, named
/// like the codes (`throw .connectionFailed(server: url, reason: "timed out")`).
public struct SyncError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure it is. New codes may be added in later versions, so a `switch` over
    /// codes needs a `default` branch.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code's stable kebab-case name ("rate-limited").
        public var rawValue: String

        /// A code with this name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The kebab-case name.
        public var description: String { rawValue }

        /// The device has no token for this server and no join code was given.
        public static let notRegistered = Code(rawValue: "not-registered")
        /// The server refused the token or the join code.
        public static let unauthorized = Code(rawValue: "unauthorized")
        /// The server revoked this device.
        public static let revoked = Code(rawValue: "revoked")
        /// The server asks to wait (``SyncError/retryAfter`` seconds).
        public static let rateLimited = Code(rawValue: "rate-limited")
        /// The server answered with another error (``SyncError/status`` and ``SyncError/apiError``).
        public static let serverError = Code(rawValue: "server-error")
        /// The server could not be reached.
        public static let connectionFailed = Code(rawValue: "connection-failed")
        /// The server's answer is not the protocol's.
        public static let malformedResponse = Code(rawValue: "malformed-response")
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
    /// Seconds the server asked to wait, for ``Code/rateLimited``.
    public var retryAfter: Int?
    /// Whether trying again later, without changing anything, may succeed: the server could not be
    /// reached, was busy, or failed on its side (5xx).
    public var isRetryable: Bool

    /// An error with every field given.
    public init(_ code: Code, _ message: String, status: Int? = nil, apiError: APIError? = nil, problems: [FieldProblem] = [],
                retryAfter: Int? = nil, isRetryable: Bool = false) {
        self.code = code
        self.message = message
        self.status = status
        self.apiError = apiError
        self.problems = problems
        self.retryAfter = retryAfter
        self.isRetryable = isRetryable
    }

    /// The message.
    public var description: String { message }

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

    /// The server asks to wait `retryAfter` seconds.
    public static func rateLimited(retryAfter: Int) -> SyncError {
        SyncError(.rateLimited, "the server is busy: try again in \(retryAfter) s (nothing was lost; changes stay queued)",
                  status: 429, retryAfter: retryAfter, isRetryable: true)
    }

    /// The server answered HTTP `status` with `error`; retryable when the server failed on its side.
    public static func server(status: Int, _ error: APIError) -> SyncError {
        SyncError(.serverError, "the server answered HTTP \(status): \(error)", status: status, apiError: error, isRetryable: status >= 500)
    }

    /// `server` could not be reached.
    public static func connectionFailed(server: String, reason: String) -> SyncError {
        SyncError(.connectionFailed, "cannot reach \(server): \(reason) (changes stay queued until the next sync)", isRetryable: true)
    }

    /// No answer came from the server: it could not be reached, timed out, or the request was cancelled.
    public static func http(_ error: HTTPError) -> SyncError {
        if error.code == .malformedResponse || error.code == .responseTooLarge { return .malformedResponse(error.reason) }
        var failure = SyncError.connectionFailed(server: error.endpoint, reason: error.reason)
        failure.isRetryable = error.isRetryable
        return failure
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
