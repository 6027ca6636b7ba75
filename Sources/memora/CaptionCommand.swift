public import ArgumentParser
import Foundation
public import MemoraCore
import MemoraPinning
import MetadataKit
import MemoraSystem

/// Options every captioning command shares: the database.
struct DatabaseOptions: ParsableArguments {
    @Option(help: "The caption database (default: $XDG_DATA_HOME/memora/memora.sqlite).")
    var db: String?

    func open() throws -> CaptionDatabase {
        try CaptionDatabase(path: db ?? CaptionDatabase.defaultPath)
    }
}

extension CaptionMode: ExpressibleByArgument {
    public init?(argument: String) { self.init(parsing: argument) }
    public static var allValueStrings: [String] { allCases.map(\.rawValue) }
}

extension CaptionConfiguration.LocalServer: ExpressibleByArgument {}
extension CaptionConfiguration.Fallback: ExpressibleByArgument {
    /// `on-device` (the default; `basic`, its earlier name, still works) or `none`.
    public init?(argument: String) {
        switch argument {
        case "on-device", "basic": self = .basic
        case "none": self = .none
        default: return nil
        }
    }

    public static var allValueStrings: [String] { ["on-device", "none"] }

    public var defaultValueDescription: String { self == .basic ? "on-device" : "none" }
}

/// Which models `memora caption` may use.
struct ModelOptions: ParsableArguments {
    @Option(help: "Where captions are made: on-device, gemini or gpt (default: the ai_mode preference).")
    var mode: CaptionMode?

    @Option(help: "The chosen mode's server: Ollama (on-device, default http://127.0.0.1:11434), an OpenAI-compatible base URL ending in /v1, or Gemini's.")
    var endpoint: String?

    @Option(help: "The chosen mode's model (defaults: llava, gpt-5.2, gemini-2.5-flash).")
    var model: String?

    @Option(help: "The on-device server's protocol: ollama, or openai for llama.cpp's llama-server, LM Studio or vLLM.")
    var localServer: CaptionConfiguration.LocalServer = .ollama

    @Option(help: "A secrets file (NAME=value lines, mode 0600) with GEMINI_API_KEY or OPENAI_API_KEY (default: $XDG_CONFIG_HOME/memora/secrets); the environment comes first.")
    var secrets: String?

    @Option(help: "When no model server or cloud model can caption a photo: on-device (the default: Memora's on-device description, composed on this machine from what its face, scene and text models find and labelled in the photo as written automatically, so that a model's caption replaces it later) or none (write nothing).")
    var fallback: CaptionConfiguration.Fallback = .basic

    @Option(help: ArgumentHelp("The root certificates the cloud endpoint's chain must end at, instead of the ones Memora ships (a PEM file), or none to turn pinning off (Docs/Captioning.md).", valueName: "file|none"))
    var pins: String?

    func validate() throws {
        if let endpoint {
            do { _ = try CaptionConfiguration.endpoint(parsing: endpoint) } catch { throw ValidationError(error.message) }
        }
        if let pins, pins != "none" {
            do { _ = try TrustPins.roots(inPEMFile: pins) } catch { throw ValidationError(error.message) }
        }
    }

    /// The library's configuration for these flags.
    var configuration: CaptionConfiguration {
        get throws {
            let endpoint = try endpoint.map(CaptionConfiguration.endpoint(parsing:))
            // The cloud endpoints are pinned to the roots Memora ships; `--pins FILE` pins them (and
            // the chosen endpoint) to the file's roots instead, `--pins none` to nothing.
            var trust = TrustPins.cloud
            if let pins {
                trust = pins == "none" ? .none : TrustPins.cloud.replacingRoots(with: try TrustPins.roots(inPEMFile: pins), alsoFor: endpoint?.host)
            }
            return CaptionConfiguration(mode: mode, endpoint: endpoint, model: model, localServer: localServer, secretsPath: secrets,
                                        fallback: fallback, cloudTransport: PinnedTransport.maker(pins: trust))
        }
    }
}

