/// A GPS position.
public struct GPSPosition: Sendable, Hashable, Codable {
    /// Degrees north (negative: south).
    public var latitude: Double
    /// Degrees east (negative: west).
    public var longitude: Double
    /// Metres above sea level, when recorded.
    public var altitude: Double?
}
