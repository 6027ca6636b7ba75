import Foundation
import GRDB
public import MemoraSystem
public import MetadataKit

/// The user's control over what Memora writes into photos (the seed's principle 4): manual
/// edits, which automatic processing never overwrites, `memora metadata write` and
/// location strips, and rollback to any earlier level or to the photo as it was before
/// Memora wrote to it. Every write is recorded in the one ``PhotoHistory``.
public struct CaptionEditor: Sendable {
    let database: CaptionDatabase
    var history: PhotoHistory { PhotoHistory(database: database) }
    /// Where releases before the one history kept `memora metadata write`'s snapshots.
    var legacySnapshotFolder = ApplicationFolders().state + "/snapshots"

    /// An editor over `database`'s history.
    public init(database: CaptionDatabase) {
        self.database = database
    }

    /// Writes a person's caption into the photo and records it as a manual edit.
    /// Without `altText`, the alt text is the caption (shortened at a sentence or word
    /// boundary when longer than 150 characters). `keepModificationTime` keeps the file's mtime.
    @discardableResult
    public func edit(path: String, caption: String, altText: String? = nil, keepModificationTime: Bool = false) throws(MemoraError) -> HistoryEntry {
        let update = try Self.editUpdate(caption: caption, altText: altText)
        let record = PhotoHistory.Record(asset: ProcessingQueue.assetID(for: path), kind: .manual, caption: update.caption,
                                         altText: update.altText, modelUsed: "manual", operation: try history.beginOperation(.manual))
        do { try history.write(update, record, keepModificationTime: keepModificationTime) } catch {
            throw .metadata(error)
        }
        return try settle(record)
    }

    /// A dry run of ``edit(path:caption:altText:keepModificationTime:)``: the caption and alt text
    /// the edit would write, after the photo was read, edited and verified in memory (nothing is
    /// written, nothing recorded). It throws what the edit would throw.
    public func checkEdit(path: String, caption: String, altText: String? = nil) throws(MemoraError) -> CaptionUpdate {
        let update = try Self.editUpdate(caption: caption, altText: altText)
        do { _ = try CaptionWriter.check(update, in: path) } catch { throw .metadata(error) }
        return update
    }

    /// A person's caption, trimmed, and its alt text (given, or made from the caption).
    private static func editUpdate(caption: String, altText: String?) throws(MemoraError) -> CaptionUpdate {
        let caption = caption.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !caption.isEmpty else { throw .emptyCaption }
        return CaptionUpdate(caption: caption, altText: altText?.trimmingCharacters(in: .whitespacesAndNewlines) ?? CaptionPostProcessor.altText(from: caption))
    }

    /// Rolls the photo back to `level`: 0 is its metadata exactly as it was before Memora first
    /// wrote to it, N the state right after history entry N (1 is the oldest). Without a level,
    /// to the state before the latest entry (undoing it). The metadata saved with the history
    /// is put back byte for byte; the rollback is itself recorded, as a person's choice, so it
    /// can be undone too. `keepModificationTime` keeps the file's mtime.
    @discardableResult
    public func rollback(path: String, to level: Int? = nil, keepModificationTime: Bool = false) throws(MemoraError) -> HistoryEntry {
        try rollback(path: path, to: level, keepModificationTime: keepModificationTime, operation: try history.beginOperation(.rollback))
    }

