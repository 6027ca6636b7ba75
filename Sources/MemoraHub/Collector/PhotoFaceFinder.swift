/// A face found on a photo on the device, before upload.
public struct FoundFace: Sendable, Hashable, Codable {
    /// The box, in normalised coordinates of the upright photo (clamped inside it).
    public var box: FaceTag
    /// The embedding that tells people apart, when the finder makes one.
    public var embedding: [Float]?
    /// Who it probably is: the person whose tagged faces on this device look closest.
    public var suggestedPerson: Int64?

    /// A found face.
    public init(box: FaceTag, embedding: [Float]? = nil, suggestedPerson: Int64? = nil) {
        self.box = box
        self.embedding = embedding
        self.suggestedPerson = suggestedPerson
    }
}

/// Finds the faces on a photo on the device (the seed's Vision request). MemoraCore's
/// `VisionFaceFinder` runs PhotoVision's dlib pipeline; an Apple front end may plug in Vision.
public protocol PhotoFaceFinder: Sendable {
    /// The faces on the photo at `path`, most certain first.
    func faces(inPhotoAt path: String) throws -> [FoundFace]
}