/// `memora caption`: the main job. Queues photos, then captions them with the chosen models.
struct CaptionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "caption",
        abstract: "Caption photos (files or folders) and write caption and alt text into them.",
        discussion: """
            Photos go through the durable queue in the caption database, so an interrupted run \
            resumes where it stopped. Photos Memora already captioned are skipped unless --force; \
            a caption the photo had before Memora (or another program wrote) is never replaced \
            unless --replace-existing, which asks first; a caption a person wrote with `memora edit` \
            or `memora metadata write` is never replaced. In the on-device mode no pixel leaves \
            this machine. When no model can run, nothing is written and the message says how to \
            fix it (start Ollama: `ollama serve`, `ollama pull llava`; or set GEMINI_API_KEY / \
            OPENAI_API_KEY and use --mode gemini / --mode gpt); Memora then writes its on-device \
            description (says so once on standard error), labelled in the photo as written \
            automatically and replaced by the next model's caption. --fallback none writes \
            nothing instead.

            Exit status: 0 when every photo was captioned or left alone for a reason above, 1 when \
            some photos failed, 2 when nothing could be done (every photo failed, or the job could \
            not start), 64 for a usage error. The last line on standard error sums up the run.
            """)

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var models: ModelOptions

    @Flag(help: "Caption again photos Memora already captioned (never a person's caption, never one Memora did not write).")
    var force = false

    @Flag(help: "Also replace captions Memora did not write (the photo's own, or another program's); asks first on a terminal. The originals stay in `memora history`.")
    var replaceExisting = false

    @Flag(help: "Answer yes to the question --replace-existing asks (for scripts).")
    var yes = false

    @Flag(help: "Keep the photos' modification times.")
    var keepMtime = false

    @Flag(help: "Say what would be done (which photos would be captioned, which left alone and why), without queueing, asking a model or writing anything.")
    var dryRun = false

    @Flag(name: [.customShort("q"), .long], help: "Print nothing but errors and the final summary line.")
    var quiet = false

    @Flag(help: "Run now even when the preferences' constraints (charging_only, wifi_only) do not hold.")
    var now = false

    @Option(help: "Stop after waiting this many seconds for the constraints to hold.")
    var maxWait: Double = 600

    @Flag(help: "Print the summary as JSON.")
    var json = false

    @Argument(help: "Photos or folders to caption (folders are walked; hidden files and sidecars are skipped). Without any, the photos already queued are processed.")
    var paths: [String] = []

    func validate() throws {
        if replaceExisting { try Confirmation.requireTerminal(unless: yes, "--replace-existing replaces captions the photos had before Memora and") }
    }

    func run() async throws {
        if replaceExisting {
            try Confirmation.confirm("Replace the captions these photos had before Memora (or that other programs wrote)? Each original stays in `memora history`, and `memora rollback --to 0` puts it back.",
                                     unless: yes, command: "memora caption")
        }
        let job = CaptionJob(database: try database.open(), models: .configured(try models.configuration), force: force,
                             replacesExisting: replaceExisting, keepsModificationTime: keepMtime, ignoresConstraints: now, maxWait: maxWait)
        if dryRun {
            let plan = try await job.plan(paths: paths)
            if json { try printJSON(plan); return }
            for photo in plan {
                switch photo.outcome {
                case "would-caption": print("\(photo.path): would be captioned (\(photo.model ?? "no model"))")
                case "skipped": print("\(photo.path): left alone: \(photo.reason ?? "")")
                default: print("\(photo.path): cannot be read: \(photo.reason ?? "")")
                }
            }
            let count = plan.count { $0.outcome == "would-caption" }
            StandardError.write("memora caption --dry-run: \(count) would be captioned, \(plan.count - count) left alone or unreadable; nothing written\n")
            return
        }
        let report = try await job.run(paths: paths, onEvent: json || quiet ? { _ in } : Self.progressDisplay())
        if json { try printJSON(report) } else if !quiet { Self.printSummary(report) }
        let summary = report.summary
        if summary.models.keys.contains(BasicDescriptionGenerator.identifier) {
            StandardError.write("note: no model server answered, so \(summary.models[BasicDescriptionGenerator.identifier] ?? 0) photo(s) have Memora's on-device "
                                + "description: composed on this machine from what its face, scene and text models find, never sent anywhere, and "
                                + "labelled in each photo as written automatically (a model's caption replaces it later). For a language model's "
                                + "caption start Ollama (`ollama serve`, `ollama pull llava`) or use --mode gemini / gpt; --fallback none writes nothing.\n")
        }
        let done = summary.captioned + summary.recovered
        StandardError.write("memora caption: \(done) captioned, \(summary.skipped) left alone, \(report.failures.count) failed\n")
        try ExitStatus.check(failed: report.failures.count, done: done + summary.skipped)
    }

    /// Shows the job's events on stderr: the models, pauses, a progress bar, each failure.
    static func progressDisplay() -> @Sendable (CaptionJob.Event) -> Void {
        let progress = Locked<ProgressReporter?>(nil)
        let done = Locked(0)
        return { event in
            switch event {
            case .resuming(let count): StandardError.write("resuming \(count) photo(s) interrupted by an earlier run\n")
            case .models(let mode, let chain):
                StandardError.write("mode \(mode.rawValue): " + chain.map(\.displayName).joined(separator: " -> ") + "\n")
            case .started(let pending): progress.withLock { $0 = ProgressReporter(title: "captions", total: pending) }
            case .paused(let reason): StandardError.write("paused: \(reason)\n")
            case .resumed: StandardError.write("resumed\n")
            case .photo(let path, let outcome):
                if let reporter = progress.withLock({ $0 }) {
                    let completed = done.withLock { $0 += 1; return $0 }
                    reporter.update(completed: min(completed, reporter.total), item: (path as NSString).lastPathComponent)
                }
                // Most messages name the photo already: it is named once.
                if case .failed(let error, _) = outcome { StandardError.write("  \(error.contains(path) ? error : "\(path): \(error)")\n") }
            }
        }
    }

    static func printSummary(_ report: CaptionJob.Report) {
        let summary = report.summary
        print("Captioned \(summary.captioned) photo(s)" + (summary.recovered > 0 ? ", finished \(summary.recovered) interrupted" : "")
              + ", left \(summary.skipped) alone (already captioned, or a person's caption), \(report.failures.count) failed, \(report.scan.notPhotos) files skipped (not JPEG, PNG, TIFF/DNG, WebP, HEIC or AVIF photos)."
              + (report.ignoredConstraints ? " Constraints ignored (--now)." : ""))
        for (model, count) in summary.models.sorted(by: { $0.key < $1.key }) { print("  \(model): \(count)") }
        for (model, reason) in report.unavailable.sorted(by: { $0.key < $1.key }) { print("Not used: \(model): \(reason)") }
        if let stopped = summary.stoppedEarly { print("Stopped early: \(stopped); run again to continue.") }

    }
}

