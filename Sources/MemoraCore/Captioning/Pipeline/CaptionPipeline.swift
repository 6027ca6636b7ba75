import Foundation
public import MemoraSystem
import GRDB
import MetadataKit

/// What happened to one queued photo.
public enum PipelineOutcome: Sendable, Hashable {
    /// Captioned and written.
    case captioned(caption: String, model: String)
    /// Left alone, with the reason (a person's caption, an existing caption).
    case skipped(reason: String)
    /// A caption recorded before an interruption was finished without asking the model again.
    case recovered(caption: String)
    /// Failed; `willRetry` says whether it went back to `pending`.
    case failed(error: String, willRetry: Bool)
    /// Interrupted by cancellation before anything was written; back to `pending`.
    case interrupted
}

/// The pipeline for one photo: generate (through the ``ModelSelector``), write caption
/// and alt text with MetadataKit (surgical, verified, atomic), record the history, mark
/// completed. Any failure is logged, then retried only when it can succeed (``MemoraError/isRetryable``)
/// or failed at once; the photo file is never left damaged (MetadataKit's writer replaces it
/// atomically or not at all).
///
/// Crash safety: the generated caption is stored in the queue item (the intent) before
/// the file is written, and the history entry and the completion are one transaction.
/// After a crash, an item with an intent is finished from it: if the file already holds
/// the caption only the bookkeeping is done, otherwise the same caption is written. So a
/// photo is never captioned twice and the model is never asked twice.
public struct CaptionPipeline: Sendable {
    let database: CaptionDatabase
    let selector: ModelSelector
    /// Failed tries before an item is marked `failed`.
    public let maxRetries: Int
    /// Whether a caption Memora did not write (one the photo had before Memora, or another
    /// program's since) may be replaced. Off by default: automatic captioning, `force`
    /// included, replaces only Memora's own captions; a person's caption written with Memora
    /// is never replaced.
    public let replacesExisting: Bool
    /// Whether each photo keeps its modification time when its caption is written.
    public let keepsModificationTime: Bool
    /// The clock the caption's source is dated by.
    public let clock: any MemoraClock
    /// The operation the run's captions belong to (``PhotoHistory/beginOperation(_:)``): a restore
    /// undoes them together. Nil records them without one.
    public var operation: Int64?

    var queue: ProcessingQueue { ProcessingQueue(database: database) }
    var history: PhotoHistory { PhotoHistory(database: database) }

    /// A pipeline writing to `database`'s queue and history, captioning with `selector`.
    public init(database: CaptionDatabase, selector: ModelSelector, maxRetries: Int = 3, replacesExisting: Bool = false,
                keepsModificationTime: Bool = false, clock: any MemoraClock = SystemClock()) {
        self.database = database
        self.clock = clock
        self.selector = selector
        self.maxRetries = max(1, maxRetries)
        self.replacesExisting = replacesExisting
        self.keepsModificationTime = keepsModificationTime
    }

    /// Processes one claimed item.
    public func process(_ item: QueueItem) async -> PipelineOutcome {
        let asset = item.assetID
        do {
            // A photo moved or deleted since it was queued leaves the queue (a later scan queues it where it is now).
            if !FileSystem.exists(item.assetURI) {
                try queue.remove(item.id)
                return .skipped(reason: "the photo is gone (moved or deleted); it left the queue")
            }
            if let intent = item.caption {
                return try finish(item, caption: intent, altText: item.altText ?? CaptionPostProcessor.altText(from: intent),
                                  extendedDescription: item.extendedDescription, model: item.modelUsed ?? "unknown", recovered: true)
            }
            if try history.hasManualCaption(forPath: asset) {
                try queue.skip(item.id, reason: Self.manualCaptionReason, tag: "manual-caption")
                return .skipped(reason: "kept the manual caption")
            }
            let metadata: PhotoMetadata
            do { metadata = try MetadataReader.read(contentsOf: asset) } catch {
                // Only what can succeed is tried again (a file that changed meanwhile, a transient system error).
                return try failure(item, type: "read", message: error.description, final: !error.isRetryable)
            }
            if let (reason, tag) = try leavesAlone(metadata.captions, asset: asset, force: item.force) {
                try queue.skip(item.id, reason: reason, tag: tag)
                return .skipped(reason: reason)
            }
            let selection: ModelSelector.Selection
            do {
                selection = try await selector.caption(CaptionRequest(path: asset, metadata: metadata))
            } catch {
                if error.code == .cancelled {
                    try queue.release(item.id)
                    return .interrupted
                }
                // An unreadable photo will not become readable by trying again; nor will a photo every model refused.
                if error.code == .imageUnreadable { return try failure(item, type: "read", message: error.description, final: true) }
                return try failure(item, type: "generation", message: error.description, final: !error.isRetryable)
            }
            try queue.recordIntent(item.id, caption: selection.caption)
            return try finish(item, caption: selection.caption.description, altText: selection.caption.altText,
                              extendedDescription: selection.caption.extendedDescription,
                              model: selection.caption.model.identifier, recovered: false, current: metadata.captions)
        } catch {
            // Only the database can fail here; the item stays as it is and is recovered later.
            database.logError(asset: asset, type: "database", message: "\(error)")
            return .failed(error: "\(error)", willRetry: true)
        }
    }

