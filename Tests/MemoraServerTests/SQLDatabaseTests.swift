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
}
