/// A point in a photo, in normalised coordinates of the upright photo: 0...1 from the left and from the top.
public struct FacePoint: Sendable, Hashable, Codable {
    /// From the left edge, 0...1.
    public var x: Double
    /// From the top edge, 0...1.
    public var y: Double

    /// A point.
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// A face found in a photo's pixels: its box in normalised coordinates of the upright photo
/// (top-left origin, like MWG regions), how sure the detector is, five landmarks and, when
/// asked for, the embedding that tells people apart.
public struct DetectedFace: Sendable, Hashable, Codable {
    /// The box's left edge, 0...1 (a box may reach a little outside the photo).
    public var x: Double
    /// The box's top edge.
    public var y: Double
    /// The box's width.
    public var width: Double
    /// The box's height.
    public var height: Double
    /// The detector's score above its threshold; higher is more certain (HOG: about 0 to 3).
    public var confidence: Double
    /// dlib's five landmarks: the corners of each eye and the bottom of the nose.
    public var landmarks: [FacePoint]
    /// The face's embedding (dlib: 128 floats; two faces of one person are usually within a
    /// Euclidean distance of 0.6), when it was computed.
    public var embedding: [Float]?

    /// A face.
    public init(x: Double, y: Double, width: Double, height: Double, confidence: Double, landmarks: [FacePoint] = [], embedding: [Float]? = nil) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.confidence = confidence
        self.landmarks = landmarks
        self.embedding = embedding
    }

    /// The share of the photo the box covers (inside the photo), 0...1.
    public var area: Double {
        max(0, min(1, x + width) - max(0, x)) * max(0, min(1, y + height) - max(0, y))
    }

    /// The face with its box cut to the photo (a detector's box may reach a little outside it);
    /// nil when nothing of it is inside.
    public var clampedToPhoto: DetectedFace? {
        let left = min(max(x, 0), 1), top = min(max(y, 0), 1)
        let right = min(max(x + width, 0), 1), bottom = min(max(y + height, 0), 1)
        guard right > left, bottom > top else { return nil }
        var face = self
        (face.x, face.y, face.width, face.height) = (left, top, right - left, bottom - top)
        return face
    }

    /// The intersection over union of this box and a box given by its edges (normalised).
    public func overlap(x otherX: Double, y otherY: Double, width otherWidth: Double, height otherHeight: Double) -> Double {
        let left = max(x, otherX), top = max(y, otherY)
        let right = min(x + width, otherX + otherWidth), bottom = min(y + height, otherY + otherHeight)
        let intersection = max(0, right - left) * max(0, bottom - top)
        let union = width * height + otherWidth * otherHeight - intersection
        return union > 0 ? intersection / union : 0
    }
}
