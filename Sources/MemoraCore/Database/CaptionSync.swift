import Foundation
import GRDB
import MemoraDatabase
import MemoraSync
import MemoraSystem

/// What this device tells its sync server about its captions (Docs/Sync.md): each confirmed history
/// entry that set a caption becomes a `caption_history` record and the photo's `processing_state`;
/// a failed try updates the state; an error report becomes an `error_logs` record. Each is queued in
/// the outbox in the transaction of the change itself, and only when the device has joined a server
/// (`memora sync --join`); otherwise nothing happens and nothing is hashed.
///
/// A photo is named by the SHA-256 of its file as it is when the change is queued (after Memora's
/// write), as the photo index names it; the path never leaves the device.
enum CaptionSync {
    /// Queues history entry `id` (once confirmed, with a caption) and its photo's state.
    static func queueEntry(_ id: Int64, in db: Database) throws {
        guard let device = try SyncReplica.deviceID(in: db), let entry = try HistoryRecord.fetchOne(db, key: id),
              !entry.pending, entry.kind.setsCaption, let caption = entry.caption,
              let hash = imageHash(entry.assetID) else { return }
        let created = Instant.milliseconds(entry.createdAt)
        _ = try SyncReplica.enqueue(.put, SyncSchema.captionHistory, [
            "id": .string(recordID(device: device, table: "caption_history", id: id)),
            "device_id": .string(device), "image_hash": .string(hash),
            "caption": .string(clipped(caption, SyncSchema.maxCaptionLength)),
            "model_used": .string(clipped(entry.modelUsed, 40)),
            "was_manual_edit": .bool(entry.wasManualEdit), "created_at": .integer(created),
        ], in: db)
        _ = try SyncReplica.enqueue(.put, SyncSchema.processingState, [
            "device_id": .string(device), "image_hash": .string(hash), "status": .string("completed"),
            "caption": .string(clipped(caption, SyncSchema.maxCaptionLength)), "model_used": .string(clipped(entry.modelUsed, 40)),
            "updated_at": .integer(created),
        ], in: db)
    }

    /// Queues the state of a photo whose caption failed (`pending` to try again, or `failed`) at `date`.
    static func queueFailure(asset: String, status: QueueItem.Status, error: String, retries: Int, at date: Date, in db: Database) throws {
        guard let device = try SyncReplica.deviceID(in: db), let hash = imageHash(asset) else { return }
        _ = try SyncReplica.enqueue(.put, SyncSchema.processingState, [
            "device_id": .string(device), "image_hash": .string(hash), "status": .string(status.rawValue),
            "error_message": .string(clipped(error, 2000)), "retry_count": .integer(Int64(min(retries, 1000))),
            "updated_at": .integer(Instant.milliseconds(date)),
        ], in: db)
    }

    /// Queues error report `id` (pushed to the server, never pulled back).
    static func queueError(_ id: Int64, in db: Database) throws {
        guard let device = try SyncReplica.deviceID(in: db), let report = try ErrorLogRecord.fetchOne(db, key: id) else { return }
        var fields: [String: JSONValue] = [
            "id": .string(recordID(device: device, table: "error_logs", id: id)), "device_id": .string(device),
            "error_type": .string(clipped(report.errorType, 50)), "created_at": .integer(Instant.milliseconds(report.createdAt)),
        ]
        if let message = report.errorMessage { fields["error_message"] = .string(clipped(message, 2000)) }
        // A context the server would refuse (Docs/openapi.json: 8 members, names of 32 characters, values of 120) is left out.
        if let context = report.context, context.utf8.count <= 65_536,
           let object = try? JSONDecoder().decode(JSONValue.self, from: Data(context.utf8)),
           let kind = SyncSchema.errorLogs.fields.first(where: { $0.name == "context" })?.kind, SyncValueCheck.problem(with: object, for: kind) == nil {
            fields["context"] = object
        }
        _ = try SyncReplica.enqueue(.put, SyncSchema.errorLogs, fields, in: db)
    }

    /// The SHA-256 of the photo's file, or nil when it cannot be read (it moved or went away: nothing is queued).
    static func imageHash(_ path: String) -> String? {
        (try? SHA256Digest.hash(contentsOf: path)).map(Hex.string)
    }

    /// A record id for a local row that is the same every time the row is queued (a later put replaces
    /// the earlier one on the server), and different on every device: a UUID (version 4 form) made from
    /// the SHA-256 of the device, the table and the row.
    static func recordID(device: String, table: String, id: Int64) -> String {
        var bytes = Array(SHA256Digest.hash(Array("\(device)/\(table)/\(id)".utf8)).prefix(16))
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = Hex.string(bytes)
        let parts = [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4), hex.dropFirst(20)]
        return parts.joined(separator: "-")
    }

    /// `text` as the server takes it: control characters other than newline and tab removed, cut to at
    /// most `limit` characters (the field's limit) on a character boundary.
    static func clipped(_ text: String, _ limit: Int) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars where scalar.properties.generalCategory != .control || scalar == "\n" || scalar == "\t" {
            scalars.append(scalar)
        }
        let clean = String(scalars)
        return clean.count <= limit ? clean : String(clean.prefix(limit))
    }
}
