import ArgumentParser
import Foundation
import MemoraSystem
import MetadataKit

/// `memora metadata`: read and write captions and alt text.
struct MetadataCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metadata",
        abstract: "Read and write captions and alt text (XMP, EXIF, IPTC).",
        subcommands: [Read.self, Write.self, StripLocation.self, Restore.self])

    /// Where `write` keeps what it replaced, for `restore`:
    /// `$XDG_STATE_HOME/memora/snapshots` (else `$HOME/.local/state/memora/snapshots`).
    static var snapshotFolder: String {
        ApplicationFolders().state + "/snapshots"
    }

    /// The snapshot file of `path` (one per absolute path; the latest write wins).
    static func snapshotPath(for path: String) -> String {
        let absolute = SystemPath.normalized(FileSystem.absolutePath(path))
        let name = absolute.utf8.reduce(UInt64(14_695_981_039_346_656_037)) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 }
        return snapshotFolder + "/" + String(name, radix: 16) + ".json"
    }

    struct Read: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show captions, alt text and the fields the index uses.")
        @Argument(help: "Image files.") var files: [String]
        @Flag(help: "Print the result as JSON.") var json = false

        struct Entry: Encodable {
            var path: String
            var metadata: PhotoMetadata?
            var error: String?
        }

        func run() throws {
            var entries: [Entry] = []
            for file in files {
                do throws(MetadataError) {
                    entries.append(Entry(path: file, metadata: try MetadataReader.read(contentsOf: file)))
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
                    if captions.copiesDisagree { print("  note: the XMP, EXIF and IPTC copies disagree; MWG would read \(captions.mwgSource?.rawValue ?? "none")") }
                    for (source, value) in captions.boilerplate.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                        print("  ignored \(source.rawValue) boilerplate: \"\(value)\"")
                    }
                    if let date = metadata.dateTaken { print("  taken: \(date.date) (\(date.source))") }
                    if let gps = metadata.gps { print("  GPS: \(gps.latitude), \(gps.longitude)") }
                    if !metadata.people.isEmpty { print("  people: \(metadata.people.joined(separator: ", "))") }
                }
            }
            if entries.contains(where: { $0.error != nil }) { throw ExitCode.failure }
        }
    }

    struct Write: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a caption (and alt text) into every place the format carries it.",
            discussion: "The original is replaced only after the result was verified; what it held is kept for `memora metadata restore`.")
        @Option(help: "The caption.") var caption: String
        @Option(help: "Short alternative text for screen readers.") var altText: String?
        @Flag(help: "Keep the files' modification times.") var keepMtime = false
        @Flag(help: "Write an XMP sidecar (photo.heic.xmp, or an existing photo.xmp) and leave the photo untouched (any format).")
        var sidecar = false
        @Option(help: "How many files to work on at once (default: two per core, at most 8).") var jobs = CaptionWriter.defaultConcurrency
        @Argument(help: "Image files (JPEG, PNG, TIFF/DNG, WebP, HEIC/HEIF, AVIF; any format with --sidecar).") var files: [String]

        func validate() throws {
            guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1") }
        }

        func run() throws {
            let update = CaptionUpdate(caption: caption, altText: altText)
            if sidecar {
                try MetadataCommand.forEach(files) { file in
                    let written = try CaptionWriter.writeSidecar(update, for: file)
                    StandardError.write("\(file): caption written to the sidecar \(written)\n")
                }
                return
            }
            let keepMtime = keepMtime
            try MetadataCommand.inBatch(files) { paths, completed in
                CaptionWriter.write(update, toEach: paths, concurrency: jobs, options: {
                    MetadataCommand.options(for: $0, keepModificationTime: keepMtime)
                }, completed: completed)
            }
        }
    }

    struct StripLocation: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "strip-location",
            abstract: "Remove GPS and location fields (EXIF, XMP, IPTC) before sharing a photo.",
            discussion: "Everything else stays as it was; what was removed is kept for `memora metadata restore`.")
        @Flag(help: "Keep the files' modification times.") var keepMtime = false
        @Option(help: "How many files to work on at once (default: two per core, at most 8).") var jobs = CaptionWriter.defaultConcurrency
        @Argument(help: "Image files (JPEG, PNG, TIFF/DNG, WebP, HEIC/HEIF, AVIF).") var files: [String]

        func validate() throws {
            guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1") }
        }

        func run() throws {
            let keepMtime = keepMtime
            try MetadataCommand.inBatch(files) { paths, completed in
                CaptionWriter.stripLocation(fromEach: paths, concurrency: jobs, options: {
                    MetadataCommand.options(for: $0, keepModificationTime: keepMtime)
                }, completed: completed)
            }
        }
    }

    /// Runs `body` for each file, printing the file when it succeeds and one `error:` line when
    /// it fails, and exits non-zero at the end if any failed.
    static func forEach(_ files: [String], _ body: (String) throws -> Void) throws {
        var failures = 0
        for file in files {
            do {
                try body(file)
                print(file)
            } catch {
                failures += 1
                StandardError.write("error: \(error)\n")
            }
        }
        if failures > 0 { throw ExitCode.failure }
    }

    /// Runs a batch write over `files` (each named once, in the order first given), printing each
    /// file as it succeeds and one `error:` line for each failure, and exits non-zero at the end
    /// if any failed. A file named twice is written once: two concurrent writes to one file would
    /// race, and the second snapshot would replace the first.
    static func inBatch(
        _ files: [String],
        _ run: ([String], @escaping @Sendable (Int, Result<MetadataSnapshot, MetadataError>) -> Void) -> [Result<MetadataSnapshot, MetadataError>]
    ) throws {
        var seen = Set<String>()
        let unique = files.filter { file in
            let resolved = FileSystem.resolvedPath(file) ?? file
            return seen.insert(resolved).inserted
        }
        // The snapshot folder is made once here, not by several writers at the same moment.
        try? FileSystem.makeFolder(snapshotFolder, permissions: 0o700)
        let output = NSLock()
        let results = run(unique) { index, result in
            output.withLock {
                switch result {
                case .success: print(unique[index])
                case .failure(let error): StandardError.write("error: \(error)\n")
                }
            }
        }
        if results.contains(where: { if case .failure = $0 { true } else { false } }) { throw ExitCode.failure }
    }

    /// Write options that store the file's snapshot before the photo is replaced: no write without a way back.
    static func options(for file: String, keepModificationTime: Bool) -> CaptionWriteOptions {
        CaptionWriteOptions(keepModificationTime: keepModificationTime, beforeReplacing: saver(snapshotPath(for: file)))
    }

    /// Stores a snapshot at `path` (called before the photo is replaced), flushed to the disk
    /// with its folder entry, so that a power cut after the photo is replaced cannot lose it.
    static func saver(_ path: String) -> @Sendable (MetadataSnapshot) throws -> Void {
        { snapshot in
            try FileSystem.makeFolder(snapshotFolder, permissions: 0o700)
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            // Flushed with its folder entry by the atomic write; 0600: a snapshot holds the old captions.
            try AtomicFileWriter.write(Array(try encoder.encode(snapshot)), to: path, options: .secret())
        }
    }

    struct Restore: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Put back the metadata the last `metadata write` replaced.")
        @Argument(help: "Image files.") var files: [String]

        func run() throws {
            try MetadataCommand.forEach(files) { file in
                let decoder = JSONDecoder()
                decoder.dateDecodingStrategy = .iso8601
                let snapshotFile = MetadataCommand.snapshotPath(for: file)
                guard let data = try? SystemFile(snapshotFile).readAll() else {
                    throw ValidationError("\(file): no snapshot from an earlier `memora metadata write` or `strip-location`")
                }
                try CaptionWriter.restore(try decoder.decode(MetadataSnapshot.self, from: Data(data)), to: file)
                try? FileSystem.remove(snapshotFile)
            }
        }
    }
}