/// `memora queue status|retry-failed`.
struct QueueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue", abstract: "Show or repair the captioning queue.",
        subcommands: [Status.self, List.self, RetryFailed.self, Remove.self, Clear.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the queued photos with their status (pending, processing, completed, failed).")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "Only photos with this status.") var status: String?
        @Flag(help: "Print as JSON.") var json = false

        func run() throws {
            let queue = ProcessingQueue(database: try database.open())
            var wanted: QueueItem.Status?
            if let status {
                guard let parsed = QueueItem.Status(rawValue: status) else {
                    throw ValidationError("--status takes one of \(QueueItem.Status.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                wanted = parsed
            }
            let items = try queue.items(status: wanted, limit: .max)
            if json { try printJSON(items); return }
            for item in items { print("\(item.status.rawValue)  \(item.assetURI)" + (item.failureDescription.map { "  (\($0))" } ?? "")) }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Take photos out of the queue (their files are not touched).")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The photos, as queued (a path that no longer exists is taken as it is).") var photos: [String]
        @OptionGroup var output: WriteOutputOptions

        func run() throws {
            let queue = ProcessingQueue(database: try database.open())
            var removed = 0
            for photo in photos {
                guard let item = try queue.item(forPath: photo) else {
                    StandardError.write("memora queue remove: \(photo) is not in the queue\n")
                    continue
                }
                if !output.dryRun { try queue.remove(item.id) }
                removed += 1
            }
            output.say(output.dryRun ? "\(removed) photo(s) would leave the queue; nothing written" : "\(removed) photo(s) left the queue.")
            try ExitStatus.check(failed: photos.count - removed, done: removed)
        }
    }

    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Empty the queue, or take out every photo with one status (files, captions and history are not touched).")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "Only photos with this status (pending, failed, completed).") var status: String?
        @OptionGroup var output: WriteOutputOptions

        func run() throws {
            let queue = ProcessingQueue(database: try database.open())
            var wanted: QueueItem.Status?
            if let status {
                guard let parsed = QueueItem.Status(rawValue: status), parsed != .processing else {
                    throw ValidationError("--status takes pending, failed or completed")
                }
                wanted = parsed
            }
            let items = try queue.items(status: wanted, limit: .max).filter { $0.status != .processing }
            if !output.dryRun { for item in items { try queue.remove(item.id) } }
            output.say(output.dryRun ? "\(items.count) photo(s) would leave the queue; nothing written" : "\(items.count) photo(s) left the queue.")
        }
    }

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
            for item in failed { print("  failed: \(item.failureDescription ?? item.assetURI) (\(item.retryCount) tries)") }
        }
    }

    struct RetryFailed: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "retry-failed", abstract: "Put failed photos back in the queue.")
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var output: WriteOutputOptions

        func run() throws {
            let queue = ProcessingQueue(database: try database.open())
            if output.dryRun {
                output.say("\(try queue.counts()[.failed] ?? 0) failed photo(s) would go back to pending; nothing written")
                return
            }
            let count = try queue.retryFailed()
            output.say("\(count) photo(s) back to pending; run `memora caption` to process them.")
        }
    }
}

