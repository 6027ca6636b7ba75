import ArgumentParser
import Foundation
import MemoraCore
import MetadataKit

/// Options every captioning command shares: the database.
struct DatabaseOptions: ParsableArguments {
    @Option(help: "The caption database (default: $XDG_DATA_HOME/memora/memora.sqlite).")
    var db: String?

    func open() throws -> CaptionDatabase {
        try CaptionDatabase(path: db ?? CaptionDatabase.defaultPath)
    }
}

/// Which models `memora caption` may use.
struct ModelOptions: ParsableArguments {
    @Option(help: "Where captions are made: on-device, gemini or gpt (default: the ai_mode preference).")
    var mode: String?

    @Option(help: "The chosen mode's server: Ollama (on-device, default http://127.0.0.1:11434), an OpenAI-compatible base URL ending in /v1, or Gemini's.")
    var endpoint: String?

    @Option(help: "The chosen mode's model (defaults: llava, gpt-5.2, gemini-2.5-flash).")
    var model: String?

    @Option(help: "The on-device server's protocol: ollama, or openai for llama.cpp's llama-server, LM Studio or vLLM.")
    var localServer = "ollama"

    @Option(help: "A secrets file (NAME=value lines, mode 0600) with GEMINI_API_KEY or OPENAI_API_KEY (default: $XDG_CONFIG_HOME/memora/secrets); the environment comes first.")
    var secrets: String?

    /// Builds the selector for `preferences`' mode unless `--mode` overrides it.
    func selector(preferences: CaptionPreferences) throws -> ModelSelector {
        let mode: CaptionMode
        if let text = self.mode {
            guard let parsed = CaptionMode(parsing: text) else { throw ValidationError("unknown mode '\(text)'; use on-device, gemini or gpt") }
            mode = parsed
        } else {
            mode = preferences.aiMode
        }
        let endpointURL = try endpoint.map { text -> URL in
            guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https", url.host != nil else {
                throw ValidationError("--endpoint must be an http(s) URL, got '\(text)'")
            }
            return url
        }
        let store = ChainedSecretStore([EnvironmentSecretStore(), FileSecretStore(path: secrets ?? FileSecretStore.defaultPath)])
        let environment = ProcessInfo.processInfo.environment
        let localEndpoint = (mode == .onDevice ? endpointURL : nil)
            ?? environment["MEMORA_OLLAMA_URL"].flatMap(URL.init(string:)) ?? OllamaCaptionGenerator.defaultEndpoint
        let localModel = (mode == .onDevice ? model : nil) ?? environment["MEMORA_OLLAMA_MODEL"] ?? OllamaCaptionGenerator.defaultModel
        let local: any CaptionGenerator
        switch localServer {
        case "ollama": local = OllamaCaptionGenerator(endpoint: localEndpoint, model: localModel)
        case "openai": local = OpenAICaptionGenerator(endpoint: localEndpoint, model: localModel, apiKey: try store.secret(.openAIAPIKey))
        default: throw ValidationError("--local-server must be ollama or openai")
        }
        var gemini: (any CaptionGenerator)?
        var gpt: (any CaptionGenerator)?
        switch mode {
        case .onDevice: break
        case .gemini:
            gemini = GeminiCaptionGenerator(endpoint: endpointURL ?? GeminiCaptionGenerator.defaultEndpoint,
                                            model: model ?? GeminiCaptionGenerator.defaultModel, apiKey: try store.secret(.geminiAPIKey))
        case .gpt:
            gpt = OpenAICaptionGenerator(endpoint: endpointURL ?? OpenAICaptionGenerator.defaultEndpoint,
                                         model: model ?? OpenAICaptionGenerator.defaultModel, apiKey: try store.secret(.openAIAPIKey))
        }
        return ModelSelector(mode: mode, local: [local], gemini: gemini, gpt: gpt)
    }
}

