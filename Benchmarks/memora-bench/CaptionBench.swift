import Foundation
import ImageKit
import MemoraCore
import MemoraTesting
import MetadataKit

/// Scenario 7: the captioning pipeline's own overhead per photo, with an instant
/// loopback model (Ollama wire format): preparing the image, the HTTP round trip, the
/// queue, writing and verifying the metadata, the history. Against the limit measured
/// in the same run on copies of the same files: the reduced decode the preparation
/// needs plus a copy of the file with fsync and rename (what any safe in-place write costs).
enum CaptionBench {
    /// `memora-bench --model-server`: an instant loopback Ollama model; prints its URL, serves until stdin closes.
    static func serveModel() async throws {
        let server = LoopbackModelServer(flavor: .ollama, defaultReply: .caption("A red kite flies above a green hill under a blue sky."))
        let url = try await server.start()
        FileHandle.standardOutput.write(Data((url.absoluteString + "\n").utf8))
        while FileHandle.standardInput.availableData.count > 0 {}
        await server.stop()
    }

    /// Starts `serveModel` in a child process and returns it with the model's URL.
    static func startModelProcess() throws -> (Process, URL) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["--model-server"]
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = Pipe()
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw BenchError("the model process ended before it listened") }
            line += chunk
        }
        guard let url = URL(string: String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw BenchError("the model process printed no URL")
        }
        return (process, url)
    }

    /// User plus system CPU time of this process so far, in seconds.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1_000_000
    }

    static func run(count: Int) async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/exiftool") else {
            print("7. captioning pipeline: skipped (install Debian's libimage-exiftool-perl for the camera fixtures)\n")
            return
        }
        let folder = NSTemporaryDirectory() + "memora-bench-caption-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder + "/photos", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder + "/limit", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let sources = try MetadataBench.cameraSources(in: folder, count: min(count, 8), quality: 0.96)
        let averageMB = Double(sources.reduce(0) { $0 + $1.count }) / Double(sources.count) / 1_048_576
        var photos: [String] = []
        var limitCopies: [String] = []
        for index in 0..<count {
            let bytes = Data(sources[index % sources.count])
            photos.append(folder + "/photos/photo-\(index).jpg")
            limitCopies.append(folder + "/limit/photo-\(index).jpg")
            try bytes.write(to: URL(fileURLWithPath: photos[index]))
            try bytes.write(to: URL(fileURLWithPath: limitCopies[index]))
        }

        // Flush the fixtures now, so their writeback does not slow the fsyncs being measured.
        sync()
        // The model runs in a child process, so its CPU time is not counted as ours.
        let (server, url) = try startModelProcess()
        defer { server.terminate() }
        let database = try CaptionDatabase(path: folder + "/bench.sqlite")
        let selector = ModelSelector(mode: .onDevice, local: [OllamaCaptionGenerator(endpoint: url, model: "llava")], basic: nil)
        // The job users run (`memora caption`): worker lock, crash recovery, scan, scheduler.
        let job = CaptionJob(database: database, models: .selector(selector), monitor: ControllableConstraintMonitor())
        let start = Date()
        let cpuStart = cpuSeconds()
        let report = try await job.run(paths: [folder + "/photos"])
        let (scan, summary) = (report.scan, report.summary)
        let total = Date().timeIntervalSince(start)
        let cpuTotal = cpuSeconds() - cpuStart
        guard summary.captioned == count, scan.queued == count else {
            throw BenchError("the pipeline captioned \(summary.captioned) of \(count) photos (\(summary.failed) failed)")
        }

        // The limit: the decode the preparation needs, and a safe whole-file rewrite.
        sync()
        let cpuLimitStart = cpuSeconds()
        let decodeLimit = try Bench.seconds {
            for path in limitCopies {
                _ = try ImageDecoder.thumbnail(contentsOf: path, maxPixelSize: PreparationProfile.onDevice.longSide, options: DecodingOptions(applyOrientation: true))
            }
        }
        let rewriteLimit = try Bench.seconds {
            for path in limitCopies {
                let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
                let temporary = path + ".tmp"
                let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
                _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
                fsync(descriptor)
                close(descriptor)
                rename(temporary, path)
            }
        }
        let limit = decodeLimit + rewriteLimit
        let cpuLimit = cpuSeconds() - cpuLimitStart
        // Where the time goes, stage by stage, on a sample of the captioned photos.
        let sample = Array(photos.prefix(min(count, 50)))
        let generator = OllamaCaptionGenerator(endpoint: url, model: "llava")
        var cpuByStage: [String] = []
        func perSample(_ name: String, _ body: (String) async throws -> Void) async throws -> Double {
            let begin = Date()
            let cpuBegin = cpuSeconds()
            for path in sample { try await body(path) }
            cpuByStage.append(String(format: "%@ %.1f", name, (cpuSeconds() - cpuBegin) * 1000 / Double(sample.count)))
            return Date().timeIntervalSince(begin) * 1000 / Double(sample.count)
        }
        let read = try await perSample("metadata read") { _ = try MetadataReader.read(contentsOf: $0) }
        let prepare = try await perSample("image preparation") { _ = try ImagePreparer.prepare(path: $0, profile: .onDevice) }
        let model = try await perSample("preparation + model round trip") { _ = try await generator.generateCaption(for: CaptionRequest(path: $0)) } - prepare
        let captionWrite = try await perSample("caption write + verify") { try CaptionWriter.write(CaptionUpdate(caption: "Another caption for \($0).", altText: "Another."), to: $0) }
        let scratch = try CaptionDatabase(path: folder + "/scratch.sqlite")
        let queue = ProcessingQueue(database: scratch)
        let transactions = try await perSample("queue transactions") { path in
            try queue.enqueue(path: path)
            let item = try queue.claimNext()!
            try queue.recordIntent(item.id, caption: GeneratedCaption(description: "x", altText: "x", model: generator.modelInfo, rawText: "x"))
            try queue.skip(item.id, reason: "bench", tag: "bench")
        }
        let perPhoto = total * 1000 / Double(count)
        let limitPerPhoto = limit * 1000 / Double(count)
        let overhead = perPhoto - limitPerPhoto
        print(String(format: "7. captioning pipeline on %d JPEGs of %.1f MB with an instant loopback model (Ollama wire format, in a child process)", count, averageMB))
        print(String(format: "   %.1f ms/photo (%.1f photos/s); the limit (reduced decode + copy, fsync, rename) %.1f ms/photo",
                     perPhoto, 1000 / perPhoto, limitPerPhoto))
        print(String(format: "   limit: reduced decode %.1f ms + copy, fsync, rename %.1f ms",
                     decodeLimit * 1000 / Double(count), rewriteLimit * 1000 / Double(count)))
        print(String(format: "   stages: metadata read %.1f ms, image preparation %.1f ms, model round trip %.1f ms, caption write + verify %.1f ms, queue transactions %.1f ms",
                     read, prepare, model, captionWrite, transactions))
        print("   CPU ms per stage: " + cpuByStage.joined(separator: ", "))
        print(String(format: "   wall time above the limit %.1f ms/photo, %.0f%% of the total", overhead, 100 * overhead / perPhoto))
        let cpuPerPhoto = cpuTotal * 1000 / Double(count), cpuLimitPerPhoto = cpuLimit * 1000 / Double(count)
        let cpuOverhead = cpuPerPhoto - cpuLimitPerPhoto
        print(String(format: "   CPU time %.1f ms/photo, the limit's %.1f ms/photo: our own CPU time %.1f ms/photo, %.0f%% of the total (target < 10 ms: %@)\n",
                     cpuPerPhoto, cpuLimitPerPhoto, cpuOverhead, 100 * cpuOverhead / cpuPerPhoto, cpuOverhead < 10 ? "met" : "NOT met"))
    }
}
