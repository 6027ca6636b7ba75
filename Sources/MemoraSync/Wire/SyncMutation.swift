/// One local change a device pushes: a `put` (create or replace a record) or a `delete`.
///
/// A device numbers its mutations 1, 2, 3… in the order it made them; the server applies each at
/// most once, in that order (Docs/Sync.md, "Push").
public struct SyncMutation: Sendable, Hashable, Codable {
    /// What a mutation does.
    public enum Operation: String, Sendable, Hashable, Codable {
        /// Create the record or replace all its fields.
        case put
        /// Delete the record (the server keeps a tombstone).
        case delete
    }

    /// The device's number for this mutation: 1 for its first, then one more each time.
    public var id: Int64
    /// The collection's name (``SyncSchema/collections``).
    public var collection: String
    /// Put or delete.
    public var op: Operation
    /// The record's fields (a delete gives only the key fields).
    public var fields: [String: JSONValue]
    /// The version of the record the device last had from the server, nil for a record it created.
    /// A put based on a version older than the record's deletion is refused: deleted records stay deleted.
    public var baseVersion: Int64?

    /// Creates a mutation.
    public init(id: Int64, collection: String, op: Operation, fields: [String: JSONValue], baseVersion: Int64? = nil) {
        self.id = id
        self.collection = collection
        self.op = op
        self.fields = fields
        self.baseVersion = baseVersion
    }
}
