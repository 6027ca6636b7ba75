import Foundation
import ImageKit
import MemoraSystem
import Testing
import TestSupport
@testable import PhotoVision
import PhotoVisionCore

/// The scene model on real photos installed by `scripts/install-models.sh` (fixtures/), and on
/// pictures made here.
@Suite("Scene analysis with MobileNetV2 on ONNX Runtime")
struct SceneAnalyzerTests {
    static let models = VisionModels.installed

    static func fixture(_ name: String) throws -> Image {
        try ImageDecoder.decode(contentsOf: models.folder + "/fixtures/" + name)
    }

    static func cosine(_ a: [Float], _ b: [Float]) -> Float { zip(a, b).reduce(0) { $0 + $1.0 * $1.1 } }

    @Test("features of length 1, labels sorted with probabilities that add up to at most 1, the same photo the same result")
    func analysis() throws {
        let analyzer = try ONNXSceneAnalyzer(models: Self.models)
        let astronaut = try Self.fixture("astronaut.png")
        let first = try analyzer.analyze(astronaut)
        #expect(first.features.count == 1280)
        #expect(abs(first.features.reduce(0) { $0 + $1 * $1 } - 1) < 1e-4)
        #expect(first.labels.count == 5 && first.labels.map(\.probability) == first.labels.map(\.probability).sorted(by: >))
        #expect(first.labels.reduce(0) { $0 + $1.probability } <= 1.0001 && first.labels[0].probability > 0.05)
        #expect(try analyzer.analyze(astronaut) == first, "deterministic")
        print("astronaut:", first.labels.map { "\($0.name) \($0.probability)" })
    }

    @Test("a smaller copy of a photo is close to it; a different photo is not; RGBA is read as RGB")
    func similarity() throws {
        let analyzer = try ONNXSceneAnalyzer(models: Self.models, threads: 2)
        let astronaut = try Self.fixture("astronaut.png")
        let smaller = try astronaut.resized(width: 300, height: 300)
        let other = try SyntheticPhoto.landscape(width: 640, height: 480, seed: 3)
        let a = try analyzer.analyze(astronaut), b = try analyzer.analyze(smaller), c = try analyzer.analyze(other)
        #expect(Self.cosine(a.features, b.features) > 0.9, "\(Self.cosine(a.features, b.features))")
        #expect(Self.cosine(a.features, c.features) < Self.cosine(a.features, b.features) - 0.2)
        var rgba = [UInt8]()
        for index in stride(from: 0, to: astronaut.pixels.count, by: 3) { rgba += astronaut.pixels[index..<(index + 3)] + [255] }
        let withAlpha = try Image(width: astronaut.width, height: astronaut.height, pixelFormat: .rgba8, pixels: rgba)
        #expect(try analyzer.analyze(withAlpha) == a)
    }

    @Test("missing or damaged models are typed errors that say what to run; a 1x1 image is analysed without a crash")
    func failures() throws {
        let folder = try temporaryFolder()
        defer { try? FileSystem.removeTree(folder) }
        #expect(throws: VisionError.self) { try ONNXSceneAnalyzer(models: VisionModels(folder: folder)) }
        for file in [VisionModels.File.onnxRuntime, .sceneLabels] {
            try FileSystem.makeFolder(SystemPath.folder(of: folder + "/" + file.rawValue))
            try AtomicFileWriter.write(try SystemFile(Self.models.path(of: file)).readAll(), to: folder + "/" + file.rawValue)
        }
        try FileSystem.makeFolder(folder + "/scene")
        try AtomicFileWriter.write(Array("not a model".utf8), to: folder + "/scene/mobilenet_v2.onnx")
        do {
            _ = try ONNXSceneAnalyzer(models: VisionModels(folder: folder))
            Issue.record("a damaged model was accepted")
        } catch {
            #expect(error.code == .modelUnreadable && error.message.contains("install-models.sh"), "\(error.message)")
        }
        let tiny = try Image(width: 1, height: 1, pixelFormat: .rgb8, pixels: [200, 100, 50])
        #expect(try ONNXSceneAnalyzer(models: Self.models).analyze(tiny).features.count == 1280)
    }
}
