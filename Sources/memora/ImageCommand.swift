import ArgumentParser
import Foundation
import ImageKit
import MemoraSystem
import MemoraCore
import PhotoIndex
import PhotoVision
import PhotoVisionCore

/// `memora image`: inspect and convert pictures with ImageKit.
struct ImageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "image",
        abstract: "Inspect images, make thumbnails, and see the faces and the scene in a photo.",
        subcommands: [Info.self, Thumbnail.self, Look.self])

    /// `memora image info FILE...`
    struct Info: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show format, size and orientation without decoding pixels.")

        @Argument(help: "Image files (JPEG, PNG, HEIC, AVIF).")
        var files: [String]

        @Flag(help: "Print the result as JSON.")
        var json = false

        /// One line of `info` output.
        struct Entry: Encodable {
            var path: String
            var info: ImageInfo?
            var error: String?
        }

        func run() throws {
            var entries: [Entry] = []
            for file in files {
                do throws(ImageError) {
                    entries.append(Entry(path: file, info: try ImageDecoder.info(contentsOf: file)))
                } catch {
                    entries.append(Entry(path: file, error: error.description))
                }
            }
            if json {
                try printJSON(entries)
            } else {
                for entry in entries {
                    if let info = entry.info {
                        var traits: [String] = []
                        if info.isProgressive { traits.append("progressive") }
                        if info.isCMYK { traits.append("CMYK") }
                        if info.isGrayscale { traits.append("grayscale") }
                        if info.hasAlpha { traits.append("alpha") }
                        let extra = traits.isEmpty ? "" : ", " + traits.joined(separator: ", ")
                        print("\(entry.path): \(info.format.displayName) \(info.width)x\(info.height), orientation \(info.orientation.rawValue)\(extra), \(info.byteCount) bytes")
                    } else if let error = entry.error {
                        StandardError.write("error: \(error)\n")
                    }
                }
            }
            try ExitStatus.check(failed: entries.count { $0.error != nil }, done: entries.count { $0.error == nil })
        }
    }

    /// `memora image thumbnail INPUT -o OUTPUT`
    struct Thumbnail: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Write an upright thumbnail (JPEG or PNG, no metadata).")

        @Argument(help: "The image to reduce.")
        var input: String

        @Option(name: .shortAndLong, help: "Where to write the thumbnail (.jpg/.jpeg or .png).")
        var output: String

        @Option(help: "The longest side in pixels.")
        var size = 384

        @Flag(help: "Replace the output file if it exists.")
        var force = false

        @Option(help: "JPEG quality, 0...1.")
        var quality = 0.85

        @Flag(help: "Keep the stored orientation instead of turning the picture upright.")
        var keepOrientation = false

        @Flag(help: "Print the result as JSON.")
        var json = false

        @OptionGroup var say: WriteOutputOptions

        /// The result of `thumbnail`.
        struct Result: Encodable {
            var input: String
            var output: String
            var width: Int
            var height: Int
            var bytes: Int
        }

        func validate() throws {
            guard size > 0 else { throw ValidationError("--size must be positive") }
            guard (0...1).contains(quality) else { throw ValidationError("--quality must be between 0 and 1") }
        }

        func run() throws {
            let lowered = output.lowercased()
            let format: EncodingFormat
            if lowered.hasSuffix(".png") {
                format = .png()
            } else if lowered.hasSuffix(".jpg") || lowered.hasSuffix(".jpeg") {
                format = .jpeg(JPEGEncodingOptions(quality: quality))
            } else {
                throw ValidationError("\(output): the output name must end in .jpg, .jpeg or .png")
            }
            let options = DecodingOptions(applyOrientation: !keepOrientation)
            if say.dryRun {
                if !force, FileSystem.statusIfPresent(of: output, followingLinks: false) != nil {
                    throw ImageError.outputExists(path: output)
                }
                let (width, height) = try ImageDecoder.thumbnailSize(contentsOf: input, maxPixelSize: size, options: options)
                say.say("\(output): would be a \(width)x\(height) thumbnail of \(input); nothing written")
                return
            }
            let thumbnail = try ImageDecoder.thumbnail(contentsOf: input, maxPixelSize: size, options: options)
            try ImageEncoder.write(thumbnail, to: output, as: format, replacingExisting: force)
            let bytes = (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0
            let result = Result(input: input, output: output, width: thumbnail.width, height: thumbnail.height, bytes: bytes)
            if json {
                try printJSON(result)
            } else {
                say.say("\(output): \(result.width)x\(result.height), \(result.bytes) bytes")
            }
        }
    }
}

