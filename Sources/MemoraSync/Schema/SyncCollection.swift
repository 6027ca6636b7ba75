public import MemoraHTTP
/// A collection of records that devices sync through the server: its fields, which of them make a
/// record's key, and who may write it.
///
/// The server's table for a collection has one column per field, plus `key` (the key fields joined
/// with `/`), `version`, `deleted`, `updated_by` and `server_updated_at`. The schema is in
/// `Docs/Sync.md`; ``SyncSchema/collections`` lists the collections.
public struct SyncCollection: Sendable, Hashable {
    /// The collection's name on the wire and its table's name.
    public let name: String
    /// The fields whose values make a record's key, in order.
    public let keyFields: [SyncField]
    /// The other fields.
    public let fields: [SyncField]
    /// The field holding the device that owns a record: only that device may write it. Nil when any
    /// device of the server may write every record (places and categories).
    public let ownerField: String?
    /// Whether devices pull the collection. Error reports are pushed only.
    public let pulled: Bool

    /// Creates a collection.
    public init(name: String, keyFields: [SyncField], fields: [SyncField], ownerField: String? = nil, pulled: Bool = true) {
        self.name = name
        self.keyFields = keyFields
        self.fields = fields
        self.ownerField = ownerField
        self.pulled = pulled
    }

    /// Key fields first, then the others.
    public var allFields: [SyncField] { keyFields + fields }

    /// The key of a record with these values (the key fields' values joined with `/`), or nil when
    /// one is missing or not text.
    public func key(of values: [String: JSONValue]) -> String? {
        var parts: [String] = []
        for field in keyFields {
            guard case .string(let part)? = values[field.name] else { return nil }
            parts.append(part)
        }
        return parts.joined(separator: "/")
    }

    /// The key fields' values of a key made by ``key(of:)``.
    public func keyValues(of key: String) -> [String: JSONValue]? {
        let parts = key.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == keyFields.count else { return nil }
        var values: [String: JSONValue] = [:]
        for (field, part) in zip(keyFields, parts) { values[field.name] = .string(part) }
        return values
    }

    /// Checks a record's values for a `put` (`keyOnly` false) or a `delete` (`keyOnly` true): every
    /// problem, each with its path under `path`. Unknown fields are problems too.
    public func validate(_ values: [String: JSONValue], path: String, keyOnly: Bool = false) -> [FieldProblem] {
        var problems: [FieldProblem] = []
        let checked = keyOnly ? keyFields : allFields
        let known = Set(checked.map(\.name))
        for name in values.keys.sorted() where !known.contains(name) {
            let hint = keyOnly ? "a delete gives only the key fields (\(keyFields.map(\.name).joined(separator: ", ")))"
                : "\(self.name) has the fields \(allFields.map(\.name).joined(separator: ", "))"
            problems.append(FieldProblem(field: "\(path).\(String(name.prefix(64)))", message: "unknown field: \(hint)"))
        }
        for field in checked {
            let fieldPath = "\(path).\(field.name)"
            let isKey = keyFields.contains(field)
            guard let value = values[field.name], value != .null else {
                if field.required || isKey { problems.append(FieldProblem(field: fieldPath, message: "required")) }
                continue
            }
            if let message = SyncValueCheck.problem(with: value, for: field.kind) {
                problems.append(FieldProblem(field: fieldPath, message: message))
            } else if isKey, case .string(let text) = value, text.contains("/") {
                problems.append(FieldProblem(field: fieldPath, message: "a key field cannot contain '/'"))
            }
        }
        return problems
    }
}
