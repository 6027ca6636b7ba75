import Foundation
import ImageKit
import MemoraCore
import PhotoIndex
import PhotoVision

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
    }
}
