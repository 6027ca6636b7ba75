internal import Foundation
internal import GRDB
internal import MemoraDatabase
internal import PostgresNIO

/// A value bound to, or read from, a statement of a ``SQLBatch``.
enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)

    var integer: Int64? { if case .integer(let value) = self { value } else { nil } }
    var real: Double? {
        switch self {
        case .real(let value): value
        case .integer(let value): Double(value)
        default: nil
        }
    }
    var text: String? { if case .text(let value) = self { value } else { nil } }

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

/// Statements run in one transaction on either store: the hub's storage is written once, as batches
/// whose later statements refer to earlier rows by their unique keys (no value is read back between
/// them), so the same batch runs on SQLite (GRDB) and PostgreSQL (PostgresNIO).
protocol SQLBatchRunner: Sendable {
    /// `sqlite` or `postgres`.
    var dialect: SyncTableSQL.Dialect { get }
    /// Runs `statements` in one transaction and returns each one's rows (columns in order).
    func run(_ statements: [SQLStatement]) async throws(ServerError) -> [[[SQLValue]]]
}

extension SQLBatchRunner {
    /// The rows of one statement run on its own.
    func rows(_ sql: String, _ values: [SQLValue] = []) async throws(ServerError) -> [[SQLValue]] {
        try await run([SQLStatement(sql, values)])[0]
    }
}

extension SQLiteSyncStore: SQLBatchRunner {
    var dialect: SyncTableSQL.Dialect { .sqlite }

    func run(_ statements: [SQLStatement]) async throws(ServerError) -> [[[SQLValue]]] {
        do {
            return try await pool.write { db in
                try statements.map { statement in
                    let arguments = StatementArguments(statement.values.map { value -> (any DatabaseValueConvertible)? in
                        switch value {
                        case .null: nil
                        case .integer(let number): number
                        case .real(let number): number
                        case .text(let text): text
                        }
                    })
                    return try Row.fetchAll(db, sql: statement.sql, arguments: arguments).map { row in
                        row.databaseValues.map { value -> SQLValue in
                            switch value.storage {
                            case .null: .null
                            case .int64(let number): .integer(number)
                            case .double(let number): .real(number)
                            case .string(let text): .text(text)
                            case .blob(let data): .text(String(decoding: data, as: UTF8.self))
                            }
                        }
                    }
                }
            }
        } catch let error as ServerError {
            throw error
        } catch {
            throw .storage(DatabaseFailure(error).reason)
        }
    }
}

extension PostgresSyncStore: SQLBatchRunner {
    var dialect: SyncTableSQL.Dialect { .postgres }

    func run(_ statements: [SQLStatement]) async throws(ServerError) -> [[[SQLValue]]] {
        let logger = self.logger
        do {
            return try await client.withTransaction(logger: logger) { connection in
                var results: [[[SQLValue]]] = []
                for statement in statements {
                    var binds = PostgresBindings()
                    for value in statement.values {
                        switch value {
                        case .null: binds.appendNull()
                        case .integer(let number): binds.append(number)
                        case .real(let number): binds.append(number)
                        case .text(let text): binds.append(text)
                        }
                    }
                    let rows = try await connection.query(PostgresQuery(unsafeSQL: statement.numbered, binds: binds), logger: logger).collect()
                    results.append(try rows.map { row in try row.map(Self.value) })
                }
                return results
            }
        } catch let error as PostgresTransactionError {
            if let refusal = error.closureError as? ServerError { throw refusal }
            throw .storage(Self.describe(error.closureError ?? error.commitError ?? error.beginError ?? error))
        } catch {
            throw .storage(Self.describe(error))
        }
    }

    /// A cell as a value: integers, floating point and text (what the hub's tables hold).
    static func value(_ cell: PostgresCell) throws -> SQLValue {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int2, .int4, .int8: return .integer(try cell.decode(Int64.self))
        case .float4, .float8, .numeric: return .real(try cell.decode(Double.self))
        case .bool: return .integer(try cell.decode(Bool.self) ? 1 : 0)
        default: return .text(try cell.decode(String.self))
        }
    }
}
