import ArgumentParser
import Foundation
import MemoraSystem
import ImageKit
import MemoraCore
import PhotoIndex
import MetadataKit
import VaultCrypto

/// `memora demo`: generates a sample photo library with the real encoders and
/// runs the main job on it: inspect every photo, make upright thumbnails,
/// caption every photo through the queue, index the library and render a memory
/// collage from the index, and encrypt the library into a vault.
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

    /// What the demo did, for `--json`.
    struct Summary: Encodable {
        var library: String
        var photos: [PhotoResult]
        var collage: String
        var collageWidth: Int
        var collageHeight: Int
        var indexed: Int
        var captioned: Int
        var captions: [String: String]
        var captionModels: [String: Int]
        var vault: VaultResult
        var seconds: Double
    }

    /// The vault part of the demo.
    struct VaultResult: Encodable {
        var folder: String
        var keyFile: String
        var encrypted: Int
        var healthy: Bool
        var exportMatches: Bool
        var algorithm: String
    }

    /// One photo of the demo.
    struct PhotoResult: Encodable {
        var file: String
        var format: String?
        var width: Int?
        var height: Int?
        var thumbnail: String?
        var error: String?
    }

    func run() async throws {
        let start = Date()
        let library = output + "/library"
        let thumbnails = output + "/thumbnails"
        for folder in [library, thumbnails] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        let files = try SampleLibrary.generate(in: library)

        let progress = ProgressReporter(title: "thumbnails", total: files.count)
        var results: [PhotoResult] = []
        for (index, file) in files.enumerated() {
            let path = library + "/" + file
            var result = PhotoResult(file: file)
            do throws(ImageError) {
                let info = try ImageDecoder.info(contentsOf: path)
                result.format = info.format.displayName
                result.width = info.uprightWidth
                result.height = info.uprightHeight
                let thumbnail = try ImageDecoder.thumbnail(
                    contentsOf: path, maxPixelSize: thumbnailSize, options: DecodingOptions(applyOrientation: true))
                let name = thumbnails + "/" + (file as NSString).deletingPathExtension + ".jpg"
                try ImageEncoder.write(thumbnail, to: name, as: .jpeg())
                result.thumbnail = name
            } catch {
                result.error = error.reason  // the file is named beside it
            }
            results.append(result)
            progress.update(completed: index + 1, item: file)
        }

        let captioning = try await captionLibrary(library: library)

        // The library indexed, and a memory collage chosen and rendered from the index.
        let indexPath = output + "/index.sqlite"
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: indexPath + suffix) }
        let index = try PhotoIndexDatabase(path: indexPath)
        let indexed = try await PhotoIndexer(database: index).index(DirectoryPhotoLibrary(root: library))
        let selection = try CollageSelector(database: index).select(CollageRequest(source: .everything, count: 6, seed: 0))
        let collage = try await CollageRenderer.render(selection, layout: .grid2x3)
        let collagePath = output + "/collage.jpg"
        try AtomicFileWriter.write(collage.jpeg, to: collagePath)
        let vaultResult = try encryptIntoVault(files: files, library: library)

        let summary = Summary(
            library: library, photos: results, collage: collagePath,
            collageWidth: collage.image.width, collageHeight: collage.image.height, indexed: indexed.indexed,
            captioned: captioning.summary.captioned + captioning.summary.recovered, captions: captioning.captions,
            captionModels: captioning.summary.models, vault: vaultResult, seconds: Date().timeIntervalSince(start))
        if json {
            try printJSON(summary)
            return
        }
        print("Sample library: \(library) (\(files.count) files, made with libturbojpeg, libpng and libheif)")
        for photo in results {
            if let error = photo.error {
                print("  \(photo.file): refused: \(error)")
            } else {
                print("  \(photo.file): \(photo.format ?? "?") \(photo.width ?? 0)x\(photo.height ?? 0) -> \(photo.thumbnail ?? "")")
            }
        }
        print("Index: \(indexPath) (\(indexed.indexed) photos, \(indexed.failed) unreadable recorded with their error)")
        print("Collage: \(collagePath) (\(collage.image.width)x\(collage.image.height), \(collage.cells.count) photos chosen by quality and date spread, cropped to their 6:5 cells)")
        print("Captions: \(summary.captioned) photos captioned through the durable queue (caption database \(output)/memora.sqlite; XMP, EXIF and, where the format has it, IPTC; each write verified):")
        for (file, caption) in summary.captions.sorted(by: { $0.key < $1.key }) { print("  \(file): \"\(caption)\"") }
        for (model, count) in summary.captionModels.sorted(by: { $0.key < $1.key }) { print("  model \(model): \(count) photos") }
        if summary.captionModels.keys.contains("basic:basic-description") {
            print("  (the basic description is measured by Memora, not an AI model: start Ollama with `ollama pull llava`, or set GEMINI_API_KEY / OPENAI_API_KEY and run `memora caption --mode gemini|gpt`, for real captions)")
        }
        print("Vault: \(vaultResult.folder) (\(vaultResult.encrypted) photos encrypted with \(vaultResult.algorithm), key file \(vaultResult.keyFile)); "
            + "verify: \(vaultResult.healthy ? "healthy" : "PROBLEMS"); export round trip: \(vaultResult.exportMatches ? "byte-identical" : "DIFFERENT")")
        print(String(format: "Done in %.2f s.", summary.seconds))
    }
}

