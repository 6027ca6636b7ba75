/// What a memory is and what it says: the fields an upload gives (``MemoryUpload``) and the hub keeps
/// (``HubMemory``), in the same flat JSON object as the rest of each message.
///
/// Both messages read and write these fields as their own (`memory.title`, `upload.place = "Porto"`).
public struct MemoryDetails: Sendable, Hashable, Codable {
    /// Photo, video, voice or text.
    public var kind: MemoryKind
    /// The title (1–200 characters).
    public var title: String
    /// The description, a photo's alt text (at most 5,000 characters), or the text of a text memory
    /// (at most 100,000).
    public var description: String?
    /// What did not fit in the description (at most 10,000 characters): a photo's extended description,
    /// the rest of its text, the faces, the colours, shown beneath the photo; nil when none was given.
    public var extendedDescription: String?
    /// When it happened, in milliseconds since 1970. The hub uses a photo's own date when an upload
    /// gives none.
    public var takenAt: Int64?
    /// Where, in degrees. The hub uses a photo's own position when an upload gives none and the
    /// uploader keeps locations.
    public var latitude: Double?
    /// See ``latitude``.
    public var longitude: Double?
    /// A place name (at most 200 characters).
    public var place: String?

    /// Creates the details of a memory.
    public init(kind: MemoryKind, title: String, description: String? = nil, extendedDescription: String? = nil, takenAt: Int64? = nil,
                latitude: Double? = nil, longitude: Double? = nil, place: String? = nil) {
        self.kind = kind
        self.title = title
        self.description = description
        self.extendedDescription = extendedDescription
        self.takenAt = takenAt
        self.latitude = latitude
        self.longitude = longitude
        self.place = place
    }
}

/// A message that carries a memory's ``MemoryDetails`` and reads and writes them as its own fields
/// (`memory.title`, `upload.place = "Porto"`): ``HubMemory`` and ``MemoryUpload``.
@dynamicMemberLookup
public protocol MemoryDetailsFields {
    /// What the memory is and says.
    var details: MemoryDetails { get set }
}

extension MemoryDetailsFields {
    /// One of the ``details``, as the message's own field.
    public subscript<Value>(dynamicMember field: WritableKeyPath<MemoryDetails, Value>) -> Value {
        get { details[keyPath: field] }
        set { details[keyPath: field] = newValue }
    }
}