    /// What `memora:CaptionSource` says of a caption `model` wrote at `date`: who wrote it (a model,
    /// or Memora's on-device models), that it was written automatically, and when.
    static func source(model: String, at date: Date) -> String {
        let who = model == BasicDescriptionGenerator.identifier ? "Memora's on-device models (faces, scene, text; not a language model)" : "the model \(model)"
        return "Written automatically by \(who) on \(ISO8601DateFormatter().string(from: date))"
    }

    /// Why a photo whose caption a person wrote is left alone.
    static let manualCaptionReason = "a person wrote this photo's caption; automatic processing never replaces it"

    /// Why a photo with these captions is left alone (and the queue's tag for it), or nil when it
    /// is captioned: Memora's basic description is replaced by any real caption; Memora's own
    /// caption only with `force`; a caption Memora did not write only with ``replacesExisting``.
    func leavesAlone(_ captions: CaptionReading, asset: String, force: Bool) throws(MemoraError) -> (reason: String, tag: String)? {
        guard let existing = captions.caption, !captions.isBasicDescription else { return nil }
        let ours = try history.captionEntry(forPath: asset)?.caption
        if existing == ours, !force { return ("already captioned by Memora", "already-captioned") }
        if existing != ours, !replacesExisting {
            return ("the photo already has a caption that Memora did not write (from \(captions.source?.rawValue ?? "metadata")); automatic captioning never replaces it, --force included (to replace such captions: memora caption --replace-existing, which asks first)", "existing-caption")
        }
        return nil
    }

    /// Writes the caption when the file does not hold it yet (recording it in the history, with
    /// what it replaced, before the photo changes), then completes the item. `current` is the
    /// captions just read, when known.
    private func finish(_ item: QueueItem, caption: String, altText: String, extendedDescription: String? = nil, model: String, recovered: Bool,
                        current: CaptionReading? = nil) throws(MemoraError) -> PipelineOutcome {
        let asset = item.assetID
        let current = current ?? (try? MetadataReader.read(contentsOf: asset).captions)
        let record = PhotoHistory.Record(asset: asset, kind: .generated, caption: caption, altText: altText, modelUsed: model, before: current,
                                         operation: operation)
        let written = current?.caption == caption
        var recorded: PhotoHistory.Recorded?
        if !written {
            // Recorded, with what the write replaces, before the photo changes; confirmed with the item's completion.
            let update = CaptionUpdate(caption: caption, altText: altText, extendedDescription: extendedDescription,
                                       source: Self.source(model: model, at: clock.now()), isBasicDescription: model == BasicDescriptionGenerator.identifier)
            do { recorded = try history.write(update, record, confirming: false, keepModificationTime: keepsModificationTime) } catch {
                return try failure(item, type: "write", message: error.description, final: !error.isRetryable)
            }
        }
        try database.write { db in
            if let recorded { try history.confirm(recorded, in: db) }
            // The photo already held the caption (a crash after the write).
            if written { try history.recordRecovered(record, in: db) }
            try queue.complete(item.id, caption: caption, altText: altText, modelUsed: model, in: db)
        }
        return recovered ? .recovered(caption: caption) : .captioned(caption: caption, model: model)
    }

    private func failure(_ item: QueueItem, type: String, message: String, final: Bool = false) throws(MemoraError) -> PipelineOutcome {
        database.logError(asset: item.assetID, type: type, message: message, context: ["attempt": String(item.retryCount + 1)])
        let status = try queue.fail(item.id, error: message, maxRetries: final ? 1 : maxRetries)
        return .failed(error: message, willRetry: status == .pending)
    }
}
