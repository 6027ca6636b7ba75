public import MemoraSystem
public import MemoraHTTP

/// What goes wrong in the server: a code a program can switch on (an extensible set of static
/// values, not a frozen enum), the HTTP status it answers with, and the message. Each error becomes
/// one `APIError` on the wire, whose code is ``Code/wireCode`` (snake_case, as Docs/openapi.json
/// lists them: the wire does not change with the Swift type).
///
/// Match on ``code`` (`error.code == .notFound`); build errors with the static functions, named
/// like the codes (`throw .notFound("no such memory")`).
public struct ServerError: CodedError, Hashable {
    /// What kind of failure it is. New codes may be added in later versions, so a `switch` over
    /// codes needs a `default` branch.
    public struct Code: ErrorCode {
        /// The code's stable kebab-case name ("mutation-gap").
        public var rawValue: String

        /// A code with this name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The code as the JSON error body spells it ("mutation_gap").
        public var wireCode: String { String(rawValue.map { $0 == "-" ? "_" : $0 }) }

        /// The request is malformed: the fields at fault (`400`).
        public static let invalidRequest = Code(rawValue: "invalid-request")
        /// No token, an unknown, expired or revoked token, or a wrong join code (`401`).
        public static let unauthorized = Code(rawValue: "unauthorized")
        /// The device was revoked and cannot register again under its id (`403`).
        public static let revoked = Code(rawValue: "revoked")
        /// The request may not do this from where it comes (`403`).
        public static let forbidden = Code(rawValue: "forbidden")
        /// The server could not listen where it was told to (never an answer: `run` and `start` throw it).
        public static let cannotListen = Code(rawValue: "cannot-listen")
        /// A push starts after a gap (`409`).
        public static let mutationGap = Code(rawValue: "mutation-gap")
        /// Nothing there (`404`).
        public static let notFound = Code(rawValue: "not-found")
        /// The request conflicts with the resource's state (`409`).
        public static let conflict = Code(rawValue: "conflict")
        /// The body is larger than the route takes (`413`).
        public static let tooLarge = Code(rawValue: "too-large")
        /// Too many requests (`429`).
        public static let rateLimited = Code(rawValue: "rate-limited")
        /// The storage failed (`503`).
        public static let storageUnavailable = Code(rawValue: "storage-unavailable")
        /// The server's data folder is not the one the other servers on its database use (never an
        /// answer: ``ServerData/open(_:database:)`` throws it).
        public static let fleetMismatch = Code(rawValue: "fleet-mismatch")
    }

    /// What kind of failure it is.
    public var code: Code
    /// The HTTP status of the answer (`503` for ``Code/cannotListen``, which is never one).
    public var status: Int
    /// What went wrong, in words a person can act on; never data from storage.
    public var message: String
    /// The fields at fault, for ``Code/invalidRequest``.
    public var fields: [FieldProblem]
    /// How long to wait, for ``Code/rateLimited`` (the answer's `Retry-After`, in whole seconds rounded up).
    public var retryAfter: Duration?
    /// The mutation number the server expected, for ``Code/mutationGap``.
    public var expectedMutation: Int64?
    /// Whether the same request may succeed later: rate limits and storage failures.
    public var isRetryable: Bool

    /// An error with every field given.
    public init(_ code: Code, status: Int, _ message: String, fields: [FieldProblem] = [], retryAfter: Duration? = nil,
                expectedMutation: Int64? = nil, isRetryable: Bool = false) {
        self.code = code
        self.status = status
        self.message = message
        self.fields = fields
        self.retryAfter = retryAfter
        self.expectedMutation = expectedMutation
        self.isRetryable = isRetryable
    }

    /// The error as the JSON body says it.
    public var apiError: APIError {
        APIError(code: code.wireCode, message: message, fields: fields.isEmpty ? nil : fields)
    }

    /// The message and the fields at fault.
    public var description: String { apiError.description }

    // MARK: The errors the server throws

    /// The request is malformed; `fields` name the fields at fault (`400`).
    public static func invalidRequest(_ message: String, _ fields: [FieldProblem]) -> ServerError {
        ServerError(.invalidRequest, status: 400, message, fields: fields)
    }

    /// No token, an unknown, expired or revoked token, or a wrong join code (`401`).
    public static func unauthorized(_ message: String) -> ServerError {
        ServerError(.unauthorized, status: 401, message)
    }

    /// The device was revoked and cannot register again under its id (`403`).
    public static var revoked: ServerError {
        ServerError(.revoked, status: 403, "this device was revoked on the server; ask its owner to allow it again (memora-server devices)")
    }

    /// The request may not do this from where it comes: a dashboard page asked for under a name that
    /// is not this hub's, or a form sent from another site (`403`).
    public static func forbidden(_ message: String) -> ServerError {
        ServerError(.forbidden, status: 403, message)
    }

    /// The server could not listen where it was told to.
    public static func cannotListen(_ message: String) -> ServerError {
        ServerError(.cannotListen, status: 503, message)
    }

    /// A push starts after a gap: the server expected mutation `expected` first (`409`).
    public static func mutationGap(expected: Int64) -> ServerError {
        ServerError(.mutationGap, status: 409,
                    "the server expected mutation \(expected) next; pull to learn the last one it processed, then push from there",
                    expectedMutation: expected)
    }

    /// Nothing there (`404`).
    public static func notFound(_ message: String) -> ServerError {
        ServerError(.notFound, status: 404, message)
    }

    /// The request conflicts with the resource's state, which the message gives (`409`).
    public static func conflict(_ message: String) -> ServerError {
        ServerError(.conflict, status: 409, message)
    }

    /// The body is larger than the route's `limit` in bytes (`413`).
    public static func tooLarge(limit: Int) -> ServerError {
        ServerError(.tooLarge, status: 413, "the body is larger than \(limit) bytes")
    }

    /// Too many requests: try again after `retryAfter` (`429`).
    public static func rateLimited(retryAfter: Duration) -> ServerError {
        ServerError(.rateLimited, status: 429, "too many requests; try again in \(retryAfter.wholeSecondsRoundedUp) s", retryAfter: retryAfter,
                    isRetryable: true)
    }

    /// The data folder is not the fleet's: `message` says which folder the servers on the database share.
    public static func fleetMismatch(_ message: String) -> ServerError {
        ServerError(.fleetMismatch, status: 503, message)
    }

    /// The storage failed (`503`); `message` says what, without data.
    public static func storage(_ message: String) -> ServerError {
        ServerError(.storageUnavailable, status: 503, "the server's storage failed: \(message)", isRetryable: true)
    }
}
