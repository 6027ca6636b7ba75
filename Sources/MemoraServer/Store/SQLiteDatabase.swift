internal import Foundation
internal import GRDB
internal import MemoraDatabase
internal import MemoraSystem

/// The server's SQLite file (WAL, opened by MemoraDatabase's `DatabasePolicy`): one writer at a
/// time, so a version taken from the counter inside a write transaction is in commit order.
///
/// GRDB runs a transaction as a synchronous closure on its writer's (or a reader's) thread, while
/// the stores write their transactions once, as async code for both databases. The body therefore
/// runs as a task whose executor is that thread itself (``SQLiteTransaction``): each statement runs
/// on the connection directly, and the body never waits for a thread of the cooperative pool while
/// it holds the database's one writer (a pool busy with other work would otherwise hold every
/// writer of the file, other processes' included). A body that uses its database again from
/// inside, instead of its transaction, is refused with an error rather than left to deadlock.
/// (macOS 14 and iOS 17 have no task executors: there the body runs on the pool and hands each
/// statement over, and a nested use is not detected.)
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

    /// The threads running one of this database's transactions now (each runs its body's jobs).
    private let transactionThreads = Locked<Set<ObjectIdentifier>>([])

    /// Whether the calling code runs on a thread that holds one of this database's transactions (a
    /// transaction's body does).
    func isTransactionThread() -> Bool {
        let thread = SQLiteTransaction.currentThread()
        return transactionThreads.withLock { $0.contains(thread) }
    }

    /// Refuses a use of this database from a transaction's own body (on the thread that runs it):
    /// on SQLite it would wait for the writer the transaction holds, for ever. A task the body starts
    /// runs elsewhere, and waits for the writer as any other.
    private func refuseNested() throws(ServerError) {
        guard !isTransactionThread() else {
            throw .storage("a transaction used its database instead of its own statements (a nested use would wait for itself)")
        }
    }

    func transaction<T: Sendable>(snapshot: Bool, _ body: @escaping @Sendable (any SQLTransaction) async throws(ServerError) -> T)
        async throws(ServerError) -> T {
        try refuseNested()
        let threads = transactionThreads
        let outcome = Locked<Result<T, ServerError>?>(nil)
        do {
            let serve: @Sendable (Database) throws -> Void = { db in
                let transaction = SQLiteTransaction(db)
                let operation: @Sendable () async -> Void = {
                    let result: Result<T, ServerError>
                    do throws(ServerError) {
                        result = .success(try await body(transaction))
                    } catch {
                        result = .failure(error)
                    }
                    outcome.withLock { $0 = result }
                    transaction.finish()
                }
                if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
                    Task(executorPreference: transaction, operation: operation)
                } else {
                    Task(operation: operation)
                }
                let thread = SQLiteTransaction.currentThread()
                threads.withLock { _ = $0.insert(thread) }
                transaction.run()
                threads.withLock { _ = $0.remove(thread) }
                if case .failure = outcome.withLock({ $0 }) { throw RolledBack() }
            }
            if snapshot { try await pool.read(serve) } else { try await pool.write(serve) }
        } catch is RolledBack {
            // The body's own error, below.
        } catch {
            // The transaction could not begin or commit.
            throw .storage(DatabaseFailure(error).reason)
        }
        guard let result = outcome.withLock({ $0 }) else { throw .storage("the transaction ended without its body") }
        return try result.get()
    }

    private struct RolledBack: Error {}

    func run(_ statements: [SQLStatement]) async throws(ServerError) -> [[SQLRow]] {
        try refuseNested()
        do {
            return try await pool.write { db in try statements.map { statement in try Self.run(statement, in: db) } }
        } catch let error as ServerError {
            throw error
        } catch {
            throw .storage(DatabaseFailure(error).reason)
        }
    }

    func statement(_ statement: SQLStatement, readOnly: Bool) async throws(ServerError) -> [SQLRow] {
        try refuseNested()
        do {
            let work: @Sendable (Database) throws -> [SQLRow] = { db in try Self.run(statement, in: db) }
            return readOnly ? try await pool.read(work) : try await pool.write(work)
        } catch let error as ServerError {
            throw error
        } catch {
            throw .storage(DatabaseFailure(error).reason)
        }
    }

    /// Runs `statement` on `db` and reads its rows. A BLOB is refused: the server stores none, and
    /// bytes read as text would be a silent corruption.
    static func run(_ statement: SQLStatement, in db: Database) throws -> [SQLRow] {
        let arguments = StatementArguments(statement.values.map { value -> (any DatabaseValueConvertible)? in
            switch value {
            case .null: nil
            case .integer(let number): number
            case .real(let number): number
            case .text(let text): text
            case .boolean(let flag): flag
            }
        })
        let rows = try Row.fetchAll(db, sql: statement.sql, arguments: arguments)
        guard let first = rows.first else { return [] }
        let columns = SQLColumns(Array(first.columnNames))
        return try rows.map { row in
            SQLRow(columns: columns, values: try zip(columns.names, row.databaseValues).map { (name, value) throws(ServerError) -> SQLValue in
                switch value.storage {
                case .null: .null
                case .int64(let number): .integer(number)
                case .double(let number): .real(number)
                case .string(let text): .text(text)
                case .blob: throw .storage("column \(name) holds bytes (a BLOB), which the server never stores")
                }
            })
        }
    }
}

