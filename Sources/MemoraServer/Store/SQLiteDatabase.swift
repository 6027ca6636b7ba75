internal import Foundation
internal import GRDB
internal import MemoraDatabase
internal import MemoraSystem

/// The server's SQLite file (WAL, opened by MemoraDatabase's `DatabasePolicy`): one writer at a
/// time, so a version taken from the counter inside a write transaction is in commit order.
///
/// GRDB runs a transaction as a synchronous closure on its writer's thread, while the stores write
/// their transactions once, as async code for both databases. A ``SQLiteDatabase/Channel`` joins
/// the two: the body runs as a task and hands each statement to the writer's thread, which runs it
/// inside GRDB's transaction and hands the rows back; when the body throws, the transaction rolls back.
final class SQLiteDatabase: SQLDatabase {
    var dialect: SyncTableSQL.Dialect { .sqlite }
    let pool: DatabasePool
    /// The database file.
    let path: String

    /// Opens the database at `path` (0600 in a 0700 folder), creating it and applying the
    /// `migrations` it has not had, in order, each in its own transaction (GRDB's migrator: a file a
    /// newer Memora migrated further is refused).
    init(path: String, migrations: [(name: String, statements: [SQLStatement])]) throws(ServerError) {
        self.path = path
        var migrator = DatabaseMigrator()
        for migration in migrations {
            migrator.registerMigration(migration.name) { db in
                for statement in migration.statements { _ = try Self.run(statement, in: db) }
            }
        }
        do {
            pool = try DatabasePolicy.openPool(at: path, migrator: migrator)
        } catch {
            throw .storage("cannot open \(path): \(DatabaseFailure(error).reason)")
        }
    }

    func transaction<T: Sendable>(snapshot: Bool, _ body: @escaping @Sendable (any SQLTransaction) async throws(ServerError) -> T)
        async throws(ServerError) -> T {
        let channel = Channel()
        let work = Task { () -> Result<T, ServerError> in
            let result: Result<T, ServerError>
            do throws(ServerError) { result = .success(try await body(channel)) } catch { result = .failure(error) }
            channel.finish(failed: (try? result.get()) == nil)
            return result
        }
        do {
            let serve: @Sendable (Database) throws -> Void = { db in
                while let (statement, reply) = channel.next() {
                    do { reply.resume(returning: try Self.run(statement, in: db)) } catch { reply.resume(throwing: error) }
                }
                if channel.failed { throw RolledBack() }
            }
            if snapshot { try await pool.read(serve) } else { try await pool.write(serve) }
        } catch is RolledBack {
            // The body's own error, below.
        } catch {
            // The transaction could not begin or commit: statements still waiting fail with it.
            let failure = ServerError.storage(DatabaseFailure(error).reason)
            channel.close(failure)
            _ = await work.value
            throw failure
        }
        return try await work.value.get()
    }

    private struct RolledBack: Error {}

    func run(_ statements: [SQLStatement]) async throws(ServerError) -> [[[SQLValue]]] {
        do {
            return try await pool.write { db in try statements.map { statement in try Self.run(statement, in: db) } }
        } catch let error as ServerError {
            throw error
        } catch {
            throw .storage(DatabaseFailure(error).reason)
        }
    }

    func statement(_ statement: SQLStatement, readOnly: Bool) async throws(ServerError) -> [[SQLValue]] {
        do {
            let work: @Sendable (Database) throws -> [[SQLValue]] = { db in try Self.run(statement, in: db) }
            return readOnly ? try await pool.read(work) : try await pool.write(work)
        } catch {
            throw .storage(DatabaseFailure(error).reason)
        }
    }

    private static func run(_ statement: SQLStatement, in db: Database) throws -> [[SQLValue]] {
        let arguments = StatementArguments(statement.values.map { value -> (any DatabaseValueConvertible)? in
            switch value {
            case .null: nil
            case .integer(let number): number
            case .real(let number): number
            case .text(let text): text
            case .boolean(let flag): flag
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

    /// Statements handed from a transaction's body (a task) to the thread GRDB runs the transaction
    /// on, one at a time, each with the continuation its rows go back to.
    final class Channel: SQLTransaction {
        typealias Reply = CheckedContinuation<[[SQLValue]], any Error>
        private struct State {
            var pending: [(SQLStatement, Reply)] = []
            var finished = false
            var failed = false
        }
        private let state = Locked(State())
        /// One signal for each statement handed over, and one when the body is done.
        private let signal = DispatchSemaphore(value: 0)

        func rows(_ sql: String, _ values: [SQLValue]) async throws(ServerError) -> [[SQLValue]] {
            do {
                return try await withCheckedThrowingContinuation { (reply: Reply) in
                    let open = state.withLock { state in
                        guard !state.finished else { return false }
                        state.pending.append((SQLStatement(sql, values), reply))
                        return true
                    }
                    if open { signal.signal() } else { reply.resume(throwing: ServerError.storage("the transaction has ended")) }
                }
            } catch let error as ServerError {
                throw error
            } catch {
                throw .storage(DatabaseFailure(error).reason)
            }
        }

        /// The body is done (`failed`: it threw, so the transaction rolls back). Once only counts.
        func finish(failed: Bool) {
            let first = state.withLock { state in
                defer { state.finished = true; state.failed = state.failed || failed }
                return !state.finished
            }
            if first { signal.signal() }
        }

        /// Ends the channel from outside (the transaction failed): every statement still waiting, and
        /// every later one, fails with `error`.
        func close(_ error: ServerError) {
            let waiting = state.withLock { state in
                defer { state.pending = []; state.finished = true; state.failed = true }
                return state.pending.map(\.1)
            }
            for reply in waiting { reply.resume(throwing: error) }
        }

        /// Whether the body threw.
        var failed: Bool { state.withLock { $0.failed } }

        /// On the transaction's thread: the next statement, waiting for it; nil when the body is done.
        func next() -> (SQLStatement, Reply)? {
            while true {
                signal.wait()
                let (item, finished) = state.withLock { state in
                    (state.pending.isEmpty ? nil : state.pending.removeFirst(), state.finished)
                }
                if let item { return item }
                if finished { return nil }
            }
        }
    }
}
