/// A named region (MWG `mwg-rs:Regions`), normalised to 0...1 with the origin at the top left.
public struct FaceRegion: Sendable, Hashable, Codable {
    /// The person's name, when given.
    public var name: String?
    /// `Face`, `Pet`, `Focus`...
    public var type: String?
    /// Left edge (0...1).
    public var x: Double
    /// Top edge (0...1).
    public var y: Double
    /// Width (0...1).
    public var width: Double
    /// Height (0...1).
    public var height: Double
}
