import Foundation
import MemoraDemo
import ImageKit
import MemoraCore
import PhotoIndex
import PhotoVision
import PhotoVisionCore

/// The vision scenario of memora-bench (`--only vision`):
/// 16. indexing with vision on the demo's family album (30 photos of 1600x1200 with a real face in
///     a dozen, from the installed astronaut photo): photos per second with and without vision on
///     every core; then, on one core, the vision part of our per-photo time (indexing with vision
///     minus without) over the models' own time (faces and scene on the same decoded pixels,
///     measured in the same run: the limit, target at most 1.15x); and the peak memory of indexing
///     with the models loaded.
enum VisionBench {
    static func run(_ settings: Bench.Settings) async throws {
        print("\n16. indexing with vision (dlib faces + MobileNetV2 scenes), the demo's family album")
        guard let sample = DemoJob.faceSample() else {
            print("   skipped: the vision models are not installed (scripts/install-models.sh)")
            return
        }
        let folder = NSTemporaryDirectory() + "memora-bench-vision-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let names = try SampleFamilyAlbum.generate(in: folder + "/album", face: sample)
        let vision = try IndexVision.installed()
        let count = names.count

        func index(vision: IndexVision?, concurrency: Int) async throws -> Double {
            let path = folder + "/index-\(UUID().uuidString).sqlite"
            let database = try PhotoIndexDatabase(path: path)
            let start = ContinuousClock.now
            _ = try await PhotoIndexer(database: database, vision: vision, concurrency: concurrency).index(DirectoryPhotoLibrary(root: folder + "/album"))
            return Bench.seconds(ContinuousClock.now - start)
        }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        var with: [Double] = [], without: [Double] = []
        for _ in 0..<max(1, settings.rounds) {
            without.append(try await index(vision: nil, concurrency: cores))
            with.append(try await index(vision: vision, concurrency: cores))
        }
        print(String(format: "   %d photos on %d cores: %.1f photos/s with vision (%.2f s), %.1f without (%.2f s)",
                     count, cores, Double(count) / with.min()!, with.min()!, Double(count) / without.min()!, without.min()!))

        // One core: the vision part of indexing against the models on the same decoded pixels.
        let images = try names.map { name in
            try ImageDecoder.thumbnail(contentsOf: folder + "/album/" + name, maxPixelSize: vision.longestSide,
                                       options: DecodingOptions(applyOrientation: true))
        }
        var models: [Double] = [], withOne: [Double] = [], withoutOne: [Double] = []
        for _ in 0..<max(1, settings.rounds) {
            models.append(try Bench.seconds {
                for image in images {
                    _ = try vision.faces?.faces(in: image)
                    _ = try vision.scenes?.analyze(image)
                }
            })
            withoutOne.append(try await index(vision: nil, concurrency: 1))
            withOne.append(try await index(vision: vision, concurrency: 1))
        }
        let visionPart = withOne.min()! - withoutOne.min()!
        print(String(format: "   one core: the models alone %.1f ms a photo; indexing adds %.1f ms a photo for vision (the 1600-px decode included): %.2fx the models (target <= 1.15x)",
                     models.min()! * 1000 / Double(count), visionPart * 1000 / Double(count), visionPart / models.min()!))
        print(String(format: "   peak memory of this process (models loaded, indexing on every core): %.0f MiB", DBSCANBench.memory("VmHWM")))
        try facesAgainstPython(images, folder: folder, settings: settings)
    }

    /// 17. faces (detection, landmarks, embeddings) on the same decoded pixels: our DlibFaceAnalyzer
    /// against dlib's Python binding running the same pipeline (scripts/bench-dlib-peer.py), one
    /// photo at a time on each side, BLAS on every core on each side; ours also splits each photo's
    /// HOG scan across the cores (dlib's own detector runs on one thread), and the same pipeline with
    /// the scan on one thread is shown beside it; target: ours at least 1.5x faster.
    static func facesAgainstPython(_ images: [Image], folder: String, settings: Bench.Settings) throws {
        print("\n17. faces on the same decoded pixels (\(images.count) photos of 1600x1200): ours against dlib's Python binding")
        let script = (settings.peerScript as NSString).deletingLastPathComponent + "/bench-dlib-peer.py"
        var arguments = [VisionModels.installed.folder, "0"]
        for (index, image) in images.enumerated() {
            let path = folder + "/pixels-\(index).rgb"
            try Data(image.pixels).write(to: URL(fileURLWithPath: path))
            arguments += [path, "\(image.width)", "\(image.height)"]
        }
        guard try Bench.python(["-c", "import dlib"], settings: settings, quiet: true) != nil else {
            print("   skipped: \(settings.python) has no dlib (pip install dlib==19.24.2 builds it from source; then --python that interpreter)")
            return
        }
        DlibFaceAnalyzer.setMatrixThreads(ProcessInfo.processInfo.activeProcessorCount)
        let analyzer = try DlibFaceAnalyzer(options: DlibFaceAnalyzer.Options(upsampleBelow: 0, smallFace: 0))
        let oneThread = try DlibFaceAnalyzer(options: DlibFaceAnalyzer.Options(upsampleBelow: 0, smallFace: 0, scanThreads: 1))
        _ = try analyzer.faces(in: images[0])  // warm-up, as the peer does
        _ = try oneThread.faces(in: images[0])
        var ours: [Double] = [], peer: [Double] = [], ourOneThread: [Double] = []
        var ourCounts: [Int] = [], peerCounts: [Int] = []
        for _ in 0..<max(1, settings.rounds) {
            ours.append(try Bench.seconds { ourCounts = try images.map { try analyzer.faces(in: $0).count } })
            ourOneThread.append(try Bench.seconds { _ = try images.map { try oneThread.faces(in: $0).count } })
            guard let lines = try Bench.python([script] + arguments, settings: settings), let seconds = lines.first.flatMap({ Double($0) }) else {
                throw BenchError("the dlib peer \(script) failed (\(settings.python))")
            }
            peer.append(seconds)
            peerCounts = lines.dropFirst().compactMap { Int($0) }
        }
        let ratio = Bench.median(peer) / Bench.median(ours)
        Bench.report(title: "", ours: ours, oursName: "DlibFaceAnalyzer (HOG scan on every core, 5 landmarks, ResNet embeddings)", peer: peer,
                     peerName: "dlib's Python binding, the same models and steps", count: images.count,
                     ratioName: "speed-up (peer time / ours)", ratio: ratio, target: "target >= 1.5", passed: ratio >= 1.5)
        print(String(format: "   ours with the scan on one thread (dlib's own detector call): %.2f ms/image, %.2fx the peer",
                     Bench.median(ourOneThread) * 1000 / Double(images.count), Bench.median(peer) / Bench.median(ourOneThread)))
        print("   faces found: ours \(ourCounts.reduce(0, +)), peer \(peerCounts.reduce(0, +))\(ourCounts == peerCounts ? " (the same in every photo)" : " (DIFFERENT)")")
    }
}
