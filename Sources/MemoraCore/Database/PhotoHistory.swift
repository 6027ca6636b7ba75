import Foundation
import GRDB
import MemoraDatabase
internal import MemoraSystem
import MetadataKit

/// The audit trail of every write Memora makes to a photo, whoever asked for it: captions
/// (automatic or a person's), `memora metadata write`, location strips and rollbacks. Each
/// entry keeps the metadata it replaced (a MetadataKit `MetadataSnapshot`), saved before the photo
/// changes, so the photo can go back to any level: 0 (as it was before Memora), or the
/// state right after any entry.
public struct PhotoHistory: Sendable {
    let database: CaptionDatabase

    /// The history kept in `database`.
    public init(database: CaptionDatabase) {
        self.database = database
    }

    /// The photo's entries, oldest first, numbered from 1.
    public func entries(forPath path: String) throws(MemoraError) -> [HistoryEntry] {
        let asset = ProcessingQueue.assetID(for: path)
        return try database.read { db in try HistoryRecord.entries(asset: asset, in: db) }
    }

    /// What the photo carried before Memora first wrote to it, if Memora ever did.
    public func original(forPath path: String) throws(MemoraError) -> OriginalCaption? {
        try database.read { db in try OriginalMetadataRecord.caption(asset: ProcessingQueue.assetID(for: path), in: db) }
    }

    /// The entry that set the photo's current caption (the last one that set a caption).
    public func captionEntry(forPath path: String) throws(MemoraError) -> HistoryEntry? {
        try entries(forPath: path).last { $0.kind.setsCaption }
    }

    /// Whether a person's caption (a manual edit, `metadata write` or a rollback) is the photo's current one.
    public func hasManualCaption(forPath path: String) throws(MemoraError) -> Bool {
        try captionEntry(forPath: path)?.wasManualEdit ?? false
    }

    /// What a history entry records.
    struct Record: Sendable {
        var asset: String
        var kind: HistoryEntry.Kind
        var caption: String?
        var altText: String?
        var modelUsed: String
        /// The photo's captions before the write (kept as entry 0's when this is the first write).
        var before: CaptionReading?
        /// The operation (one command run) the write belongs to (``PhotoHistory/beginOperation(_:)``).
        var operation: Int64?
    }

    /// Starts an operation: one command run that writes to photos. Its entries carry its number.
    public func beginOperation(_ kind: HistoryEntry.Kind) throws(MemoraError) -> Int64 {
        try database.write { db in
            try OperationRecord(id: nil, kind: kind, createdAt: database.clock.now()).insert(db)
            return db.lastInsertedRowID
        }
    }

