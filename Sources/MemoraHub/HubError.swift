public import MemoraSystem
public import MemoraHTTP

/// What goes wrong talking to a Memory Palace hub: a code a program can switch on (an extensible
/// set of static values, not a frozen enum) and a message that says what to do.
///
/// Match on ``code`` (`error.code == .personExists`); build errors with the static functions,
/// named like the codes (`throw .notFound("memory 12")`).
public struct HubError: CodedError, Hashable {
    /// What kind of failure it is. New codes may be added in later versions, so a `switch` over
    /// codes needs a `default` branch. When no answer came, the code is the transport's
    /// (MemoraHTTP's `HTTPFailureCode`: `connectionFailed`, `timedOut`, `cancelled`, `malformedResponse`…).
    public struct Code: HTTPFailureCode {
        /// The code's stable kebab-case name ("person-exists").
        public var rawValue: String

        /// A code with this name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The QR code's text is not a hub's pairing code.
        public static let invalidPairingCode = Code(rawValue: "invalid-pairing-code")
        /// The device has not paired with a hub yet.
        public static let notPaired = Code(rawValue: "not-paired")
        /// The hub refused the pairing token or the device token.
        public static let unauthorized = Code(rawValue: "unauthorized")
        /// A person with that name exists already (``HubError/person``).
        public static let personExists = Code(rawValue: "person-exists")
        /// The hub refused the request as invalid (``HubError/fields``).
        public static let invalidRequest = Code(rawValue: "invalid-request")
        /// No such memory or person.
        public static let notFound = Code(rawValue: "not-found")
        /// The hub asks to wait (``HubError/retryAfter``); retryable.
        public static let rateLimited = Code(rawValue: "rate-limited")
        /// The hub answered with another error (``HubError/status``, ``HubError/serverCode``).
        public static let serverError = Code(rawValue: "server-error")
        /// A local file could not be read or written (``HubError/path``).
        public static let file = Code(rawValue: "file")
    }

    /// What kind of failure it is.
    public var code: Code
    /// What happened and what to do, in words.
    public var message: String
    /// The HTTP status, when the hub answered.
    public var status: Int?
    /// The hub's own error code (its JSON body's `code`), when it sent one.
    public var serverCode: String?
    /// The person who exists already, for ``Code/personExists``.
    public var person: HubPerson?
    /// The fields at fault, for ``Code/invalidRequest``.
    public var fields: [String]
    /// The local file, for ``Code/file``.
    public var path: String?
    /// How long the hub asked to wait (``Code/rateLimited``, or a busy hub's `Retry-After`).
    public var retryAfter: Duration?
    /// Whether trying again later, without changing anything, may succeed: the hub could not be
    /// reached, was busy (429) or failed on its side (5xx).
    public var isRetryable: Bool

    /// An error with every field given.
    public init(_ code: Code, _ message: String, status: Int? = nil, serverCode: String? = nil, person: HubPerson? = nil,
                fields: [String] = [], path: String? = nil, retryAfter: Duration? = nil, isRetryable: Bool = false) {
        self.code = code
        self.message = message
        self.status = status
        self.serverCode = serverCode
        self.person = person
        self.fields = fields
        self.path = path
        self.retryAfter = retryAfter
        self.isRetryable = isRetryable
    }

    // MARK: The errors MemoraHub throws

    /// The QR code's text is not a hub's pairing code.
    public static func invalidPairingCode(_ reason: String) -> HubError {
        HubError(.invalidPairingCode, "not a hub's pairing code: \(reason)")
    }

    /// The device has not paired with a hub yet.
    public static var notPaired: HubError {
        HubError(.notPaired, "this device has not paired with a hub: run `memora hub pair QR-TEXT` with the text of the hub's QR code (`memora-server pair` shows it)")
    }

    /// The hub refused the pairing token or the device token; `message` is the hub's.
    public static func unauthorized(_ message: String) -> HubError {
        HubError(.unauthorized, "the hub refused this device: \(message)", status: 401)
    }

    /// A person with that name exists already: the hub's answer carries them.
    public static func personExists(_ person: HubPerson) -> HubError {
        HubError(.personExists, "a person called \(person.name) exists already on the hub (id \(person.id))", status: 409, person: person)
    }

    /// The hub refused the request as invalid; each of `fields` names a field and its problem.
    public static func invalidRequest(_ message: String, _ fields: [String]) -> HubError {
        HubError(.invalidRequest, fields.isEmpty ? message : "\(message): \(fields.joined(separator: "; "))", status: 400, fields: fields)
    }

    /// `what` is not on the hub.
    public static func notFound(_ what: String) -> HubError {
        HubError(.notFound, "\(what) is not on the hub", status: 404)
    }

    /// The hub at `host` could not be reached.
    public static func connectionFailed(host: String, reason: String) -> HubError {
        HubError(.connectionFailed, "cannot reach the hub at \(host): \(reason); is it running, and is this device on its network?", isRetryable: true)
    }

    /// The hub answered `status` with its error `code` and `message`; retryable when it failed on its
    /// side (5xx) or timed out (408), after `retryAfter` when it said.
    public static func server(status: Int, code: String, message: String, retryAfter: Duration? = nil) -> HubError {
        HubError(.serverError, "the hub answered \(status) (\(code)): \(message)", status: status, serverCode: code, retryAfter: retryAfter,
                 isRetryable: status >= 500 || status == 408)
    }

    /// The hub asks to wait `retryAfter` before the next request.
    public static func rateLimited(retryAfter: Duration) -> HubError {
        HubError(.rateLimited, "the hub is busy: try again in \(retryAfter.wholeSecondsRoundedUp) s", status: 429,
                 serverCode: "rate_limited", retryAfter: retryAfter, isRetryable: true)
    }

    /// MemoraHTTP's error. No answer keeps the transport's code (MemoraHTTP's `HTTPFailureCode`); an answer
    /// with an error status is the hub's: 401 and 403 ``Code/unauthorized``, 404 ``Code/notFound``,
    /// 400 ``Code/invalidRequest``, 429 ``Code/rateLimited``, any other ``Code/serverError``.
    public static func http(_ error: HTTPError) -> HubError {
        if let status = error.status, error.code == .unexpectedStatus {
            let message = error.apiError?.message ?? "HTTP \(status)"
            switch status {
            case 401, 403: return .unauthorized(message)
            case 404: return .notFound(message)
            case 400: return .invalidRequest(message, (error.apiError?.fields ?? []).map(\.description))
            case 429: return .rateLimited(retryAfter: error.retryAfter ?? .seconds(1))
            default: return .server(status: status, code: error.apiError?.code ?? "http_\(status)", message: message, retryAfter: error.retryAfter)
            }
        }
        switch error.code {
        case .connectionFailed: return .connectionFailed(host: error.endpoint, reason: error.reason)
        case .timedOut: return HubError(.timedOut, "the hub at \(error.endpoint) did not answer in time: \(error.reason)", isRetryable: error.isRetryable)
        case .cancelled: return HubError(.cancelled, "the request to the hub at \(error.endpoint) was cancelled")
        case .malformedResponse, .responseTooLarge: return .malformedResponse(error.reason)
        default: return HubError(Code(error.code), error.message, status: error.status, isRetryable: error.isRetryable)
        }
    }

    /// The hub's answer could not be read.
    public static func malformedResponse(_ reason: String) -> HubError {
        HubError(.malformedResponse, "the hub's answer could not be read: \(reason)")
    }

    /// The local file at `path` could not be read or written.
    public static func file(path: String, reason: String) -> HubError {
        HubError(.file, "\(path): \(reason)", path: path)
    }
}
