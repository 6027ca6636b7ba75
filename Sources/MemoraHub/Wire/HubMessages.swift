public import MemoraHTTP

/// The body of `POST /api/hub/pair`: a device exchanges a pairing token for its own device token.
public struct PairRequest: Sendable, Hashable, Codable {
    /// The pairing token from the QR code.
    public var pairingToken: String
    /// The device's own random identifier (16–128 letters, digits, `-`, `_`).
    public var deviceId: String
    /// `linux`, `ios`, `android` or `macos`.
    public var platform: String

    /// Creates a request.
    public init(pairingToken: String, deviceId: String, platform: String) {
        self.pairingToken = pairingToken
        self.deviceId = deviceId
        self.platform = platform
    }
}

/// A person of the family, as the hub keeps them.
public struct HubPerson: Sendable, Hashable, Codable {
    /// The hub's id for the person.
    public var id: Int64
    /// Their name.
    public var name: String
    /// How they relate to the family ("father", "spouse", "friend"), if given.
    public var relationship: String?
    /// The address of their avatar on the hub (`/api/people/{id}/avatar`), when they have one.
    public var avatarUrl: String?
    /// How many memories they are in.
    public var memoryCount: Int

    /// Creates a person.
    public init(id: Int64, name: String, relationship: String? = nil, avatarUrl: String? = nil, memoryCount: Int = 0) {
        self.id = id
        self.name = name
        self.relationship = relationship
        self.avatarUrl = avatarUrl
        self.memoryCount = memoryCount
    }
}

/// The body of `POST /api/people` and `PUT /api/people/{id}`.
public struct PersonRequest: Sendable, Hashable, Codable {
    /// The name (1–100 characters). Two people may not have the same name, compared without case and
    /// with runs of spaces as one.
    public var name: String
    /// The relationship (at most 50 characters).
    public var relationship: String?

    /// Creates a request.
    public init(name: String, relationship: String? = nil) {
        self.name = name
        self.relationship = relationship
    }
}

/// The `409` answer of `POST /api/people` when the name is taken: the error and the person who has it.
public struct PersonConflict: Sendable, Hashable, Codable {
    /// The error (`person_exists`).
    public var error: APIError
    /// The person with that name already.
    public var person: HubPerson

    /// Creates the answer.
    public init(error: APIError, person: HubPerson) {
        self.error = error
        self.person = person
    }
}

/// A face on a memory's photo: a box in normalised coordinates of the upright image, and the person
/// it shows when someone tagged it.
public struct FaceTag: Sendable, Hashable, Codable {
    /// The hub's id for the face (absent in an upload).
    public var id: Int64?
    /// The box's left edge, 0–1 of the width.
    public var x: Double
    /// The box's top edge, 0–1 of the height.
    public var y: Double
    /// The box's width, above 0, and `x + width` at most 1.
    public var width: Double
    /// The box's height, above 0, and `y + height` at most 1.
    public var height: Double
    /// The person, when the face is tagged.
    public var personId: Int64?
    /// The face's embedding (dlib's 128 floats), sent by the device that found the face: the hub keeps it
    /// for suggestions (``KnownFace``) and never returns it with a memory.
    public var embedding: [Float]?

    /// The most floats an embedding may have.
    public static let maximumEmbeddingLength = 512

    /// Creates a face tag.
    public init(id: Int64? = nil, x: Double, y: Double, width: Double, height: Double, personId: Int64? = nil, embedding: [Float]? = nil) {
        self.id = id
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.personId = personId
        self.embedding = embedding
    }

    /// What is wrong with the face (its box or its embedding), or nil.
    public var problem: String? {
        if let boxProblem { return boxProblem }
        if let embedding, embedding.isEmpty || embedding.count > Self.maximumEmbeddingLength || embedding.contains(where: { !$0.isFinite }) {
            return "the embedding must have 1 to \(Self.maximumEmbeddingLength) finite numbers"
        }
        return nil
    }

    /// What is wrong with the box, or nil when it is inside the image with a positive size.
    public var boxProblem: String? {
        let values = [x, y, width, height]
        if values.contains(where: { !$0.isFinite }) { return "the box's numbers must be finite" }
        if x < 0 || y < 0 || x > 1 || y > 1 { return "x and y must be between 0 and 1" }
        if width <= 0 || height <= 0 { return "width and height must be above 0" }
        if x + width > 1.000001 || y + height > 1.000001 { return "the box must end inside the image (x + width and y + height at most 1)" }
        return nil
    }
}

/// The kinds of memory.
public enum MemoryKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// A photo (JPEG, PNG, HEIC, WebP…).
    case photo
    /// A video (MP4, QuickTime…).
    case video
    /// A voice recording (M4A/AAC, MP3…).
    case voice
    /// A text note.
    case text
}

