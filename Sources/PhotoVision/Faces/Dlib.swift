internal import PhotoVisionCore
import CDlib
import ImageKit

/// The one wrapper of the dlib shim (`CDlib`): each C object in a Swift class that releases it,
/// each failed call a `VisionError`. Only this file imports the C module. Thread rules (from the
/// shim): a detector and an encoder are used by one thread at a time; a shape predictor is shared.
enum Dlib {
    /// The shim's version of dlib ("19.24.0").
    static var version: String { String(cString: cdlib_version()) }

    /// The most threads a detection is split across.
    static let maximumThreads = Int(CDLIB_MAX_THREADS)

    /// A face box in an image's pixels (dlib's inclusive right and bottom) with its score.
    struct Box {
        var left, top, right, bottom: Int32
        var confidence: Double
    }

    /// Throws the shim's error when `status` is not OK; `model` names the file for model errors.
    static func check(_ status: cdlib_status, _ error: cdlib_error, model: String? = nil) throws(VisionError) {
        guard status != CDLIB_OK else { return }
        var copy = error
        let message = withUnsafeBytes(of: &copy.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        switch status {
        case CDLIB_ERROR_MODEL: throw .modelUnreadable(model ?? "the model", reason: message)
        case CDLIB_ERROR_ARGUMENT: throw .invalidImage(message)
        default: throw .inferenceFailed("dlib: \(message)")
        }
    }

    /// Calls `body` with the shim's view of `image`'s pixels (RGB or RGBA, read in place).
    static func withImage<T>(_ image: Image, _ body: (UnsafePointer<cdlib_image>) throws(VisionError) -> T) throws(VisionError) -> T {
        let channels = Int32(image.pixelFormat.bytesPerPixel)
        var result: Result<T, VisionError>!
        image.pixels.withUnsafeBufferPointer { pixels in
            var view = cdlib_image(pixels: pixels.baseAddress, width: Int32(image.width), height: Int32(image.height),
                                   bytes_per_row: image.width * Int(channels), channels: channels)
            result = Result { () throws(VisionError) in try body(&view) }
        }
        return try result.get()
    }

    /// The faces a detector call finds in `image`, best first: `detect` fills room for `capacity` faces
    /// and sets how many it found, which may be more (then it is called again with that much room).
    static func faces(in image: Image, _ detect: (UnsafePointer<cdlib_image>, UnsafeMutablePointer<cdlib_face>, Int, inout Int, inout cdlib_error) -> cdlib_status)
        throws(VisionError) -> [Box] {
        try withImage(image) { (view: UnsafePointer<cdlib_image>) throws(VisionError) -> [Box] in
            var capacity = 32
            while true {
                var faces = [cdlib_face](repeating: cdlib_face(), count: capacity)
                var count = 0
                var error = cdlib_error()
                let status = faces.withUnsafeMutableBufferPointer { buffer in detect(view, buffer.baseAddress!, capacity, &count, &error) }
                try check(status, error)
                if count <= capacity {
                    return faces.prefix(count).map { Box(left: $0.box.left, top: $0.box.top, right: $0.box.right, bottom: $0.box.bottom,
                                                         confidence: $0.confidence) }
                }
                capacity = count
            }
        }
    }

    /// dlib's HOG frontal face detector.
    final class Detector {
        private let handle: OpaquePointer

        init() throws(VisionError) {
            var error = cdlib_error()
            var handle: OpaquePointer?
            try check(cdlib_detector_create(&handle, &error), error)
            guard let handle else { throw .inferenceFailed("dlib made no detector") }
            self.handle = handle
        }

        deinit { cdlib_detector_destroy(handle) }

        /// The faces in `image`, best first, after `upsample` doublings (0...4), the scan on `threads` threads.
        func detect(_ image: Image, upsample: Int, adjustThreshold: Double, threads: Int = 1) throws(VisionError) -> [Box] {
            try faces(in: image) { view, faces, capacity, count, error in
                cdlib_detect_faces(handle, view, Int32(upsample), adjustThreshold, Int32(max(1, min(threads, Dlib.maximumThreads))), faces, capacity,
                                   &count, &error)
            }
        }
    }

    /// dlib's CNN (max-margin) face detector, used by one thread at a time.
    final class CNNDetector {
        private let handle: OpaquePointer

        init(path: String) throws(VisionError) {
            var error = cdlib_error()
            var handle: OpaquePointer?
            try check(cdlib_cnn_detector_load(path, &handle, &error), error, model: path)
            guard let handle else { throw .modelUnreadable(path, reason: "dlib loaded nothing") }
            self.handle = handle
        }

        deinit { cdlib_cnn_detector_destroy(handle) }

        /// The faces in `image`, after `upsample` doublings (0...4).
        func detect(_ image: Image, upsample: Int) throws(VisionError) -> [Box] {
            try faces(in: image) { view, faces, capacity, count, error in
                cdlib_cnn_detect_faces(handle, view, Int32(upsample), faces, capacity, &count, &error)
            }
        }
    }

    /// dlib's 5-point shape predictor, shared by every thread once loaded.
    final class ShapePredictor: Sendable {
        // Unchecked: dlib's shape predictor is not changed by prediction, so threads share it.
        nonisolated(unsafe) private let handle: OpaquePointer

        init(path: String) throws(VisionError) {
            var error = cdlib_error()
            var handle: OpaquePointer?
            try check(cdlib_shape_predictor_load(path, &handle, &error), error, model: path)
            guard let handle else { throw .modelUnreadable(path, reason: "dlib loaded nothing") }
            self.handle = handle
        }

        deinit { cdlib_shape_predictor_destroy(handle) }

        /// The 5 landmarks of the face in `box`: x0, y0, ... x4, y4 in the image's pixels.
        func landmarks(_ image: Image, box: Box) throws(VisionError) -> [Int32] {
            try withImage(image) { (view: UnsafePointer<cdlib_image>) throws(VisionError) -> [Int32] in
                var points = [Int32](repeating: 0, count: 2 * Int(CDLIB_LANDMARK_COUNT))
                var error = cdlib_error()
                let status = points.withUnsafeMutableBufferPointer { buffer in
                    cdlib_landmarks(handle, view, cdlib_box(left: box.left, top: box.top, right: box.right, bottom: box.bottom),
                                    buffer.baseAddress, &error)
                }
                try check(status, error)
                return points
            }
        }
    }

    /// dlib's face recognition network.
    final class Encoder {
        private let handle: OpaquePointer
        static let size = Int(CDLIB_EMBEDDING_SIZE)

        init(path: String) throws(VisionError) {
            var error = cdlib_error()
            var handle: OpaquePointer?
            try check(cdlib_face_encoder_load(path, &handle, &error), error, model: path)
            guard let handle else { throw .modelUnreadable(path, reason: "dlib loaded nothing") }
            self.handle = handle
        }

        deinit { cdlib_face_encoder_destroy(handle) }

        /// The embeddings of the faces of `image` given by their landmarks (10 numbers each), in order.
        func embeddings(_ image: Image, landmarks: [[Int32]]) throws(VisionError) -> [[Float]] {
            guard !landmarks.isEmpty else { return [] }
            let flat = landmarks.flatMap { $0 }
            guard flat.count == landmarks.count * 2 * Int(CDLIB_LANDMARK_COUNT) else {
                throw .invalidArgument("each face needs \(2 * Int(CDLIB_LANDMARK_COUNT)) landmark coordinates")
            }
            return try withImage(image) { (view: UnsafePointer<cdlib_image>) throws(VisionError) -> [[Float]] in
                var output = [Float](repeating: 0, count: landmarks.count * Self.size)
                var error = cdlib_error()
                let status = output.withUnsafeMutableBufferPointer { buffer in
                    cdlib_face_embeddings(handle, view, flat, landmarks.count, 0, buffer.baseAddress, &error)
                }
                try check(status, error)
                return (0..<landmarks.count).map { Array(output[($0 * Self.size)..<(($0 + 1) * Self.size)]) }
            }
        }
    }

    /// Makes OpenBLAS use `count` threads in each matrix product (1 when photos run on every core
    /// already); false when the BLAS in use is not OpenBLAS.
    @discardableResult
    static func setBLASThreads(_ count: Int) -> Bool {
        var error = cdlib_error()
        return cdlib_set_blas_threads(Int32(count), &error) == CDLIB_OK
    }
}
