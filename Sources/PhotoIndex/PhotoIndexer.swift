public import Foundation
import GRDB
public import MemoraSystem

/// Brings the index in line with a library, incrementally:
///
/// - a file whose size and modification time match its row is unchanged and not opened;
/// - a file whose size or time changed is hashed: same hash, only the row's size and time
///   are updated; a new hash, the photo is analysed again (keeping its id);
/// - a new path whose hash matches a row whose file disappeared is a rename: the row moves;
/// - rows whose file disappeared otherwise are deleted.
///
/// Photos are analysed on every core (a task group as wide as the processor count) and
/// saved in small transactions as they finish, so an interrupted run loses at most the
/// photos in flight and the next run resumes where it stopped. Unreadable files are saved
/// with their error, never fatal, and are not retried until they change.
public struct PhotoIndexer: Sendable {
    /// What a run did.
    public struct Summary: Sendable, Hashable, Codable {
        /// Photos the library holds.
        public var total = 0
        /// Photos analysed (new or changed).
        public var indexed = 0
        /// Photos unchanged since the last run.
        public var unchanged = 0
        /// Photos whose file moved (same content, new path).
        public var renamed = 0
        /// Rows removed because their file is gone.
        public var removed = 0
        /// Photos recorded with an error, and files or folders that could not be read (``unreadable``).
        public var failed = 0
        /// Files and folders that could not be read at all (permission denied, an I/O error), with
        /// why. They are not in the index; photos indexed earlier under a folder that cannot be
        /// listed now are kept, not removed.
        public var unreadable: [RejectedPhoto] = []
    }

    let database: PhotoIndexDatabase
    let analyzer: PhotoAnalyzer
    let concurrency: Int

    /// An indexer writing into `database`.
    /// With `vision`, faces and the scene are also found in each new or changed photo's pixels
    /// (``IndexVision``); without it, faces are the MWG face regions the photos' metadata declares.
    public init(database: PhotoIndexDatabase, vision: IndexVision? = nil,
                concurrency: Int = ProcessInfo.processInfo.activeProcessorCount) {
        self.database = database
        self.analyzer = PhotoAnalyzer(vision: vision)
        self.concurrency = max(1, concurrency)
    }

    /// Indexes `library`; `progress` gets (done, to do, path) after each analysed photo.
    public func index(_ library: any PhotoLibrary, progress: @Sendable (Int, Int, String) -> Void = { _, _, _ in }) async throws(PhotoIndexError) -> Summary {
        let plan = try plan(library)
        var summary = plan.summary
        // Moved files and files touched without a change of content: only their rows' stamps move.
        if !plan.stamps.isEmpty {
            try database.write { db in
                for (id, asset) in plan.stamps { try IndexedPhotoRecord.move(id, to: asset, in: db) }
            }
        }
        if !plan.gone.isEmpty {
            try database.write { db in try IndexedPhotoRecord.delete(atPaths: plan.gone, in: db) }
        }
        let work = plan.work
        let analyzer = self.analyzer
        let total = work.count
        summary.indexed = 0
        var done = 0
        // Each analysed photo with its sidecar's modification time, saved in small transactions.
        var pending: [(photo: IndexedPhoto, sidecarModified: Date?)] = []
        func flush() throws(PhotoIndexError) {
            guard !pending.isEmpty else { return }
            let batch = pending
            pending.removeAll()
            let now = database.clock.now()
            try database.write { db in for item in batch { try PhotoIndexDatabase.save(item.photo, sidecarModified: item.sidecarModified, at: now, in: db) } }
        }
        var iterator = work.makeIterator()
        var failure: PhotoIndexError?
        await withTaskGroup(of: (photo: IndexedPhoto, sidecarModified: Date?).self) { group in
            for _ in 0..<concurrency {
                guard let (asset, id) = iterator.next() else { break }
                group.addTask { (analyzer.analyze(asset, id: id), asset.sidecarModified) }
            }
            while let item = await group.next() {
                pending.append(item)
                done += 1
                summary.indexed += 1
                if item.photo.error != nil { summary.failed += 1 }
                progress(done, total, item.photo.path)
                if pending.count >= 8 {
                    do throws(PhotoIndexError) { try flush() } catch { failure = error; group.cancelAll(); break }
                }
                // Cancellation stops taking new photos; those in flight finish and are saved.
                if !Task.isCancelled, let (asset, id) = iterator.next() {
                    group.addTask { (analyzer.analyze(asset, id: id), asset.sidecarModified) }
                }
            }
        }
        if let failure { throw failure }
        try flush()
        return summary
    }

