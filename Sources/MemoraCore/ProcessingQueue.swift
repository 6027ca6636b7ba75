public import Foundation
internal import MemoraSystem
import GRDB

/// A row of `processing_queue`.
public struct QueueItem: Sendable, Hashable, Codable {
    /// The statuses of the seed's queue.
    public enum Status: String, Sendable, Hashable, Codable, CaseIterable {
        /// Waiting to be captioned.
        case pending
        /// Claimed by a worker.
        case processing
        /// Done (captioned, or deliberately skipped: see ``QueueItem/modelUsed``).
        case completed
        /// Given up after the maximum number of tries; `retry-failed` puts it back.
        case failed
    }

    /// The row's id (a UUID).
    public var id: String
    /// The photo's identity: its absolute, symlink-resolved path.
    public var assetID: String
    /// Where the photo is read and written.
    public var assetURI: String
    /// The status.
    public var status: Status
    /// The caption generated for it. Set while still `processing`, it is the intent that
    /// crash recovery finishes without asking the model again.
    public var caption: String?
    /// The alt text generated with it.
    public var altText: String?
    /// The model that made the caption, or `skipped:…` when the photo was left alone.
    public var modelUsed: String?
    /// The last error.
    public var errorMessage: String?
    /// The last error as one line that names the photo once: the message itself when it names the
    /// photo (most do), else the photo's path and the message; nil when there was no error.
    public var failureDescription: String? {
        errorMessage.map { $0.contains(assetID) || $0.contains(assetURI) ? $0 : "\(assetURI): \($0)" }
    }
    /// How many tries failed.
    public var retryCount: Int
    /// Whether an existing caption may be replaced (never a manual edit).
    public var force: Bool
    /// When it was queued.
    public var createdAt: Date
    /// When it last changed.
    public var updatedAt: Date

    init(row: Row) {
        id = row["id"]
        assetID = row["asset_id"]
        assetURI = row["asset_uri"]
        status = Status(rawValue: row["status"]) ?? .pending
        caption = row["caption"]
        altText = row["alt_text"]
        modelUsed = row["model_used"]
        errorMessage = row["error_message"]
        retryCount = row["retry_count"] ?? 0
        force = row["force"]
        createdAt = Date(timeIntervalSince1970: Double(row["created_at"] as Int64) / 1000)
        updatedAt = Date(timeIntervalSince1970: Double(row["updated_at"] as Int64) / 1000)
    }
}

/// The durable processing queue (the seed's `processing_queue`). Every change is one
/// write transaction, so a crash at any point leaves a consistent queue.
public struct ProcessingQueue: Sendable {
    let database: CaptionDatabase

    /// The queue of `database`.
    public init(database: CaptionDatabase) {
        self.database = database
    }

    /// The identity of the photo at `path`: absolute, with symlinks resolved.
    public static func assetID(for path: String) -> String {
        let absolute = FileSystem.absolutePath(path)
        return FileSystem.resolvedPath(absolute) ?? SystemPath.normalized(absolute)
    }

    /// Queues the photo at `path`. Idempotent: a photo already queued is not queued twice.
    /// With `force`, a completed or failed photo goes back to `pending` to be captioned again.
    /// Returns whether the photo is now pending because of this call.
    @discardableResult
    public func enqueue(path: String, force: Bool = false) throws(MemoraError) -> Bool {
        let asset = Self.assetID(for: path)
        let now = CaptionDatabase.timestamp(Date())
        return try database.write { db in
            try db.execute(
                sql: "INSERT INTO processing_queue (id, asset_id, asset_uri, status, force, created_at, updated_at) VALUES (?, ?, ?, 'pending', ?, ?, ?) ON CONFLICT(asset_id) DO NOTHING",
                arguments: [UUID().uuidString.lowercased(), asset, asset, force, now, now])
            if db.changesCount > 0 { return true }
            guard force else { return false }
            try db.execute(
                sql: "UPDATE processing_queue SET status = 'pending', force = 1, retry_count = 0, caption = NULL, alt_text = NULL, error_message = NULL, updated_at = ? WHERE asset_id = ? AND status IN ('completed', 'failed')",
                arguments: [now, asset])
            return db.changesCount > 0
        }
    }