/// `memora history [FILE]`.
struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "The operations Memora made (each command run that wrote to photos), or every write to one photo: captions, edits, metadata writes, location strips, restores.",
        discussion: "Without a photo: the operations, newest first, with how many photos each wrote to; `memora metadata restore --operation N` undoes one. With a photo: its levels, each with the operation it belonged to.")
    @OptionGroup var database: DatabaseOptions
    @Argument(help: "The photo (none: the operations).") var file: String?
    @Option(help: "How many operations to list.") var limit = 50
    @Flag(help: "Print as JSON.") var json = false

    struct Report: Encodable {
        var original: OriginalCaption?
        var entries: [HistoryEntry]
        var current: String?
    }

    func run() throws {
        let history = PhotoHistory(database: try database.open())
        let formatter = ISO8601DateFormatter()
        guard let file else {
            let operations = try history.operations(limit: limit)
            if json { try printJSON(operations); return }
            guard !operations.isEmpty else { print("Memora has not written to any photo yet."); return }
            for operation in operations {
                print("#\(operation.id)  \(formatter.string(from: operation.createdAt))  \(operation.kind.rawValue)  \(operation.photoCount) photo\(operation.photoCount == 1 ? "" : "s")")
            }
            print("`memora metadata restore PHOTOS` undoes the last operation on those photos; --operation N undoes operation N.")
            return
        }
        let report = Report(original: try history.original(forPath: file), entries: try history.entries(forPath: file),
                            current: try MetadataReader.read(contentsOf: file).captions.caption)
        if json { try printJSON(report); return }
        guard !report.entries.isEmpty else { print("\(file): Memora has not written to this photo."); return }
        if let original = report.original {
            print("0  \(formatter.string(from: original.savedAt))  original  \(original.caption.map { "\"\($0)\"" } ?? "(no caption)")")
        }
        for entry in report.entries {
            let marker = entry.wasManualEdit ? " (by a person)" : ""
            let what = entry.kind == .stripLocation ? "(location removed)" : entry.caption.map { "\"\($0)\"" } ?? "(no caption)"
            print("\(entry.number)  \(formatter.string(from: entry.createdAt))  \(entry.operation.map { "#\($0)  " } ?? "")\(entry.modelUsed)\(marker)  \(what)")
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
    @Flag(help: "Keep the photo's modification time.") var keepMtime = false
    @OptionGroup var output: WriteOutputOptions

    func validate() throws {
        try ArgumentText.requireUTF8(caption, option: "--caption")
        try ArgumentText.requireUTF8(altText, option: "--alt-text")
    }

    func run() throws {
        let editor = CaptionEditor(database: try database.open())
        if output.dryRun {
            let update = try editor.checkEdit(path: file, caption: caption, altText: altText)
            output.say("\(file): would write the caption (\(update.caption.count) characters) and its alt text (\(update.altText?.count ?? 0)) "
                       + "as a manual edit (edited and verified in memory; nothing written)")
            return
        }
        let entry = try editor.edit(path: file, caption: caption, altText: altText, keepModificationTime: keepMtime)
        output.say("\(file): caption written and recorded as entry \(entry.number) (manual edit).")
    }
}

/// `memora rollback FILE [--to N]`.
struct RollbackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rollback", abstract: "Go back to an earlier level of a photo's history (see `memora history`), or with --to 0 to the photo before Memora.")
    @OptionGroup var database: DatabaseOptions
    @Argument(help: "The photo.") var file: String
    @Option(help: "The level to return to: N is the photo right after entry N, 0 the photo before Memora (default: undo the last operation on it).") var to: Int?
    @Option(help: "Undo this operation's write (see `memora history`), if no later one changed the photo.") var operation: Int64?
    @Flag(help: "Keep the photo's modification time.") var keepMtime = false
    @Flag(help: "Answer yes to the question --to 0 asks (for scripts).") var yes = false
    @OptionGroup var output: WriteOutputOptions

    func validate() throws {
        if to != nil, operation != nil { throw ValidationError("give --to or --operation, not both") }
        if to == 0, !output.dryRun { try Confirmation.requireTerminal(unless: yes, "--to 0 takes away everything Memora wrote to the photo and") }
    }

    func run() throws {
        let editor = CaptionEditor(database: try database.open())
        guard to != nil else {
            let report = output.dryRun ? try editor.checkUndo(paths: [file], operation: operation)
                : try editor.undo(paths: [file], operation: operation, keepModificationTime: keepMtime)
            try RollbackCommand.say(report, dryRun: output.dryRun, output: output)
            return
        }
        if output.dryRun {
            output.say(RollbackCommand.describe(file, plan: try editor.checkRollback(path: file, to: to)))
            return
        }
        if to == 0 {
            try Confirmation.confirm("Put \(file) back as it was before Memora, taking away every caption Memora wrote to it? (The rollback can itself be undone.)",
                                     unless: yes, command: "memora rollback")
        }
        let entry = try editor.rollback(path: file, to: to, keepModificationTime: keepMtime)
        output.say(RollbackCommand.describe(file, entry))
    }
}

