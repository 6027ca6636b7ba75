internal import MemoraSystem

/// An image container format, recognised by content (magic bytes), never by file extension.
public enum ImageFormat: String, Sendable, Hashable, CaseIterable, Codable {
    case jpeg
    case png
    /// HEIF with HEVC-coded images (`.heic`, `.heif`, iPhone photos).
    case heic
    /// HEIF with AV1-coded images.
    case avif
    case webp
    case tiff
    case gif

    /// A short human name, for messages.
    public var displayName: String {
        switch self {
        case .jpeg: "JPEG"
        case .png: "PNG"
        case .heic: "HEIC"
        case .avif: "AVIF"
        case .webp: "WebP"
        case .tiff: "TIFF"
        case .gif: "GIF"
        }
    }

    /// The IANA media type.
    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .heic: "image/heic"
        case .avif: "image/avif"
        case .webp: "image/webp"
        case .tiff: "image/tiff"
        case .gif: "image/gif"
        }
    }

    /// Whether ImageKit can decode this format to pixels.
    public var isDecodable: Bool {
        switch self {
        case .jpeg, .png, .heic, .avif, .webp, .tiff: true
        case .gif: false
        }
    }

    /// Recognises the format from the first bytes of a file (the `ftyp` box of a
    /// HEIF file may list brands up to 256 bytes in); nil when unknown.
    public static func detect<Bytes: Collection>(_ bytes: Bytes) -> ImageFormat? where Bytes.Element == UInt8 {
        switch FileFormat.detect(bytes) {
        case .jpeg: .jpeg
        case .png: .png
        case .webp: .webp
        case .tiff, .bigTIFF: .tiff
        case .gif: .gif
        case .avif: .avif
        // A HEIF file without a codec brand is decoded by libheif like a HEIC one.
        case .heic, .heif: .heic
        case nil: nil
        }
    }
}
