internal import Foundation

/// One row a statement returned, read by the names of its columns: `try row["version"]` gives the
/// type the caller asks for, and a column that is missing, or holds another type (text where a
/// number belongs, a null where a value must be), is a ``ServerError`` naming the column, never a
/// silent zero or empty string.
struct SQLRow: Sendable {
    /// The answer's column names, shared by its rows.
    let columns: SQLColumns
    /// The values, in the columns' order.
    let values: [SQLValue]

    init(columns: SQLColumns, values: [SQLValue]) {
        self.columns = columns
        self.values = values
    }

    /// The value of `column`, as `Value`.
    subscript<Value: SQLColumnValue>(_ column: String) -> Value {
        get throws(ServerError) {
            guard let index = columns.index[column], index < values.count else {
                throw .storage("the answer has no column \(column) (it has \(columns.names.joined(separator: ", ")))")
            }
            guard let value = Value.from(values[index]) else {
                throw .storage("column \(column) holds \(values[index].kind), not \(Value.expected)")
            }
            return value
        }
    }
}

extension SQLRow {
    /// The value of a row of one column (a count, a single value), as `Value`.
    func only<Value: SQLColumnValue>(as type: Value.Type = Value.self) throws(ServerError) -> Value {
        guard values.count == 1, let name = columns.names.first else {
            throw .storage("the answer has \(values.count) columns where one was expected")
        }
        return try self[name]
    }
}

/// The column names of one answer, with each one's position.
final class SQLColumns: Sendable {
    /// The names, in order.
    let names: [String]
    /// Each name's position (the first, when a name repeats).
    let index: [String: Int]

    init(_ names: [String]) {
        self.names = names
        var index: [String: Int] = [:]
        for (position, name) in names.enumerated() where index[name] == nil { index[name] = position }
        self.index = index
    }
}

/// A Swift type a column's value is read as.
protocol SQLColumnValue {
    /// The value, or nil when `sql` holds another type.
    static func from(_ sql: SQLValue) -> Self?
    /// What the type is, in an error's words ("an integer").
    static var expected: String { get }
}

extension Int64: SQLColumnValue {
    static func from(_ sql: SQLValue) -> Int64? { sql.integer }
    static var expected: String { "an integer" }
}

extension Int: SQLColumnValue {
    static func from(_ sql: SQLValue) -> Int? { sql.integer.flatMap { Int(exactly: $0) } }
    static var expected: String { "an integer" }
}

extension Double: SQLColumnValue {
    static func from(_ sql: SQLValue) -> Double? { sql.real }
    static var expected: String { "a number" }
}

extension String: SQLColumnValue {
    static func from(_ sql: SQLValue) -> String? { sql.text }
    static var expected: String { "text" }
}

extension Bool: SQLColumnValue {
    static func from(_ sql: SQLValue) -> Bool? { sql.integer.flatMap { $0 == 0 || $0 == 1 ? $0 == 1 : nil } }
    static var expected: String { "a boolean (0 or 1)" }
}

/// A column that may be null: nil for a null, the value for a value of the type, a mismatch otherwise.
extension Optional: SQLColumnValue where Wrapped: SQLColumnValue {
    static func from(_ sql: SQLValue) -> Wrapped?? {
        if sql == .null { return .some(nil) }
        return Wrapped.from(sql).map { .some($0) }
    }
    static var expected: String { Wrapped.expected + " or null" }
}

extension SQLValue {
    /// What the value holds, in an error's words.
    var kind: String {
        switch self {
        case .null: "null"
        case .integer: "an integer"
        case .real: "a number with a fraction"
        case .text: "text"
        case .boolean: "a boolean"
        }
    }
}

extension Array where Element == SQLRow {
    /// Column `name` of every row, as `Value`.
    func column<Value: SQLColumnValue>(_ name: String, as type: Value.Type = Value.self) throws(ServerError) -> [Value] {
        var values: [Value] = []
        values.reserveCapacity(count)
        for row in self { values.append(try row[name]) }
        return values
    }
}
