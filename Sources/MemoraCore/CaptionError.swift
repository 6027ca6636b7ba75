/// Why a caption could not be generated. Each case says whether trying again can help.
public enum CaptionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The photo could not be read or prepared.
    case imageUnreadable(path: String, reason: String)
    /// The server could not be reached (refused, DNS, TLS).
    case connectionFailed(endpoint: String, reason: String)
    /// The server did not answer in time.
    case timedOut(endpoint: String, seconds: Double)
    /// Too many requests (HTTP 429): retry after the given number of seconds when the server said.
    case rateLimited(provider: String, retryAfter: Double?, message: String)
    /// The server failed (HTTP 5xx); retry after the given seconds when the server said.
    case serverError(provider: String, status: Int, retryAfter: Double?, message: String)
    /// The key is missing, wrong or lacks permission (HTTP 401/403).
    case unauthorized(provider: String, message: String)
    /// The account's quota is used up (for the day or for good): retrying today does not help.
    case quotaExhausted(provider: String, message: String)
    /// The provider refused the request as malformed or unsupported (HTTP 4xx), or the model is missing.
    case rejected(provider: String, status: Int, message: String)
    /// The provider blocked the photo or the answer for safety reasons.
    case safetyBlocked(provider: String, reason: String)
    /// The reply was not in the provider's format.
    case malformedResponse(provider: String, reason: String)
    /// The model answered with nothing usable.
    case emptyCaption(provider: String)
    /// The generator cannot be used now (not configured, model not pulled, no key).
    case unavailable(provider: String, reason: String)
    /// Every generator allowed by the mode failed; the last error of each is listed.
    case allGeneratorsFailed([String])
    /// The work was cancelled before a caption was produced.
    case cancelled

    /// Whether the same generator may succeed if asked again later (429, 5xx, timeouts, dropped connections).
    public var isRetryable: Bool {
        switch self {
        case .rateLimited, .serverError, .timedOut, .connectionFailed: true
        default: false
        }
    }

    /// The delay the server asked for, in seconds, when it said.
    public var retryAfter: Double? {
        switch self {
        case .rateLimited(_, let seconds, _), .serverError(_, _, let seconds, _): seconds
        default: nil
        }
    }

    public var description: String {
        switch self {
        case .imageUnreadable(let path, let reason): "\(path): the photo could not be prepared for captioning: \(reason)"
        case .connectionFailed(let endpoint, let reason): "\(endpoint) could not be reached: \(reason)"
        case .timedOut(let endpoint, let seconds): "\(endpoint) did not answer within \(Int(seconds)) s"
        case .rateLimited(let provider, let after, let message):
            "\(provider) is rate limiting requests (HTTP 429)\(after.map { ", retry after \($0) s" } ?? ""): \(message)"
        case .serverError(let provider, let status, _, let message): "\(provider) failed with HTTP \(status): \(message)"
        case .unauthorized(let provider, let message): "\(provider) refused the API key: \(message) (check the key in the environment or the secrets file)"
        case .quotaExhausted(let provider, let message): "\(provider) quota is exhausted: \(message)"
        case .rejected(let provider, let status, let message): "\(provider) rejected the request (HTTP \(status)): \(message)"
        case .safetyBlocked(let provider, let reason): "\(provider) blocked the photo for safety reasons (\(reason)); no caption was produced"
        case .malformedResponse(let provider, let reason): "\(provider) sent a reply Memora cannot read: \(reason)"
        case .emptyCaption(let provider): "\(provider) answered with an empty caption"
        case .unavailable(let provider, let reason): "\(provider) is not available: \(reason)"
        case .allGeneratorsFailed(let errors): "no caption generator succeeded: " + errors.joined(separator: "; ")
        case .cancelled: "cancelled before a caption was produced"
        }
    }
}
