import Foundation
public import ImageKit
public import PhotoVisionCore
internal import MemoraSystem

/// dlib's pipeline, as its face recognition example runs it: the HOG frontal face detector
/// (compiled into dlib, no weights), five landmarks per face
/// (`shape_predictor_5_face_landmarks.dat`), and each face aligned into a 150x150 chip and run
/// through dlib's ResNet (`dlib_face_recognition_resnet_model_v1.dat`) for a 128-float embedding.
///
/// The image is reduced to ``Options/longestSide`` first; HOG finds faces of about 80 pixels and
/// more, so a small image (``Options/upsampleBelow``), or one whose faces are all small, is scanned
/// once more at twice its size, which finds faces down to about 40 pixels. One analyzer may be used
/// from several threads: each thread takes its own detector and network from a pool.
public final class DlibFaceAnalyzer: FaceAnalyzing, Sendable {
    /// How faces are looked for.
    public struct Options: Sendable, Hashable {
        /// The image is reduced to this longest side before detection (faces keep their share of it).
        public var longestSide: Int
        /// Images whose longest side (after the reduction) is at most this are scanned at twice
        /// their size only (faces down to about 40 pixels instead of 80).
        public var upsampleBelow: Int
        /// When the faces found in a larger image are all smaller than this many pixels, the image
        /// is scanned again at twice its size for smaller ones (0: never).
        public var smallFace: Int
        /// Faces whose detector score is below this are left out (0: HOG's own threshold). Weak hits
        /// are where its mistakes are (a round mission patch on the astronaut's suit scores 0.06, 0.12
        /// in the doubled scan), but real small faces score low too (0.22 for the weakest of the 43
        /// faces of dlib's sample photos): raise it for fewer false faces at the cost of small ones.
        public var minimumConfidence: Double
        /// Whether to compute each face's embedding (about 10 ms a face with OpenBLAS).
        public var computesEmbeddings: Bool
        /// When above 0, dlib's CNN face detector (`mmod_human_face_detector.dat`) also looks at the
        /// image reduced to this longest side (doubled when smaller than 600 pixels), and the faces it
        /// finds that HOG did not are added: it finds turned, dim and partly hidden faces HOG misses,
        /// at about a second or more a photo on two cores. A weak HOG hit (score under 0.3) large
        /// enough for the CNN to see is kept only when the CNN finds it too. 0 (the default): HOG only.
        public var cnnLongestSide: Int
        /// The threads one photo's detection is split across (its pyramid levels' HOG features,
        /// then each sub-detector's scan of each level), with the same faces and scores whatever the
        /// number; 0: one per core. Use 1 when photos are analysed on every core at once.
        public var scanThreads: Int

        /// The defaults: 1600 pixels, a doubled scan below 1200 pixels or when every face is under
        /// 120 pixels, HOG's own threshold, embeddings on, the scan on every core.
        public init(longestSide: Int = 1600, upsampleBelow: Int = 1200, smallFace: Int = 120, minimumConfidence: Double = 0,
                    computesEmbeddings: Bool = true, scanThreads: Int = 0, cnnLongestSide: Int = 0) {
            self.cnnLongestSide = cnnLongestSide
            self.longestSide = longestSide
            self.upsampleBelow = upsampleBelow
            self.smallFace = smallFace
            self.minimumConfidence = minimumConfidence
            self.computesEmbeddings = computesEmbeddings
            self.scanThreads = scanThreads
        }
    }

    /// How faces are looked for.
    public let options: Options
    private let threads: Int
    private let predictor: Dlib.ShapePredictor
    private let encoderPath: String?
    private let cnnPath: String?
    /// Detectors and networks not in use, taken by one call at a time.
    private let idle = Locked<[Worker]>([])

    /// One call's detectors and network.
    // Unchecked: dlib's objects are used by one call at a time; the pool hands a worker from one
    // call to the next under its lock, and no reference to it is kept elsewhere.
    private struct Worker: @unchecked Sendable {
        var detector: Dlib.Detector
        var cnn: Dlib.CNNDetector?
        var encoder: Dlib.Encoder?
    }

    /// Loads the models from `models` (the landmark model always; the embedding network when
    /// ``Options/computesEmbeddings``), failing with `VisionError/Code/modelMissing` or
    /// `VisionError/Code/modelUnreadable` before any photo is looked at.
    public init(models: VisionModels = .installed, options: Options = Options()) throws(VisionError) {
        guard options.longestSide >= 64 else { throw .invalidArgument("the longest side must be at least 64 pixels, not \(options.longestSide)") }
        guard (0...Dlib.maximumThreads).contains(options.scanThreads) else {
            throw .invalidArgument("scanThreads must be 0 (one per core) to \(Dlib.maximumThreads), not \(options.scanThreads)")
        }
        self.options = options
        threads = options.scanThreads == 0 ? min(ProcessInfo.processInfo.activeProcessorCount, Dlib.maximumThreads) : options.scanThreads
        predictor = try Dlib.ShapePredictor(path: try models.require(.faceLandmarks))
        encoderPath = options.computesEmbeddings ? try models.require(.faceEmbedding) : nil
        cnnPath = options.cnnLongestSide > 0 ? try models.require(.faceDetectorCNN) : nil
        // One worker made now checks the network file as early as the landmark model.
        let first = try makeWorker()
        idle.withLock { $0 = [first] }
    }

