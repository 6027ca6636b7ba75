public import Foundation
public import PhotoVisionCore

/// One photo in the index.
public struct IndexedPhoto: Sendable, Hashable, Codable {
    /// A stable identifier (a UUID), kept when the file is renamed or edited.
    public var id: String
    /// The file's path.
    public var path: String
    /// Its size in bytes and modification time when indexed (the change check).
    public var size: Int64
    /// See ``size``.
    public var modified: Date
    /// SHA-256 of the file's bytes, lower-case hex (the seed's `image_hash`).
    public var imageHash: String
    /// The format, by content.
    public var kind: PhotoFileKind?
    /// When it was taken: EXIF `DateTimeOriginal` (+ `OffsetTimeOriginal`), XMP or IPTC dates, else the file date.
    public var takenAt: Date?
    /// The UTC offset of ``takenAt`` in seconds, when the photo says.
    public var utcOffset: Int?
    /// False when ``takenAt`` is only the file's modification date.
    public var dateTrusted: Bool
    /// The position, when the photo has one.
    public var latitude: Double?
    /// See ``latitude``.
    public var longitude: Double?
    /// The place name the photo carries (IPTC location fields), when any.
    public var place: String?
    /// The upright pixel size.
    public var width: Int?
    /// See ``width``.
    public var height: Int?
    /// The EXIF orientation (1...8).
    public var orientation: Int
    /// Keywords and scene labels.
    public var keywords: [String]
    /// People named in the photo (`PersonInImage` and region names).
    public var people: [String]
    /// Face boxes.
    public var faces: [FaceBox]
    /// ``QualityScore`` value in 0...1.
    public var quality: Double?
    /// The 64-bit ``PerceptualHash``.
    public var perceptualHash: UInt64?
    /// The rating (0...5, -1 for rejected) when set.
    public var rating: Int?
    /// Whether the photo is a favourite (rated 5).
    public var favorite: Bool
    /// The scene embedding (``IndexVision``: MobileNetV2's 1280 pooled features, length 1), stored as half floats.
    public var embedding: [Float]?
    /// The scene model's most likely labels, most likely first (ImageNet classes), when it ran.
    public var sceneLabels: [String]? = nil
    /// The theme those labels name (PhotoVision's `SceneThemes`: "beach", "food"...), when they name one.
    public var sceneTheme: String? = nil
    /// The main subject in plain words (PhotoVision's `SceneNouns`: "dog", "carved pumpkin"), when the
    /// scene model is sure enough of one.
    public var sceneSubject: String? = nil
    /// The lines of text read in the pixels, with their boxes, when a text reader ran (`memora index --read-text`).
    public var text: [TextLine]? = nil
    /// Why the photo could not be indexed, when it could not (the other fields are then partly empty).
    public var error: String?

    /// Creates an entry (to import rows from another catalogue, or for tests and benchmarks).
    public init(id: String, path: String, size: Int64, modified: Date, imageHash: String, kind: PhotoFileKind?, takenAt: Date?,
                utcOffset: Int?, dateTrusted: Bool, latitude: Double?, longitude: Double?, place: String?, width: Int?, height: Int?,
                orientation: Int, keywords: [String], people: [String], faces: [FaceBox], quality: Double?, perceptualHash: UInt64?,
                rating: Int?, favorite: Bool, embedding: [Float]?, error: String?) {
        self.id = id
        self.path = path
        self.size = size
        self.modified = modified
        self.imageHash = imageHash
        self.kind = kind
        self.takenAt = takenAt
        self.utcOffset = utcOffset
        self.dateTrusted = dateTrusted
        self.latitude = latitude
        self.longitude = longitude
        self.place = place
        self.width = width
        self.height = height
        self.orientation = orientation
        self.keywords = keywords
        self.people = people
        self.faces = faces
        self.quality = quality
        self.perceptualHash = perceptualHash
        self.rating = rating
        self.favorite = favorite
        self.embedding = embedding
        self.error = error
    }
}
