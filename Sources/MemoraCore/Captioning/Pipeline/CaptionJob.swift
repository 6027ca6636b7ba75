import Foundation
internal import MemoraSystem
import MetadataKit

/// The main job, as `memora caption`, `memora demo`, the benchmark and an app run it: take the
/// queue's worker lock, finish photos an earlier run left half-done, queue the photos under the
/// given paths, then caption them with the models the configuration names, as the device's
/// conditions allow, writing caption and alt text into each photo and recording history.
public struct CaptionJob: Sendable {
    /// Where the models come from.
    public enum Models: Sendable {
        /// Built from a configuration and the database's preferences when the job runs.
        case configured(CaptionConfiguration)
        /// A selector the caller built (tests, benchmarks, apps with their own generators).
        case selector(ModelSelector)
    }

    /// Something the job did, for a progress display.
    public enum Event: Sendable {
        /// Photos interrupted by an earlier run are being finished.
        case resuming(count: Int)
        /// The models chosen, in the order they are tried.
        case models(mode: CaptionMode, chain: [ModelInfo])
        /// Captioning started with this many photos pending.
        case started(pending: Int)
        /// Waiting for the device's conditions (charging, Wi-Fi, temperature).
        case paused(reason: String)
        /// The conditions hold again.
        case resumed
        /// One photo is done.
        case photo(path: String, outcome: PipelineOutcome)
    }

    /// What a run did.
    public struct Report: Sendable, Encodable {
        /// The mode used.
        public var mode: CaptionMode
        /// Whether the device's conditions were ignored (the user asked to run now).
        public var ignoredConstraints: Bool
        /// The generators tried, in order (`kind:model`).
        public var chain: [String]
        /// What the scan of the paths found.
        public var scan: GalleryScanner.Result
        /// What captioning did.
        public var summary: CaptionScheduler.Summary
        /// The photos that failed for good, with their last error.
        public var failures: [String]
        /// Generators that could not be used, with the reason.
        public var unavailable: [String: String]
        /// What happened to each photo this run processed, in the order they were done.
        public var photos: [PhotoResult]
    }

    /// What happened to one photo.
    public struct PhotoResult: Sendable, Hashable, Encodable {
        /// The photo.
        public var path: String
        /// `captioned`, `recovered` (finished from an interrupted run), `skipped`, `failed` or `interrupted`.
        public var outcome: String
        /// The caption written, for `captioned` and `recovered`.
        public var caption: String?
        /// The model that made it (`provider:name`), for `captioned`.
        public var model: String?
        /// Why it was left alone, or the error.
        public var reason: String?
        /// For `failed`: whether it went back to the queue to be tried again.
        public var willRetry: Bool?

        /// A result that is no outcome of the pipeline (a dry run's `would-caption`).
        init(path: String, outcome: String, model: String?) {
            self.path = path
            self.outcome = outcome
            self.model = model
        }

        /// The result of `outcome` for `path`.
        public init(path: String, outcome: PipelineOutcome) {
            self.path = path
            switch outcome {
            case .captioned(let caption, let model): self.outcome = "captioned"; self.caption = caption; self.model = model
            case .recovered(let caption): self.outcome = "recovered"; self.caption = caption
            case .skipped(let reason): self.outcome = "skipped"; self.reason = reason
            case .failed(let error, let willRetry): self.outcome = "failed"; self.reason = error; self.willRetry = willRetry
            case .interrupted: self.outcome = "interrupted"
            }
        }
    }

    public var database: CaptionDatabase
    public var models: Models
    /// Caption again photos Memora already captioned (never a person's manual edit, never a
    /// caption Memora did not write: see ``replacesExisting``).
    public var force: Bool
    /// Replace captions Memora did not write (the photo's own from before Memora, or another
    /// program's): a front end asks the user first. Never a person's caption written with Memora.
    public var replacesExisting: Bool
    /// Keep each photo's modification time when its caption is written.
    public var keepsModificationTime: Bool
    /// Run even when the preferences' constraints (charging only, Wi-Fi only) do not hold.
    public var ignoresConstraints: Bool
    /// Stop after waiting this long for the constraints to hold; nil: wait as long as it takes.
    public var maxWait: Double?
    /// How often the constraints are checked while paused, in seconds.
    public var pollInterval: Double
    /// The device's conditions; nil: this platform's monitor (``LinuxConstraintMonitor``).
    public var monitor: (any ConstraintMonitor)?

    public init(database: CaptionDatabase, models: Models, force: Bool = false, replacesExisting: Bool = false, keepsModificationTime: Bool = false,
                ignoresConstraints: Bool = false, maxWait: Double? = 600, pollInterval: Double = 15, monitor: (any ConstraintMonitor)? = nil) {
        self.database = database
        self.models = models
        self.force = force || replacesExisting
        self.replacesExisting = replacesExisting
        self.keepsModificationTime = keepsModificationTime
        self.ignoresConstraints = ignoresConstraints
        self.maxWait = maxWait
        self.pollInterval = pollInterval
        self.monitor = monitor
    }

