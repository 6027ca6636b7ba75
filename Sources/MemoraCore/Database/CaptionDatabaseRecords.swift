import Foundation
import GRDB
import MemoraDatabase

// The caption database's tables, one record type each: its columns (`CodingKeys`, snake_case),
// and the queries the types over them (`ProcessingQueue`, `PhotoHistory`, `GalleryScanner`,
// `CaptionDatabase`) need. The public values (`QueueItem`, `HistoryEntry`, `CaptionPreferences`…)
// are converted at the edge, so GRDB stays out of the public API. The schema is created by
// `CaptionDatabase.migrator(clock:)` (Docs/Captioning.md).

// MARK: - processing_queue

/// A row of `processing_queue`: a photo to caption and where it stands.
struct QueueRecord: MillisecondRecord, Identifiable {
    static let databaseTableName = "processing_queue"

    var id: String
    var assetID: String
    var assetURI: String
    var status: QueueItem.Status
    var caption: String?
    var altText: String?
    /// The extended description generated with the caption (part of the intent).
    var extendedDescription: String?
    var modelUsed: String?
    var errorMessage: String?
    var retryCount: Int?
    var force: Bool
    var createdAt: Date
    var updatedAt: Date

    enum CodingKeys: String, CodingKey {
        case id, status, caption, force
        case assetID = "asset_id", assetURI = "asset_uri", altText = "alt_text", modelUsed = "model_used", errorMessage = "error_message"
        case retryCount = "retry_count", createdAt = "created_at", updatedAt = "updated_at", extendedDescription = "extended_description"
    }

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let assetID = Column(CodingKeys.assetID)
        static let status = Column(CodingKeys.status)
        static let caption = Column(CodingKeys.caption)
        static let altText = Column(CodingKeys.altText)
        static let extendedDescription = Column(CodingKeys.extendedDescription)
        static let modelUsed = Column(CodingKeys.modelUsed)
        static let errorMessage = Column(CodingKeys.errorMessage)
        static let retryCount = Column(CodingKeys.retryCount)
        static let force = Column(CodingKeys.force)
        static let createdAt = Column(CodingKeys.createdAt)
        static let updatedAt = Column(CodingKeys.updatedAt)
    }

    /// The public value.
    var item: QueueItem {
        QueueItem(id: id, assetID: assetID, assetURI: assetURI, status: status, caption: caption, altText: altText,
                  extendedDescription: extendedDescription, modelUsed: modelUsed, errorMessage: errorMessage, retryCount: retryCount ?? 0,
                  force: force, createdAt: createdAt, updatedAt: updatedAt)
    }

    /// The item of a photo.
    static func of(asset: String) -> QueryInterfaceRequest<QueueRecord> { filter(Columns.assetID == asset) }

    /// The assignment that stamps a change with `date` (an instant column, in milliseconds).
    static func touched(at date: Date) -> ColumnAssignment { Columns.updatedAt.set(to: milliseconds(date)) }
}

extension QueryInterfaceRequest where RowDecoder == QueueRecord {
    /// The items in queue order: oldest first, then in the order they were inserted.
    func inQueueOrder() -> Self { order(QueueRecord.Columns.createdAt, Column.rowID) }
}

// MARK: - caption_history

/// A row of `caption_history`: one write Memora made to a photo, with the snapshot of what it
/// replaced (NULL for a photo's first entry, whose snapshot is in `original_metadata`).
struct HistoryRecord: MillisecondRecord {
    static let databaseTableName = "caption_history"

    var id: Int64?
    var assetID: String
    var caption: String?
    var altText: String?
    var modelUsed: String
    var wasManualEdit: Bool
    var kind: HistoryEntry.Kind
    var snapshot: Data?
    /// True from just before the photo is replaced until the write is confirmed.
    var pending: Bool
    var createdAt: Date
    /// The operation (one command run) the write belonged to; nil for entries recorded before operations.
    var operationID: Int64?

    enum CodingKeys: String, CodingKey {
        case id, caption, kind, snapshot, pending
        case assetID = "asset_id", altText = "alt_text", modelUsed = "model_used", wasManualEdit = "was_manual_edit", createdAt = "created_at"
        case operationID = "operation_id"
    }

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let assetID = Column(CodingKeys.assetID)
        static let caption = Column(CodingKeys.caption)
        static let altText = Column(CodingKeys.altText)
        static let kind = Column(CodingKeys.kind)
        static let snapshot = Column(CodingKeys.snapshot)
        static let pending = Column(CodingKeys.pending)
        static let operationID = Column(CodingKeys.operationID)
    }

    /// A new entry for `record`, made at `date`.
    init(_ record: PhotoHistory.Record, snapshot: Data?, pending: Bool, at date: Date) {
        self.init(id: nil, assetID: record.asset, caption: record.caption, altText: record.altText, modelUsed: record.modelUsed,
                  wasManualEdit: record.kind.isPersonal, kind: record.kind, snapshot: snapshot, pending: pending, createdAt: date,
                  operationID: record.operation)
    }

    init(id: Int64?, assetID: String, caption: String?, altText: String?, modelUsed: String, wasManualEdit: Bool, kind: HistoryEntry.Kind,
         snapshot: Data?, pending: Bool, createdAt: Date, operationID: Int64? = nil) {
        (self.id, self.assetID, self.caption, self.altText, self.modelUsed) = (id, assetID, caption, altText, modelUsed)
        (self.wasManualEdit, self.kind, self.snapshot, self.pending, self.createdAt) = (wasManualEdit, kind, snapshot, pending, createdAt)
        self.operationID = operationID
    }

    /// The photo's entries, oldest first.
    static func of(asset: String) -> QueryInterfaceRequest<HistoryRecord> { filter(Columns.assetID == asset).order(Columns.id) }

    /// The photo's entries as ``HistoryEntry`` values, numbered from 1, without loading the snapshots.
    static func entries(asset: String, in db: Database) throws -> [HistoryEntry] {
        let listing = of(asset: asset)
            .select(Columns.id, Columns.assetID, Columns.caption, Columns.altText, Column(CodingKeys.modelUsed), Column(CodingKeys.wasManualEdit),
                    Columns.kind, Columns.pending, Column(CodingKeys.createdAt), Columns.operationID, (Columns.snapshot != nil).forKey("saved"))
            .asRequest(of: Row.self)
        return try listing.fetchAll(db).enumerated().map { index, row in
            let record = try HistoryRecord(row: row)
            return HistoryEntry(number: index + 1, asset: asset, caption: record.caption, altText: record.altText, modelUsed: record.modelUsed,
                                wasManualEdit: record.wasManualEdit, kind: record.kind, createdAt: record.createdAt, hasSnapshot: row["saved"],
                                operation: record.operationID)
        }
    }
}

