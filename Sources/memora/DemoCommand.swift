import ArgumentParser
import Foundation
import MemoraDemo
import MemoraCore
import MemoraServer
import MemoraSystem
import PhotoVision
import PhotoVisionCore

/// `memora demo`: generates a sample photo library with the real encoders and runs the main
/// job on it (MemoraCore's `DemoJob`): inspect every photo, make upright thumbnails, caption
/// every photo through the queue, index the library and render a memory collage from the
/// index, and encrypt the library into a vault.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Generate a sample photo library and run the main job on it.")

    @Option(help: "The folder to create the sample library and results in.")
    var output = "demo-output"

    @Option(help: "The longest side of the thumbnails, in pixels.")
    var thumbnailSize = 384

    @Flag(help: "Print the summary as JSON.")
    var json = false

    func run() async throws {
        let reporters = ProgressReporters()
        let report = try await DemoJob(output: output, thumbnailSize: thumbnailSize).run { progress in
            reporters.update(progress)
        }
        if json {
            try printJSON(report)
            return
        }
        if report.realPhotos.isEmpty {
            print("(no real photos described: the vision models are not installed; run scripts/install-models.sh)")
        } else {
            print("Real photos described on this device (Memora's face, scene and text models, not a language model; written into each photo's XMP, EXIF and IPTC):")
            for photo in report.realPhotos {
                print("  \(photo.file): \(photo.caption)")
                if photo.altText != photo.caption { print("    alt text: \(photo.altText)") }
            }
        }
        print("Sample library: \(report.library) (\(report.photos.count) files, made with libturbojpeg, libpng and libheif)")
        for photo in report.photos {
            if let error = photo.error {
                print("  \(photo.file): refused: \(error)")
            } else {
                print("  \(photo.file): \(photo.format ?? "?") \(photo.width ?? 0)x\(photo.height ?? 0) -> \(photo.thumbnail ?? "")")
            }
        }
        print("Family album: \(report.library)/family (\(report.albumPhotos) photos, 2017-2025, with dates, places and people in their XMP)")
        print("Index: \(report.index) (\(report.indexed) photos, \(report.indexFailed) unreadable recorded with their error)")
        print("Collage: \(report.collage) (\(report.collageWidth)x\(report.collageHeight), \(report.collagePhotos) photos chosen by quality and date spread, cropped to their 6:5 cells)")
        print("Collage of Ana: \(report.personCollage) (\(report.personCollagePhotos) photos where her face covers more than 15%, with a title line)")
        if report.visionUsed {
            print("Faces and scenes found in the pixels (dlib, MobileNetV2): people " + report.people.map { "\($0.name ?? "unnamed") (\($0.photos) photos)" }.joined(separator: ", ")
                  + "; themes " + (report.themes.isEmpty ? "none" : report.themes.joined(separator: ", ")))
            if let themeCollage = report.themeCollage { print("Theme collage: \(themeCollage) (\(report.themeCollagePhotos) photos)") }
        } else {
            print("(no vision models: faces come from metadata only and there are no themes; run scripts/install-models.sh)")
        }
        print("Try: memora index stats --db \(report.index); memora collage --db \(report.index) --place Porto --out porto.jpg --explain")
        print("Captions: \(report.captioned) photos captioned through the durable queue (caption database \(report.captionDatabase); XMP, EXIF and, where the format has it, IPTC; each write verified):")
        let shown = 10
        for (file, caption) in report.captions.sorted(by: { $0.key < $1.key }).prefix(shown) { print("  \(file): \"\(caption)\"") }
        if report.captions.count > shown { print("  ... and \(report.captions.count - shown) more (memora metadata read -r \(report.library))") }
        for (model, count) in report.captionModels.sorted(by: { $0.key < $1.key }) { print("  model \(model): \(count) photos") }
        if report.usedBasicDescription {
            print("  (the on-device description says only what Memora's own models and the photo's metadata show, not a language model's caption: start Ollama with `ollama pull llava`, or set GEMINI_API_KEY / OPENAI_API_KEY and run `memora caption --mode gemini|gpt`, for richer captions)")
        }
        let vault = report.vault
        print("Vault: \(vault.folder) (\(vault.encrypted) photos encrypted with \(vault.algorithm), key file \(vault.keyFile)); "
            + "verify: \(vault.healthy ? "healthy" : "PROBLEMS"); export round trip: \(vault.exportMatches ? "byte-identical" : "DIFFERENT")")
        let sync = try await SyncDemo.run(folder: output + "/sync")
        print("Sync: a memora-server on \(sync.server) (SQLite in \(output)/sync/server) and two devices:")
        for step in sync.steps { print("  \(step)") }
        print("  phone: \(sync.placesPerDevice[0].joined(separator: ", ")); laptop: \(sync.placesPerDevice[1].joined(separator: ", ")); "
              + (sync.converged ? "identical to the server" : "DIFFERENT from the server"))
        // The Memory Palace hub: the astronaut photo the models script installs (a real face), else the album's first photo.
        let astronaut = VisionModels.installed.folder + "/fixtures/astronaut.png"
        let photo = FileManager.default.fileExists(atPath: astronaut) ? astronaut : report.library + "/family/" + ((try? FileManager.default.contentsOfDirectory(atPath: report.library + "/family"))?.sorted().first { $0.hasSuffix(".jpg") } ?? "")
        let palace = try await HubDemo.run(folder: output + "/hub", photo: photo, faceAnalyzer: try? DlibFaceAnalyzer())
        print("Memory Palace: a hub on \(palace.hub) (SQLite in \(output)/hub/hub) and a collector device:")
        for step in palace.steps { print("  \(step)") }
        print("  dashboard: " + (palace.screenshot.map { "screenshot \($0)" } ?? (palace.screenshotNote ?? "no screenshot")))
        if let page = palace.memoryScreenshot { print("  a memory's page with its player: screenshot \(page)") }
        print(String(format: "Done in %.2f s.", report.seconds))
    }
}

/// One progress display per stage of the demo.
private final class ProgressReporters: Sendable {
    private let reporters = Locked<[String: ProgressReporter]>([:])

    func update(_ progress: DemoJob.Progress) {
        reporters.withLock { reporters in
            let reporter = reporters[progress.stage] ?? ProgressReporter(title: progress.stage, total: progress.total)
            reporters[progress.stage] = reporter
            reporter.update(completed: progress.completed, item: progress.item)
        }
    }
}
