import Foundation
import GRDB
import Testing
@testable import MemoraCore
import TestSupport

/// The caption database's records keep the on-disk convention every release wrote: snake_case
/// columns, statuses and kinds as their names, instants as INTEGER milliseconds since 1970 rounded
/// to the nearest, so databases written before the records are read as they were.
@Suite("Caption database records")
struct CaptionDatabaseTests {
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
