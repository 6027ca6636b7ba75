import Foundation
@testable import MemoraServer
import ServerTestSupport
import Testing
import TestSupport

/// The server's one way to keep tables on SQLite and PostgreSQL: transactions written once as async
/// statements, committed or rolled back whole, on both databases.
@Suite("SQLDatabase")
struct SQLDatabaseTests {
    static let migrations: [(name: String, statements: [SQLStatement])] = [
        ("v1", [SQLStatement("CREATE TABLE counters (name TEXT PRIMARY KEY, value BIGINT NOT NULL, flag BOOLEAN NOT NULL)"),
                SQLStatement("INSERT INTO counters (name, value, flag) VALUES ('a', 0, ?)", [.boolean(false)])]),
    ]

    /// Whether this system has task executors (Linux; macOS 15 and iOS 18), which SQLite's transactions run their bodies on.
    static var taskExecutors: Bool {
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) { return true }
        return false
    }

    static func open(_ store: TestStore, folder: String) async throws -> any SQLDatabase {
        guard let url = try await store.makeDatabase() else {
            return try SQLiteDatabase(path: folder + "/test.sqlite", migrations: migrations)
        }
        let database = try PostgresDatabase(url: url)
        try await database.migrate(lock: 1, migrations)
        try await database.migrate(lock: 1, migrations)  // a second start applies nothing again
        return database
    }

    @Test("a body that throws after writing rolls everything back, and its own error comes out unchanged", arguments: TestStore.available)
    func rollback(store: TestStore) async throws {
        let database = try await Self.open(store, folder: try temporaryFolder("sql-rollback"))
        do throws(ServerError) {
            _ = try await database.transaction { (transaction) async throws(ServerError) -> Int in
                try await transaction.execute("UPDATE counters SET value = 41, flag = ? WHERE name = 'a'", [.boolean(true)])
                #expect(try await transaction.value("SELECT value FROM counters WHERE name = 'a'", as: Int64.self) == 41)  // seen inside
                throw ServerError.mutationGap(expected: 7)
            }
            Issue.record("the transaction did not throw")
        } catch {
            #expect(error.code == .mutationGap)
        }
        let row = try #require(try await database.read("SELECT value, flag FROM counters WHERE name = 'a'").first)
        #expect(try row["value"] as Int64 == 0 && row["flag"] as Bool == false)
    }

    @Test("a statement the database refuses fails with its message and rolls back the statements before it", arguments: TestStore.available)
    func refusedStatement(store: TestStore) async throws {
        let database = try await Self.open(store, folder: try temporaryFolder("sql-refused"))
        do {
            _ = try await database.run([SQLStatement("INSERT INTO counters (name, value, flag) VALUES ('b', 1, ?)", [.boolean(true)]),
                                        SQLStatement("INSERT INTO counters (name, value, flag) VALUES ('a', 2, ?)", [.boolean(true)])])
            Issue.record("a duplicate key was accepted")
        } catch {
            #expect(error.code == .storageUnavailable && !error.message.contains("INSERT"), "\(error.message)")
        }
        #expect(try await database.value("SELECT COUNT(*) FROM counters", as: Int64.self) == 1)
    }

    @Test("concurrent read-modify-write transactions are applied one at a time; a long transaction runs every statement", arguments: TestStore.available)
    func serialized(store: TestStore) async throws {
        let database = try await Self.open(store, folder: try temporaryFolder("sql-serial"))
        let forUpdate = database.forUpdate
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<12 {
                group.addTask {
                    try await database.transaction { (transaction) async throws(ServerError) in
                        let value = try await transaction.value("SELECT value FROM counters WHERE name = 'a'\(forUpdate)", as: Int64.self) ?? -1
                        try? await Task.sleep(for: .milliseconds(2))
                        try await transaction.execute("UPDATE counters SET value = ? WHERE name = 'a'", [.integer(value + 1)])
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await database.value("SELECT value FROM counters WHERE name = 'a'", as: Int64.self) == 12)
        let total = try await database.transaction { (transaction) async throws(ServerError) -> Int64 in
            for index in 0..<1_000 {
                try await transaction.execute("INSERT INTO counters (name, value, flag) VALUES (?, ?, ?)", [.text("n\(index)"), .integer(Int64(index)), .boolean(index % 2 == 0)])
            }
            return try await transaction.value("SELECT CAST(SUM(value) AS BIGINT) FROM counters WHERE name LIKE 'n%'", as: Int64.self) ?? 0
        }
        #expect(total == 499_500)
        #expect(try await database.value("SELECT COUNT(*) FROM counters WHERE flag", as: Int64.self) == 500)
    }

    @Test("rows are read by column name: a missing column, another type, a null where a value must be and bytes are refused, naming the column", arguments: TestStore.available)
    func typedRows(store: TestStore) async throws {
        let database = try await Self.open(store, folder: try temporaryFolder("sql-typed"))
        let row = try #require(try await database.read("SELECT name, value, flag, NULL AS absent, CAST(2.5 AS DOUBLE PRECISION) AS half FROM counters WHERE name = 'a'").first)
        #expect(try row["name"] as String == "a" && row["value"] as Int64 == 0 && row["flag"] as Bool == false)
        #expect(try row["absent"] as String? == nil && row["half"] as Double == 2.5 && row["value"] as Double == 0, "an integer widens to a number")
        func refusal(_ read: () throws(ServerError) -> Void) -> String {
            do throws(ServerError) { try read(); return "read" } catch { return error.message }
        }
        #expect(refusal { () throws(ServerError) in _ = try row["missing"] as String }.contains("no column missing (it has name, value, flag, absent, half)"))
        #expect(refusal { () throws(ServerError) in _ = try row["name"] as Int64 }.contains("column name holds text, not an integer"))
        #expect(refusal { () throws(ServerError) in _ = try row["half"] as Int64 }.contains("column half holds a number with a fraction, not an integer"))
        #expect(refusal { () throws(ServerError) in _ = try row["absent"] as Int64 }.contains("column absent holds null, not an integer"))
        #expect(refusal { () throws(ServerError) in _ = try row["value"] as Int64? }.hasPrefix("read"))
        let bytes = database.dialect == .sqlite ? "X'00FF'" : "'\\x00ff'::bytea"
        do throws(ServerError) {
            let read = try await database.read("SELECT \(bytes) AS picture")
            Issue.record("bytes were read as \(read.first?.values ?? [])")
        } catch {
            #expect(error.code == .storageUnavailable, "\(error)")
        }
    }

    @Test("a body that uses its database instead of its transaction is refused at once, not left waiting for itself", .timeLimit(.minutes(1)),
          .enabled(if: Self.taskExecutors, "macOS 14 and iOS 17 have no task executors: the body runs on the pool there"))
    func nestedUse() async throws {
        let database = try await Self.open(.sqlite, folder: try temporaryFolder("sql-nested"))
        for nested in [false, true] {
            let answer = try await database.transaction { (transaction) async throws(ServerError) -> String in
                try await transaction.execute("UPDATE counters SET value = value + 1 WHERE name = 'a'")
                do throws(ServerError) {
                    if nested {
                        try await database.transaction { (inner) async throws(ServerError) in try await inner.execute("SELECT 1") }
                    } else {
                        _ = try await database.rows("SELECT value FROM counters")
                    }
                    return "ran"
                } catch {
                    return error.message
                }
            }
            #expect(answer.contains("nested use"), "\(answer)")
        }
        #expect(try await database.value("SELECT value FROM counters WHERE name = 'a'", as: Int64.self) == 2, "the outer transactions committed")
    }

    @Test("bodies that await between statements (an actor, a yield) interleave safely: writes one at a time, each snapshot stays one state", arguments: TestStore.available)
    func interleaved(store: TestStore) async throws {
        let database = try await Self.open(store, folder: try temporaryFolder("sql-interleaved"))
        let forUpdate = database.forUpdate
        let witness = Witness()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<16 {
                group.addTask {
                    if index % 2 == 0 {
                        try await database.transaction { (transaction) async throws(ServerError) in
                            let value = try await transaction.value("SELECT value FROM counters WHERE name = 'a'\(forUpdate)", as: Int64.self) ?? -1
                            await witness.note(value)
                            await Task.yield()
                            try await transaction.execute("UPDATE counters SET value = ? WHERE name = 'a'", [.integer(value + 1)])
                        }
                    } else {
                        let (first, second) = try await database.transaction(snapshot: true) { (transaction) async throws(ServerError) in
                            let first = try await transaction.value("SELECT value FROM counters WHERE name = 'a'", as: Int64.self) ?? -1
                            await witness.note(first)
                            await Task.yield()
                            return (first, try await transaction.value("SELECT value FROM counters WHERE name = 'a'", as: Int64.self) ?? -2)
                        }
                        #expect(first == second, "a snapshot saw two states")
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await database.value("SELECT value FROM counters WHERE name = 'a'", as: Int64.self) == 8)
        #expect(await witness.count == 16)
    }

    @Test("on SQLite a body runs on the thread that holds its transaction, across yields and actor hops: it never waits for the cooperative pool",
          .enabled(if: Self.taskExecutors, "macOS 14 and iOS 17 have no task executors: the body runs on the pool there"))
    func bodyOnTransactionThread() async throws {
        guard let database = try await Self.open(.sqlite, folder: try temporaryFolder("sql-own-thread")) as? SQLiteDatabase else {
            Issue.record("not an SQLite database")
            return
        }
        let witness = Witness()
        for snapshot in [false, true] {
            let steps = try await database.transaction(snapshot: snapshot) { (transaction) async throws(ServerError) -> [Bool] in
                var steps = [database.isTransactionThread()]
                for index in 0..<5 {
                    _ = try await transaction.rows("SELECT value FROM counters WHERE name = 'a'", [])
                    await witness.note(Int64(index))
                    await Task.yield()
                    steps.append(database.isTransactionThread())
                }
                return steps
            }
            #expect(steps == Array(repeating: true, count: 6), "snapshot \(snapshot): \(steps)")
        }
        #expect(!database.isTransactionThread(), "the test's own thread holds no transaction")
    }
}

/// Values seen by transaction bodies, through an actor (a hop off the transaction's thread and back).
private actor Witness {
    private(set) var count = 0
    func note(_ value: Int64) { count += 1 }
}
