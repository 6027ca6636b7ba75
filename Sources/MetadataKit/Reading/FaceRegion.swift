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

    /// A region (a face unless `type` says otherwise).
    public init(name: String? = nil, type: String? = "Face", x: Double, y: Double, width: Double, height: Double) {
        self.name = name
        self.type = type
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}
