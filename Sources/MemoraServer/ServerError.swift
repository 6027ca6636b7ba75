public import MemoraSync

/// What goes wrong in the server: each case becomes one `APIError` with an HTTP status.
public enum ServerError: Error, Sendable, CustomStringConvertible {
    /// The request is malformed: the fields at fault (`400`).
    case invalidRequest(String, [FieldProblem])
    /// No token, an unknown, expired or revoked token, or a wrong join code (`401`).
    case unauthorized(String)
    /// The device was revoked and cannot register again under its id (`403`).
    case revoked
    /// The request may not do this from where it comes: a dashboard page asked for under a name that is
    /// not this hub's, or a form sent from another site (`403`).
    case forbidden(String)
    /// The server could not listen where it was told to (never an answer: `run` and `start` throw it).
    case cannotListen(String)
    /// A push starts after a gap: the server expected this mutation number first (`409`).
    case mutationGap(expected: Int64)
    /// Nothing there (`404`).
    case notFound(String)
    /// The request conflicts with the resource's state, which the message gives (`409`).
    case conflict(String)
    /// The body is larger than the route takes (`413`).
    case tooLarge(limit: Int)
    /// Too many requests: try again after this many seconds (`429`).
    case rateLimited(retryAfter: Int)
    /// The storage failed (`503`); the message says what, without data.
    case storage(String)

    /// The HTTP status of the answer.
    public var status: Int {
        switch self {
        case .invalidRequest: 400
        case .unauthorized: 401
        case .revoked, .forbidden: 403
        case .notFound: 404
        case .mutationGap, .conflict: 409
        case .tooLarge: 413
        case .rateLimited: 429
        case .storage, .cannotListen: 503
        }
    }

    /// The error as the JSON body says it.
    public var apiError: APIError {
        switch self {
        case .invalidRequest(let message, let fields): APIError(code: "invalid_request", message: message, fields: fields.isEmpty ? nil : fields)
        case .unauthorized(let message): APIError(code: "unauthorized", message: message)
        case .revoked: APIError(code: "revoked", message: "this device was revoked on the server; ask its owner to allow it again (memora-server devices)")
        case .forbidden(let message): APIError(code: "forbidden", message: message)
        case .cannotListen(let message): APIError(code: "cannot_listen", message: message)
        case .mutationGap(let expected): APIError(code: "mutation_gap", message: "the server expected mutation \(expected) next; pull to learn the last one it processed, then push from there")
        case .notFound(let message): APIError(code: "not_found", message: message)
        case .conflict(let message): APIError(code: "conflict", message: message)
        case .tooLarge(let limit): APIError(code: "too_large", message: "the body is larger than \(limit) bytes")
        case .rateLimited(let seconds): APIError(code: "rate_limited", message: "too many requests; try again in \(seconds) s")
        case .storage(let message): APIError(code: "storage_unavailable", message: "the server's storage failed: \(message)")
        }
    }

    public var description: String { apiError.description }
}
