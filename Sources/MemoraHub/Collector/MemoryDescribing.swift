/// Describes a photo on this device for a screen reader, when it goes to the hub without a
/// description: neither the upload nor the photo's own metadata gives one. The `memora` CLI passes
/// MemoraCore's on-device describer; an Apple front end may pass its own. It is given the file that
/// is uploaded (without its location, unless the user keeps it), so it cannot say what the upload
/// does not show, and nothing leaves the device but the text it returns, which goes to the paired
/// hub with the photo.
public protocol MemoryDescribing: Sendable {
    /// The photo's description (its alt text) and extended description; nil when it has nothing to
    /// say or could not describe it (it tells its user why, its own way: the memory goes without).
    func describe(photo path: String) async -> MemoryDescription?
}

/// A photo's description, as a ``MemoryDescribing`` made it.
public struct MemoryDescription: Sendable, Hashable {
    /// What a screen reader reads for the photo: its alt text.
    public var description: String
    /// What did not fit in the description (the rest of its text, the faces, the colours).
    public var extendedDescription: String?

    /// A description.
    public init(description: String, extendedDescription: String? = nil) {
        self.description = description
        self.extendedDescription = extendedDescription
    }
}
