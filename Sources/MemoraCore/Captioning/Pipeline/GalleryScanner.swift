import Foundation
internal import MemoraSystem
import GRDB
import PhotoIndex

/// Finds photos in folders and queues them, following the preferences:
/// `process_existing` queues the photos that were there at the folder's first scan,
/// `auto_process_new` those that appear later (modified after the previous scan).
/// The scanner does not open the photos beyond their first bytes: whether a photo already
/// has a caption is decided by the pipeline, which records the skip in the queue, so a
/// later scan does not look at it again. Hidden files and XMP sidecars are skipped; files
/// are recognised by their content, not their name.
public struct GalleryScanner: Sendable {
    /// What a scan found.
    public struct Result: Sendable, Hashable, Codable {
        /// Photos found.
        public var photos = 0
        /// Photos newly queued.
        public var queued = 0
        /// Photos left out by the preferences (existing photos without `process_existing`, new ones without `auto_process_new`).
        public var leftByPreferences = 0
        /// Photos already in the queue.
        public var alreadyQueued = 0
        /// Files that are not photos Memora can caption in place (not JPEG, PNG, TIFF/DNG or WebP).
        public var notPhotos = 0
        /// The queue's asset ids of the photos found (queued now or before): the photos a run asked for.
        public var assets: [String] = []
    }

    let database: CaptionDatabase

    /// A scanner queueing into `database`.
    public init(database: CaptionDatabase) {
        self.database = database
    }

    /// Scans `paths` (files or folders, walked recursively). With `explicit`, every photo
    /// found is queued whatever the preferences say (the user named them); with `force`,
    /// photos already processed are queued again and their captions may be replaced (a
    /// person's manual edit is still never replaced). With `replacingBasic`, photos captioned with
    /// the basic description are queued again, for a real model to replace it.
    /// With `dryRun`, nothing is queued or recorded: `queued` counts what would be.
    public func scan(_ paths: [String], explicit: Bool, force: Bool, replacingBasic: Bool = false, dryRun: Bool = false) throws(MemoraError) -> Result {
        let preferences = try database.preferences()
        let queue = ProcessingQueue(database: database)
        var result = Result()
        // The disk's clock, not the database's: what changed since is told by the files' own times.
        let now = Date()
        for root in paths {
            let rootID = ProcessingQueue.assetID(for: root)
            let lastScan = try database.read { db in try ScanStateRecord.fetchOne(db, key: rootID)?.lastScanAt }
            for file in Self.files(under: root) {
                guard Self.isPhoto(file) else { result.notPhotos += 1; continue }
                result.photos += 1
                result.assets.append(ProcessingQueue.assetID(for: file))
                let existing = try queue.item(forPath: file)
                if dryRun {
                    let basic = existing?.status == .completed && existing?.modelUsed == BasicDescriptionGenerator.identifier
                    if existing == nil || force || (basic && replacingBasic) || existing?.status == .pending { result.queued += 1 } else { result.alreadyQueued += 1 }
                    continue
                }
                if let item = existing, !force {
                    let basic = item.status == .completed && item.modelUsed == BasicDescriptionGenerator.identifier
                    if basic && replacingBasic, try queue.enqueue(path: file, force: true) { result.queued += 1 } else { result.alreadyQueued += 1 }
                    continue
                }
                if !explicit {
                    let modified = FileSystem.statusIfPresent(of: file).map { Date(timeIntervalSince1970: $0.modified.timeIntervalSince1970) } ?? now
                    let isNew = lastScan.map { modified > $0 } ?? false
                    if isNew ? !preferences.autoProcessNew : !preferences.processExisting { result.leftByPreferences += 1; continue }
                }
                if try queue.enqueue(path: file, force: force) { result.queued += 1 } else { result.alreadyQueued += 1 }
            }
            if !dryRun { try database.write { db in try ScanStateRecord(root: rootID, lastScanAt: now).save(db) } }
        }
        return result
    }

    /// Regular files under `path` (itself when it is a file), sorted, without hidden files or `.xmp` sidecars.
    static func files(under path: String) -> [String] {
        guard let status = FileSystem.statusIfPresent(of: path) else { return [] }
        guard status.kind == .directory else { return [path] }
        let files = (try? FolderWalker(root: path).files()) ?? []
        return files.map(\.path).filter { !$0.lowercased().hasSuffix(".xmp") }
    }

    /// Whether the file's first bytes are a format Memora can caption in place (JPEG, PNG, TIFF/DNG,
    /// WebP, HEIC/HEIF/AVIF).
    static func isPhoto(_ path: String) -> Bool {
        PhotoFileKind.detect(contentsOf: path) != nil
    }
}
