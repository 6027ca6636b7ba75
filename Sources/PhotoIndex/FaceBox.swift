internal import MetadataKit

/// A face (or other named region) in a photo, normalised to 0...1 with the origin at the
/// top left: a region the photo's metadata declares (MWG), or a face found in its pixels
/// (``IndexVision``), named by the region it overlaps when there is one.
public struct FaceBox: Sendable, Hashable, Codable {
    /// The person's name, when known.
    public var name: String?
    /// Left edge.
    public var x: Double
    /// Top edge.
    public var y: Double
    /// Width.
    public var width: Double
    /// Height.
    public var height: Double
    /// The detector's score, for a face found in the pixels (nil for a metadata region).
    public var confidence: Double?
    /// The face's embedding (dlib: 128 floats, stored as half floats), for a face found in the pixels.
    public var embedding: [Float]?

    /// Creates a box.
    public init(name: String?, x: Double, y: Double, width: Double, height: Double, confidence: Double? = nil, embedding: [Float]? = nil) {
        self.name = name
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.confidence = confidence
        self.embedding = embedding
    }

    /// The faces a photo's metadata declares: its MWG regions of type `Face` (or without a type), as stored.
    static func faces(declaredBy regions: [FaceRegion]) -> [FaceBox] {
        regions.filter { ($0.type ?? "Face").caseInsensitiveCompare("Face") == .orderedSame }
            .map { FaceBox(name: $0.name, x: $0.x, y: $0.y, width: $0.width, height: $0.height) }
    }

    /// Whether the face was found in the photo's pixels (rather than declared by its metadata).
    public var isDetected: Bool { confidence != nil }

    /// The intersection over union of two boxes.
    public func overlap(_ other: FaceBox) -> Double {
        let width = max(0, min(x + self.width, other.x + other.width) - max(x, other.x))
        let height = max(0, min(y + self.height, other.y + other.height) - max(y, other.y))
        let intersection = width * height
        let union = area + other.area - intersection
        return union > 0 ? intersection / union : 0
    }

    /// The share of the image the box covers.
    public var area: Double { max(0, width) * max(0, height) }

    /// Whether `region` (a metadata region, a user's pin) marks this face: an intersection over
    /// union of at least 0.3, or the region's centre inside the face.
    func isMarked(by region: FaceBox) -> Bool {
        let centreX = region.x + region.width / 2, centreY = region.y + region.height / 2
        return overlap(region) >= 0.3 || (centreX > x && centreX < x + width && centreY > y && centreY < y + height)
    }
}
