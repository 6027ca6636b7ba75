public import MemoraHTTP
/// The body of `POST /api/sync/push`: a device's mutations in order, at most ``maxMutations``.
public struct PushRequest: Sendable, Hashable, Codable {
    /// The most mutations one push carries.
    public static let maxMutations = 500
    /// The highest mutation number: 2^53 - 1, the largest integer every JSON reader keeps exactly.
    /// A server refuses higher numbers (and so never computes past `Int64.max`).
    public static let maxMutationID: Int64 = 9_007_199_254_740_991
    /// The mutations, numbered consecutively.
    public var mutations: [SyncMutation]

    /// Creates a request.
    public init(mutations: [SyncMutation]) { self.mutations = mutations }
}

/// What the server did with one mutation.
public struct MutationResult: Sendable, Hashable, Codable {
    /// Applied, or refused for good (the device drops it and reports the error).
    public enum Status: String, Sendable, Hashable, Codable {
        /// The mutation's effect is in the server's data.
        case applied
        /// The mutation was refused for good; ``MutationResult/error`` says why. It counts as processed.
        case rejected
    }

    /// The mutation's number.
    public var id: Int64
    /// Applied or rejected.
    public var status: Status
    /// Why it was rejected.
    public var error: APIError?

    /// Creates a result.
    public init(id: Int64, status: Status, error: APIError? = nil) {
        self.id = id
        self.status = status
        self.error = error
    }
}

/// The answer to a push: the device's last processed mutation and what became of each one sent.
/// Replaying a push gives the same answer.
public struct PushResponse: Sendable, Hashable, Codable {
    /// The number of the device's last processed mutation; the device drops every mutation up to it.
    public var lastMutationId: Int64
    /// One result per mutation of the request, in order.
    public var results: [MutationResult]

    /// Creates a response.
    public init(lastMutationId: Int64, results: [MutationResult]) {
        self.lastMutationId = lastMutationId
        self.results = results
    }
}
