public import ImageKit

/// Something that finds faces in a photo's pixels (and, where it can, says who looks like whom).
/// `DlibFaceAnalyzer` (PhotoVision) runs dlib on the CPU; an Apple front end may plug in Vision instead.
public protocol FaceAnalyzing: Sendable {
    /// The faces in `image` (upright pixels), most certain first, in normalised coordinates.
    func faces(in image: Image) throws(VisionError) -> [DetectedFace]
}
