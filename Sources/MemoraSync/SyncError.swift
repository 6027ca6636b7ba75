/// What goes wrong when a device syncs. Every case leaves the device's unpushed changes queued.
public enum SyncError: Error, Sendable, CustomStringConvertible {
    /// The device has no token for this server and no join code was given.
    case notRegistered(server: String)
    /// The server refused the token or the join code.
    case unauthorized(String)
    /// The server revoked this device.
    case revoked
    /// The server asks to wait this many seconds.
    case rateLimited(retryAfter: Int)
    /// The server answered with an error.
    case server(status: Int, APIError)
    /// The server could not be reached.
    case connectionFailed(server: String, reason: String)
    /// The server's answer is not the protocol's.
    case malformedResponse(String)
    /// The local sync database failed.
    case database(String)
    /// A record given to the replica is not valid for its collection.
    case invalidRecord(collection: String, [FieldProblem])

    /// A stable code for scripts and logs.
    public var code: String {
        switch self {
        case .notRegistered: "not_registered"
        case .unauthorized: "unauthorized"
        case .revoked: "revoked"
        case .rateLimited: "rate_limited"
        case .server: "server_error"
        case .connectionFailed: "connection_failed"
        case .malformedResponse: "malformed_response"
        case .database: "database"
        case .invalidRecord: "invalid_record"
        }
    }

    public var description: String {
        switch self {
        case .notRegistered(let server):
            "this device has not joined \(server): give the join code that `memora-server join-code` prints (memora sync --join CODE)"
        case .unauthorized(let message): "the server refused this device: \(message)"
        case .revoked: "the server revoked this device; its owner can list devices with `memora-server devices`"
        case .rateLimited(let seconds): "the server is busy: try again in \(seconds) s (nothing was lost; changes stay queued)"
        case .server(let status, let error): "the server answered HTTP \(status): \(error)"
        case .connectionFailed(let server, let reason): "cannot reach \(server): \(reason) (changes stay queued until the next sync)"
        case .malformedResponse(let reason): "the server's answer is not Memora's sync protocol: \(reason)"
        case .database(let reason): "the local sync database failed: \(reason)"
        case .invalidRecord(let collection, let problems):
            "the \(collection) record is not valid: \(problems.prefix(5).map(\.description).joined(separator: "; "))"
        }
    }
}
