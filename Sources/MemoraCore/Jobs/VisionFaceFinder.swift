internal import Foundation
internal import ImageKit
public import MemoraHub
public import PhotoVision
public import PhotoVisionCore

/// The Memory Palace collector's face finder on Linux: PhotoVision's dlib pipeline on the upright
/// photo (HOG detection, landmarks and, with the embedding model, the 128 floats that suggest people).
/// The photo is decoded at most 1,600 pixels on its long side; boxes are clamped inside it.
public struct VisionFaceFinder: PhotoFaceFinder {
    let analyzer: DlibFaceAnalyzer

    /// A finder with the installed models (`scripts/install-models.sh`); throws when they are missing.
    public init(models: VisionModels = .installed) throws(VisionError) {
        analyzer = try DlibFaceAnalyzer(models: models, options: DlibFaceAnalyzer.Options(computesEmbeddings: true))
    }

    public func faces(inPhotoAt path: String) throws -> [FoundFace] {
        let image = try ImageDecoder.thumbnail(contentsOf: path, maxPixelSize: 1600, options: DecodingOptions(applyOrientation: true))
        return try analyzer.faces(in: image).compactMap { face in
            let left = min(max(face.x, 0), 1), top = min(max(face.y, 0), 1)
            let width = min(face.x + face.width, 1) - left, height = min(face.y + face.height, 1) - top
            guard width > 0, height > 0 else { return nil }
            return FoundFace(box: FaceTag(x: left, y: top, width: width, height: height), embedding: face.embedding)
        }
    }
}
