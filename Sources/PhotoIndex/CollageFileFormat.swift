import ImageKit

/// The file format a collage is written in, chosen by the output's extension
/// (``init(path:)``): a collage named `memories.png` is a PNG, never a JPEG under a PNG name.
public enum CollageFileFormat: String, Sendable, Hashable, Codable, CaseIterable {
    /// JPEG at quality 0.9 (the seed's), through libturbojpeg: `.jpg`, `.jpeg`.
    case jpeg
    /// PNG (lossless, 8 bits per channel), through libpng: `.png`.
    case png
    /// WebP at quality 0.9 (lossy), through libwebp: `.webp`.
    case webp
    /// HEIC (HEVC at quality 0.9), through libheif and x265: `.heic`, `.heif`.
    case heic
    /// AVIF (AV1 at quality 0.9), through libheif and aom or rav1e: `.avif`.
    case avif

    /// The extensions each format is chosen by, lower-case, without the dot.
    public var extensions: [String] {
        switch self {
        case .jpeg: ["jpg", "jpeg"]
        case .png: ["png"]
        case .webp: ["webp"]
        case .heic: ["heic", "heif"]
        case .avif: ["avif"]
        }
    }

    /// Every accepted extension with its dot, for messages (".jpg, .jpeg, .png, …").
    public static var acceptedExtensions: String {
        allCases.flatMap(\.extensions).map { "." + $0 }.joined(separator: ", ")
    }

    /// The format named by `path`'s extension (case-insensitive), or nil when the extension
    /// is missing or not one of ``extensions``.
    public init?(path: String) {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        let found = name[name.index(after: dot)...].lowercased()
        guard let format = Self.allCases.first(where: { $0.extensions.contains(found) }) else { return nil }
        self = format
    }

    /// The format with the collage's encoding options (quality ``CollageRenderer/quality``).
    var encoding: EncodingFormat {
        switch self {
        case .jpeg: .jpeg(JPEGEncodingOptions(quality: CollageRenderer.quality))
        case .png: .png()
        case .webp: .webp(WebPEncodingOptions(quality: CollageRenderer.quality))
        case .heic: .heif(HEIFEncodingOptions(codec: .hevc, quality: CollageRenderer.quality))
        case .avif: .heif(HEIFEncodingOptions(codec: .av1, quality: CollageRenderer.quality))
        }
    }
}