    /// ``rollback(path:to:keepModificationTime:)`` as part of `operation`.
    func rollback(path: String, to level: Int?, keepModificationTime: Bool, operation: Int64?) throws(MemoraError) -> HistoryEntry {
        let asset = ProcessingQueue.assetID(for: path)
        guard let plan = try rollbackPlan(path: path, asset: asset, to: level) else {
            if try restoreLegacySnapshot(path: path, asset: asset, operation: operation) { return try settleLegacy(asset) }
            throw .nothingToRollBack(path: path)
        }
        let record = PhotoHistory.Record(asset: asset, kind: .rollback, caption: plan.caption, altText: plan.altText,
                                         modelUsed: "rollback:\(plan.level)", operation: operation)
        let snapshot = plan.level < plan.entryCount ? try history.snapshot(restoringLevel: plan.level, asset: asset) : nil
        if let snapshot {
            do { try history.restore(snapshot, record, keepModificationTime: keepModificationTime) } catch { throw .metadata(error) }
        } else if let caption = plan.caption {
            // A level recorded before snapshots were kept per entry: its caption is written again.
            let update = CaptionUpdate(caption: caption, altText: plan.altText ?? CaptionPostProcessor.altText(from: caption))
            do { try history.write(update, record, keepModificationTime: keepModificationTime) } catch { throw .metadata(error) }
        } else {
            throw .levelNotKept(path: path, level: plan.level)
        }
        return try settle(record)
    }

    /// Undoes an operation on the photos of `paths`: by default the last operation that wrote to any
    /// of them (`memora metadata write`, a strip, a caption run, an edit, a restore), or `operation`
    /// (`memora history` lists them). Each photo that operation wrote to, and that no later operation
    /// changed, goes back to its state before it, byte for byte; photos it did not touch are left
    /// alone; a photo a later operation changed is reported (``UndoOutcome/changedSince(operation:)``)
    /// and left, so nothing written since is lost. The undo is itself one operation. Photos whose
    /// writes were recorded before operations existed have their last write undone.
    public func undo(paths: [String], operation: Int64? = nil, keepModificationTime: Bool = false) throws(MemoraError) -> UndoReport {
        let (target, decisions) = try undoDecisions(paths: paths, operation: operation)
        var undoneAs: Int64?
        var results: [UndoResult] = []
        for (path, decision) in decisions {
            guard case .success(.undone(let plan)) = decision else {
                results.append(UndoResult(path: path, outcome: decision))
                continue
            }
            do throws(MemoraError) {
                if undoneAs == nil { undoneAs = try history.beginOperation(.rollback) }
                _ = try rollback(path: path, to: plan.level, keepModificationTime: keepModificationTime, operation: undoneAs)
                results.append(UndoResult(path: path, outcome: .success(.undone(plan))))
            } catch {
                results.append(UndoResult(path: path, outcome: .failure(error)))
            }
        }
        return UndoReport(operation: target, undoneAs: undoneAs, photos: results)
    }

    /// A dry run of ``undo(paths:operation:keepModificationTime:)``: what it would do to each photo, nothing written.
    public func checkUndo(paths: [String], operation: Int64? = nil) throws(MemoraError) -> UndoReport {
        let (target, decisions) = try undoDecisions(paths: paths, operation: operation)
        return UndoReport(operation: target, undoneAs: nil, photos: decisions.map { UndoResult(path: $0.path, outcome: $0.outcome) })
    }

    /// The operation an undo of `paths` undoes, and what it does to each photo (given once).
    private func undoDecisions(paths: [String], operation: Int64?) throws(MemoraError) -> (Int64?, [(path: String, outcome: Result<UndoOutcome, MemoraError>)]) {
        var seen = Set<String>()
        let unique = paths.filter { seen.insert(ProcessingQueue.assetID(for: $0)).inserted }
        var target = operation
        if target == nil { target = try history.lastOperation(among: unique.map(ProcessingQueue.assetID(for:))) }
        var decisions: [(path: String, outcome: Result<UndoOutcome, MemoraError>)] = []
        for path in unique {
            do throws(MemoraError) {
                let entries = try history.entries(forPath: path)
                guard let target else {
                    // Writes recorded before operations: the photo's last write is undone.
                    decisions.append((path, .success(.undone(try checkRollback(path: path)))))
                    continue
                }
                guard let last = entries.last, entries.contains(where: { $0.operation == target }) else {
                    decisions.append((path, .success(.notTouched)))
                    continue
                }
                guard last.operation == target else {
                    decisions.append((path, .success(.changedSince(operation: last.operation))))
                    continue
                }
                // Back to the state before the operation's first write to the photo (a caption run writes once).
                let first = entries.first { $0.operation == target }?.number ?? last.number
                decisions.append((path, .success(.undone(try checkRollback(path: path, to: first - 1)))))
            } catch {
                decisions.append((path, .failure(error)))
            }
        }
        if let operation, !decisions.contains(where: { if case .success(.notTouched) = $0.outcome { false } else { true } }) {
            throw .noSuchOperation(operation)
        }
        return (target, decisions)
    }