/// A memory as the hub keeps it: its ``MemoryDetails`` (read and written as its own fields,
/// `memory.title`), its people and faces, and what the hub knows of its media.
public struct HubMemory: MemoryDetailsFields, Sendable, Hashable, Codable {
    /// The hub's id.
    public var id: Int64
    /// What it is and says: kind, title, description, date, place (the description may be the photo's own).
    public var details: MemoryDetails
    /// The people in it.
    public var people: [Int64]
    /// The faces on its photo.
    public var faces: [FaceTag]
    /// The media's type (`image/jpeg`, `audio/mp4`, `text/plain`…).
    public var mediaType: String
    /// The media's size in bytes.
    public var size: Int64
    /// The media's SHA-256: the same bytes are one memory.
    public var sha256: String
    /// A video's or voice note's duration in milliseconds, when the hub could read it.
    public var durationMs: Int64?
    /// A photo's upright size in pixels (a video's frame size).
    public var width: Int?
    /// See ``width``.
    public var height: Int?
    /// Which device uploaded it.
    public var uploadedBy: String
    /// When it reached the hub (milliseconds since 1970, the hub's clock).
    public var createdAt: Int64
    /// Where to download the media (`/api/memories/{id}/media`).
    public var mediaUrl: String
    /// Where its thumbnail is (`/api/memories/{id}/thumbnail`), when it has one.
    public var thumbnailUrl: String?

    /// Creates a memory.
    public init(id: Int64, details: MemoryDetails, people: [Int64], faces: [FaceTag], mediaType: String, size: Int64, sha256: String,
                durationMs: Int64? = nil, width: Int?, height: Int?, uploadedBy: String, createdAt: Int64, mediaUrl: String, thumbnailUrl: String?) {
        self.id = id
        self.details = details
        self.people = people
        self.faces = faces
        self.mediaType = mediaType
        self.size = size
        self.sha256 = sha256
        self.durationMs = durationMs
        self.width = width
        self.height = height
        self.uploadedBy = uploadedBy
        self.createdAt = createdAt
        self.mediaUrl = mediaUrl
        self.thumbnailUrl = thumbnailUrl
    }

    private enum CodingKeys: String, CodingKey {
        case id, people, faces, mediaType, size, sha256, durationMs, width, height, uploadedBy, createdAt, mediaUrl, thumbnailUrl
    }

    /// Reads a memory from one flat JSON object, its details beside its other fields.
    public init(from decoder: any Decoder) throws {
        details = try MemoryDetails(from: decoder)
        let fields = try decoder.container(keyedBy: CodingKeys.self)
        id = try fields.decode(Int64.self, forKey: .id)
        people = try fields.decode([Int64].self, forKey: .people)
        faces = try fields.decode([FaceTag].self, forKey: .faces)
        mediaType = try fields.decode(String.self, forKey: .mediaType)
        size = try fields.decode(Int64.self, forKey: .size)
        sha256 = try fields.decode(String.self, forKey: .sha256)
        durationMs = try fields.decodeIfPresent(Int64.self, forKey: .durationMs)
        width = try fields.decodeIfPresent(Int.self, forKey: .width)
        height = try fields.decodeIfPresent(Int.self, forKey: .height)
        uploadedBy = try fields.decode(String.self, forKey: .uploadedBy)
        createdAt = try fields.decode(Int64.self, forKey: .createdAt)
        mediaUrl = try fields.decode(String.self, forKey: .mediaUrl)
        thumbnailUrl = try fields.decodeIfPresent(String.self, forKey: .thumbnailUrl)
    }

    /// Writes the memory as one flat JSON object.
    public func encode(to encoder: any Encoder) throws {
        try details.encode(to: encoder)
        var fields = encoder.container(keyedBy: CodingKeys.self)
        try fields.encode(id, forKey: .id)
        try fields.encode(people, forKey: .people)
        try fields.encode(faces, forKey: .faces)
        try fields.encode(mediaType, forKey: .mediaType)
        try fields.encode(size, forKey: .size)
        try fields.encode(sha256, forKey: .sha256)
        try fields.encodeIfPresent(durationMs, forKey: .durationMs)
        try fields.encodeIfPresent(width, forKey: .width)
        try fields.encodeIfPresent(height, forKey: .height)
        try fields.encode(uploadedBy, forKey: .uploadedBy)
        try fields.encode(createdAt, forKey: .createdAt)
        try fields.encode(mediaUrl, forKey: .mediaUrl)
        try fields.encodeIfPresent(thumbnailUrl, forKey: .thumbnailUrl)
    }
}

/// A page of `GET /api/memories`.
public struct MemoryPage: Sendable, Hashable, Codable {
    /// The memories, newest first.
    public var memories: [HubMemory]
    /// The cursor of the next page, nil on the last.
    public var nextCursor: String?

    /// Creates a page.
    public init(memories: [HubMemory], nextCursor: String?) {
        self.memories = memories
        self.nextCursor = nextCursor
    }
}