    /// A dry run of ``index(_:progress:)``: what the run would do (``Summary/indexed`` counts the
    /// photos it would analyse), decided from the file system and the index as the run decides it,
    /// without analysing a photo or writing to the index.
    public func check(_ library: any PhotoLibrary) throws(PhotoIndexError) -> Summary {
        try plan(library).summary
    }

    /// A dry run of indexing `library` into the index at `path`, which is not created when it does
    /// not exist (every photo would then be indexed).
    public static func check(_ library: any PhotoLibrary, indexAt path: String) throws(PhotoIndexError) -> Summary {
        guard let status = FileSystem.statusIfPresent(of: path), status.size > 0 else {
            return try plan(library, known: [:]).summary
        }
        return try PhotoIndexer(database: PhotoIndexDatabase(path: path)).check(library)
    }

    /// What a run does before it analyses anything.
    struct Plan {
        /// The summary of the run, with ``Summary/indexed`` the photos to analyse.
        var summary: Summary
        /// Rows whose stamp (path, size, time) moves: renames and touched but unchanged files.
        var stamps: [(id: String, asset: PhotoAsset)] = []
        /// Rows whose file is gone.
        var gone: [String] = []
        /// The photos to analyse, with the id each keeps or gets.
        var work: [(PhotoAsset, String)] = []
    }

    /// The plan for `library`: files whose size and time match their rows are unchanged; changed
    /// files are hashed (same content: only the stamp moves); new paths whose content matches a
    /// vanished row are renames; the remaining vanished rows are gone.
    func plan(_ library: any PhotoLibrary) throws(PhotoIndexError) -> Plan {
        let known = try database.read { db in
            Dictionary(try IndexedPhotoRecord.stamps(db).map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        }
        return try Self.plan(library, known: known)
    }

    /// The plan for `library` against the index's rows, `known` by path.
    private static func plan(_ library: any PhotoLibrary, known: [String: IndexedPhotoRecord.Stamp]) throws(PhotoIndexError) -> Plan {
        let survey = try library.survey()
        let assets = survey.assets
        var plan = Plan(summary: Summary(total: assets.count, failed: survey.unreadable.count, unreadable: survey.unreadable))
        let present = Set(assets.map(\.path))
        // Files that could not be read, or lie under a folder that could not be listed, are not gone.
        let unseen = Set(survey.unreadable.map(\.path))
        let unlisted = survey.unlistedFolders.map { $0 + "/" }
        // Rows whose file is gone: candidates for renames, gone otherwise.
        var vanished: [String: (path: String, known: IndexedPhotoRecord.Stamp)] = [:]
        for (path, row) in known where !present.contains(path) && !unseen.contains(path) && !unlisted.contains(where: path.hasPrefix) {
            vanished[row.imageHash] = (path, row)
        }
        for asset in assets {
            if let row = known[asset.path] {
                if row.matches(asset) {
                    plan.summary.unchanged += 1
                    continue
                }
                // Changed on disk: if the bytes are the same (a touch, a copy back) and the sidecar
                // did not change, only the row's stamp moves; a changed sidecar is read again.
                if row.sidecarMatches(asset), PhotoAnalyzer.sha256(contentsOf: asset.path) == row.imageHash {
                    plan.stamps.append((row.id, asset))
                    plan.summary.unchanged += 1
                    continue
                }
                plan.work.append((asset, row.id))
                continue
            }
            if !vanished.isEmpty, let hash = PhotoAnalyzer.sha256(contentsOf: asset.path), let moved = vanished.removeValue(forKey: hash) {
                // Moved with its sidecar as it was: only the row's stamp moves; else it is read again, keeping its id.
                if moved.known.sidecarMatches(asset) {
                    plan.stamps.append((moved.known.id, asset))
                    plan.summary.renamed += 1
                } else {
                    plan.work.append((asset, moved.known.id))
                }
                continue
            }
            plan.work.append((asset, UUID().uuidString.lowercased()))
        }
        plan.gone = vanished.values.map(\.path)
        plan.summary.removed = plan.gone.count
        plan.summary.indexed = plan.work.count
        return plan
    }
}