extension DemoCommand {
    /// The main job on the sample library: every photo goes through the durable queue,
    /// the model selector (on-device: Ollama when it runs, else the basic description),
    /// MetadataKit's verified write and the audit trail, in a database beside the library.
    func captionLibrary(library: String) async throws -> (summary: CaptionScheduler.Summary, captions: [String: String]) {
        let databasePath = output + "/memora.sqlite"
        for suffix in ["", "-wal", "-shm", ".worker-lock"] { try? FileManager.default.removeItem(atPath: databasePath + suffix) }
        let database = try CaptionDatabase(path: databasePath)
        let job = CaptionJob(database: database, models: .configured(CaptionConfiguration(mode: .onDevice)),
                             ignoresConstraints: true, maxWait: 0)
        let report = try await job.run(paths: [library])
        var captions: [String: String] = [:]
        for item in try ProcessingQueue(database: database).items(status: .completed) {
            if let caption = item.caption { captions[(item.assetURI as NSString).lastPathComponent] = caption }
        }
        return (report.summary, captions)
    }

    /// Encrypts the sample photos into a fresh vault (its key file kept beside it, for the
    /// demo only), verifies it, and checks that an export is byte-identical to the original.
    func encryptIntoVault(files: [String], library: String) throws -> VaultResult {
        let folder = output + "/vault"
        let keyFile = output + "/keys/vault.key"
        try? FileManager.default.removeItem(atPath: folder)
        try? FileManager.default.removeItem(atPath: keyFile)
        try FileManager.default.createDirectory(atPath: output + "/keys", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let vault = try Vault.create(at: folder, keyStore: FileKeyStore(path: keyFile))
        let progress = ProgressReporter(title: "vault", total: files.count)
        var added: [(VaultPhoto, String)] = []
        let paths = files.map { library + "/" + $0 }
        for (path, result) in zip(paths, VaultImport(thumbnailSize: 256).add(paths, to: vault, onProgress: { completed, path in
            progress.update(completed: completed, item: (path as NSString).lastPathComponent)
        })) {
            added.append((try result.get().photo, path))
        }
        let report = try vault.verify()
        var matches = false
        if let (photo, original) = added.first {
            let exported = output + "/exported-" + photo.originalFilename
            try vault.export(photo.id, to: exported)
            matches = FileManager.default.contentsEqual(atPath: exported, andPath: original)
            try? FileManager.default.removeItem(atPath: exported)
        }
        return VaultResult(
            folder: folder, keyFile: keyFile, encrypted: added.count, healthy: report.isHealthy,
            exportMatches: matches, algorithm: AEADAlgorithm.preferred.description)
    }
}

/// The demo's sample photos: every format and variant ImageKit reads, plus two
/// broken files to show that bad input is refused with a clear message.
enum SampleLibrary {
    /// Writes the samples into `folder` and returns their file names.
    static func generate(in folder: String) throws -> [String] {
        var names: [String] = []
        func save(_ name: String, _ image: Image, _ format: EncodingFormat) throws {
            try ImageEncoder.write(image, to: folder + "/" + name, as: format)
            names.append(name)
        }
        try save("beach-baseline.jpg", SyntheticPhoto.landscape(width: 4000, height: 3000, seed: 1), .jpeg())
        try save("hills-progressive.jpg", SyntheticPhoto.landscape(width: 3000, height: 2000, seed: 2), .jpeg(JPEGEncodingOptions(progressive: true)))
        try save("portrait.jpg", SyntheticPhoto.landscape(width: 1500, height: 2000, seed: 3), .jpeg())
        try save("grayscale.jpg", SyntheticPhoto.landscape(width: 1600, height: 1200, seed: 4), .jpeg(JPEGEncodingOptions(colorModel: .grayscale)))
        try save("print-cmyk.jpg", SyntheticPhoto.landscape(width: 1200, height: 900, seed: 5), .jpeg(JPEGEncodingOptions(colorModel: .cmyk)))
        try save("screenshot.png", SyntheticPhoto.landscape(width: 1280, height: 800, seed: 6), .png())
        if ImageEncoder.canEncodeHEIF(.hevc) {
            try save("phone.heic", SyntheticPhoto.landscape(width: 1024, height: 768, seed: 7), .heif())
        }
        if ImageEncoder.canEncodeHEIF(.av1) {
            try save("web.avif", SyntheticPhoto.landscape(width: 800, height: 600, seed: 8), .heif(HEIFEncodingOptions(codec: .av1)))
        }
        // A JPEG cut off in the middle, as after an interrupted copy, and a text file.
        let full = try ImageEncoder.encode(SyntheticPhoto.landscape(width: 800, height: 600, seed: 9), as: .jpeg())
        try Data(full.prefix(full.count / 2)).write(to: URL(fileURLWithPath: folder + "/interrupted-copy.jpg"))
        names.append("interrupted-copy.jpg")
        try Data("not a photo\n".utf8).write(to: URL(fileURLWithPath: folder + "/notes.jpg"))
        names.append("notes.jpg")
        return names
    }
}
