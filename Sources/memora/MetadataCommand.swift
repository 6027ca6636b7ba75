import ArgumentParser
import Foundation
import MemoraCore
import MemoraSystem
import MetadataKit

/// `memora metadata`: read and write captions and alt text.
struct MetadataCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metadata",
        abstract: "Read and write captions and alt text (XMP, EXIF, IPTC).",
        subcommands: [Read.self, Write.self, StripLocation.self, Restore.self])

    struct Read: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show captions, alt text and the fields the index uses.")
        @OptionGroup var input: FileArguments
        @Flag(help: "Print the result as JSON.") var json = false

        struct Entry: Encodable {
            var path: String
            var metadata: PhotoMetadata?
            /// The photo's XMP sidecar, when it has one.
            var sidecar: SidecarCaptions?
            var error: String?
        }

        func run() throws {
            let files = try input.files()
            var entries: [Entry] = []
            for file in files {
                do throws(MetadataError) {
                    entries.append(Entry(path: file, metadata: try MetadataReader.read(contentsOf: file),
                                         sidecar: try MetadataReader.sidecarCaptions(for: file)))
                } catch {
                    entries.append(Entry(path: file, error: error.description))
                    if !json { StandardError.write("error: \(error)\n") }
                }
            }
            if json {
                try printJSON(entries)
            } else {
                for entry in entries {
                    guard let metadata = entry.metadata else { continue }
                    let captions = metadata.captions
                    print("\(entry.path):")
                    print("  caption: \(captions.caption.map { "\"\($0)\" (\(captions.source!.rawValue))" } ?? "none")")
                    if let altText = captions.altText { print("  alt text: \"\(altText)\"") }
                    if let sidecar = entry.sidecar {
                        print("  sidecar \(sidecar.path): caption \(sidecar.captions.caption.map { "\"\($0)\"" } ?? "none")"
                              + (sidecar.captions.altText.map { ", alt text \"\($0)\"" } ?? ""))
                    }
                    if captions.isBasicDescription { print("  (a basic description, measured by Memora, not written by a model or a person)") }
                    if captions.copiesDisagree { print("  note: the XMP, EXIF and IPTC copies disagree; MWG would read \(captions.mwgSource?.rawValue ?? "none")") }
                    for (source, value) in captions.boilerplate.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                        print("  ignored \(source.rawValue) boilerplate: \"\(value)\"")
                    }
                    if let date = metadata.dateTaken { print("  taken: \(date.iso8601) (\(date.source))") }
                    if let place = metadata.place, !place.displayName.isEmpty { print("  place: \(place.displayName)") }
                    if let gps = metadata.gps { print("  GPS: \(gps.latitude), \(gps.longitude)") }
                    if !metadata.regions.isEmpty { print("  face regions: \(metadata.regions.count)") }
                    if !metadata.people.isEmpty { print("  people: \(metadata.people.joined(separator: ", "))") }
                }
            }
            try ExitStatus.check(failed: entries.count { $0.error != nil }, done: entries.count { $0.error == nil })
        }
    }

    struct Write: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a caption (and alt text) into every place the format carries it.",
            discussion: "The original is replaced only after the result was verified; the write is recorded in the history (`memora history`) with what it replaced, for `memora metadata restore` and `memora rollback`.")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The caption.") var caption: String
        @Option(help: "Short alternative text for screen readers.") var altText: String?
        @Flag(help: "Keep the files' modification times.") var keepMtime = false
        @Flag(help: "Write an XMP sidecar (photo.heic.xmp, or an existing photo.xmp) and leave the photo untouched (any format).")
        var sidecar = false
        @Option(help: "How many files to work on at once (default: two per core, at most 8).") var jobs = CaptionWriter.defaultConcurrency
        @OptionGroup var output: WriteOutputOptions
        @OptionGroup var input: FileArguments

        func validate() throws {
            guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1") }
            try ArgumentText.requireUTF8(caption, option: "--caption")
            try ArgumentText.requireUTF8(altText, option: "--alt-text")
        }

        func run() throws {
            let files = try input.files()
            let update = CaptionUpdate(caption: caption, altText: altText)
            if output.dryRun {
                try MetadataCommand.forEach(files, printing: false) { file in
                    if sidecar {
                        output.say("\(file): would write the caption to the sidecar \(CaptionWriter.sidecarPath(for: file))")
                    } else {
                        _ = try CaptionWriter.check(update, in: file)
                        output.say("\(file): would write the caption (edited and verified in memory; nothing written)")
                    }
                }
                return
            }
            if sidecar {
                try MetadataCommand.forEach(files) { file in
                    let written = try CaptionWriter.writeSidecar(update, for: file)
                    if !output.quiet { StandardError.write("\(file): caption written to the sidecar \(written)\n") }
                }
                return
            }
            let editor = CaptionEditor(database: try database.open())
            try MetadataCommand.report(quiet: output.quiet) { completed in
                editor.write(update, toEach: files, concurrency: jobs, keepModificationTime: keepMtime, completed: completed)
            }
        }
    }

    struct StripLocation: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "strip-location",
            abstract: "Remove GPS and location fields (EXIF, XMP, IPTC) before sharing a photo.",
            discussion: "Everything else stays as it was; what was removed is kept in the history for `memora metadata restore`.")
        @OptionGroup var database: DatabaseOptions
        @Flag(help: "Keep the files' modification times.") var keepMtime = false
        @Option(help: "How many files to work on at once (default: two per core, at most 8).") var jobs = CaptionWriter.defaultConcurrency
        @OptionGroup var output: WriteOutputOptions
        @OptionGroup var input: FileArguments

        func validate() throws {
            guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1") }
        }

        func run() throws {
            let files = try input.files()
            if output.dryRun {
                try MetadataCommand.forEach(files, printing: false) { file in
                    output.say(try CaptionWriter.checkStripLocation(in: file)
                          ? "\(file): would remove its location (edited and verified in memory; nothing written)"
                          : "\(file): holds no location; nothing to do")
                }
                return
            }
            let editor = CaptionEditor(database: try database.open())
            try MetadataCommand.report(quiet: output.quiet) { completed in
                editor.stripLocation(fromEach: files, concurrency: jobs, keepModificationTime: keepMtime, completed: completed)
            }
        }
    }

    /// An error as this command says it: a format that cannot hold metadata points at `--sidecar`.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? MetadataError, error.code == .unsupportedFormat, error.message.contains("sidecar") else { return "\(error)" }
        return "\(error) (memora metadata write --sidecar writes one)"
    }

    /// Runs `body` for each file, printing the file when it succeeds and one `error:` line when
    /// it fails, and exits non-zero at the end if any failed.
    static func forEach(_ files: [String], printing: Bool = true, _ body: (String) throws -> Void) throws {
        var failures = 0
        for file in files {
            do {
                try body(file)
                if printing { print(file) }
            } catch {
                failures += 1
                StandardError.write("error: \(describe(error))\n")
            }
        }
        try ExitStatus.check(failed: failures, done: files.count - failures)
    }

    /// Runs a batch write, printing each file as it succeeds and one `error:` line for each
    /// failure, and exits non-zero at the end if any failed.
    static func report(
        quiet: Bool = false,
        _ run: (@escaping @Sendable (String, Result<MetadataSnapshot, MetadataError>) -> Void) -> [(path: String, result: Result<MetadataSnapshot, MetadataError>)]
    ) throws {
        let output = Locked(())
        let results = run { path, result in
            output.withLock { _ in
                switch result {
                case .success(let snapshot) where !snapshot.locationLeft.isEmpty:
                    // Stripped of what could be removed, but not clean: reported, not counted as done.
                    StandardError.write("error: \(TerminalText.escaped(path)): location left: \(snapshot.locationLeft.joined(separator: "; "))\n")
                case .success(let snapshot):
                    if !quiet { print(snapshot.locationRemoved.isEmpty ? path : "\(path)  (location removed: \(snapshot.locationRemoved.joined(separator: ", ")))") }
                case .failure(let error): StandardError.write("error: \(describe(error))\n")
                }
            }
        }
        let failed = results.count { entry in
            switch entry.result {
            case .failure: true
            case .success(let snapshot): !snapshot.locationLeft.isEmpty
            }
        }
        try ExitStatus.check(failed: failed, done: results.count - failed)
    }

    struct Restore: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Undo the last operation on these photos (a metadata write, strip-location, caption run, edit or restore), or go back to a level of each photo's history.",
            discussion: "Without --to: the last operation (one command run; `memora history` lists them) that wrote to any of the photos is undone on the photos it wrote to; the others are left as they are, and a photo a later operation changed is reported, not touched. --operation N undoes operation N instead. With --to N each photo goes back to level N of its own history (`memora history FILE`). The same as `memora rollback`; snapshots kept by earlier releases are restored too.")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The level to return to in each photo's history (0: the photo before Memora).") var to: Int?
        @Option(help: "Undo this operation (see `memora history`) instead of the last one.") var operation: Int64?
        @Flag(help: "Keep the files' modification times.") var keepMtime = false
        @Flag(help: "Answer yes to the question --to 0 asks (for scripts).") var yes = false
        @OptionGroup var output: WriteOutputOptions
        @OptionGroup var input: FileArguments

        func validate() throws {
            if to != nil, operation != nil { throw ValidationError("give --to or --operation, not both") }
            if to == 0, !output.dryRun { try Confirmation.requireTerminal(unless: yes, "--to 0 takes away everything Memora wrote to the photos and") }
        }

        func run() throws {
            let files = try input.files()
            let editor = CaptionEditor(database: try database.open())
            guard to != nil else {
                let report = output.dryRun ? try editor.checkUndo(paths: files, operation: operation)
                    : try editor.undo(paths: files, operation: operation, keepModificationTime: keepMtime)
                try RollbackCommand.say(report, dryRun: output.dryRun, output: output)
                return
            }
            if output.dryRun {
                try MetadataCommand.forEach(files, printing: false) { file in
                    output.say(RollbackCommand.describe(file, plan: try editor.checkRollback(path: file, to: to)))
                }
                return
            }
            if to == 0 {
                try Confirmation.confirm("Put \(files.count) photo(s) back as they were before Memora, taking away everything Memora wrote to them?",
                                         unless: yes, command: "memora metadata restore")
            }
            try MetadataCommand.forEach(files, printing: false) { file in
                output.say(RollbackCommand.describe(file, try editor.rollback(path: file, to: to, keepModificationTime: keepMtime)))
            }
        }
    }
}
