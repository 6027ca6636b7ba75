import Foundation
import GRDB
public import MetadataKit

/// Why a manual edit or a rollback failed.
public enum CaptionEditError: Error, Sendable, CustomStringConvertible {
    /// The database failed or the entry does not exist.
    case database(CaptionDatabaseError)
    /// Writing the photo failed; the photo is unchanged.
    case metadata(MetadataError)
    /// The caption is empty.
    case emptyCaption
    /// Nothing to roll back to.
    case nothingToRollBack(path: String)

    public var description: String {
        switch self {
        case .database(let error): "\(error)"
        case .metadata(let error): "\(error)"
        case .emptyCaption: "the caption is empty; to remove Memora's captions, use `memora rollback FILE --to 0`"
        case .nothingToRollBack(let path): "\(path) has no caption history: Memora never wrote to it"
        }
    }
}

/// The user's control over captions (the seed's principle 4): manual edits, which
/// automatic processing never overwrites, and rollback to any earlier caption or to
/// the photo as it was before Memora wrote to it.
public struct CaptionEditor: Sendable {
    let database: CaptionDatabase
    var history: CaptionHistory { CaptionHistory(database: database) }

    /// An editor over `database`'s history.
    public init(database: CaptionDatabase) {
        self.database = database
    }

    /// Writes a person's caption into the photo and records it as a manual edit.
    /// Without `altText`, the alt text is the caption (shortened at a sentence or word
    /// boundary when longer than 150 characters).
    @discardableResult
    public func edit(path: String, caption: String, altText: String? = nil) throws(CaptionEditError) -> HistoryEntry {
        let caption = caption.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !caption.isEmpty else { throw .emptyCaption }
        let alt = altText?.trimmingCharacters(in: .whitespacesAndNewlines) ?? CaptionPostProcessor.altText(from: caption)
        return try write(path: path, caption: caption, altText: alt, modelUsed: "manual", kind: .manual)
    }

    /// Rolls the photo back to history entry `number` (1 is the oldest), or with 0 to its
    /// metadata exactly as it was before Memora first wrote to it. Without a number, to the
    /// entry before the current one. The rollback is itself recorded, as a person's choice.
    @discardableResult
    public func rollback(path: String, to number: Int? = nil) throws(CaptionEditError) -> HistoryEntry {
        let asset = ProcessingQueue.assetID(for: path)
        let entries: [HistoryEntry]
        do { entries = try history.entries(forPath: asset) } catch { throw .database(error) }
        guard !entries.isEmpty else { throw .nothingToRollBack(path: path) }
        let target = number ?? (entries.count - 1)
        guard (0...entries.count).contains(target) else {
            throw .database(.noSuchHistoryEntry(asset: asset, number: target, available: entries.count))
        }
        if target > 0, let caption = entries[target - 1].caption {
            return try write(path: asset, caption: caption, altText: entries[target - 1].altText ?? CaptionPostProcessor.altText(from: caption),
                             modelUsed: "rollback:\(target)", kind: .rollback)
        }
        // Back to the original: restore the saved metadata segments byte for byte.
        let snapshot: MetadataSnapshot?
        do { snapshot = try history.originalSnapshot(asset: asset) } catch { throw .database(error) }
        guard let snapshot else { throw .nothingToRollBack(path: path) }
        do { try CaptionWriter.restore(snapshot, to: asset) } catch { throw .metadata(error) }
        let original = try? history.original(forPath: asset)
        return try recordOnly(asset: asset, caption: original?.caption, altText: original?.altText, modelUsed: "rollback:0", kind: .rollback)
    }

    private func write(path: String, caption: String, altText: String, modelUsed: String, kind: HistoryEntry.Kind) throws(CaptionEditError) -> HistoryEntry {
        let asset = ProcessingQueue.assetID(for: path)
        do { try history.writeToFile(asset: asset, caption: caption, altText: altText) } catch { throw .metadata(error) }
        return try recordOnly(asset: asset, caption: caption, altText: altText, modelUsed: modelUsed, kind: kind)
    }

    private func recordOnly(asset: String, caption: String?, altText: String?, modelUsed: String, kind: HistoryEntry.Kind) throws(CaptionEditError) -> HistoryEntry {
        do {
            try database.write { db in
                try history.record(asset: asset, caption: caption, altText: altText, modelUsed: modelUsed, kind: kind, in: db)
                // A queued item for this photo is settled: a person decided.
                try db.execute(
                    sql: "UPDATE processing_queue SET status = 'completed', caption = ?, alt_text = ?, model_used = ?, error_message = NULL, updated_at = ? WHERE asset_id = ? AND status != 'processing'",
                    arguments: [caption, altText, modelUsed, CaptionDatabase.timestamp(Date()), asset])
            }
            guard let entry = try history.entries(forPath: asset).last else { throw CaptionDatabaseError.queryFailed(reason: "the history entry was not recorded") }
            return entry
        } catch let error as CaptionDatabaseError {
            throw .database(error)
        } catch {
            throw .database(.queryFailed(reason: "\(error)"))
        }
    }
}
