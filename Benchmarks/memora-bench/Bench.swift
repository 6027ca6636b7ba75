import Foundation
import ImageKit

/// `memora-bench`: each scenario prints our figure, a peer's figure measured in
/// the same run on the same files, and the ratio. Figures are medians over
/// rounds that alternate ours and the peer's, because the machines are shared.
@main
struct Bench {
    struct Settings {
        var python = "python3"
        var peerScript = "scripts/pillow_peer.py"
        var files = 6
        var rounds = 5
        var thumbnailSize = 384
        var width = 4000
        var height = 3000
        var only: String?
        var megabytes = 256
        var metadataFiles = 200
        /// JPEGs whose EXIF blocks the libexif/libexiv2 comparison uses instead of the generated ones (real camera EXIF).
        var exifDirectory: String?
        var captionFiles = 1000
        var indexFiles = 2000
        var indexRows = 100_000
        var dbscanPoints = 20_000
        var facePoints = 50_000
        var uploadMegabytes = 1024
        var hubMemories = 100_000
        /// Photos the OCR scenario reads too (every JPEG in the folder).
        var ocrDirectory: String?
        /// The Python with rapidocr 3.10.0 for the OCR scenario's peer.
        var ocrPython = "python3"
        var ocrPeerScript = "scripts/bench-ocr-peer.py"
    }

    static func main() async {
        do {
            try await run()
        } catch {
            FileHandle.standardError.write(Data("memora-bench: \(error)\n".utf8))
            exit(1)
        }
    }

    static func run() async throws {
        let arguments = CommandLine.arguments
        if arguments.count == 2 && arguments[1] == "--model-server" {
            try await CaptionBench.serveModel()
            return
        }
        if arguments.count == 4 && arguments[1] == "--dbscan-faces" {
            try DBSCANBench.facesChild(count: Int(arguments[2]) ?? 50_000, withGroups: arguments[3] == "groups")
            return
        }
        if arguments.count == 3 && arguments[1] == "--people-cluster" {
            try PeopleBench.clusterChild(path: arguments[2])
            return
        }
        if arguments.count >= 3 && arguments[1] == "--sync-server" {
            try await SyncBench.serve(folder: arguments[2], database: arguments.count > 3 ? arguments[3] : nil)
            return
        }
        if arguments.count == 2 && arguments[1] == "--bare-server" {
            try await SyncBench.serveBare()
            return
        }
        let settings = try parse(arguments.dropFirst())
        if settings.only == nil || settings.only == "image" {
            try imageScenarios(settings)
        }
        if settings.only == nil || settings.only == "metadata" {
            try MetadataBench.run(count: settings.metadataFiles, exifDirectory: settings.exifDirectory)
        }
        if settings.only == nil || settings.only == "metadata" || settings.only == "heic" {
            try MetadataBench.runHEIC(count: min(settings.metadataFiles, 100))
        }
        if settings.only == nil || settings.only == "index" {
            try await CollageBench.run(settings)
        }
        if settings.only == nil || settings.only == "caption" {
            try await CaptionBench.run(count: settings.captionFiles)
        }
        if settings.only == nil || settings.only == "vault" {
            try VaultBench.inMemory(megabytes: settings.megabytes, rounds: settings.rounds)
        }
        if settings.only == nil || settings.only == "vault" || settings.only == "vault-files" {
            try VaultBench.files(megabytes: settings.megabytes, rounds: 3)
        }
        if settings.only == nil || settings.only == "memory" {
            try MemoryBench.run()
        }
        if settings.only == nil || settings.only == "dbscan" {
            try DBSCANBench.run(settings)
        }
        if settings.only == nil || settings.only == "vision" {
            try await VisionBench.run(settings)
        }
        if settings.only == nil || settings.only == "people" {
            try PeopleBench.run(settings)
        }
        if settings.only == nil || settings.only == "sync" {
            try await SyncBench.run(settings)
        }
        if settings.only == nil || settings.only == "fleet" {
            try await FleetBench.run(settings)
        }
        if settings.only == nil || settings.only == "hub" {
            try await HubBench.run(settings)
        }
        if settings.only == nil || settings.only == "describe" {
            try await DescriptionBench.run(settings)
        }
    }