/// `memora caption`: the main job. Queues photos, then captions them with the chosen models.
struct CaptionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "caption",
        abstract: "Caption photos (files or folders) and write caption and alt text into them.",
        discussion: """
            Photos go through the durable queue in the caption database, so an interrupted run \
            resumes where it stopped. Photos that already have a caption are skipped unless \
            --force; a caption a person wrote with `memora edit` is never replaced. In the \
            on-device mode no pixel leaves this machine; when no model server is running, the \
            basic description (measured by Memora, not an AI model) is used. Start Ollama \
            (`ollama serve`, `ollama pull llava`) or set GEMINI_API_KEY / OPENAI_API_KEY and use \
            --mode gemini / --mode gpt for real captions.
            """)

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var models: ModelOptions

    @Flag(help: "Replace captions the photos already have (never a person's manual edit).")
    var force = false

    @Flag(help: "Run now even when the preferences' constraints (charging_only, wifi_only) do not hold.")
    var now = false

    @Option(help: "Stop after waiting this many seconds for the constraints to hold.")
    var maxWait: Double = 600

    @Flag(help: "Print the summary as JSON.")
    var json = false

    @Argument(help: "Photos or folders to caption (folders are walked; hidden files and sidecars are skipped). Without any, the photos already queued are processed.")
    var paths: [String] = []

    struct Report: Encodable {
        var mode: String
        var chain: [String]
        var scan: GalleryScanner.Result
        var summary: CaptionScheduler.Summary
        var failures: [String]
        var unavailable: [String: String]
    }

    func run() async throws {
        let report = try await Self.caption(paths: paths, database: database.open(), models: models, force: force, now: now,
                                            maxWait: maxWait, quiet: json)
        if json { try printJSON(report) }
        if report.summary.failed > 0 && report.summary.captioned == 0 && report.summary.recovered == 0 { throw ExitCode(1) }
    }

    /// Queues `paths` and works the queue; shared with `memora demo`.
    static func caption(paths: [String], database: CaptionDatabase, models: ModelOptions, force: Bool, now: Bool,
                        maxWait: Double, quiet: Bool) async throws -> Report {
        let lock = try QueueWorkerLock(database: database)
        let queue = ProcessingQueue(database: database)
        let recovered = try queue.recoverInterrupted()
        if recovered > 0 && !quiet { StandardError.write("resuming \(recovered) photo(s) interrupted by an earlier run\n") }
        let preferences = try database.preferences()
        let selector = try models.selector(preferences: preferences)
        if let missing = paths.first(where: { !FileManager.default.fileExists(atPath: $0) }) {
            throw ValidationError("\(missing) does not exist")
        }
        let scan = try GalleryScanner(database: database).scan(paths, explicit: true, force: force)
        let chain = selector.chain
        if !quiet {
            StandardError.write("mode \(selector.mode.rawValue): " + chain.map(\.displayName).joined(separator: " -> ") + "\n")
        }
        let policy = now ? SchedulingPolicy(lowBattery: 0) : SchedulingPolicy()
        var effectivePreferencesNote = ""
        if now { effectivePreferencesNote = " (constraints ignored: --now)" }
        let pending = try queue.counts()[.pending] ?? 0
        let progress = ProgressReporter(title: "captions", total: pending)
        let done = Counter()
        let scheduler = CaptionScheduler(
            database: database, pipeline: CaptionPipeline(database: database, selector: selector),
            monitor: now ? AlwaysReadyMonitor() : LinuxConstraintMonitor(), policy: policy)
        let summary = try await scheduler.run(.init(pollInterval: 15, maxPause: maxWait)) { event in
            switch event {
            case .paused(let reason): if !quiet { StandardError.write("paused: \(reason)\n") }
            case .resumed: if !quiet { StandardError.write("resumed\n") }
            case .photo(let path, let outcome):
                if !quiet {
                    progress.update(completed: min(done.increment(), pending), item: (path as NSString).lastPathComponent)
                    if case .failed(let error, _) = outcome { StandardError.write("  \(path): \(error)\n") }
                }
            case .started: break
            }
        }
        withExtendedLifetime(lock) {}
        let failures = try queue.items(status: .failed).map { "\($0.assetURI): \($0.errorMessage ?? "failed")" }
        let report = Report(mode: selector.mode.rawValue + effectivePreferencesNote, chain: chain.map(\.identifier), scan: scan,
                            summary: summary, failures: failures, unavailable: await selector.unavailable)
        if !quiet {
            print("Captioned \(summary.captioned) photo(s)" + (summary.recovered > 0 ? ", finished \(summary.recovered) interrupted" : "")
                  + ", left \(summary.skipped) alone (already captioned, or a person's caption), \(summary.failed) failed tries, \(scan.notPhotos) files skipped (not JPEG, PNG, TIFF/DNG, WebP, HEIC or AVIF photos).")
            for (model, count) in summary.models.sorted(by: { $0.key < $1.key }) { print("  \(model): \(count)") }
            for (model, reason) in report.unavailable.sorted(by: { $0.key < $1.key }) { print("Not used: \(model): \(reason)") }
            if let stopped = summary.stoppedEarly { print("Stopped early: \(stopped); run again to continue.") }
            if summary.models.keys.contains("basic:basic-description") {
                print("Note: the basic description is measured by Memora, not written by an AI model. For real captions start Ollama "
                      + "(`ollama serve` and `ollama pull llava`), or set GEMINI_API_KEY and use --mode gemini, or OPENAI_API_KEY and --mode gpt.")
            }
        }
        return report
    }
}

/// A monitor for `--now`: the user asked to run regardless of the device's state.
struct AlwaysReadyMonitor: ConstraintMonitor {
    func currentConditions() async -> DeviceConditions {
        DeviceConditions(hasBattery: false, isCharging: true, network: .ethernet, thermal: .nominal)
    }
}

/// A thread-safe counter for progress callbacks.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func increment() -> Int { lock.withLock { value += 1; return value } }
}