    /// The operations that wrote to at least one photo, newest first (at most `limit`).
    public func operations(limit: Int = 50) throws(MemoraError) -> [HistoryOperation] {
        try database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT o.id, o.kind, o.created_at, COUNT(DISTINCT h.asset_id) AS photos
                FROM operations o JOIN caption_history h ON h.operation_id = o.id AND h.pending = 0
                GROUP BY o.id ORDER BY o.id DESC LIMIT ?
                """, arguments: [max(1, limit)]).map { row in
                HistoryOperation(id: row["id"], kind: HistoryEntry.Kind(rawValue: row["kind"]) ?? .generated,
                                 createdAt: Instant.date(milliseconds: row["created_at"]), photoCount: row["photos"])
            }
        }
    }

    /// The newest operation that wrote to any of `assets` (nil when none did since operations were kept).
    func lastOperation(among assets: [String]) throws(MemoraError) -> Int64? {
        try database.read { db in
            var newest: Int64?
            for batch in stride(from: 0, to: assets.count, by: 500).map({ Array(assets[$0..<min($0 + 500, assets.count)]) }) {
                let marks = Array(repeating: "?", count: batch.count).joined(separator: ", ")
                if let found = try Int64.fetchOne(db, sql: "SELECT MAX(operation_id) FROM caption_history WHERE pending = 0 AND asset_id IN (\(marks))",
                                                  arguments: StatementArguments(batch)) {
                    newest = max(newest ?? found, found)
                }
            }
            return newest
        }
    }

    /// The rows a write recorded before the photo was replaced, to take back if the write then failed.
    final class Recorded: Sendable {
        private let rows = Locked<(entry: Int64, original: Bool)?>(nil)
        func set(_ entry: Int64, original: Bool) { rows.withLock { $0 = (entry, original) } }
        var value: (entry: Int64, original: Bool)? { rows.withLock { $0 } }
    }

    /// Write options whose `beforeReplacing` step records `record` with the snapshot of what the
    /// write replaces, durably, before the photo changes. The first write to a photo saves the
    /// snapshot as entry 0 (the original); later ones with their entry. The entry is pending
    /// until ``confirm(_:in:)`` (after the photo was replaced); one left pending by a crash is
    /// settled by the photo's next write: kept if the photo changed, dropped if it did not.
    func options(recording record: Record, keepModificationTime: Bool = false, into recorded: Recorded) -> CaptionWriteOptions {
        CaptionWriteOptions(keepModificationTime: keepModificationTime) { [database] snapshot in
            try database.write { db in
                try Self.settlePending(asset: record.asset, current: snapshot, in: db)
                let isFirst = try OriginalMetadataRecord.of(asset: record.asset).isEmpty(db)
                if isFirst {
                    // The photo is still as it was: its captions are entry 0's (the fast scan reads the
                    // header, not a large photo's whole image data).
                    let before = record.before ?? (try? MetadataReader.scan(contentsOf: record.asset))?.captions
                    try OriginalMetadataRecord(assetID: record.asset, snapshot: snapshot.encoded(), caption: before?.caption,
                                               altText: before?.altText, createdAt: database.clock.now()).insert(db)
                }
                try HistoryRecord(record, snapshot: isFirst ? nil : snapshot.encoded(), pending: true, at: database.clock.now()).insert(db)
                recorded.set(db.lastInsertedRowID, original: isFirst)
            }
        }
    }

    /// Entries a crash left pending, settled against the photo's current metadata: an entry whose
    /// saved "before" is still the photo's state never reached the photo and is dropped (with the
    /// original it saved, if it was the first); any other did, and is kept.
    static func settlePending(asset: String, current: MetadataSnapshot, in db: Database) throws {
        for entry in try HistoryRecord.of(asset: asset).filter(HistoryRecord.Columns.pending == true).fetchAll(db) {
            let saved = try entry.snapshot ?? OriginalMetadataRecord.snapshot(asset: asset, in: db)
            let before = saved.flatMap { try? MetadataSnapshot(decoding: $0) }
            if let before, before.kept == current.kept {
                _ = try HistoryRecord.deleteOne(db, key: entry.id)
                if entry.snapshot == nil, try HistoryRecord.of(asset: asset).isEmpty(db) {
                    _ = try OriginalMetadataRecord.of(asset: asset).deleteAll(db)
                }
            } else {
                _ = try HistoryRecord.filter(key: entry.id).updateAll(db, HistoryRecord.Columns.pending.set(to: false))
                if let id = entry.id { try CaptionSync.queueEntry(id, in: db) }
            }
        }
    }

    /// Marks the entry a write recorded as done: the photo was replaced.
    func confirm(_ recorded: Recorded, in db: Database) throws {
        guard let rows = recorded.value else { return }
        _ = try HistoryRecord.filter(key: rows.entry).updateAll(db, HistoryRecord.Columns.pending.set(to: false))
        try CaptionSync.queueEntry(rows.entry, in: db)
    }

    /// ``confirm(_:in:)`` in a transaction of its own (best effort: a pending entry is settled by the photo's next write).
    func confirm(_ recorded: Recorded) {
        _ = try? database.write { db in try confirm(recorded, in: db) }
    }

    /// Takes back what ``options(recording:keepModificationTime:into:)`` recorded for a write that then failed
    /// (the photo is unchanged). Best effort: a leftover entry restores to the photo's real state.
    func takeBack(_ recorded: Recorded, asset: String) {
        guard let rows = recorded.value else { return }
        _ = try? database.write { db in
            _ = try HistoryRecord.deleteOne(db, key: rows.entry)
            if rows.original { _ = try OriginalMetadataRecord.of(asset: asset).deleteAll(db) }
        }
    }

    /// Recovery of a photo that already holds `record`'s caption (a crash after the write, before
    /// the queue item was completed): its pending entry with that caption is confirmed, other
    /// pending ones are dropped, and the caption is recorded (without a snapshot) if no entry holds it.
    func recordRecovered(_ record: Record, in db: Database) throws {
        let pending = HistoryRecord.of(asset: record.asset).filter(HistoryRecord.Columns.pending == true)
        _ = try pending.filter(HistoryRecord.Columns.caption == record.caption).updateAll(db, HistoryRecord.Columns.pending.set(to: false))
        _ = try pending.deleteAll(db)
        let last = try HistoryRecord.of(asset: record.asset).filter(HistoryRecord.Columns.kind != HistoryEntry.Kind.stripLocation.rawValue)
            .reversed().fetchOne(db)
        if last?.caption != record.caption {
            try HistoryRecord(record, snapshot: nil, pending: false, at: database.clock.now()).insert(db)
        }
        if let latest = try HistoryRecord.of(asset: record.asset).filter(HistoryRecord.Columns.caption == record.caption).reversed().fetchOne(db),
           let id = latest.id {
            try CaptionSync.queueEntry(id, in: db)
        }
    }

    /// Sets the captions of the photo's latest entry (a restore whose captions are only known once the photo is restored).
    func setLatestCaptions(asset: String, caption: String?, altText: String?) throws(MemoraError) {
        try database.write { db in
            guard let latest = try HistoryRecord.of(asset: asset).reversed().fetchOne(db) else { return }
            _ = try HistoryRecord.filter(key: latest.id).updateAll(
                db, HistoryRecord.Columns.caption.set(to: caption), HistoryRecord.Columns.altText.set(to: altText))
            if let id = latest.id { try CaptionSync.queueEntry(id, in: db) }
        }
    }

    /// Writes a caption into the photo through MetadataKit (surgical, verified, fsync'd and
    /// renamed into place), recording `record` with the snapshot of what it replaced before
    /// the photo changes. `record.before` is the photo's current captions when the caller has
    /// just read them (saves a read on a first write).
    /// The entry is confirmed at once unless `confirming` is false: the caller then confirms it
    /// in its own transaction with the returned value.
    @discardableResult
    func write(_ update: CaptionUpdate, _ record: Record, confirming: Bool = true, keepModificationTime: Bool = false) throws(MetadataError) -> Recorded {
        try recording(record, confirming: confirming, keepModificationTime: keepModificationTime) { options throws(MetadataError) in
            try CaptionWriter.write(update, to: record.asset, options: options)
        }
    }

    /// Puts `snapshot` back into the photo (``CaptionWriter/restore(_:to:options:)``), recording
    /// `record` with what the restore replaces, so it can be undone too.
    func restore(_ snapshot: MetadataSnapshot, _ record: Record, keepModificationTime: Bool = false) throws(MetadataError) {
        try recording(record, confirming: true, keepModificationTime: keepModificationTime) { options throws(MetadataError) in
            try CaptionWriter.restore(snapshot, to: record.asset, options: options)
        }
    }

    /// Runs a write with options that record `record`; takes the entry back when it fails,
    /// confirms it when it succeeds (unless the caller confirms it in its own transaction).
    @discardableResult
    private func recording(_ record: Record, confirming: Bool, keepModificationTime: Bool,
                           _ write: (CaptionWriteOptions) throws(MetadataError) -> Void) throws(MetadataError) -> Recorded {
        let recorded = Recorded()
        do {
            try write(options(recording: record, keepModificationTime: keepModificationTime, into: recorded))
        } catch {
            takeBack(recorded, asset: record.asset)
            throw error
        }
        if confirming { confirm(recorded) }
        return recorded
    }

    /// The snapshot that brings the photo back to `level`: 0 is the original; N is the state
    /// right after entry N, which is what entry N+1 replaced. Nil when it was not kept.
    func snapshot(restoringLevel level: Int, asset: String) throws(MemoraError) -> MetadataSnapshot? {
        let data = try database.read { db -> Data? in
            if level == 0 { return try OriginalMetadataRecord.snapshot(asset: asset, in: db) }
            return try Data.fetchOne(db, HistoryRecord.of(asset: asset).select(HistoryRecord.Columns.snapshot).limit(1, offset: level))
        }
        guard let data else { return nil }
        do { return try MetadataSnapshot(decoding: data, source: asset) } catch {
            throw .queryFailed(reason: "the saved metadata of level \(level) cannot be used: \(error.reason)")
        }
    }
}
