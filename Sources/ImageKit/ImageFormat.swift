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
        let head = Array(bytes.prefix(256))
        func starts(with prefix: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + prefix.count && Array(head[offset..<offset + prefix.count]) == prefix
        }
        if starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts(with: Array("RIFF".utf8)) && starts(with: Array("WEBP".utf8), at: 8) { return .webp }
        if starts(with: [0x49, 0x49, 0x2A, 0x00]) || starts(with: [0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        if starts(with: [0x49, 0x49, 0x2B, 0x00]) || starts(with: [0x4D, 0x4D, 0x00, 0x2B]) { return .tiff }  // BigTIFF
        if starts(with: Array("GIF87a".utf8)) || starts(with: Array("GIF89a".utf8)) { return .gif }
        if starts(with: Array("ftyp".utf8), at: 4) { return isoBrandFormat(head) }
        return nil
    }

    /// Reads the ISO-BMFF `ftyp` box's major and compatible brands.
    private static func isoBrandFormat(_ head: [UInt8]) -> ImageFormat? {
        let boxSize = Int(head[0]) << 24 | Int(head[1]) << 16 | Int(head[2]) << 8 | Int(head[3])
        let end = min(head.count, max(boxSize, 16))
        var brands: [String] = []
        var offset = 8
        while offset + 4 <= end {
            if offset != 12 {  // bytes 12..<16 are the minor version, not a brand
                brands.append(String(decoding: head[offset..<offset + 4], as: UTF8.self))
            }
            offset += 4
        }
        let heicBrands: Set<String> = ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"]
        let avifBrands: Set<String> = ["avif", "avis"]
        if let major = brands.first {
            if avifBrands.contains(major) { return .avif }
            if heicBrands.contains(major) && major != "mif1" && major != "msf1" { return .heic }
        }
        if brands.contains(where: avifBrands.contains) { return .avif }
        if brands.contains(where: heicBrands.contains) { return .heic }
        return nil
    }
}
