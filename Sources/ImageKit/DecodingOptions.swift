/// How ImageKit decodes: safety limits and orientation.
public struct DecodingOptions: Sendable, Hashable {
    /// The default pixel limit: 100 megapixels.
    public static let defaultMaxPixelCount = 100_000_000

    /// Images with more pixels than this are refused before any pixel memory is
    /// allocated (a decompression-bomb guard). Default 100 MP.
    public var maxPixelCount: Int
    /// Turn the result upright using the file's EXIF orientation. Off by default:
    /// HEIC/AVIF are always upright because libheif applies their own transforms.
    public var applyOrientation: Bool

    /// Creates decoding options.
    public init(maxPixelCount: Int = DecodingOptions.defaultMaxPixelCount, applyOrientation: Bool = false) {
        self.maxPixelCount = maxPixelCount
        self.applyOrientation = applyOrientation
    }
}

/// What ImageKit can tell about an image without decoding its pixels.
public struct ImageInfo: Sendable, Hashable, Codable {
    /// The container format, detected from content.
    public var format: ImageFormat
    /// Stored width in pixels.
    public var width: Int
    /// Stored height in pixels.
    public var height: Int
    /// The EXIF orientation (`.up` when absent; always `.up` for HEIC/AVIF, whose transforms libheif applies).
    public var orientation: ImageOrientation
    /// Whether the image has an alpha channel.
    public var hasAlpha: Bool
    /// Whether a JPEG is progressive (false for other formats).
    public var isProgressive: Bool
    /// Whether a JPEG is stored as CMYK/YCCK.
    public var isCMYK: Bool
    /// Whether a JPEG is stored as grayscale.
    public var isGrayscale: Bool
    /// The size of the file in bytes.
    public var byteCount: Int

    /// The width once shown upright.
    public var uprightWidth: Int { orientation.uprightSize(width: width, height: height).width }
    /// The height once shown upright.
    public var uprightHeight: Int { orientation.uprightSize(width: width, height: height).height }
}