    /// Atomically moves the oldest pending item to `processing` and returns it; nil when none is pending.
    public func claimNext() throws(MemoraError) -> QueueItem? {
        let now = CaptionDatabase.timestamp(Date())
        return try database.write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM processing_queue WHERE status = 'pending' ORDER BY created_at, rowid LIMIT 1") else { return nil }
            try db.execute(sql: "UPDATE processing_queue SET status = 'processing', updated_at = ? WHERE id = ? AND status = 'pending'",
                           arguments: [now, row["id"] as String])
            return try Row.fetchOne(db, sql: "SELECT * FROM processing_queue WHERE id = ?", arguments: [row["id"] as String]).map(QueueItem.init(row:))
        }
    }

    /// Records the caption about to be written, before the file is touched (the intent crash recovery finishes).
    public func recordIntent(_ id: String, caption: GeneratedCaption) throws(MemoraError) {
        try database.write { db in
            try db.execute(sql: "UPDATE processing_queue SET caption = ?, alt_text = ?, model_used = ?, updated_at = ? WHERE id = ?",
                           arguments: [caption.description, caption.altText, caption.model.identifier, CaptionDatabase.timestamp(Date()), id])
        }
    }

    /// Marks an item completed, in `db`'s transaction (with its history entry).
    func complete(_ id: String, caption: String?, altText: String?, modelUsed: String, note: String? = nil, in db: Database) throws {
        try db.execute(
            sql: "UPDATE processing_queue SET status = 'completed', caption = ?, alt_text = ?, model_used = ?, error_message = ?, updated_at = ? WHERE id = ?",
            arguments: [caption, altText, modelUsed, note, CaptionDatabase.timestamp(Date()), id])
    }

    /// Settles the photo's queued item, if any, after a person decided its caption (an edit or a
    /// rollback): it is completed with that caption, unless a worker is processing it right now.
    func settle(asset: String, caption: String?, altText: String?, modelUsed: String, in db: Database) throws {
        try db.execute(
            sql: "UPDATE processing_queue SET status = 'completed', caption = ?, alt_text = ?, model_used = ?, error_message = NULL, updated_at = ? WHERE asset_id = ? AND status != 'processing'",
            arguments: [caption, altText, modelUsed, CaptionDatabase.timestamp(Date()), asset])
    }

    /// Marks an item completed without a caption of ours (skipped, with the reason).
    public func skip(_ id: String, reason: String, tag: String) throws(MemoraError) {
        try database.write { db in try complete(id, caption: nil, altText: nil, modelUsed: "skipped:" + tag, note: reason, in: db) }
    }

    /// Records a failed try: back to `pending`, or `failed` once `maxRetries` tries have failed.
    @discardableResult
    public func fail(_ id: String, error: String, maxRetries: Int) throws(MemoraError) -> QueueItem.Status {
        try database.write { db in
            let retries = (try Int.fetchOne(db, sql: "SELECT retry_count FROM processing_queue WHERE id = ?", arguments: [id]) ?? 0) + 1
            let status: QueueItem.Status = retries >= maxRetries ? .failed : .pending
            try db.execute(
                sql: "UPDATE processing_queue SET status = ?, retry_count = ?, error_message = ?, caption = NULL, alt_text = NULL, updated_at = ? WHERE id = ?",
                arguments: [status.rawValue, retries, error, CaptionDatabase.timestamp(Date()), id])
            return status
        }
    }

    /// Puts an item that was interrupted (cancelled) back to `pending` without counting a try.
    public func release(_ id: String) throws(MemoraError) {
        try database.write { db in
            try db.execute(sql: "UPDATE processing_queue SET status = 'pending', updated_at = ? WHERE id = ? AND status = 'processing'",
                           arguments: [CaptionDatabase.timestamp(Date()), id])
        }
    }

    /// After a crash: every item left in `processing` goes back to `pending` (keeping any
    /// recorded intent). Call it when no other worker uses the database. Returns how many.
    @discardableResult
    public func recoverInterrupted() throws(MemoraError) -> Int {
        try database.write { db in
            try db.execute(sql: "UPDATE processing_queue SET status = 'pending', updated_at = ? WHERE status = 'processing'",
                           arguments: [CaptionDatabase.timestamp(Date())])
            return db.changesCount
        }
    }

    /// Puts every failed item back to `pending` with a fresh retry count. Returns how many.
    @discardableResult
    public func retryFailed() throws(MemoraError) -> Int {
        try database.write { db in
            try db.execute(sql: "UPDATE processing_queue SET status = 'pending', retry_count = 0, updated_at = ? WHERE status = 'failed'",
                           arguments: [CaptionDatabase.timestamp(Date())])
            return db.changesCount
        }
    }

    /// How many items have each status.
    public func counts() throws(MemoraError) -> [QueueItem.Status: Int] {
        try database.read { db in
            var counts: [QueueItem.Status: Int] = [:]
            for status in QueueItem.Status.allCases { counts[status] = 0 }
            for row in try Row.fetchAll(db, sql: "SELECT status, COUNT(*) AS n FROM processing_queue GROUP BY status") {
                if let status = QueueItem.Status(rawValue: row["status"]) { counts[status] = row["n"] }
            }
            return counts
        }
    }

    /// Items with `status` (all when nil), oldest first.
    public func items(status: QueueItem.Status? = nil, limit: Int = 1000) throws(MemoraError) -> [QueueItem] {
        try database.read { db in
            if let status {
                return try Row.fetchAll(db, sql: "SELECT * FROM processing_queue WHERE status = ? ORDER BY created_at, rowid LIMIT ?",
                                        arguments: [status.rawValue, limit]).map(QueueItem.init(row:))
            }
            return try Row.fetchAll(db, sql: "SELECT * FROM processing_queue ORDER BY created_at, rowid LIMIT ?", arguments: [limit]).map(QueueItem.init(row:))
        }
    }

    /// The item of the photo at `path`, if queued.
    public func item(forPath path: String) throws(MemoraError) -> QueueItem? {
        try database.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM processing_queue WHERE asset_id = ?", arguments: [Self.assetID(for: path)]).map(QueueItem.init(row:))
        }
    }
}
