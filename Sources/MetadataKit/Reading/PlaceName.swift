/// A place as the photo's IPTC location fields name it (XMP first, then IIM).
public struct PlaceName: Sendable, Hashable, Codable {
    /// `Iptc4xmpCore:Location` / IIM 2:92 Sub-location (a landmark or district).
    public var sublocation: String?
    /// `photoshop:City` / IIM 2:90.
    public var city: String?
    /// `photoshop:State` / IIM 2:95 Province-State.
    public var state: String?
    /// `photoshop:Country` / IIM 2:101.
    public var country: String?

    /// The most specific names joined for display, for example "Montmartre, Paris, France".
    public var displayName: String {
        var parts: [String] = []
        for part in [sublocation, city, state, country].compactMap({ $0 }) where !parts.contains(part) { parts.append(part) }
        return parts.joined(separator: ", ")
    }
}
