import Foundation
import GRDB
import MemoraSystem
import Testing
@testable import MemoraCore
import TestSupport

/// The caption database's records keep the on-disk convention every release wrote: snake_case
/// columns, statuses and kinds as their names, instants as INTEGER milliseconds since 1970 rounded
/// to the nearest, so databases written before the records are read as they were.
@Suite("Caption database records")
struct CaptionDatabaseTests {
    /// The schema each migration leaves, as a SHA-256 of its tables' and indexes' SQL (quotes dropped,
    /// runs of white space as one space, so another SQLite's spelling of a renamed table does not
    /// count). A released migration never changes (Docs/Architecture.md): an edit to one, or to text
    /// two of them share, changes its digest here. A new migration is pinned when it is added.
    private static let releasedSchemas: KeyValuePairs<String, String> = [
        "v1": "bfc3e07a0fa43c76d680590964ab3fcf9ed230e46bd1b158f4684f6450f1a6b5",
        "v2": "e17e47554b020400644ac54cd43449654fdf30abc7bd87c0b593790101580431",
        "v3": "929999e78cf24f4e0d5cbe8c88bc6a4be4b4b748cfca7a0c06ab820bd99cfea0",
        "sync-v1": "25f594ffbb0f9fc33e65debc3945b5226887c102c96456732c6e3d2ce5ff2d7e",
        "v4": "185ef30fa86f42710bf83caae76f8ff0118eddc1cca64b4fc3ea6460a0438cb5",
    ]

    @Test("each released migration builds the schema it always built")
    func releasedMigrationsUnchanged() throws {
        let migrator = CaptionDatabase.migrator(clock: SystemClock())
        let database = try DatabaseQueue()
        var built: [(migration: String, digest: String)] = []
        for migration in migrator.migrations {
            try migrator.migrate(database, upTo: migration)
            let statements = try database.read { db in
                try String.fetchAll(db, sql: """
                    SELECT type || ' ' || name || ': ' || coalesce(sql, '') FROM sqlite_master
                    WHERE name NOT LIKE 'sqlite_%' AND name != 'grdb_migrations' ORDER BY type, name
                    """)
            }
            let schema = statements.map { $0.replacingOccurrences(of: "\"", with: "").split(whereSeparator: \.isWhitespace).joined(separator: " ") }
            built.append((migration, Hex.string(SHA256Digest.hash(Array(schema.joined(separator: "\n").utf8)))))
        }
        #expect(built.map(\.migration) == Self.releasedSchemas.map(\.key), "every migration is pinned, in order: \(built)")
        for (migration, digest) in built {
            let pinned = Self.releasedSchemas.first { $0.key == migration }?.value
            #expect(digest == pinned, "migration \(migration) now builds another schema (\(digest)): a released migration never changes")
        }
    }

    @Test("what the records write is INTEGER milliseconds and plain names, read back to the millisecond")
    func storedConvention() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let database = try CaptionDatabase(path: folder + "/memora.sqlite")
        let queue = ProcessingQueue(database: database)
        let before = Date()
        #expect(try queue.enqueue(path: folder + "/a.jpg"))
        #expect(try queue.enqueue(path: folder + "/a.jpg") == false, "a photo is queued once")
        let item = try #require(try queue.claimNext())
        try queue.fail(item.id, error: "the model was busy", maxRetries: 1)
        database.logError(asset: item.assetID, type: "generation", message: "busy", context: ["try": "1"])
        try database.setPreference("wifi_only", to: "no")
        try database.setPreference("ai_mode", to: "gemini")

        let raw = try database.read { db in
            try Row.fetchOne(db, sql: "SELECT status, retry_count, typeof(created_at) AS created_type, created_at, updated_at FROM processing_queue")
        }
        let row = try #require(raw)
        #expect(row["status"] as String == "failed")
        #expect(row["retry_count"] as Int == 1)
        #expect(row["created_type"] as String == "integer")
        let created: Int64 = row["created_at"]
        #expect(abs(Double(created) / 1000 - before.timeIntervalSince1970) < 60, "milliseconds since 1970, not seconds or text")
        let stored = try #require(try queue.item(forPath: folder + "/a.jpg"))
        #expect(Int64((stored.createdAt.timeIntervalSince1970 * 1000).rounded()) == created, "read back to the millisecond")
        #expect(stored.status == .failed && stored.errorMessage == "the model was busy")

        let types = try database.read { db in
            try Row.fetchOne(db, sql: "SELECT (SELECT typeof(created_at) FROM error_logs) AS log, (SELECT typeof(updated_at) FROM preferences) AS prefs, (SELECT ai_mode FROM preferences) AS mode, (SELECT wifi_only FROM preferences) AS wifi")
        }
        #expect(types?["log"] as String? == "integer")
        #expect(types?["prefs"] as String? == "integer")
        #expect(types?["mode"] as String? == "gemini")
        #expect(types?["wifi"] as Int? == 0)
        let preferences = try database.preferences()
        #expect(preferences.aiMode == .gemini && !preferences.wifiOnly)
        #expect(try database.recentErrors().map(\.message) == ["busy"])
    }

    @Test("rows written by an earlier release's SQL read back through the records, counts and order included")
    func earlierRows() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let database = try CaptionDatabase(path: folder + "/memora.sqlite")
        // 2026-03-01T10:00:00.123Z and one millisecond later, as the raw SQL of earlier releases stored them.
        try database.write { db in
            for (id, asset, status, at) in [("b", "/p/b.jpg", "pending", 1_772_359_200_124), ("a", "/p/a.jpg", "pending", 1_772_359_200_123),
                                            ("c", "/p/c.jpg", "completed", 1_772_359_200_100)] {
                try db.execute(sql: "INSERT INTO processing_queue (id, asset_id, asset_uri, status, force, created_at, updated_at) VALUES (?, ?, ?, ?, 0, ?, ?)",
                               arguments: [id, asset, asset, status, at, at])
            }
        }
        let queue = ProcessingQueue(database: database)
        #expect(try queue.counts() == [.pending: 2, .processing: 0, .completed: 1, .failed: 0])
        #expect(try queue.items(status: .pending).map(\.id) == ["a", "b"], "oldest first")
        let claimed = try #require(try queue.claimNext())
        #expect(claimed.id == "a" && claimed.status == .processing)
        #expect(claimed.createdAt == Date(timeIntervalSince1970: 1_772_359_200.123))
        #expect(try queue.recoverInterrupted() == 1)
        #expect(try queue.items().map(\.status) == [.completed, .pending, .pending])
    }
}
