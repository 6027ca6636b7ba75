internal import MemoraSync

/// A synced field's value between JSON and the store's columns, the same on both databases:
/// booleans bound as booleans (SQLite keeps 0 or 1), lists and objects as JSON text (PostgreSQL's
/// `JSONB`, given as `?::jsonb` and read as `::text`).
enum SyncValues {
    /// The value to bind for a field of `kind` (nil: a column of the protocol, not a field).
    static func value(_ value: JSONValue, kind: SyncField.Kind?) -> SQLValue {
        switch value {
        case .null: .null
        case .bool(let flag): .boolean(flag)
        case .integer(let number):
            if case .real? = kind { .real(Double(number)) } else { .integer(number) }
        case .number(let number): .real(number)
        case .string(let text): .text(text)
        case .array, .object: .text(value.jsonText)
        }
    }

    /// Column `name` of `row` as the field's JSON: a value of another type than the field's is
    /// refused, and so is JSON text that does not parse.
    static func json(_ row: SQLRow, _ name: String, kind: SyncField.Kind) throws(ServerError) -> JSONValue {
        switch kind {
        case .text, .identifier, .deviceID, .sha256, .choice: return try (row[name] as String?).map(JSONValue.string) ?? .null
        case .integer, .timestamp: return try (row[name] as Int64?).map(JSONValue.integer) ?? .null
        case .real: return try (row[name] as Double?).map(JSONValue.number) ?? .null
        case .boolean: return try (row[name] as Bool?).map(JSONValue.bool) ?? .null
        case .jsonObject, .objectList:
            guard let text: String = try row[name] else { return .null }
            guard let value = JSONValue(jsonText: text) else { throw .storage("column \(name) holds text that is not JSON") }
            return value
        }
    }

    /// The placeholder for a value of `kind`: `?::jsonb` for JSON on PostgreSQL, `?` otherwise.
    static func placeholder(_ kind: SyncField.Kind?, dialect: SyncTableSQL.Dialect) -> String {
        switch kind {
        case .jsonObject?, .objectList?: dialect == .postgres ? "?::jsonb" : "?"
        default: "?"
        }
    }

    /// A collection's columns in the order ``change(from:collection:)`` reads them: key, version,
    /// deleted, then the fields (JSON as text on PostgreSQL).
    static func selectList(_ collection: SyncCollection, dialect: SyncTableSQL.Dialect) -> String {
        (["key", "version", "deleted"] + collection.allFields.map { field in
            switch field.kind {
            case .jsonObject, .objectList: dialect == .postgres ? "\(field.name)::text AS \(field.name)" : field.name
            default: field.name
            }
        }).joined(separator: ", ")
    }

    /// A row read with ``selectList(_:dialect:)`` as a change (a tombstone's fields are empty).
    static func change(from row: SQLRow, collection: SyncCollection) throws(ServerError) -> SyncChange {
        let deleted: Bool = try row["deleted"]
        var fields: [String: JSONValue] = [:]
        if !deleted {
            for field in collection.allFields {
                let value = try json(row, field.name, kind: field.kind)
                if value != .null { fields[field.name] = value }
            }
        }
        return SyncChange(collection: collection.name, key: try row["key"], version: try row["version"], deleted: deleted, fields: fields)
    }
}
