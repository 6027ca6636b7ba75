internal import Foundation
internal import Logging
internal import PostgresNIO

/// The server's PostgreSQL database through PostgresNIO (`memora-server --database postgres://…`),
/// which several server processes may share. Statements take `?` placeholders, numbered here.
final class PostgresDatabase: SQLDatabase {
    var dialect: SyncTableSQL.Dialect { .postgres }
    let client: PostgresClient
    let running: Task<Void, Never>
    let logger: Logger
    /// Where the database is, for people: host, port and database (never the password).
    let description: String

    /// Connects to `url` (`postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`).
    init(url: String) throws(ServerError) {
        guard let parts = URLComponents(string: url), ["postgres", "postgresql"].contains(parts.scheme ?? ""),
              let host = parts.host, !host.isEmpty, let user = parts.user, !user.isEmpty else {
            throw .invalidRequest("the database address is not postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE", [])
        }
        let database = String(parts.path.drop { $0 == "/" })
        var configuration = PostgresClient.Configuration(host: host, port: parts.port ?? 5432, username: user, password: parts.password,
                                                         database: database.isEmpty ? nil : database, tls: .disable)
        configuration.options.maximumConnections = 16
        let client = PostgresClient(configuration: configuration)
        self.client = client
        running = Task { await client.run() }
        var logger = Logger(label: "memora-server.postgres")
        logger.logLevel = .warning
        self.logger = logger
        description = "PostgreSQL \(host)\(parts.port.map { ":\($0)" } ?? "")\(parts.path)"
    }

    deinit { running.cancel() }

    /// Applies the `migrations` the database has not had (listed in `memora_migrations`), in order,
    /// in one transaction under the advisory lock `lock`, so servers starting together do not race.
    func migrate(lock: Int64, _ migrations: [(name: String, statements: [SQLStatement])]) async throws(ServerError) {
        try await transaction { (transaction) async throws(ServerError) in
            try await transaction.execute("SELECT pg_advisory_xact_lock(?)", [.integer(lock)])
            try await transaction.execute("CREATE TABLE IF NOT EXISTS memora_migrations (name TEXT PRIMARY KEY)")
            let applied = Set(try await transaction.rows("SELECT name FROM memora_migrations", []).column("name", as: String.self))
            for migration in migrations where !applied.contains(migration.name) {
                for statement in migration.statements { try await transaction.execute(statement.sql, statement.values) }
                try await transaction.execute("INSERT INTO memora_migrations (name) VALUES (?)", [.text(migration.name)])
            }
        }
    }

    /// Closes the connections.
    func close() { running.cancel() }

    /// PostgreSQL's own message for a failure, never the query.
    static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] { return message }
            return "\(error.code)"
        }
        return "\(error)"
    }

    func transaction<T: Sendable>(snapshot: Bool, _ body: @escaping @Sendable (any SQLTransaction) async throws(ServerError) -> T)
        async throws(ServerError) -> T {
        let logger = self.logger
        do {
            return try await client.withTransaction(logger: logger) { connection in
                let transaction = Connection(connection: connection, logger: logger)
                if snapshot { try await transaction.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY") }
                return try await body(transaction)
            }
        } catch let error as PostgresTransactionError {
            // A refusal of ours inside the transaction (rolled back): the refusal, not a storage failure.
            if let refusal = error.closureError as? ServerError { throw refusal }
            throw .storage(Self.describe(error.closureError ?? error.commitError ?? error.beginError ?? error))
        } catch let error as ServerError {
            throw error
        } catch {
            throw .storage(Self.describe(error))
        }
    }

    func statement(_ statement: SQLStatement, readOnly: Bool) async throws(ServerError) -> [SQLRow] {
        let logger = self.logger
        do {
            return try await client.withConnection { connection in
                try await Connection(connection: connection, logger: logger).rows(statement.sql, statement.values)
            }
        } catch let error as ServerError {
            throw error
        } catch {
            throw .storage(Self.describe(error))
        }
    }

    /// One connection inside its transaction.
    struct Connection: SQLTransaction {
        let connection: PostgresConnection
        let logger: Logger

        func rows(_ sql: String, _ values: [SQLValue]) async throws(ServerError) -> [SQLRow] {
            var binds = PostgresBindings()
            for value in values {
                switch value {
                case .null: binds.appendNull()
                case .integer(let number): binds.append(number)
                case .real(let number): binds.append(number)
                case .text(let text): binds.append(text)
                case .boolean(let flag): binds.append(flag)
                }
            }
            do {
                let rows = try await connection.query(PostgresQuery(unsafeSQL: SQLStatement(sql).numbered, binds: binds), logger: logger).collect()
                guard let first = rows.first else { return [] }
                let columns = SQLColumns(first.map(\.columnName))
                return try rows.map { row in SQLRow(columns: columns, values: try row.map(Self.value)) }
            } catch {
                throw .storage(PostgresDatabase.describe(error))
            }
        }

        /// A cell as a value: integers (booleans as 0 or 1), floating point and text (JSON as its text).
        static func value(_ cell: PostgresCell) throws -> SQLValue {
            guard cell.bytes != nil else { return .null }
            switch cell.dataType {
            case .int2, .int4, .int8: return .integer(try cell.decode(Int64.self))
            case .float4, .float8: return .real(try cell.decode(Double.self))
            case .numeric:
                // NUMERIC arrives as decimal text (PostgresNIO decodes it to no floating-point type).
                let text = try cell.decode(String.self)
                guard let number = Double(text) else { throw ServerError.storage("column \(cell.columnName) holds \(text), not a number") }
                return .real(number)
            case .bool: return .integer(try cell.decode(Bool.self) ? 1 : 0)
            case .bytea: throw ServerError.storage("column \(cell.columnName) holds bytes (BYTEA), which the server never stores")
            default: return .text(try cell.decode(String.self))
            }
        }
    }
}