    static func imageScenarios(_ settings: Settings) throws {
        let folder = NSTemporaryDirectory() + "memora-bench-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }

        print("memora-bench: \(settings.files) synthetic \(settings.width)x\(settings.height) JPEGs (\(settings.width * settings.height / 1_000_000) MP, quality 0.9, 4:2:0), \(settings.rounds) rounds, median shown")
        var paths: [String] = []
        for index in 0..<settings.files {
            let photo = try SyntheticPhoto.landscape(width: settings.width, height: settings.height, seed: UInt64(index + 1))
            let path = folder + "/photo-\(index).jpg"
            try ImageEncoder.write(photo, to: path, as: .jpeg(JPEGEncodingOptions(quality: 0.9)))
            paths.append(path)
        }
        let totalBytes = try paths.reduce(0) { $0 + (try FileManager.default.attributesOfItem(atPath: $1)[.size] as? Int ?? 0) }
        print("  files: \(totalBytes / paths.count / 1024) KiB each on average\n")

        try thumbnailScenario(paths: paths, settings: settings)
        try fullDecodeScenario(paths: paths, settings: settings)
    }

    /// Scenario 1: a thumbnail (long side 384) from each file, against Pillow's draft() + resize().
    static func thumbnailScenario(paths: [String], settings: Settings) throws {
        _ = try ImageDecoder.thumbnail(contentsOf: paths[0], maxPixelSize: settings.thumbnailSize)  // warm-up
        // The floor: libjpeg-turbo's own DCT-scaled decode, which both sides pay.
        let files = try paths.map { path in [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }
        let turbo = RawPeers.TurboJPEG()
        let header = try ImageDecoder.info(of: files[0])
        let denominator = Int(JPEGScale.fitting(width: header.width, height: header.height, longSide: settings.thumbnailSize).rawValue)
        var ours: [Double] = [], peer: [Double] = [], floor: [Double] = []
        for _ in 0..<settings.rounds {
            ours.append(try seconds {
                for path in paths { _ = try ImageDecoder.thumbnail(contentsOf: path, maxPixelSize: settings.thumbnailSize) }
            })
            peer.append(try runPillow(paths: paths, settings: settings))
            floor.append(try seconds {
                for file in files {
                    precondition(turbo.decodeScaled(file, denominator: denominator), "raw libturbojpeg failed")
                }
            })
        }
        report(
            title: "1. \(settings.thumbnailSize)-px thumbnail of a 12 MP JPEG (DCT-scaled decode + Lanczos-3)",
            ours: ours, oursName: "ImageKit", peer: peer, peerName: "Pillow draft()+resize(LANCZOS)",
            count: paths.count, ratioName: "speed-up (Pillow time / ours)", ratio: median(peer) / median(ours),
            target: "target >= 1.30", passed: median(peer) / median(ours) >= 1.3)
        print(String(
            format: "   floor %7.2f ms/image  raw libturbojpeg 1/%d-scale decode alone (both sides pay it); best possible speed-up: %.2fx\n",
            median(floor) * 1000 / Double(files.count), denominator, median(peer) / median(floor)))
    }

    /// Scenario 2: a full-size decode of each file to RGB, against raw libturbojpeg
    /// called from C. The peer reads the header and decodes into a freshly
    /// allocated buffer, the same work as any decoder that returns a new image;
    /// the absolute limit (decoding into one reused buffer) is printed too.
    static func fullDecodeScenario(paths: [String], settings: Settings) throws {
        let files = try paths.map { path in [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }
        let turbo = RawPeers.TurboJPEG()
        var buffer = [UInt8](repeating: 0, count: settings.width * settings.height * 3)
        _ = try ImageDecoder.decode(files[0])  // warm-up
        var ours: [Double] = [], raw: [Double] = [], reused: [Double] = []
        for _ in 0..<settings.rounds {
            ours.append(try seconds {
                for file in files { _ = try ImageDecoder.decode(file) }
            })
            raw.append(try seconds {
                for file in files {
                    precondition(turbo.decodeIntoNewBuffer(file), "raw libturbojpeg failed")
                }
            })
            reused.append(try seconds {
                for file in files {
                    precondition(turbo.decode(file, into: &buffer, width: settings.width, height: settings.height), "raw libturbojpeg failed")
                }
            })
        }
        let ratio = median(ours) / median(raw)
        report(
            title: "2. full decode of a 12 MP JPEG to RGB",
            ours: ours, oursName: "ImageKit (returns a new Image)", peer: raw, peerName: "raw libturbojpeg from C, new buffer per image",
            count: files.count, ratioName: "overhead (ours / raw)", ratio: ratio,
            target: "target <= 1.10", passed: ratio <= 1.10)
        print(String(
            format: "   limit %7.2f ms/image  raw libturbojpeg into one reused buffer (no page faults); ours / limit: %.2fx\n",
            median(reused) * 1000 / Double(files.count), median(ours) / median(reused)))
    }

    static func runPillow(paths: [String], settings: Settings) throws -> Double {
        try runPython(settings.peerScript, [String(settings.thumbnailSize)] + paths, settings: settings)
    }

    /// Runs a Python peer script that prints the seconds it measured.
    static func runPython(_ script: String, _ arguments: [String], settings: Settings,
                          missing: String = "is Pillow installed for the Python of --python?") throws -> Double {
        let lines = try python([script] + arguments, settings: settings)
        guard let lines, let value = lines.first.flatMap({ Double($0) }) else {
            throw BenchError("the peer \(script) failed; \(missing) (\(settings.python))")
        }
        return value
    }

    /// The lines `settings.python` prints when run with `arguments`, or nil when it fails: every
    /// Python peer and probe of the bench runs through here. A probe (`quiet`) discards its errors.
    static func python(_ arguments: [String], settings: Settings, quiet: Bool = false) throws -> [String]? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [settings.python] + arguments
        let output = Pipe()
        process.standardOutput = output
        if quiet { process.standardError = FileHandle.nullDevice }
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    static func report(
        title: String, ours: [Double], oursName: String, peer: [Double], peerName: String,
        count: Int, ratioName: String, ratio: Double, target: String, passed: Bool
    ) {
        func perImage(_ values: [Double]) -> String { String(format: "%7.2f ms/image", median(values) * 1000 / Double(count)) }
        print(title)
        print("   ours  \(perImage(ours))  \(oursName)")
        print("   peer  \(perImage(peer))  \(peerName)")
        print(String(format: "   %@: %.2fx  (%@: %@)\n", ratioName, ratio, target, passed ? "met" : "NOT met"))
    }

    static func seconds(measuring body: () async throws -> Void) async throws -> Double {
        let start = ContinuousClock.now
        try await body()
        return seconds(ContinuousClock.now - start)
    }

    static func seconds(_ body: () throws -> Void) throws -> Double {
        let start = ContinuousClock.now
        try body()
        return seconds(ContinuousClock.now - start)
    }

    /// A duration in seconds.
    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    static func parse(_ arguments: ArraySlice<String>) throws -> Settings {
        var settings = Settings()
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            guard let value = iterator.next() else { throw BenchError("\(argument) needs a value") }
            switch argument {
            case "--python": settings.python = value
            case "--peer-script": settings.peerScript = value
            case "--files": settings.files = Int(value) ?? settings.files
            case "--rounds": settings.rounds = Int(value) ?? settings.rounds
            case "--only": settings.only = value
            case "--megabytes": settings.megabytes = Int(value) ?? settings.megabytes
            case "--metadata-files": settings.metadataFiles = Int(value) ?? settings.metadataFiles
            case "--exif-dir": settings.exifDirectory = value
            case "--caption-files": settings.captionFiles = Int(value) ?? settings.captionFiles
            case "--index-files": settings.indexFiles = Int(value) ?? settings.indexFiles
            case "--index-rows": settings.indexRows = Int(value) ?? settings.indexRows
            case "--dbscan-points": settings.dbscanPoints = Int(value) ?? settings.dbscanPoints
            case "--face-points": settings.facePoints = Int(value) ?? settings.facePoints
            case "--hub-memories": settings.hubMemories = max(1000, Int(value) ?? settings.hubMemories)
            case "--ocr-dir": settings.ocrDirectory = value
            case "--ocr-python": settings.ocrPython = value
            case "--upload-megabytes": settings.uploadMegabytes = max(8, Int(value) ?? settings.uploadMegabytes)
            default: throw BenchError("unknown option \(argument); options: --python, --peer-script, --files, --rounds, --only image|metadata|heic|index|caption|vault|vault-files|memory|dbscan|people|vision|sync|fleet|hub|describe, --ocr-dir, --ocr-python, --megabytes, --metadata-files, --exif-dir, --caption-files, --index-files, --index-rows, --dbscan-points, --face-points, --upload-megabytes, --hub-memories")
            }
        }
        return settings
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