/// One SQLite transaction and the thread GRDB runs it on: that thread runs the transaction's work
/// (``run()``) until the body is done. Where the standard library has task executors (Linux; macOS
/// 15 and iOS 18) the body itself runs there, as this executor's jobs, and its statements run on the
/// connection directly; on macOS 14 and iOS 17 the body runs on the cooperative pool and hands each
/// statement to the thread.
final class SQLiteTransaction: SQLTransaction, @unchecked Sendable {
    // Unchecked: `db` is used only on the transaction's thread, by the work `run()` runs there (GRDB
    // checks the thread of every use); the queue of work is behind the lock.
    private let db: Database
    private let work = Locked<(waiting: [@Sendable () -> Void], finished: Bool, thread: ObjectIdentifier?)>(([], false, nil))
    /// One signal for each piece of work, and one when the body is done.
    private let signal = DispatchSemaphore(value: 0)

    init(_ db: Database) {
        self.db = db
    }

    /// Adds `item` to the work the transaction's thread runs.
    fileprivate func submit(_ item: @escaping @Sendable () -> Void) {
        work.withLock { $0.waiting.append(item) }
        signal.signal()
    }

    /// On the transaction's thread: runs the work as it comes, until ``finish()``.
    func run() {
        let thread = Self.currentThread()
        work.withLock { $0.thread = thread }
        while true {
            signal.wait()
            let (item, finished) = work.withLock { state in
                (state.waiting.isEmpty ? nil : state.waiting.removeFirst(), state.finished)
            }
            if let item {
                item()
            } else if finished {
                return
            }
        }
    }

    /// The body is done (called by its last job).
    func finish() {
        work.withLock { $0.finished = true }
        signal.signal()
    }

    func rows(_ sql: String, _ values: [SQLValue]) async throws(ServerError) -> [SQLRow] {
        let statement = SQLStatement(sql, values)
        if work.withLock({ $0.thread }) == Self.currentThread() { return try execute(statement) }
        // The body runs elsewhere (no task executors on this system): the statement goes to the thread.
        let result: Result<[SQLRow], ServerError> = await withCheckedContinuation { reply in
            submit { reply.resume(returning: Result { () throws(ServerError) in try self.execute(statement) }) }
        }
        return try result.get()
    }

    /// Runs `statement` on the connection (on the transaction's thread).
    private func execute(_ statement: SQLStatement) throws(ServerError) -> [SQLRow] {
        do {
            return try SQLiteDatabase.run(statement, in: db)
        } catch let error as ServerError {
            throw error
        } catch {
            throw .storage(DatabaseFailure(error).reason)
        }
    }

    /// The calling thread's identity (a synchronous function: `Thread.current` is not for async code).
    static func currentThread() -> ObjectIdentifier {
        ObjectIdentifier(Thread.current)
    }
}

@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
extension SQLiteTransaction: TaskExecutor {
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        submit { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
