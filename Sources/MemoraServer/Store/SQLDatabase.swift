internal import Foundation

/// A value bound to, or read from, a statement run through ``SQLDatabase``.
enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    /// Bound as PostgreSQL's `BOOLEAN` and as SQLite's 0 or 1; read back as ``integer(_:)`` on both.
    case boolean(Bool)

    var integer: Int64? {
        switch self {
        case .integer(let value): value
        case .boolean(let flag): flag ? 1 : 0
        default: nil
        }
    }
    var real: Double? {
        switch self {
        case .real(let value): value
        case .integer(let value): Double(value)
        default: nil
        }
    }
    var text: String? { if case .text(let value) = self { value } else { nil } }
    /// A boolean column: SQLite's 0 or 1, PostgreSQL's `BOOLEAN`.
    var boolean: Bool? { integer.map { $0 != 0 } }

    init(_ value: String?) { self = value.map(SQLValue.text) ?? .null }
    init(_ value: Int64?) { self = value.map(SQLValue.integer) ?? .null }
    init(_ value: Double?) { self = value.map(SQLValue.real) ?? .null }
}

/// One statement with `?` placeholders (turned into `$1`, `$2`… on PostgreSQL) and its values.
struct SQLStatement: Sendable {
    var sql: String
    var values: [SQLValue]

    init(_ sql: String, _ values: [SQLValue] = []) {
        self.sql = sql
        self.values = values
    }

    /// `?` marks for `count` values, for an `IN (…)` list.
    static func marks(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }

    /// The SQL with PostgreSQL's numbered placeholders. `?` inside quotes is left alone.
    var numbered: String {
        var result = "", index = 0, quoted = false
        for character in sql {
            if character == "'" { quoted.toggle() }
            if character == "?" && !quoted {
                index += 1
                result += "$\(index)"
            } else {
                result.append(character)
            }
        }
        return result
    }
}

/// The statements of one open transaction: each call runs one and returns its rows.
protocol SQLTransaction: Sendable {
    /// Runs `sql` with `values` bound to its `?` placeholders, and returns its rows.
    func rows(_ sql: String, _ values: [SQLValue]) async throws(ServerError) -> [SQLRow]
}

extension SQLTransaction {
    /// Runs a statement whose rows are not needed.
    func execute(_ sql: String, _ values: [SQLValue] = []) async throws(ServerError) {
        _ = try await rows(sql, values)
    }

    /// The one column of the first row, as `Value`; nil when there is no row.
    func value<Value: SQLColumnValue>(_ sql: String, _ values: [SQLValue] = [], as type: Value.Type = Value.self) async throws(ServerError) -> Value? {
        try await rows(sql, values).first?.only()
    }
}

/// The server's one way to keep its tables on SQLite (``SQLiteDatabase``, GRDB) or PostgreSQL
/// (``PostgresDatabase``, PostgresNIO): the sync store and the hub store are each written once,
/// as statements in transactions, and the differences of the two dialects are named where they
/// appear (``SyncTableSQL``, ``dialect``).
protocol SQLDatabase: Sendable {
    /// `sqlite` or `postgres`.
    var dialect: SyncTableSQL.Dialect { get }

    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws. A
    /// `snapshot` transaction only reads, and sees one consistent state of the database (SQLite's
    /// read transaction in WAL mode, PostgreSQL's `REPEATABLE READ READ ONLY`). The body uses its
    /// transaction only: another call on the database from inside it waits for SQLite's one writer,
    /// which the body holds.
    func transaction<T: Sendable>(snapshot: Bool, _ body: @escaping @Sendable (any SQLTransaction) async throws(ServerError) -> T)
        async throws(ServerError) -> T

    /// Runs one statement on its own (its own transaction), without the cost of an explicit one;
    /// `readOnly` lets SQLite run it beside the writer.
    func statement(_ statement: SQLStatement, readOnly: Bool) async throws(ServerError) -> [SQLRow]

    /// Runs `statements` in one transaction and returns each one's rows: a batch whose later
    /// statements refer to earlier rows by their unique keys (the hub's changes). SQLite runs a
    /// batch in one go on the writer's thread, without handing each statement over.
    func run(_ statements: [SQLStatement]) async throws(ServerError) -> [[SQLRow]]
}

extension SQLDatabase {
    /// A read-write transaction.
    func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLTransaction) async throws(ServerError) -> T) async throws(ServerError) -> T {
        try await transaction(snapshot: false, body)
    }

    /// A batch as a transaction of its statements in turn (PostgreSQL's way).
    func run(_ statements: [SQLStatement]) async throws(ServerError) -> [[SQLRow]] {
        try await transaction { (transaction) async throws(ServerError) in
            var results: [[SQLRow]] = []
            for statement in statements { results.append(try await transaction.rows(statement.sql, statement.values)) }
            return results
        }
    }

    /// The rows of one statement run on its own.
    func rows(_ sql: String, _ values: [SQLValue] = []) async throws(ServerError) -> [SQLRow] {
        try await statement(SQLStatement(sql, values), readOnly: false)
    }

    /// The rows of one statement that only reads, run on its own.
    func read(_ sql: String, _ values: [SQLValue] = []) async throws(ServerError) -> [SQLRow] {
        try await statement(SQLStatement(sql, values), readOnly: true)
    }

    /// The one column of the first row of a statement run on its own, as `Value`; nil when there is no row.
    func value<Value: SQLColumnValue>(_ sql: String, _ values: [SQLValue] = [], as type: Value.Type = Value.self, readOnly: Bool = true)
        async throws(ServerError) -> Value? {
        try await statement(SQLStatement(sql, values), readOnly: readOnly).first?.only()
    }

    /// `FOR UPDATE` on PostgreSQL, which locks the rows a transaction reads until it ends; nothing on
    /// SQLite, where a write transaction holds the one writer's lock already.
    var forUpdate: String { dialect == .postgres ? " FOR UPDATE" : "" }
}
