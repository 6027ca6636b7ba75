/// How the bytes of an ``Image`` are laid out: 8 bits per channel, packed, rows top to bottom.
public enum PixelFormat: String, Sendable, Hashable, CaseIterable, Codable {
    /// Red, green, blue; 3 bytes per pixel.
    case rgb8
    /// Red, green, blue, alpha (straight, not premultiplied); 4 bytes per pixel.
    case rgba8

    /// The number of bytes one pixel takes.
    public var bytesPerPixel: Int {
        switch self {
        case .rgb8: 3
        case .rgba8: 4
        }
    }

    /// Whether the format carries an alpha channel.
    public var hasAlpha: Bool { self == .rgba8 }
}
