/// How ImageKit encodes a PNG. No EXIF, XMP or text chunks are written; libpng adds
/// only colour-space information (`sRGB` or `gAMA`).
public struct PNGEncodingOptions: Sendable, Hashable {
    /// The sample layout stored in the file.
    public enum Storage: String, Sendable, Hashable, CaseIterable {
        /// 8 bits per channel, RGB or RGBA like the image.
        case truecolor8
        /// 16 bits per channel, linear light with a `gAMA` chunk of 1.0 (alpha is premultiplied
        /// on the way in, as libpng requires, and the file stores it straight).
        case truecolor16
        /// A palette of at most 256 colours (fails if the image has more).
        case palette
    }

    /// The sample layout stored in the file.
    public var storage: Storage

    /// Creates PNG options; the default is 8-bit truecolour.
    public init(storage: Storage = .truecolor8) {
        self.storage = storage
    }
}