    /// Makes OpenBLAS use `count` threads inside each matrix product of the embedding network
    /// (1 when photos are analysed on every core at once: more oversubscribes the cores). It is a
    /// setting of the process; false when the BLAS in use is not OpenBLAS.
    @discardableResult
    public static func setMatrixThreads(_ count: Int) -> Bool {
        Dlib.setBLASThreads(max(1, count))
    }

    public func faces(in image: Image) throws(VisionError) -> [DetectedFace] {
        let scanned: Image
        do { scanned = try image.resized(fittingLongSide: options.longestSide) } catch { throw .invalidImage(error.reason) }
        let worker = try takeWorker()
        defer { putBack(worker) }
        let longest = max(scanned.width, scanned.height)
        var boxes = try worker.detector.detect(scanned, upsample: longest <= options.upsampleBelow ? 1 : 0, adjustThreshold: options.minimumConfidence,
                                               threads: threads)
        if longest > options.upsampleBelow, options.smallFace > 0, !boxes.isEmpty,
           boxes.allSatisfy({ Int($0.right - $0.left + 1) < options.smallFace }) {
            // Small faces found: smaller ones may be there too.
            let more = try worker.detector.detect(scanned, upsample: 1, adjustThreshold: options.minimumConfidence, threads: threads)
            boxes = Self.merged(boxes, more)
        }
        if let cnn = worker.cnn {
            let (found, scale) = try cnnFaces(cnn, in: scanned)
            // A weak HOG hit is where its mistakes are (a round badge on a suit scores 0.06-0.12): one
            // large enough for the CNN to see must be confirmed by it; smaller ones stay as HOG found them.
            boxes = boxes.filter { box in
                box.confidence >= Self.weakScore || Double(box.right - box.left + 1) * scale < Self.cnnSmallestFace
                    || found.contains { Self.overlap(box, $0) >= 0.3 }
            }
            boxes = Self.merged(boxes, found)
        }
        let landmarks = try boxes.map { (box: Dlib.Box) throws(VisionError) -> [Int32] in try predictor.landmarks(scanned, box: box) }
        let embeddings = try worker.encoder?.embeddings(scanned, landmarks: landmarks)
        let width = Double(scanned.width), height = Double(scanned.height)
        return boxes.indices.map { index in
            let box = boxes[index]
            let points = landmarks[index]
            return DetectedFace(
                x: Double(box.left) / width, y: Double(box.top) / height,
                width: Double(box.right - box.left + 1) / width, height: Double(box.bottom - box.top + 1) / height,
                confidence: box.confidence,
                landmarks: stride(from: 0, to: points.count, by: 2).map { FacePoint(x: Double(points[$0]) / width, y: Double(points[$0 + 1]) / height) },
                embedding: embeddings?[index])
        }
    }

    /// The intersection over union of two boxes.
    static func overlap(_ a: Dlib.Box, _ b: Dlib.Box) -> Double {
        let width = Double(max(0, min(a.right, b.right) - max(a.left, b.left) + 1))
        let height = Double(max(0, min(a.bottom, b.bottom) - max(a.top, b.top) + 1))
        let area = { (box: Dlib.Box) in Double(box.right - box.left + 1) * Double(box.bottom - box.top + 1) }
        let intersection = width * height
        return intersection / (area(a) + area(b) - intersection)
    }

    /// `first` and the boxes of `second` that overlap none of them (IoU below 0.3), best first.
    static func merged(_ first: [Dlib.Box], _ second: [Dlib.Box]) -> [Dlib.Box] {
        let added = second.filter { candidate in first.allSatisfy { overlap($0, candidate) < 0.3 } }
        return (first + added).sorted { $0.confidence > $1.confidence }
    }

    /// HOG scores below this are weak hits (``Options/minimumConfidence``'s note), confirmed by the CNN when it looks.
    static let weakScore = 0.3
    /// The smallest face the CNN detector finds, in pixels of the image it scans.
    static let cnnSmallestFace = 40.0

    /// The CNN detector's faces in `scanned`, looked for at ``Options/cnnLongestSide`` and mapped to
    /// `scanned`'s pixels, and how many of the pixels the CNN scanned one pixel of `scanned` is.
    private func cnnFaces(_ cnn: Dlib.CNNDetector, in scanned: Image) throws(VisionError) -> (faces: [Dlib.Box], scale: Double) {
        let small: Image
        do { small = try scanned.resized(fittingLongSide: options.cnnLongestSide) } catch { throw .invalidImage(error.reason) }
        let upsample = max(small.width, small.height) < 600 ? 1 : 0
        let scale = Double(scanned.width) / Double(small.width)
        let faces = try cnn.detect(small, upsample: upsample).map { box in
            Dlib.Box(left: Int32((Double(box.left) * scale).rounded()), top: Int32((Double(box.top) * scale).rounded()),
                     right: Int32((Double(box.right) * scale).rounded()), bottom: Int32((Double(box.bottom) * scale).rounded()),
                     confidence: box.confidence)
        }
        return (faces, Double(1 << upsample) / scale)
    }

    private func makeWorker() throws(VisionError) -> Worker {
        Worker(detector: try Dlib.Detector(),
               cnn: try cnnPath.map { (path: String) throws(VisionError) -> Dlib.CNNDetector in try Dlib.CNNDetector(path: path) },
               encoder: try encoderPath.map { (path: String) throws(VisionError) -> Dlib.Encoder in try Dlib.Encoder(path: path) })
    }

    private func takeWorker() throws(VisionError) -> Worker {
        if let worker = idle.withLock({ $0.popLast() }) { return worker }
        return try makeWorker()
    }

    private func putBack(_ worker: Worker) {
        idle.withLock { $0.append(worker) }
    }
}