extension ImageCommand {
    /// `memora image look FILE...`: the faces and the scene the vision models see, as the index sees them.
    struct Look: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "look",
            abstract: "Find the faces in photos (named from their metadata regions), what the scene shows and the text they hold, with the on-device models, and the description Memora composes from them.",
            discussion: "The models are installed by scripts/install-models.sh (MEMORA_MODELS overrides their folder). Boxes are fractions of the upright photo, from its top left.")

        @Argument(help: "The photos.") var files: [String]
        @Flag(help: "Print the result as JSON (faces with their boxes, scores and landmarks; the scene's labels; every line of text read, with its confidence and its least sure character).") var json = false
        @OptionGroup var index: IndexCommand.IndexDatabaseOptions

        func run() throws {
            // The names people confirmed (`memora people name`) when the index exists; none otherwise.
            let names = try? index.openExisting()
            let vision: IndexVision
            do {
                do { vision = try IndexVision.describing() } catch where error.code == .modelMissing {
                    // Models installed before the text reader: faces and the scene, without text.
                    vision = try IndexVision.installed()
                    StandardError.write("note: no text is read: \(error.message)\n")
                }
            } catch { throw PhotoIndexError.vision(error) }
            var described: [DescribedPhoto] = []
            var failures = 0
            for file in files {
                do {
                    let photo = try PhotoFacts.describe(path: file, vision: vision, index: names)
                    described.append(photo)
                    if json { continue }
                    let faces = photo.sight?.faces ?? []
                    let detected = faces.filter(\.isDetected)
                    print("\(file): \(detected.count) face(s) found" + (faces.count > detected.count ? ", \(faces.count - detected.count) more in its metadata" : ""))
                    for face in faces {
                        let box = String(format: "x %.3f y %.3f w %.3f h %.3f", face.x, face.y, face.width, face.height)
                        print("  \(face.name ?? "someone")  \(box)" + (face.confidence.map { String(format: "  score %.2f", $0) } ?? "  (metadata region)"))
                    }
                    if let scene = photo.sight?.scene {
                        print("  scene: " + scene.labels.prefix(3).map { String(format: "%@ %.0f%%", $0.name, $0.probability * 100) }.joined(separator: ", "))
                        let unsaid = photo.facts.detail.map { $0 < PictureDetail.minimumForScene } == true
                        print("  subject: " + (scene.subject.map { String(format: "%@ %.0f%%", $0.noun, $0.probability * 100) }
                                               ?? "none named (no noun reaches \(Int(SceneNouns.minimumProbability * 100))%)")
                              + (unsaid ? String(format: " (not said: detail %.1f, under %.0f)", photo.facts.detail ?? 0, PictureDetail.minimumForScene) : ""))
                    }
                    for line in photo.sight?.text ?? [] {
                        print((line.text.isEmpty ? "  text: (a line seen faintly, not read)" : "  text: \"\(line.text)\"") + String(format: "  %.0f%%  x %.3f y %.3f w %.3f h %.3f", line.confidence * 100, line.x, line.y, line.width, line.height))
                    }
                    if !photo.facts.names.isEmpty { print("  named in its metadata: " + photo.facts.names.joined(separator: ", ")) }
                    print("  description: \(photo.caption)")
                    print("  alt text: \(photo.altText)")
                    if let extended = photo.extendedDescription { print("  extended: \(extended)") }
                } catch {
                    failures += 1
                    StandardError.write("error: \(error)\n")
                }
            }
            if json { try printJSON(described) }
            try ExitStatus.check(failed: failures, done: described.count)
        }
    }
}
