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

    /// A column's value as the field's JSON.
    static func json(_ value: SQLValue, kind: SyncField.Kind) -> JSONValue {
        if value == .null { return .null }
        switch kind {
        case .text, .identifier, .deviceID, .sha256, .choice: return value.text.map(JSONValue.string) ?? .null
        case .integer, .timestamp: return value.integer.map(JSONValue.integer) ?? .null
        case .real: return value.real.map(JSONValue.number) ?? .null
        case .boolean: return value.boolean.map(JSONValue.bool) ?? .null
        case .jsonObject, .objectList: return value.text.flatMap { JSONValue(jsonText: $0) } ?? .null
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
    static func change(from row: [SQLValue], collection: SyncCollection) -> SyncChange {
        let deleted = row[2].boolean ?? false
        var fields: [String: JSONValue] = [:]
        if !deleted {
            for (index, field) in collection.allFields.enumerated() {
                let value = json(row[3 + index], kind: field.kind)
                if value != .null { fields[field.name] = value }
            }
        }
        return SyncChange(collection: collection.name, key: row[0].text ?? "", version: row[1].integer ?? 0, deleted: deleted, fields: fields)
    }
}
