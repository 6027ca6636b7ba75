public import Foundation
import GRDB
import MetadataKit

/// One caption Memora wrote into a photo (a row of `caption_history`).
public struct HistoryEntry: Sendable, Hashable, Codable {
    /// How the caption came about.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// Made by a model (or the basic description) during automatic processing.
        case generated
        /// Written by a person (`memora edit`); automatic processing never replaces it.
        case manual
        /// A person rolled the photo back to an earlier caption; treated like a manual edit.
        case rollback
    }

    /// The entry's number for its photo, from 1 (oldest). 0 is the photo before Memora wrote to it.
    public var number: Int
    /// The photo.
    public var asset: String
    /// The caption written (nil when the rollback restored the original metadata).
    public var caption: String?
    /// The alt text written.
    public var altText: String?
    /// The model (`provider:name`), `manual`, or `rollback:N`.
    public var modelUsed: String
    /// Whether a person wrote or chose this caption.
    public var wasManualEdit: Bool
    /// How the caption came about.
    public var kind: Kind
    /// When it was written.
    public var createdAt: Date
}

/// What the photo carried before Memora first wrote to it: entry 0 of its history.
public struct OriginalCaption: Sendable, Hashable, Codable {
    /// The caption it had (nil when none).
    public var caption: String?
    /// The alt text it had.
    public var altText: String?
    /// When Memora first wrote to it.
    public var savedAt: Date
}

/// The audit trail: every caption ever written to each photo, and the original metadata
/// (saved before the first write) that a rollback to 0 restores byte for byte.
public struct CaptionHistory: Sendable {
    let database: CaptionDatabase

    /// The history kept in `database`.
    public init(database: CaptionDatabase) {
        self.database = database
    }

    /// The photo's entries, oldest first, numbered from 1.
    public func entries(forPath path: String) throws(CaptionDatabaseError) -> [HistoryEntry] {
        let asset = ProcessingQueue.assetID(for: path)
        return try database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM caption_history WHERE asset_id = ? ORDER BY id", arguments: [asset])
                .enumerated().map { index, row in
                    HistoryEntry(
                        number: index + 1, asset: asset, caption: row["caption"], altText: row["alt_text"],
                        modelUsed: row["model_used"], wasManualEdit: row["was_manual_edit"],
                        kind: HistoryEntry.Kind(rawValue: row["kind"]) ?? .generated,
                        createdAt: Date(timeIntervalSince1970: Double(row["created_at"] as Int64) / 1000))
                }
        }
    }

    /// What the photo carried before Memora first wrote to it, if Memora ever did.
    public func original(forPath path: String) throws(CaptionDatabaseError) -> OriginalCaption? {
        try database.read { db in
            try Row.fetchOne(db, sql: "SELECT caption, alt_text, created_at FROM original_metadata WHERE asset_id = ?",
                             arguments: [ProcessingQueue.assetID(for: path)]).map {
                OriginalCaption(caption: $0["caption"], altText: $0["alt_text"],
                                savedAt: Date(timeIntervalSince1970: Double($0["created_at"] as Int64) / 1000))
            }
        }
    }

    /// Whether a person's caption (a manual edit or a rollback) is the photo's current one.
    public func hasManualCaption(forPath path: String) throws(CaptionDatabaseError) -> Bool {
        try database.read { db in
            try Bool.fetchOne(db, sql: "SELECT was_manual_edit FROM caption_history WHERE asset_id = ? ORDER BY id DESC LIMIT 1",
                              arguments: [ProcessingQueue.assetID(for: path)]) ?? false
        }
    }

    func record(asset: String, caption: String?, altText: String?, modelUsed: String, kind: HistoryEntry.Kind, in db: Database) throws {
        try db.execute(
            sql: "INSERT INTO caption_history (asset_id, caption, alt_text, model_used, was_manual_edit, kind, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            arguments: [asset, caption, altText, modelUsed, kind != .generated, kind.rawValue, CaptionDatabase.timestamp(Date())])
    }

    /// Writes a caption into the photo through MetadataKit (surgical, verified against the
    /// full before/after metadata, fsync'd and renamed into place). Before the first write to
    /// a photo, its original metadata is saved, inside the writer's `beforeReplacing` step, so
    /// it exists before the file changes. `before` is the photo's current captions when the
    /// caller has just read them (saves a read).
    func writeToFile(asset: String, caption: String, altText: String, before: CaptionReading? = nil) throws(MetadataError) {
        let before = if let before { before } else { try MetadataReader.read(contentsOf: asset).captions }
        let options = CaptionWriteOptions(beforeReplacing: { [database] snapshot in
            try database.pool.write { db in
                guard try Int.fetchOne(db, sql: "SELECT 1 FROM original_metadata WHERE asset_id = ?", arguments: [asset]) == nil else { return }
                try db.execute(
                    sql: "INSERT INTO original_metadata (asset_id, snapshot, caption, alt_text, created_at) VALUES (?, ?, ?, ?, ?)",
                    arguments: [asset, try JSONEncoder().encode(snapshot), before.caption, before.altText, CaptionDatabase.timestamp(Date())])
            }
        })
        try CaptionWriter.write(CaptionUpdate(caption: caption, altText: altText), to: asset, options: options)
    }

    /// The saved original metadata of `asset`.
    func originalSnapshot(asset: String) throws(CaptionDatabaseError) -> MetadataSnapshot? {
        let data = try database.read { db in
            try Data.fetchOne(db, sql: "SELECT snapshot FROM original_metadata WHERE asset_id = ?", arguments: [asset])
        }
        guard let data else { return nil }
        do { return try JSONDecoder().decode(MetadataSnapshot.self, from: data) } catch {
            throw .queryFailed(reason: "the saved original metadata of \(asset) cannot be decoded: \(error)")
        }
    }
}
