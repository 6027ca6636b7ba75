/// What goes wrong talking to a Memory Palace hub. Every case says what to do.
public enum HubError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The QR code's text is not a hub's pairing code.
    case invalidPairingCode(String)
    /// The device has not paired with a hub yet.
    case notPaired
    /// The hub refused the pairing token or the device token.
    case unauthorized(String)
    /// A person with that name exists already: the hub's answer carries them.
    case personExists(HubPerson)
    /// The hub refused the request as invalid; each problem names its field.
    case invalidRequest(String, [String])
    /// No such memory or person.
    case notFound(String)
    /// The hub could not be reached.
    case connectionFailed(host: String, reason: String)
    /// The hub answered with an error.
    case server(status: Int, code: String, message: String)
    /// The hub's answer could not be read.
    case malformedResponse(String)
    /// A local file could not be read or written.
    case file(path: String, reason: String)

    /// A stable code for scripts and logs.
    public var code: String {
        switch self {
        case .invalidPairingCode: "invalid-pairing-code"
        case .notPaired: "not-paired"
        case .unauthorized: "unauthorized"
        case .personExists: "person-exists"
        case .invalidRequest: "invalid-request"
        case .notFound: "not-found"
        case .connectionFailed: "connection-failed"
        case .server: "server-error"
        case .malformedResponse: "malformed-response"
        case .file: "file"
        }
    }

    /// The message, for a person.
    public var description: String {
        switch self {
        case .invalidPairingCode(let reason): "not a hub's pairing code: \(reason)"
        case .notPaired: "this device has not paired with a hub: run `memora hub pair QR-TEXT` with the text of the hub's QR code (`memora-server pair` shows it)"
        case .unauthorized(let message): "the hub refused this device: \(message)"
        case .personExists(let person): "a person called \(person.name) exists already on the hub (id \(person.id))"
        case .invalidRequest(let message, let fields): fields.isEmpty ? message : "\(message): \(fields.joined(separator: "; "))"
        case .notFound(let what): "\(what) is not on the hub"
        case .connectionFailed(let host, let reason): "cannot reach the hub at \(host): \(reason); is it running, and is this device on its network?"
        case .server(let status, let code, let message): "the hub answered \(status) (\(code)): \(message)"
        case .malformedResponse(let reason): "the hub's answer could not be read: \(reason)"
        case .file(let path, let reason): "\(path): \(reason)"
        }
    }
}