// MARK: - operations

/// A row of `operations`: one command run that wrote to photos.
struct OperationRecord: MillisecondRecord {
    static let databaseTableName = "operations"

    var id: Int64?
    var kind: HistoryEntry.Kind
    var createdAt: Date

    enum CodingKeys: String, CodingKey {
        case id, kind
        case createdAt = "created_at"
    }
}

// MARK: - original_metadata

/// A row of `original_metadata`: what a photo carried before Memora first wrote to it (entry 0).
struct OriginalMetadataRecord: MillisecondRecord {
    static let databaseTableName = "original_metadata"

    var assetID: String
    var snapshot: Data
    var caption: String?
    var altText: String?
    var createdAt: Date

    enum CodingKeys: String, CodingKey {
        case snapshot, caption
        case assetID = "asset_id", altText = "alt_text", createdAt = "created_at"
    }

    enum Columns {
        static let assetID = Column(CodingKeys.assetID)
        static let snapshot = Column(CodingKeys.snapshot)
        static let caption = Column(CodingKeys.caption)
        static let altText = Column(CodingKeys.altText)
        static let createdAt = Column(CodingKeys.createdAt)
    }

    /// The photo's row.
    static func of(asset: String) -> QueryInterfaceRequest<OriginalMetadataRecord> { filter(Columns.assetID == asset) }

    /// The photo's saved snapshot, without the rest of the row.
    static func snapshot(asset: String, in db: Database) throws -> Data? {
        try Data.fetchOne(db, of(asset: asset).select(Columns.snapshot))
    }

    /// The photo's entry 0 as an ``OriginalCaption``, without loading the snapshot.
    static func caption(asset: String, in db: Database) throws -> OriginalCaption? {
        try of(asset: asset).select(Columns.caption, Columns.altText, Columns.createdAt).asRequest(of: Row.self).fetchOne(db).map {
            OriginalCaption(caption: $0[Columns.caption], altText: $0[Columns.altText], savedAt: date(milliseconds: $0[Columns.createdAt]))
        }
    }
}

// MARK: - preferences

/// The single row of `preferences`.
struct PreferencesRecord: MillisecondRecord, Identifiable {
    static let databaseTableName = "preferences"

    /// Always 1: the table has one row.
    var id: Int64 = 1
    var backgroundEnabled: Bool
    var aiMode: String
    var autoProcessNew: Bool
    var processExisting: Bool
    var wifiOnly: Bool
    var chargingOnly: Bool
    var updatedAt: Date

    enum CodingKeys: String, CodingKey {
        case id
        case backgroundEnabled = "background_enabled", aiMode = "ai_mode", autoProcessNew = "auto_process_new"
        case processExisting = "process_existing", wifiOnly = "wifi_only", chargingOnly = "charging_only", updatedAt = "updated_at"
    }

    /// The public value (an unknown mode reads as on-device).
    var preferences: CaptionPreferences {
        CaptionPreferences(backgroundEnabled: backgroundEnabled, aiMode: CaptionMode(parsing: aiMode) ?? .onDevice, autoProcessNew: autoProcessNew,
                           processExisting: processExisting, wifiOnly: wifiOnly, chargingOnly: chargingOnly, updatedAt: updatedAt)
    }
}

// MARK: - scan_state

/// A row of `scan_state`: when a folder was last scanned for new photos.
struct ScanStateRecord: MillisecondRecord {
    static let databaseTableName = "scan_state"

    /// The folder's identity (absolute, symlinks resolved).
    var root: String
    var lastScanAt: Date

    enum CodingKeys: String, CodingKey {
        case root
        case lastScanAt = "last_scan_at"
    }
}

// MARK: - error_logs

/// A row of `error_logs`.
struct ErrorLogRecord: MillisecondRecord {
    static let databaseTableName = "error_logs"

    var id: Int64?
    var assetID: String?
    var errorType: String
    var errorMessage: String?
    /// A JSON object of strings.
    var context: String?
    var createdAt: Date

    enum CodingKeys: String, CodingKey {
        case id, context
        case assetID = "asset_id", errorType = "error_type", errorMessage = "error_message", createdAt = "created_at"
    }

    /// The public value.
    var entry: ErrorLogEntry { ErrorLogEntry(asset: assetID, type: errorType, message: errorMessage, date: createdAt) }
}
