public import Foundation
internal import MemoraSystem
import GRDB
import MemoraDatabase

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
    /// The extended description generated with it (what did not fit the alt text).
    public var extendedDescription: String?
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
        let now = database.clock.now()
        return try database.write { db in
            let item = QueueRecord(id: UUID().uuidString.lowercased(), assetID: asset, assetURI: asset, status: .pending, force: force,
                                   createdAt: now, updatedAt: now)
            try item.insert(db, onConflict: .ignore)
            if db.changesCount > 0 { return true }
            guard force else { return false }
            let requeued = try QueueRecord.of(asset: asset).filter([QueueItem.Status.completed.rawValue, QueueItem.Status.failed.rawValue].contains(QueueRecord.Columns.status))
                .updateAll(db, QueueRecord.Columns.status.set(to: QueueItem.Status.pending.rawValue), QueueRecord.Columns.force.set(to: true),
                           QueueRecord.Columns.retryCount.set(to: 0), QueueRecord.Columns.caption.set(to: nil),
                           QueueRecord.Columns.altText.set(to: nil), QueueRecord.Columns.errorMessage.set(to: nil), QueueRecord.touched(at: database.clock.now()))
            return requeued > 0
        }
    }

    /// Atomically moves the oldest pending item to `processing` and returns it; nil when none is pending.
    ///
    /// `assets`: only these photos (a run's own); nil: any pending photo.
    public func claimNext(among assets: Set<String>? = nil) throws(MemoraError) -> QueueItem? {
        try database.write { db in
            let pending = QueueRecord.filter(QueueRecord.Columns.status == QueueItem.Status.pending.rawValue).inQueueOrder()
            var found: QueueRecord?
            if let assets {
                // The first pending item of the run's own, in queue order: items of other runs ahead of
                // it are few (they wait for a run with no paths), so this reads little.
                var offset = 0
                while found == nil {
                    let batch = try pending.limit(256, offset: offset).fetchAll(db)
                    if batch.isEmpty { break }
                    found = batch.first { assets.contains($0.assetID) }
                    offset += batch.count
                }
            } else {
                found = try pending.fetchOne(db)
            }
            guard var next = found else {
                return nil
            }
            next.status = .processing
            next.updatedAt = database.clock.now()
            try next.update(db, columns: [QueueRecord.Columns.status, QueueRecord.Columns.updatedAt])
            return try QueueRecord.fetchOne(db, id: next.id)?.item
        }
    }

    /// Records the caption about to be written, before the file is touched (the intent crash recovery finishes).
    public func recordIntent(_ id: String, caption: GeneratedCaption) throws(MemoraError) {
        try database.write { db in
            _ = try QueueRecord.filter(id: id).updateAll(
                db, QueueRecord.Columns.caption.set(to: caption.description), QueueRecord.Columns.altText.set(to: caption.altText),
                QueueRecord.Columns.extendedDescription.set(to: caption.extendedDescription),
                QueueRecord.Columns.modelUsed.set(to: caption.model.identifier), QueueRecord.touched(at: database.clock.now()))
        }
    }

    /// Marks an item completed, in `db`'s transaction (with its history entry).
    func complete(_ id: String, caption: String?, altText: String?, modelUsed: String, note: String? = nil, in db: Database) throws {
        _ = try QueueRecord.filter(id: id).updateAll(db, completion(caption: caption, altText: altText, modelUsed: modelUsed, note: note))
    }

    /// Settles the photo's queued item, if any, after a person decided its caption (an edit or a
    /// rollback): it is completed with that caption, unless a worker is processing it right now.
    func settle(asset: String, caption: String?, altText: String?, modelUsed: String, in db: Database) throws {
        _ = try QueueRecord.of(asset: asset).filter(QueueRecord.Columns.status != QueueItem.Status.processing.rawValue)
            .updateAll(db, completion(caption: caption, altText: altText, modelUsed: modelUsed, note: nil))
    }

    /// The assignments that complete an item with a caption (or none) and an optional note.
    private func completion(caption: String?, altText: String?, modelUsed: String, note: String?) -> [ColumnAssignment] {
        [QueueRecord.Columns.status.set(to: QueueItem.Status.completed.rawValue), QueueRecord.Columns.caption.set(to: caption),
         QueueRecord.Columns.altText.set(to: altText), QueueRecord.Columns.modelUsed.set(to: modelUsed),
         QueueRecord.Columns.errorMessage.set(to: note), QueueRecord.touched(at: database.clock.now())]
    }

    /// Marks an item completed without a caption of ours (skipped, with the reason).
    public func skip(_ id: String, reason: String, tag: String) throws(MemoraError) {
        try database.write { db in try complete(id, caption: nil, altText: nil, modelUsed: "skipped:" + tag, note: reason, in: db) }
    }

    /// Takes an item out of the queue (its photo is gone).
    public func remove(_ id: String) throws(MemoraError) {
        try database.write { db in _ = try QueueRecord.deleteOne(db, id: id) }
    }

    /// Records a failed try: back to `pending`, or `failed` once `maxRetries` tries have failed.
    @discardableResult
    public func fail(_ id: String, error: String, maxRetries: Int) throws(MemoraError) -> QueueItem.Status {
        try database.write { db in
            let item = try QueueRecord.fetchOne(db, id: id)
            let retries = (item?.retryCount ?? 0) + 1
            let status: QueueItem.Status = retries >= maxRetries ? .failed : .pending
            _ = try QueueRecord.filter(id: id).updateAll(
                db, QueueRecord.Columns.status.set(to: status.rawValue), QueueRecord.Columns.retryCount.set(to: retries),
                QueueRecord.Columns.errorMessage.set(to: error), QueueRecord.Columns.caption.set(to: nil),
                QueueRecord.Columns.altText.set(to: nil), QueueRecord.touched(at: database.clock.now()))
            if let item { try CaptionSync.queueFailure(asset: item.assetID, status: status, error: error, retries: retries, at: database.clock.now(), in: db) }
            return status
        }
    }

    /// Puts an item that was interrupted (cancelled) back to `pending` without counting a try.
    public func release(_ id: String) throws(MemoraError) {
        try database.write { db in
            _ = try QueueRecord.filter(id: id).filter(QueueRecord.Columns.status == QueueItem.Status.processing.rawValue)
                .updateAll(db, QueueRecord.Columns.status.set(to: QueueItem.Status.pending.rawValue), QueueRecord.touched(at: database.clock.now()))
        }
    }

    /// After a crash: every item left in `processing` goes back to `pending` (keeping any
    /// recorded intent). Call it when no other worker uses the database. Returns how many.
    @discardableResult
    public func recoverInterrupted() throws(MemoraError) -> Int {
        try database.write { db in
            try QueueRecord.filter(QueueRecord.Columns.status == QueueItem.Status.processing.rawValue)
                .updateAll(db, QueueRecord.Columns.status.set(to: QueueItem.Status.pending.rawValue), QueueRecord.touched(at: database.clock.now()))
        }
    }

    /// Puts every failed item back to `pending` with a fresh retry count. Returns how many.
    @discardableResult
    public func retryFailed() throws(MemoraError) -> Int {
        try database.write { db in
            try QueueRecord.filter(QueueRecord.Columns.status == QueueItem.Status.failed.rawValue)
                .updateAll(db, QueueRecord.Columns.status.set(to: QueueItem.Status.pending.rawValue), QueueRecord.Columns.retryCount.set(to: 0),
                           QueueRecord.touched(at: database.clock.now()))
        }
    }

    /// How many items have each status.
    public func counts() throws(MemoraError) -> [QueueItem.Status: Int] {
        try database.read { db in
            var counts: [QueueItem.Status: Int] = [:]
            for status in QueueItem.Status.allCases {
                counts[status] = try QueueRecord.filter(QueueRecord.Columns.status == status.rawValue).fetchCount(db)
            }
            return counts
        }
    }

    /// Pending among `assets` (all pending when nil).
    public func pendingCount(among assets: Set<String>?) throws(MemoraError) -> Int {
        try database.read { db in
            let pending = QueueRecord.filter(QueueRecord.Columns.status == QueueItem.Status.pending.rawValue)
            guard let assets else { return try pending.fetchCount(db) }
            return try String.fetchAll(db, pending.select(QueueRecord.Columns.assetID)).filter(assets.contains).count
        }
    }

    /// Removes the pending and failed items whose photo is gone (moved or deleted) from a folder
    /// that is still there: a later scan queues it where it is now. A photo whose folder is missing
    /// too (an unmounted drive) keeps its item. Returns how many left.
    @discardableResult
    public func removeMissing() throws(MemoraError) -> Int {
        let waiting = [QueueItem.Status.pending.rawValue, QueueItem.Status.failed.rawValue]
        let stale = try database.read { db in try QueueRecord.filter(waiting.contains(QueueRecord.Columns.status)).fetchAll(db) }
            .filter { !FileSystem.exists($0.assetURI) && FileSystem.isFolder(SystemPath.folder(of: $0.assetURI)) }.map(\.id)
        guard !stale.isEmpty else { return 0 }
        // Still waiting when removed: an item another process has claimed meanwhile stays.
        return try database.write { db in try QueueRecord.filter(keys: stale).filter(waiting.contains(QueueRecord.Columns.status)).deleteAll(db) }
    }

    /// Items with `status` (all when nil), oldest first.
    public func items(status: QueueItem.Status? = nil, limit: Int = 1000) throws(MemoraError) -> [QueueItem] {
        try database.read { db in
            var request = QueueRecord.all()
            if let status { request = request.filter(QueueRecord.Columns.status == status.rawValue) }
            return try request.inQueueOrder().limit(limit).fetchAll(db).map(\.item)
        }
    }

    /// The item of the photo at `path`, if queued.
    public func item(forPath path: String) throws(MemoraError) -> QueueItem? {
        try database.read { db in try QueueRecord.of(asset: Self.assetID(for: path)).fetchOne(db)?.item }
    }
}
