import Foundation
import ImageKit
import MemoraCore
import MemoraSystem
import PhotoIndex
import PhotoVision
import PhotoVisionCore

/// The description scenarios of memora-bench (`--only describe`):
/// 21. OCR on the same decoded pixels: our PaddleTextReader against RapidOCR 3.10.0's own Python
///     pipeline on the same PP-OCRv6 small models (scripts/bench-ocr-peer.py), one photo at a time, ONNX
///     Runtime on every core on both sides; the photos are the real ones the models script installs
///     (and, with `--ocr-dir DIR`, every JPEG there); the strings each side found are compared.
///     Target: ours at least 1.2x faster, finding at least as many.
/// 22. The whole on-device description of a 12 MP JPEG on every core (decode, metadata, faces,
///     subject, text, composition) against the raw model calls on the same decoded pixels, measured
///     in the same run (target at most 1.15x), and the peak memory with every model loaded.
enum DescriptionBench {
    static func run(_ settings: Bench.Settings) async throws {
        let models = VisionModels.installed
        guard models.isComplete else {
            print("\n21-22. skipped: the vision models are not installed (scripts/install-models.sh)")
            return
        }
        try await ocr(settings: settings)
        try await describe(settings: settings)  // after the OCR scenario's reader is gone: its peak memory is the description's
    }