    /// What ``rollback(path:to:keepModificationTime:)`` would put back, without writing: the level,
    /// and the caption and alt text the photo would carry. It throws what the rollback would throw
    /// about the history (nothing to roll back, no such level). A photo only an earlier release
    /// wrote to (a legacy snapshot) answers level 0 with the caption unknown (nil).
    public func checkRollback(path: String, to level: Int? = nil) throws(MemoraError) -> RollbackPlan {
        let asset = ProcessingQueue.assetID(for: path)
        if let plan = try rollbackPlan(path: path, asset: asset, to: level) { return plan }
        guard FileSystem.exists(legacySnapshotPath(for: path)) else { throw .nothingToRollBack(path: path) }
        return RollbackPlan(level: 0, entryCount: 0, caption: nil, altText: nil)
    }

    /// The rollback to `level` of the photo's history (nil: the history is empty).
    private func rollbackPlan(path: String, asset: String, to level: Int?) throws(MemoraError) -> RollbackPlan? {
        let entries = try history.entries(forPath: asset)
        guard !entries.isEmpty else { return nil }
        let target = level ?? (entries.count - 1)
        guard (0...entries.count).contains(target) else {
            throw .noSuchHistoryEntry(asset: asset, number: target, available: entries.count)
        }
        // The caption the photo carries at that level: the last one set at or before it.
        let original = try history.original(forPath: asset)
        let setter = entries.prefix(target).last { $0.kind.setsCaption }
        return RollbackPlan(level: target, entryCount: entries.count, caption: setter.map(\.caption) ?? original?.caption,
                            altText: setter.map(\.altText) ?? original?.altText)
    }

    /// Writes `update` into every photo of `paths` (`memora metadata write`), `concurrency` at a
    /// time, each recorded in the history as a person's caption with the metadata it replaced.
    /// A photo named twice (or through a link) is written once. One result per unique photo.
    public func write(_ update: CaptionUpdate, toEach paths: [String], concurrency: Int = CaptionWriter.defaultConcurrency,
                      keepModificationTime: Bool = false,
                      completed: (@Sendable (String, Result<MetadataSnapshot, MetadataError>) -> Void)? = nil) -> [(path: String, result: Result<MetadataSnapshot, MetadataError>)] {
        let altText = update.altText
        return batch(paths, kind: .metadataWrite, completed: completed) { unique, options, done in
            CaptionWriter.write(update, toEach: unique, concurrency: concurrency, options: {
                options($0, PhotoHistory.Record(asset: ProcessingQueue.assetID(for: $0), kind: .metadataWrite, caption: update.caption,
                                                altText: altText, modelUsed: "metadata-write"), keepModificationTime)
            }, completed: done)
        }
    }

    /// Removes the location from every photo of `paths` (`memora metadata strip-location`),
    /// recording each strip, with the metadata it removed, in the history.
    public func stripLocation(fromEach paths: [String], concurrency: Int = CaptionWriter.defaultConcurrency, keepModificationTime: Bool = false,
                              completed: (@Sendable (String, Result<MetadataSnapshot, MetadataError>) -> Void)? = nil) -> [(path: String, result: Result<MetadataSnapshot, MetadataError>)] {
        batch(paths, kind: .stripLocation, completed: completed) { unique, options, done in
            CaptionWriter.stripLocation(fromEach: unique, concurrency: concurrency, options: {
                options($0, PhotoHistory.Record(asset: ProcessingQueue.assetID(for: $0), kind: .stripLocation, modelUsed: "strip-location"),
                        keepModificationTime)
            }, completed: done)
        }
    }