extension RollbackCommand {
    /// Says what an undo did (or, with `dryRun`, would do) to each photo; exits 1 when some photo was
    /// changed since by a later operation or failed, 2 when none could be undone.
    static func say(_ report: UndoReport, dryRun: Bool, output: WriteOutputOptions) throws {
        let operation = report.operation.map { "operation #\($0)" } ?? "the last write"
        var done = 0, failed = 0, untouched = 0
        for photo in report.photos {
            switch photo.outcome {
            case .success(.undone(let plan)):
                done += 1
                let caption = plan.caption.map { "caption \(dryRun ? "would be" : "now") \"\($0)\"" } ?? (plan.level == 0 ? "no caption, as before Memora" : "no caption")
                output.say("\(photo.path): \(dryRun ? "would undo" : "undid") \(operation): back to level \(plan.level) of its history (\(caption))\(dryRun ? "; nothing written" : "")")
            case .success(.notTouched):
                untouched += 1
            case .success(.changedSince(let later)):
                failed += 1
                let next = later.map { "operation #\($0)" } ?? "a later write"
                StandardError.write("error: \(TerminalText.escaped(photo.path)): \(operation) wrote to it, but \(next) changed it since: undo that first"
                                    + (later.map { " (memora metadata restore --operation \($0))" } ?? "") + "; left as it is\n")
            case .failure(let error):
                failed += 1
                StandardError.write("error: \(error)\n")
            }
        }
        if untouched > 0 { output.say("left \(untouched) photo\(untouched == 1 ? "" : "s") \(operation) did not write to as they are") }
        if let undoneAs = report.undoneAs { output.say("recorded as operation #\(undoneAs): `memora metadata restore` again undoes this restore") }
        try ExitStatus.check(failed: failed, done: done)
    }

    /// What a rollback or restore put back: the level and the caption the photo now has.
    static func describe(_ file: String, _ entry: HistoryEntry) -> String {
        let level = entry.modelUsed.hasPrefix("rollback:") ? "level " + entry.modelUsed.dropFirst("rollback:".count) : entry.modelUsed
        let caption = entry.caption.map { "caption now \"\($0)\"" } ?? "no caption, as before Memora"
        return "\(file): restored to \(level) of its history (\(caption))"
    }

    /// What a rollback or restore would put back (`--dry-run`).
    static func describe(_ file: String, plan: RollbackPlan) -> String {
        let caption = plan.entryCount == 0 ? "the metadata an earlier release saved"
            : plan.caption.map { "caption \"\($0)\"" } ?? (plan.level == 0 ? "no caption, as before Memora" : "no caption")
        return "\(file): would go back to level \(plan.level) of \(plan.entryCount) (\(caption)); nothing written"
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
        @OptionGroup var output: WriteOutputOptions

        func run() throws {
            let db = try database.open()
            if output.dryRun {
                output.say("would set \(key) = \(try db.checkPreference(key, to: value)); nothing written")
                return
            }
            try db.setPreference(key, to: value)
            output.say("\(key) = \(try db.preferences().value(of: key) ?? value)")
        }
    }
}
