internal import GRDB
internal import MemoraSync

/// Field values between JSON and SQLite's columns (booleans as 0/1, lists and objects as JSON text).
enum SQLiteValues {
    static func databaseValue(_ value: JSONValue, kind: SyncField.Kind) -> DatabaseValue {
        switch value {
        case .null: .null
        case .bool(let flag): flag.databaseValue
        case .integer(let number):
            if case .real = kind { Double(number).databaseValue } else { number.databaseValue }
        case .number(let number): number.databaseValue
        case .string(let text): text.databaseValue
        case .array, .object: value.jsonText.databaseValue
        }
    }

    static func jsonValue(_ value: DatabaseValue, kind: SyncField.Kind) -> JSONValue {
        if value.isNull { return .null }
        switch kind {
        case .text, .identifier, .deviceID, .sha256, .choice: return String.fromDatabaseValue(value).map(JSONValue.string) ?? .null
        case .integer, .timestamp: return Int64.fromDatabaseValue(value).map(JSONValue.integer) ?? .null
        case .real: return Double.fromDatabaseValue(value).map(JSONValue.number) ?? .null
        case .boolean: return Bool.fromDatabaseValue(value).map(JSONValue.bool) ?? .null
        case .jsonObject, .objectList: return String.fromDatabaseValue(value).flatMap { JSONValue(jsonText: $0) } ?? .null
        }
    }

    /// A row of a collection's table as a change (a tombstone's fields are empty).
    static func change(from row: Row, collection: SyncCollection) -> SyncChange {
        let deleted: Bool = row["deleted"]
        var fields: [String: JSONValue] = [:]
        if !deleted {
            for field in collection.allFields {
                let value = jsonValue(row[field.name] as DatabaseValue, kind: field.kind)
                if value != .null { fields[field.name] = value }
            }
        }
        return SyncChange(collection: collection.name, key: row["key"], version: row["version"], deleted: deleted, fields: fields)
    }
}