    static func ocr(settings: Bench.Settings) async throws {
        var options = PaddleTextReader.Options()
        options.threads = ProcessInfo.processInfo.activeProcessorCount
        let reader = try PaddleTextReader(models: VisionModels.installed, options: options)
        let folder = VisionModels.installed.folder
        var paths = ["photos/page.png", "photos/text.png", "photos/coffee.png", "photos/chelsea.png", "photos/rocket.jpg", "photos/coins.png",
                     "fixtures/astronaut.png"].map { folder + "/" + $0 }
        if let extra = settings.ocrDirectory {
            paths += try FileManager.default.contentsOfDirectory(atPath: extra).filter { $0.lowercased().hasSuffix(".jpg") }.sorted().map { extra + "/" + $0 }
        }
        print("\n21. OCR on the same decoded pixels (\(paths.count) photos): ours against RapidOCR 3.10.0's Python pipeline, same models")
        // Decoded as RapidOCR reads them: the stored pixels, at most 2000 on the longer side.
        let images = try paths.map { path -> Image in
            let image = try ImageDecoder.decode(contentsOf: path).converted(to: .rgb8)
            return max(image.width, image.height) > 2000 ? try image.resized(fittingLongSide: 2000) : image
        }
        _ = try reader.readText(in: images[0])  // warm-up
        var ours: [Double] = []
        var found: [[String]] = []
        for _ in 0..<max(1, settings.rounds) {
            ours.append(try Bench.seconds { found = try images.map { try reader.readText(in: $0).map(\.text) } })
        }
        let temporary = NSTemporaryDirectory() + "memora-bench-ocr-\(getpid())"
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: temporary) }
        var arguments = [settings.ocrPeerScript, String(max(1, settings.rounds))]
        for (index, image) in images.enumerated() {
            let path = temporary + "/pixels-\(index).rgb"
            try Data(image.pixels).write(to: URL(fileURLWithPath: path))
            arguments += [path, "\(image.width)", "\(image.height)"]
        }
        var peer = settings
        peer.python = settings.ocrPython
        let oursBest = ours.min()!
        print(String(format: "   ours: %.0f ms a photo (%.2f s), %d lines read", oursBest * 1000 / Double(images.count), oursBest, found.joined().count))
        guard let lines = try Bench.python(arguments, settings: peer), let seconds = lines.first.flatMap(Double.init), lines.count == images.count + 1 else {
            print("   RapidOCR: not measured (install it with scripts/bench.sh, or pass --ocr-python with rapidocr==3.10.0)")
            return
        }
        let theirs = lines.dropFirst().map { (try? JSONDecoder().decode([String].self, from: Data($0.utf8))) ?? [] }
        func squeezed(_ text: String) -> String { text.lowercased().filter { $0.isLetter || $0.isNumber } }
        let oursSet = Set(found.joined().map(squeezed)), theirsSet = Set(theirs.joined().map(squeezed))
        print(String(format: "   RapidOCR: %.0f ms a photo (%.2f s), %d lines read; ours %.2fx faster (target >= 1.2x)",
                     seconds * 1000 / Double(images.count), seconds, theirs.joined().count, seconds / oursBest))
        print("   the same text: \(oursSet.intersection(theirsSet).count) lines both read; \(oursSet.subtracting(theirsSet).count) only ours, \(theirsSet.subtracting(oursSet).count) only RapidOCR's")
    }

    static func describe(settings: Bench.Settings) async throws {
        print("\n22. the whole on-device description of a 12 MP JPEG (4000x3000), every core")
        // The peak from here on: scenario 21's reader is gone (and the release of a peak is not seen otherwise).
        let resetPeak = (try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)) != nil
        let models = VisionModels.installed
        let folder = NSTemporaryDirectory() + "memora-bench-describe-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Real photos enlarged to 12 MP: a cat, a person (the CNN face detector looks too), and a printed page (text everywhere).
        var photos: [String] = []
        for name in ["photos/chelsea.png", "fixtures/astronaut.png", "photos/page.png"] {
            let image = try ImageDecoder.decode(contentsOf: models.folder + "/" + name).converted(to: .rgb8)
            let path = folder + "/" + (name as NSString).lastPathComponent + ".jpg"
            try ImageEncoder.write(try image.resized(width: 4000, height: 3000, filter: .bicubic), to: path, as: .jpeg(JPEGEncodingOptions(quality: 0.92)))
            photos.append(path)
        }
        // The models as the description loads them (BasicDescriptionGenerator()): CenterFace counting
        // the faces, the scene model, the text reader on every core. MEMORA_BENCH_DESCRIBE_WITH_DLIB=1:
        // as before CenterFace, dlib's HOG and CNN detectors and the text reader's own defaults, for an A/B.
        let withDlib = ProcessInfo.processInfo.environment["MEMORA_BENCH_DESCRIBE_WITH_DLIB"] == "1"
        let vision = withDlib ? try IndexVision.installed(readsText: true, textThreads: ProcessInfo.processInfo.activeProcessorCount, thoroughFaces: true)
            : try IndexVision.describing()
        if withDlib { print("   (the earlier models: dlib's HOG and CNN face detectors, the text reader at RapidOCR's sizes)") }
        let generator = BasicDescriptionGenerator(vision: vision)
        var perPhoto: [Double] = []
        for path in photos {
            _ = try await generator.generateCaption(for: CaptionRequest(path: path))  // warm-up
            var whole: [Double] = [], raw: [Double] = [], inTurn: [Double] = []
            let large = try ImageDecoder.thumbnail(contentsOf: path, maxPixelSize: vision.textLongestSide, options: DecodingOptions(applyOrientation: true))
            let small = try large.resized(fittingLongSide: vision.longestSide)
            var caption = ""
            for _ in 0..<max(1, settings.rounds) {
                whole.append(try await Bench.seconds(measuring: { caption = try await generator.generateCaption(for: CaptionRequest(path: path)).description }))
                // The model calls alone, arranged as the description arranges them (the faces beside
                // the scene, then the text on every core), and one after the other.
                raw.append(try Bench.seconds {
                    _ = try ParallelWork.map(2, workers: 2) { (part: Int) throws(VisionError) in
                        if part == 0 { _ = try vision.faces?.faces(in: small) } else { _ = try vision.scenes?.analyze(small) }
                    }
                    _ = try vision.text?.readText(in: large)
                })
                inTurn.append(try Bench.seconds {
                    _ = try vision.faces?.faces(in: small)
                    _ = try vision.scenes?.analyze(small)
                    _ = try vision.text?.readText(in: large)
                })
            }
            print(String(format: "   %@: %.2f s for the description (target <= 0.8 s), the models alone %.2f s: %.2fx (target <= 1.15x); %d characters; the models one after the other %.2f s",
                         (path as NSString).lastPathComponent, whole.min()!, raw.min()!, whole.min()! / raw.min()!, caption.count, inTurn.min()!))
            // Each part's share: the decode, then each model on its own (the text reader's detection,
            // then its reading of the lines found: the whole reader less the detection).
            var parts: [String: [Double]] = [:]
            for _ in 0..<max(1, settings.rounds) {
                parts["decode", default: []].append(try Bench.seconds {
                    let decoded = try ImageDecoder.thumbnail(contentsOf: path, maxPixelSize: vision.textLongestSide, options: DecodingOptions(applyOrientation: true))
                    _ = try decoded.resized(fittingLongSide: vision.longestSide)
                })
                parts["faces", default: []].append(try Bench.seconds { _ = try vision.faces?.faces(in: small) })
                parts["scene", default: []].append(try Bench.seconds { _ = try vision.scenes?.analyze(small) })
                if let reader = vision.text as? PaddleTextReader {
                    parts["text detection", default: []].append(try Bench.seconds { _ = try reader.lineCount(in: large) })
                    parts["text reading", default: []].append(try Bench.seconds { _ = try reader.readText(in: large) })
                }
            }
            let detection = parts["text detection"]?.min() ?? 0
            let split = ["decode", "faces", "scene", "text detection", "text reading"].compactMap { name -> String? in
                guard let best = parts[name]?.min() else { return nil }
                return String(format: "%@ %.0f ms", name == "text reading" ? "text recognition" : name, (name == "text reading" ? max(0, best - detection) : best) * 1000)
            }
            print("     the parts, one after the other: " + split.joined(separator: ", "))
            perPhoto.append(whole.min()!)
        }
        let mean = perPhoto.reduce(0, +) / Double(max(1, perPhoto.count))
        print(String(format: "   a library: %.0f photos an hour (%.2f s a photo on average over these three); 20,000 photos in %.1f hours", 3600 / mean, mean, 20_000 * mean / 3600))
        print(String(format: "   peak memory of this process (every model loaded): %.0f MiB%@", DBSCANBench.memory("VmHWM"),
                     resetPeak ? "" : " (peak not reset: it includes scenario 21's)"))
    }
}