    /// Queues the photos under `paths` (files or folders) and captions them, and only them: photos
    /// an earlier run left in the queue wait for a run with no paths, which works the queue as it is.
    /// A run that cannot start (no model can run, and the basic description is not allowed) queues nothing.
    public func run(paths: [String], onEvent: @Sendable (Event) -> Void = { _ in }) async throws(MemoraError) -> Report {
        if let missing = paths.first(where: { !FileSystem.exists($0) }) {
            throw MemoraError.notFound(path: missing)
        }
        let lock = try QueueWorkerLock(database: database)
        defer { withExtendedLifetime(lock) {} }
        let queue = ProcessingQueue(database: database)
        let recovered = try queue.recoverInterrupted()
        if recovered > 0 { onEvent(.resuming(count: recovered)) }
        try queue.removeMissing()
        let selector = try makeSelector()
        onEvent(.models(mode: selector.mode, chain: selector.chain))
        // Before anything is written: a model must be able to run, unless the basic description is
        // allowed. When one can, photos that hold a basic description are queued again for it.
        let scanner = GalleryScanner(database: database)
        var realModel: ModelInfo?
        do { realModel = try await selector.requireModel() } catch {
            // None can: nothing is queued, and the run stops if it had anything to do.
            let would = try scanner.scan(paths, explicit: true, force: force, dryRun: true)
            let asked: Set<String>? = paths.isEmpty ? nil : Set(would.assets)
            let pending = try queue.pendingCount(among: asked)
            if would.queued > 0 || pending > 0 { throw error }
        }
        let scan = try scanner.scan(paths, explicit: true, force: force, replacingBasic: realModel != nil)
        let own: Set<String>? = paths.isEmpty ? nil : Set(scan.assets)
        // The run is one operation: `memora metadata restore` undoes its captions together.
        var pipeline = CaptionPipeline(database: database, selector: selector, replacesExisting: replacesExisting,
                                       keepsModificationTime: keepsModificationTime)
        pipeline.operation = try PhotoHistory(database: database).beginOperation(.generated)
        let scheduler = CaptionScheduler(
            database: database, pipeline: pipeline,
            monitor: monitor ?? (ignoresConstraints ? AlwaysReadyMonitor() : LinuxConstraintMonitor()),
            policy: ignoresConstraints ? SchedulingPolicy(lowBattery: 0) : SchedulingPolicy())
        let results = PhotoResults()
        let summary = try await scheduler.run(.init(pollInterval: pollInterval, maxPause: maxWait), only: own) { event in
            switch event {
            case .started(let pending): onEvent(.started(pending: pending))
            case .paused(let reason): onEvent(.paused(reason: reason))
            case .resumed: onEvent(.resumed)
            case .photo(let path, let outcome):
                results.append(PhotoResult(path: path, outcome: outcome))
                onEvent(.photo(path: path, outcome: outcome))
            }
        }
        // This run's failures only (a photo of an earlier run that failed is not this run's).
        let failures = try queue.items(status: .failed, limit: .max).filter { own?.contains($0.assetID) ?? true }
            .map { $0.failureDescription ?? "\($0.assetURI): failed" }
        return Report(mode: selector.mode, ignoredConstraints: ignoresConstraints, chain: selector.chain.map(\.identifier), scan: scan,
                      summary: summary, failures: failures, unavailable: await selector.unavailable, photos: results.all)
    }
}

extension CaptionJob {
    /// What a run over `paths` would do, decided as the run decides, with nothing queued or
    /// written (a dry run): for each photo, `would-caption` (with the model that would be tried
    /// first) or `skipped` with the reason. Throws ``MemoraError/Code/noModel`` when no model could run.
    public func plan(paths: [String]) async throws(MemoraError) -> [PhotoResult] {
        if let missing = paths.first(where: { !FileSystem.exists($0) }) { throw MemoraError.notFound(path: missing) }
        let selector = try makeSelector()
        let model = try await selector.requireModel() ?? selector.chain.last
        let pipeline = CaptionPipeline(database: database, selector: selector, replacesExisting: replacesExisting)
        let history = PhotoHistory(database: database)
        var results: [PhotoResult] = []
        for path in paths.flatMap(GalleryScanner.files(under:)) where GalleryScanner.isPhoto(path) {
            let asset = ProcessingQueue.assetID(for: path)
            if try history.hasManualCaption(forPath: asset) {
                results.append(PhotoResult(path: path, outcome: .skipped(reason: CaptionPipeline.manualCaptionReason)))
                continue
            }
            let captions: CaptionReading
            do { captions = try MetadataReader.read(contentsOf: path).captions } catch {
                results.append(PhotoResult(path: path, outcome: .failed(error: error.description, willRetry: false)))
                continue
            }
            if let (reason, _) = try pipeline.leavesAlone(captions, asset: asset, force: force) {
                results.append(PhotoResult(path: path, outcome: .skipped(reason: reason)))
            } else if captions.isBasicDescription, model?.provider == .basicDescription {
                results.append(PhotoResult(path: path, outcome: .skipped(reason: "it holds a basic description, and no model that could replace it can run")))
            } else {
                results.append(PhotoResult(path: path, outcome: "would-caption", model: model?.identifier))
            }
        }
        return results
    }
}

extension CaptionJob {
    /// The selector of ``models``: built from the configuration and the database's preferences, or the one given.
    func makeSelector() throws(MemoraError) -> ModelSelector {
        switch models {
        case .configured(let configuration): try configuration.makeSelector(preferences: try database.preferences())
        case .selector(let given): given
        }
    }
}

/// The photo results of a run, appended to from the scheduler's callback.
final class PhotoResults: Sendable {
    private let results = Locked<[CaptionJob.PhotoResult]>([])
    func append(_ result: CaptionJob.PhotoResult) { results.withLock { $0.append(result) } }
    var all: [CaptionJob.PhotoResult] { results.withLock { $0 } }
}

/// The device's conditions when the user asked to run now: always ready.
public struct AlwaysReadyMonitor: ConstraintMonitor {
    public init() {}

    public func currentConditions() async -> DeviceConditions {
        DeviceConditions(hasBattery: false, isCharging: true, network: .ethernet, thermal: .nominal)
    }
}
