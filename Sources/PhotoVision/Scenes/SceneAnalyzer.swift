import Foundation
public import ImageKit
public import PhotoVisionCore
internal import MemoraSystem

/// MobileNetV2 trained on ImageNet (torchvision's weights, converted to ONNX by
/// `scripts/install-models.sh`), run with ONNX Runtime on the CPU. The image's shorter side is
/// scaled to 256 pixels and its centre 224x224 taken, as the model was trained; the features are
/// the 1280 pooled values before the classifier. One analyzer may be used from several threads
/// (ONNX Runtime's sessions run concurrently).
public final class ONNXSceneAnalyzer: SceneAnalyzing, Sendable {
    /// The side of the model's square input.
    public static let inputSize = 224
    private static let mean: [Float] = [0.485, 0.456, 0.406]
    private static let deviation: [Float] = [0.229, 0.224, 0.225]

    private let session: ONNXRuntime.Session
    /// The class names, in the model's output order.
    public let labelNames: [String]
    /// How many labels an analysis keeps.
    public let labelCount: Int

    /// Loads the model, its labels and ONNX Runtime from `models`, running each image with
    /// `threads` threads (1 when photos are analysed in parallel already).
    public init(models: VisionModels = .installed, threads: Int = 1, labelCount: Int = 5) throws(VisionError) {
        let runtime = try ONNXRuntime.load(try models.require(.onnxRuntime))
        session = try ONNXRuntime.Session(runtime: runtime, modelPath: try models.require(.sceneModel), threads: threads)
        let labelsPath = try models.require(.sceneLabels)
        let text: [UInt8]
        do { text = try SystemFile(labelsPath).readAll() } catch { throw .modelUnreadable(labelsPath, reason: error.reason) }
        labelNames = String(decoding: text, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .map { String($0) }.filter { !$0.isEmpty }
        self.labelCount = labelCount
        guard session.inputNames == ["image"], Set(["features", "logits"]).isSubset(of: Set(session.outputNames)) else {
            throw .modelUnreadable(session.path, reason: "it has inputs \(session.inputNames) and outputs \(session.outputNames), "
                                   + "not image -> features, logits")
        }
        guard labelNames.count == 1000 else { throw .modelUnreadable(labelsPath, reason: "it has \(labelNames.count) labels, not 1000") }
    }

    public func analyze(_ image: Image) throws(VisionError) -> SceneAnalysis {
        let input = try Self.tensor(of: image)
        let side = Int64(Self.inputSize)
        let outputs = try session.run(input, shape: [1, 3, side, side], inputName: "image", outputNames: ["features", "logits"])
        guard outputs.count == 2, outputs[1].count == labelNames.count, !outputs[0].isEmpty else {
            throw .inferenceFailed("\(session.path) gave outputs of \(outputs.map(\.count)) values")
        }
        let probabilities = Self.softmax(outputs[1])
        return SceneAnalysis(features: Self.unitLength(outputs[0]), labels: topLabels(probabilities),
                             subject: SceneNouns.subject(probabilities: probabilities))
    }

    /// The model's input for `image`: the centre square of the image scaled so that its shorter
    /// side is 256, 224x224 of it, as normalised planes of red, green and blue.
    static func tensor(of image: Image) throws(VisionError) -> [Float] {
        let size = inputSize
        // The centre crop of 224/256 of the shorter side, resampled straight to 224x224.
        let side = max(1, min(image.width, image.height) * size / 256)
        let region = PixelRect(x: (image.width - side) / 2, y: (image.height - side) / 2, width: side, height: side)
        let square: Image
        do { square = try image.resized(from: region, width: size, height: size) } catch {
            throw .invalidImage(error.reason)
        }
        let channels = square.pixelFormat.bytesPerPixel
        let plane = size * size
        var tensor = [Float](repeating: 0, count: 3 * plane)
        square.pixels.withUnsafeBufferPointer { pixels in
            for index in 0..<plane {
                let pixel = index * channels
                for channel in 0..<3 {
                    tensor[channel * plane + index] = (Float(pixels[pixel + channel]) / 255 - mean[channel]) / deviation[channel]
                }
            }
        }
        return tensor
    }

    /// `vector` scaled to length 1 (unchanged when it is all zeros).
    static func unitLength(_ vector: [Float]) -> [Float] {
        let length = vector.reduce(0) { $0 + $1 * $1 }.squareRoot()
        return length > 0 ? vector.map { $0 / length } : vector
    }

    /// Softmax probabilities of `logits`.
    static func softmax(_ logits: [Float]) -> [Float] {
        let largest = logits.max() ?? 0
        let exponentials = logits.map { Float(exp(Double($0 - largest))) }
        let total = exponentials.reduce(0, +)
        return exponentials.map { $0 / total }
    }

    /// The ``labelCount`` most likely labels of `probabilities`.
    private func topLabels(_ probabilities: [Float]) -> [SceneAnalysis.Label] {
        probabilities.indices.sorted { probabilities[$0] > probabilities[$1] }.prefix(labelCount)
            .map { SceneAnalysis.Label(name: labelNames[$0], classIndex: $0, probability: probabilities[$0]) }
    }
}
