import Foundation
public import MemoraSystem

/// Runs the queue in batches while the constraints hold: the seed's work queue and
/// execution engine. Before each photo it reads the device's conditions and the
/// preferences; when they stop holding it pauses (polling with the injected clock) and
/// resumes when they hold again. Between photos it waits as the thermal rate limiter
/// says. Cancellation is honoured between photos; a photo in progress is finished or
/// put back, never half-done.
public struct CaptionScheduler: Sendable {
    /// Limits of one run.
    public struct Options: Sendable {
        /// The most photos to process (nil: until the queue is empty).
        public var maxPhotos: Int?
        /// How often a paused batch checks the conditions again, in seconds.
        public var pollInterval: Double
        /// How long a run may stay paused before it stops (nil: as long as it takes).
        public var maxPause: Double?

        /// Creates options.
        public init(maxPhotos: Int? = nil, pollInterval: Double = 30, maxPause: Double? = nil) {
            self.maxPhotos = maxPhotos
            self.pollInterval = max(0, pollInterval)
            self.maxPause = maxPause
        }
    }

    /// What a run reports as it goes.
    public enum Event: Sendable {
        /// The run started with this many photos pending.
        case started(pending: Int)
        /// The run paused.
        case paused(reason: String)
        /// The run resumed after a pause.
        case resumed
        /// One photo is done.
        case photo(path: String, outcome: PipelineOutcome)
    }

    /// What a run did.
    public struct Summary: Sendable, Hashable, Codable {
        /// Photos captioned and written.
        public var captioned = 0
        /// Photos finished from an intent recorded before an interruption.
        public var recovered = 0
        /// Photos left alone (a person's caption, an existing caption).
        public var skipped = 0
        /// Failed tries (some go back to pending).
        public var failed = 0
        /// Photos put back because the run was cancelled mid-way.
        public var interrupted = 0
        /// Seconds spent paused.
        public var pausedSeconds = 0.0
        /// Why the run stopped before the queue was empty, if it did.
        public var stoppedEarly: String?
        /// Models used, with counts.
        public var models: [String: Int] = [:]
    }

    let database: CaptionDatabase
    let pipeline: CaptionPipeline
    let monitor: any ConstraintMonitor
    let clock: any MemoraClock
    let policy: SchedulingPolicy

    /// A scheduler running `pipeline` over `database`'s queue.
    public init(database: CaptionDatabase, pipeline: CaptionPipeline, monitor: any ConstraintMonitor = LinuxConstraintMonitor(),
                clock: any MemoraClock = SystemClock(), policy: SchedulingPolicy = SchedulingPolicy()) {
        self.database = database
        self.pipeline = pipeline
        self.monitor = monitor
        self.clock = clock
        self.policy = policy
    }

    /// Processes pending photos until the queue is empty, `options.maxPhotos` are done,
    /// the task is cancelled, or a pause outlasts `options.maxPause`.
    /// `assets`: process only these photos (a run's own; others stay queued); nil: the whole queue.
    public func run(_ options: Options = Options(), only assets: Set<String>? = nil, onEvent: @Sendable (Event) -> Void = { _ in }) async throws(MemoraError) -> Summary {
        let queue = ProcessingQueue(database: database)
        var summary = Summary()
        onEvent(.started(pending: try queue.pendingCount(among: assets)))
        var processed = 0
        var pausedSince: Date?
        while options.maxPhotos.map({ processed < $0 }) ?? true {
            if Task.isCancelled { summary.stoppedEarly = "cancelled"; break }
            let decision = policy.decide(await monitor.currentConditions(), preferences: try database.preferences(), mode: pipeline.selector.mode)
            if case .pause(let reason) = decision {
                let now = clock.now()
                if pausedSince == nil { pausedSince = now; onEvent(.paused(reason: reason)) }
                if let maxPause = options.maxPause, now.timeIntervalSince(pausedSince!) >= maxPause {
                    summary.stoppedEarly = "paused: \(reason)"
                    break
                }
                do { try await clock.sleep(for: .wait(seconds: options.pollInterval)) } catch { summary.stoppedEarly = "cancelled"; break }
                summary.pausedSeconds += clock.now().timeIntervalSince(now)
                continue
            }
            if pausedSince != nil { pausedSince = nil; onEvent(.resumed) }
            guard let item = try queue.claimNext(among: assets) else { break }
            let outcome = await pipeline.process(item)
            processed += 1
            switch outcome {
            case .captioned(_, let model): summary.captioned += 1; summary.models[model, default: 0] += 1
            case .recovered: summary.recovered += 1
            case .skipped: summary.skipped += 1
            case .failed: summary.failed += 1
            case .interrupted: summary.interrupted += 1
            }
            onEvent(.photo(path: item.assetURI, outcome: outcome))
            if case .run(let delay) = decision, delay > 0 {
                do { try await clock.sleep(for: .wait(seconds: delay)) } catch { summary.stoppedEarly = "cancelled"; break }
            }
        }
        return summary
    }
}
