import Foundation
@testable import MemoraServer
import MemoraSystem
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
        do {
            _ = try await database.transaction { (transaction) async throws(ServerError) -> Int in
                try await transaction.execute("UPDATE counters SET value = 41, flag = ? WHERE name = 'a'", [.boolean(true)])
                #expect(try await transaction.value("SELECT value FROM counters WHERE name = 'a'")?.integer == 41)  // seen inside
                throw ServerError.mutationGap(expected: 7)
            }
            Issue.record("the transaction did not throw")
        } catch {
            #expect(error.code == .mutationGap)
        }
        let row = try await database.read("SELECT value, flag FROM counters WHERE name = 'a'")
        #expect(row.first?[0].integer == 0 && row.first?[1].boolean == false)
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
        #expect(try await database.read("SELECT COUNT(*) FROM counters").first?[0].integer == 1)
    }

    @Test("concurrent read-modify-write transactions are applied one at a time; a long transaction runs every statement", arguments: TestStore.available)
    func serialized(store: TestStore) async throws {
        let database = try await Self.open(store, folder: try temporaryFolder("sql-serial"))
        let forUpdate = database.forUpdate
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<12 {
                group.addTask {
                    try await database.transaction { (transaction) async throws(ServerError) in
                        let value = try await transaction.value("SELECT value FROM counters WHERE name = 'a'\(forUpdate)")?.integer ?? -1
                        try? await Task.sleep(for: .milliseconds(2))
                        try await transaction.execute("UPDATE counters SET value = ? WHERE name = 'a'", [.integer(value + 1)])
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await database.read("SELECT value FROM counters WHERE name = 'a'").first?[0].integer == 12)
        let total = try await database.transaction { (transaction) async throws(ServerError) -> Int64 in
            for index in 0..<1_000 {
                try await transaction.execute("INSERT INTO counters (name, value, flag) VALUES (?, ?, ?)", [.text("n\(index)"), .integer(Int64(index)), .boolean(index % 2 == 0)])
            }
            return try await transaction.value("SELECT CAST(SUM(value) AS BIGINT) FROM counters WHERE name LIKE 'n%'")?.integer ?? 0
        }
        #expect(total == 499_500)
        #expect(try await database.read("SELECT COUNT(*) FROM counters WHERE flag").first?[0].integer == 500)
    }

    @Test("a body that uses its database instead of its transaction is refused at once, not left waiting for itself", .timeLimit(.minutes(1)))
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
        #expect(try await database.read("SELECT value FROM counters WHERE name = 'a'").first?[0].integer == 2, "the outer transactions committed")
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
                            let value = try await transaction.value("SELECT value FROM counters WHERE name = 'a'\(forUpdate)")?.integer ?? -1
                            await witness.note(value)
                            await Task.yield()
                            try await transaction.execute("UPDATE counters SET value = ? WHERE name = 'a'", [.integer(value + 1)])
                        }
                    } else {
                        let (first, second) = try await database.transaction(snapshot: true) { (transaction) async throws(ServerError) in
                            let first = try await transaction.value("SELECT value FROM counters WHERE name = 'a'")?.integer ?? -1
                            await witness.note(first)
                            await Task.yield()
                            return (first, try await transaction.value("SELECT value FROM counters WHERE name = 'a'")?.integer ?? -2)
                        }
                        #expect(first == second, "a snapshot saw two states")
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await database.read("SELECT value FROM counters WHERE name = 'a'").first?[0].integer == 8)
        #expect(await witness.count == 16)
    }

    @Test("on SQLite a transaction's statements run while every thread of the cooperative pool is busy: the body runs on the transaction's own thread", .timeLimit(.minutes(2)))
    func bodyOffThePool() async throws {
        let database = try await Self.open(.sqlite, folder: try temporaryFolder("sql-off-pool"))
        let blockers = ProcessInfo.processInfo.activeProcessorCount
        let started = Locked(0), finished = Locked(0), bodyDone = Locked(false), timedOut = Locked(0)
        let outcome = try await database.transaction { (transaction) async throws(ServerError) -> (allStarted: Bool, statements: Int) in
            try await transaction.execute("UPDATE counters SET value = 1 WHERE name = 'a'")
            // Occupy every thread of the cooperative pool until this body is done (or 30 s pass).
            for _ in 0..<blockers {
                Task.detached {
                    started.withLock { $0 += 1 }
                    if !Blocking.wait(seconds: 30, until: { bodyDone.withLock { $0 } }) { timedOut.withLock { $0 += 1 } }
                    finished.withLock { $0 += 1 }
                }
            }
            let allStarted = Blocking.wait(seconds: 60, until: { started.withLock { $0 } == blockers })
            var statements = 0
            for index in 0..<20 {
                try await transaction.execute("INSERT INTO counters (name, value, flag) VALUES (?, ?, ?)", [.text("p\(index)"), .integer(1), .boolean(true)])
                statements += 1
            }
            bodyDone.withLock { $0 = true }
            return (allStarted, statements)
        }
        #expect(outcome.allStarted, "the pool's threads were taken before the statements")
        #expect(outcome.statements == 20)
        _ = Blocking.wait(seconds: 60, until: { finished.withLock { $0 } == blockers })
        #expect(timedOut.withLock { $0 } == 0, "the body waited for a thread of the pool")
        #expect(try await database.read("SELECT COUNT(*) FROM counters WHERE name LIKE 'p%'").first?[0].integer == 20)
    }
}

/// Values seen by transaction bodies, through an actor (a hop off the transaction's thread and back).
private actor Witness {
    private(set) var count = 0
    func note(_ value: Int64) { count += 1 }
}

/// Waiting that blocks its thread, on purpose.
private enum Blocking {
    /// Polls `condition` every 10 ms for at most `seconds`; whether it held.
    static func wait(seconds: Double, until condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            if Date() > deadline { return false }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return true
    }
}