/// `memora queue status|retry-failed`.
struct QueueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue", abstract: "Show or repair the captioning queue.", subcommands: [Status.self, RetryFailed.self])

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Counts by status, and the failed photos with their errors.")
        @OptionGroup var database: DatabaseOptions
        @Flag(help: "Print as JSON.") var json = false

        struct Report: Encodable {
            var counts: [String: Int]
            var failed: [QueueItem]
            var recentErrors: [ErrorLogEntry]
        }

        func run() throws {
            let db = try database.open()
            let queue = ProcessingQueue(database: db)
            let counts = try queue.counts()
            let failed = try queue.items(status: .failed)
            if json {
                try printJSON(Report(counts: Dictionary(uniqueKeysWithValues: counts.map { ($0.key.rawValue, $0.value) }),
                                     failed: failed, recentErrors: try db.recentErrors()))
                return
            }
            for status in QueueItem.Status.allCases { print("\(status.rawValue): \(counts[status] ?? 0)") }
            for item in failed { print("  failed \(item.assetURI): \(item.errorMessage ?? "") (\(item.retryCount) tries)") }
        }
    }

    struct RetryFailed: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "retry-failed", abstract: "Put failed photos back in the queue.")
        @OptionGroup var database: DatabaseOptions

        func run() throws {
            let count = try ProcessingQueue(database: database.open()).retryFailed()
            print("\(count) photo(s) back to pending; run `memora caption` to process them.")
        }
    }
}

/// `memora history FILE`.
struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "history", abstract: "Every caption Memora wrote into a photo.")
    @OptionGroup var database: DatabaseOptions
    @Argument(help: "The photo.") var file: String
    @Flag(help: "Print as JSON.") var json = false

    struct Report: Encodable {
        var original: OriginalCaption?
        var entries: [HistoryEntry]
        var current: String?
    }

    func run() throws {
        let history = CaptionHistory(database: try database.open())
        let report = Report(original: try history.original(forPath: file), entries: try history.entries(forPath: file),
                            current: try MetadataReader.read(contentsOf: file).captions.caption)
        if json { try printJSON(report); return }
        guard !report.entries.isEmpty else { print("\(file): Memora has not written a caption to this photo."); return }
        let formatter = ISO8601DateFormatter()
        if let original = report.original {
            print("0  \(formatter.string(from: original.savedAt))  original  \(original.caption.map { "\"\($0)\"" } ?? "(no caption)")")
        }
        for entry in report.entries {
            let marker = entry.wasManualEdit ? " (by a person)" : ""
            print("\(entry.number)  \(formatter.string(from: entry.createdAt))  \(entry.modelUsed)\(marker)  \(entry.caption.map { "\"\($0)\"" } ?? "(no caption)")")
        }
    }
}

/// `memora edit FILE --caption TEXT`.
struct EditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit", abstract: "Write your own caption; automatic captioning will never replace it.")
    @OptionGroup var database: DatabaseOptions
    @Argument(help: "The photo.") var file: String
    @Option(help: "The caption.") var caption: String
    @Option(help: "The alt text (default: the caption, shortened to 150 characters at a sentence or word boundary).") var altText: String?

    func run() throws {
        let entry = try CaptionEditor(database: database.open()).edit(path: file, caption: caption, altText: altText)
        print("\(file): caption written and recorded as entry \(entry.number) (manual edit).")
    }
}

/// `memora rollback FILE [--to N]`.
struct RollbackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rollback", abstract: "Go back to an earlier caption (see `memora history`), or with --to 0 to the photo before Memora.")
    @OptionGroup var database: DatabaseOptions
    @Argument(help: "The photo.") var file: String
    @Option(help: "The history entry to return to (default: the one before the current).") var to: Int?

    func run() throws {
        let entry = try CaptionEditor(database: database.open()).rollback(path: file, to: to)
        print("\(file): rolled back (\(entry.modelUsed)); caption now \(entry.caption.map { "\"\($0)\"" } ?? "as before Memora").")
    }
}

/// `memora prefs show|set`.
struct PrefsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prefs", abstract: "Show or change the captioning preferences.", subcommands: [Show.self, Change.self])

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the preferences.")
        @OptionGroup var database: DatabaseOptions
        @Flag(help: "Print as JSON.") var json = false

        func run() throws {
            let preferences = try database.open().preferences()
            if json { try printJSON(preferences); return }
            for key in CaptionPreferences.keys { print("\(key) = \(preferences.value(of: key) ?? "")") }
        }
    }

    struct Change: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "set", abstract: "Set one preference, for example `ai_mode gemini` or `charging_only true`.")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: ArgumentHelp(stringLiteral: "The key: " + CaptionPreferences.keys.joined(separator: ", ") + ".")) var key: String
        @Argument(help: "The value.") var value: String

        func run() throws {
            let db = try database.open()
            try db.setPreference(key, to: value)
            print("\(key) = \(try db.preferences().value(of: key) ?? value)")
        }
    }
}
