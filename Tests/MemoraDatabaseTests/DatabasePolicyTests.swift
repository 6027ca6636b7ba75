import Foundation
import GRDB
import MemoraDatabase
import Testing
import TestSupport

@Suite("DatabasePolicy")
struct DatabasePolicyTests {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: "CREATE TABLE person (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
            try db.execute(sql: "CREATE TABLE face (id INTEGER PRIMARY KEY, person_id INTEGER NOT NULL REFERENCES person(id))")
        }
        return migrator
    }

    @Test("a new database is 0600 in a 0700 folder, with foreign keys, secure_delete and a busy timeout on every connection", arguments: [false, true])
    func policy(queue: Bool) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/private/people.sqlite"
        let writer: any DatabaseWriter = queue ? try DatabasePolicy.openQueue(at: path, migrator: Self.migrator)
            : try DatabasePolicy.openPool(at: path, migrator: Self.migrator)
        try writer.write { db in try db.execute(sql: "INSERT INTO person (id, name) VALUES (1, 'Ana')") }
        let mode = { (path: String) in try (FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue }
        #expect(try mode(path) == 0o600)
        #expect(try mode(folder + "/private") == 0o700)
        if !queue { #expect(try mode(path + "-wal") == 0o600) }
        let pragmas = try writer.read { db in
            try ["secure_delete", "foreign_keys", "busy_timeout"].map { try Int.fetchOne(db, sql: "PRAGMA \($0)") }
        }
        #expect(pragmas == [1, 1, 10_000])
        // Foreign keys are enforced: a face of nobody is refused.
        #expect(throws: DatabaseError.self) { try writer.write { db in try db.execute(sql: "INSERT INTO face (person_id) VALUES (42)") } }
    }

    @Test("a database a newer Memora migrated further is refused with DatabaseTooNew, its bytes untouched")
    func newerSchema() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/people.sqlite"
        var newer = Self.migrator
        newer.registerMigration("v2") { db in try db.execute(sql: "ALTER TABLE person ADD COLUMN relationship TEXT") }
        do {
            let queue = try DatabasePolicy.openQueue(at: path, migrator: newer)
            try queue.close()
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(throws: DatabaseTooNew(path: path)) { _ = try DatabasePolicy.openQueue(at: path, migrator: Self.migrator) }
        #expect(throws: DatabaseTooNew(path: path)) { _ = try DatabasePolicy.openPool(at: path, migrator: Self.migrator) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(DatabaseFailure(DatabaseTooNew(path: path)).reason.contains("newer version of Memora"))
        // The same migrations open it.
        _ = try DatabasePolicy.openPool(at: path, migrator: newer)
    }

    @Test("a database a crash left with a hot journal opens (the journal rolled back), for a queue and a pool", arguments: [false, true])
    func hotJournal(pool: Bool) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/people.sqlite", crashed = folder + "/crashed.sqlite"
        let queue = try DatabasePolicy.openQueue(at: path, migrator: Self.migrator)
        try queue.write { db in try db.execute(sql: "INSERT INTO person (id, name) VALUES (1, 'Ana')") }
        // A write transaction that spills pages into the file, copied with its journal mid-way: what
        // a process killed there leaves behind.
        try queue.inDatabase { db in
            try db.execute(sql: "PRAGMA cache_size = 2")
            try db.execute(sql: "BEGIN IMMEDIATE")
            for row in 2...400 {
                try db.execute(sql: "INSERT INTO person (id, name) VALUES (?, ?)", arguments: [row, String(repeating: "x", count: 500)])
            }
            try FileManager.default.copyItem(atPath: path, toPath: crashed)
            try FileManager.default.copyItem(atPath: path + "-journal", toPath: crashed + "-journal")
            try db.execute(sql: "ROLLBACK")
        }
        let reopened: any DatabaseWriter = pool ? try DatabasePolicy.openPool(at: crashed, migrator: Self.migrator)
            : try DatabasePolicy.openQueue(at: crashed, migrator: Self.migrator)
        #expect(try reopened.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM person") } == 1)
    }
}
