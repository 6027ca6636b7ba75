/// The body of `POST /api/sync/pull`.
public struct PullRequest: Sendable, Hashable, Codable {
    /// The most records a page carries unless one version has more (a page never splits a version).
    public static let maxLimit = 1000
    /// The cursor of the last page applied, nil for everything.
    public var cursor: String?
    /// How many records the device wants at most (1 to ``maxLimit``; default 500).
    public var limit: Int?

    /// Creates a request.
    public init(cursor: String?, limit: Int? = nil) {
        self.cursor = cursor
        self.limit = limit
    }
}

/// One record as the server has it: its fields, or a tombstone.
public struct SyncChange: Sendable, Hashable, Codable {
    /// The collection's name.
    public var collection: String
    /// The record's key (its key fields joined with `/`).
    public var key: String
    /// The server's version of the record: the commit that wrote it.
    public var version: Int64
    /// Whether the record was deleted.
    public var deleted: Bool
    /// The record's fields (empty for a tombstone).
    public var fields: [String: JSONValue]

    /// Creates a change.
    public init(collection: String, key: String, version: Int64, deleted: Bool, fields: [String: JSONValue]) {
        self.collection = collection
        self.key = key
        self.version = version
        self.deleted = deleted
        self.fields = fields
    }
}

/// A page of changes in commit order.
public struct PullResponse: Sendable, Hashable, Codable {
    /// The changes after the request's cursor, in version order; whole versions only.
    public var changes: [SyncChange]
    /// The cursor to send next time (never behind the request's).
    public var cursor: String
    /// Whether more changes follow: pull again at once with ``cursor``.
    public var hasMore: Bool
    /// True when the request's cursor is older than the server's retention horizon or from another
    /// server: the device must drop what it pulled (keeping its own unpushed changes) and pull from the start.
    public var reset: Bool
    /// The number of the device's last mutation the server processed (a lost push answer is recovered here).
    public var lastMutationId: Int64

    /// Creates a response.
    public init(changes: [SyncChange], cursor: String, hasMore: Bool, reset: Bool, lastMutationId: Int64) {
        self.changes = changes
        self.cursor = cursor
        self.hasMore = hasMore
        self.reset = reset
        self.lastMutationId = lastMutationId
    }
}