/// What the multipart `metadata` field of `POST /api/memories` holds: the memory's ``MemoryDetails``
/// (read and written as its own fields, `upload.title`), its people and faces, and where its media is.
public struct MemoryUpload: MemoryDetailsFields, Sendable, Hashable, Codable {
    /// What it is and says: kind, title, description, date, place.
    public var details: MemoryDetails
    /// The people in it (ids of the hub's people).
    public var people: [Int64]?
    /// The faces on its photo.
    public var faces: [FaceTag]?
    /// A completed upload session (`POST /api/uploads`) holding the media, instead of a `media` part.
    public var uploadId: String?
    /// Instead of the media: the SHA-256 (64 lower-case hex digits) of bytes the hub has already
    /// (``HubClient/memory(sha256:wait:)``). Nothing but the metadata is sent; its people and faces
    /// join that memory, which keeps its own title and description, as when the same bytes come
    /// again. The hub answers `404` when it has no memory of those bytes.
    public var sha256: String?

    /// Creates an upload's metadata.
    public init(_ details: MemoryDetails, people: [Int64]? = nil, faces: [FaceTag]? = nil, uploadId: String? = nil, sha256: String? = nil) {
        self.details = details
        self.people = people
        self.faces = faces
        self.uploadId = uploadId
        self.sha256 = sha256
    }

    /// Creates an upload's metadata from each of its details.
    public init(kind: MemoryKind, title: String, description: String? = nil, takenAt: Int64? = nil, latitude: Double? = nil,
                longitude: Double? = nil, place: String? = nil, people: [Int64]? = nil, faces: [FaceTag]? = nil, uploadId: String? = nil,
                extendedDescription: String? = nil) {
        self.init(MemoryDetails(kind: kind, title: title, description: description, extendedDescription: extendedDescription, takenAt: takenAt,
                                latitude: latitude, longitude: longitude, place: place),
                  people: people, faces: faces, uploadId: uploadId)
    }

    private enum CodingKeys: String, CodingKey { case people, faces, uploadId, sha256 }

    /// Reads the metadata from one flat JSON object, its details beside its other fields.
    public init(from decoder: any Decoder) throws {
        details = try MemoryDetails(from: decoder)
        let fields = try decoder.container(keyedBy: CodingKeys.self)
        people = try fields.decodeIfPresent([Int64].self, forKey: .people)
        faces = try fields.decodeIfPresent([FaceTag].self, forKey: .faces)
        uploadId = try fields.decodeIfPresent(String.self, forKey: .uploadId)
        sha256 = try fields.decodeIfPresent(String.self, forKey: .sha256)
    }

    /// Writes the metadata as one flat JSON object.
    public func encode(to encoder: any Encoder) throws {
        try details.encode(to: encoder)
        var fields = encoder.container(keyedBy: CodingKeys.self)
        try fields.encodeIfPresent(people, forKey: .people)
        try fields.encodeIfPresent(faces, forKey: .faces)
        try fields.encodeIfPresent(uploadId, forKey: .uploadId)
        try fields.encodeIfPresent(sha256, forKey: .sha256)
    }
}

/// A tagged face's embedding on the hub: what suggests who a new face is, on every device of the family.
public struct KnownFace: Sendable, Hashable, Codable {
    /// The person the face was tagged with.
    public var personId: Int64
    /// The face's embedding.
    public var embedding: [Float]

    /// Creates a known face.
    public init(personId: Int64, embedding: [Float]) {
        self.personId = personId
        self.embedding = embedding
    }
}

/// The answer of `GET /api/faces/known`: the latest tagged faces with an embedding, at most
/// ``perPerson`` a person.
public struct KnownFaceList: Sendable, Hashable, Codable {
    /// The faces, by person.
    public var faces: [KnownFace]

    /// At most this many faces a person (the latest tagged).
    public static let perPerson = 32

    /// Creates the list.
    public init(faces: [KnownFace]) { self.faces = faces }
}

/// The body of `PUT /api/memories/{id}/faces/{faceId}`: who the face is (null: nobody).
public struct FaceTagRequest: Sendable, Hashable, Codable {
    /// The person, or nil to untag.
    public var personId: Int64?

    /// Creates a request.
    public init(personId: Int64?) { self.personId = personId }
}

/// The body of `POST /api/uploads`: a resumable upload of a large file, sent in pieces.
public struct UploadSessionRequest: Sendable, Hashable, Codable {
    /// The file's size in bytes.
    public var size: Int64
    /// The file's SHA-256 (64 lower-case hex digits): checked when the memory is made from it.
    public var sha256: String
    /// The file's media type (`video/mp4`, `audio/mp4`…).
    public var contentType: String

    /// Creates a request.
    public init(size: Int64, sha256: String, contentType: String) {
        self.size = size
        self.sha256 = sha256
        self.contentType = contentType
    }
}

/// Where an upload session stands: `PATCH /api/uploads/{id}` continues it at `offset`.
public struct UploadSessionStatus: Sendable, Hashable, Codable {
    /// The session's id.
    public var id: String
    /// How many bytes the hub has.
    public var offset: Int64
    /// The file's size.
    public var size: Int64
    /// When the session and its bytes are dropped unless used (milliseconds since 1970).
    public var expiresAt: Int64

    /// Creates a status.
    public init(id: String, offset: Int64, size: Int64, expiresAt: Int64) {
        self.id = id
        self.offset = offset
        self.size = size
        self.expiresAt = expiresAt
    }
}