    /// Runs a batch write with recording options, taking back the entries of the writes that failed.
    /// The batch is one operation of `kind` (best effort: without one, its entries are recorded alone).
    private func batch(
        _ paths: [String], kind: HistoryEntry.Kind, completed: (@Sendable (String, Result<MetadataSnapshot, MetadataError>) -> Void)?,
        _ run: ([String], @escaping @Sendable (String, PhotoHistory.Record, Bool) -> CaptionWriteOptions,
                @escaping @Sendable (Int, Result<MetadataSnapshot, MetadataError>) -> Void) -> [Result<MetadataSnapshot, MetadataError>]
    ) -> [(path: String, result: Result<MetadataSnapshot, MetadataError>)] {
        var seen = Set<String>()
        let unique = paths.filter { seen.insert(ProcessingQueue.assetID(for: $0)).inserted }
        let recordings = Dictionary(uniqueKeysWithValues: unique.map { ($0, PhotoHistory.Recorded()) })
        let history = history
        let operation = unique.isEmpty ? nil : try? history.beginOperation(kind)
        let results = run(unique, { path, record, keepTime in
            var record = record
            record.operation = operation
            return history.options(recording: record, keepModificationTime: keepTime, into: recordings[path] ?? PhotoHistory.Recorded())
        }, { index, result in
            if let recorded = recordings[unique[index]] {
                switch result {
                case .success: history.confirm(recorded)
                case .failure: history.takeBack(recorded, asset: ProcessingQueue.assetID(for: unique[index]))
                }
            }
            completed?(unique[index], result)
        })
        return zip(unique, results).map { ($0, $1) }
    }

    /// The snapshot file an earlier release's `memora metadata write` kept for `path`: one JSON
    /// file per photo, named by a hash of its absolute path, in `$XDG_STATE_HOME/memora/snapshots`.
    func legacySnapshotPath(for path: String) -> String {
        let absolute = SystemPath.normalized(FileSystem.absolutePath(path))
        let name = absolute.utf8.reduce(UInt64(14_695_981_039_346_656_037)) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 }
        return legacySnapshotFolder + "/" + String(name, radix: 16) + ".json"
    }

    /// Restores the snapshot an earlier release's `metadata write` left for the photo, if there is
    /// one, recording the restore (so it can be undone) and removing the old file.
    private func restoreLegacySnapshot(path: String, asset: String, operation: Int64?) throws(MemoraError) -> Bool {
        let file = legacySnapshotPath(for: path)
        guard let bytes = try? SystemFile(file).readAll() else { return false }
        let snapshot: MetadataSnapshot
        do { snapshot = try MetadataSnapshot(decoding: Data(bytes), source: file) } catch { throw .metadata(error) }
        do { try history.restore(snapshot, PhotoHistory.Record(asset: asset, kind: .rollback, modelUsed: "restore", operation: operation)) } catch {
            throw .metadata(error)
        }
        try? FileSystem.remove(file)
        return true
    }

    private func settleLegacy(_ asset: String) throws(MemoraError) -> HistoryEntry {
        let caption = (try? MetadataReader.scan(contentsOf: asset))?.captions
        try history.setLatestCaptions(asset: asset, caption: caption?.caption, altText: caption?.altText)
        return try settle(PhotoHistory.Record(asset: asset, kind: .rollback, caption: caption?.caption, altText: caption?.altText, modelUsed: "restore"))
    }

    /// Settles the queue for a person's decision and returns the entry just recorded.
    private func settle(_ record: PhotoHistory.Record) throws(MemoraError) -> HistoryEntry {
        try database.write { db in
            try ProcessingQueue(database: database).settle(asset: record.asset, caption: record.caption, altText: record.altText,
                                                            modelUsed: record.modelUsed, in: db)
        }
        guard let entry = try history.entries(forPath: record.asset).last else { throw .queryFailed(reason: "the history entry was not recorded") }
        return entry
    }
}
