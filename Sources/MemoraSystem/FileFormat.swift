/// A file's container format, recognised from its first bytes (never from its name): the
/// package's one detector. ImageKit, MetadataKit and PhotoIndex map it to their own types.
package enum FileFormat: Sendable, Hashable {
    case jpeg
    case png
    case gif
    case webp
    /// Classic TIFF (and DNG, which is TIFF).
    case tiff
    /// BigTIFF (64-bit offsets).
    case bigTIFF
    /// An ISO-BMFF file with a HEIF image brand, coded with HEVC (HEIC) or another codec.
    case heic
    /// An ISO-BMFF file with an AVIF brand.
    case avif
    /// An ISO-BMFF file with a HEIF brand (`mif1`, `msf1`) but no codec brand.
    case heif

    /// How many leading bytes ``detect(_:)`` looks at (the `ftyp` box may list brands that far in).
    package static let headLength = 256

    /// The format of a file starting with `head` (its first ``headLength`` bytes, or fewer), or nil.
    package static func detect<Bytes: Collection>(_ head: Bytes) -> FileFormat? where Bytes.Element == UInt8 {
        let bytes = Array(head.prefix(headLength))
        func starts(with prefix: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + prefix.count && bytes[offset..<offset + prefix.count].elementsEqual(prefix)
        }
        if starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts(with: Array("RIFF".utf8)) && starts(with: Array("WEBP".utf8), at: 8) { return .webp }
        if starts(with: [0x49, 0x49, 0x2A, 0x00]) || starts(with: [0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        if starts(with: [0x49, 0x49, 0x2B, 0x00]) || starts(with: [0x4D, 0x4D, 0x00, 0x2B]) { return .bigTIFF }
        if starts(with: Array("GIF87a".utf8)) || starts(with: Array("GIF89a".utf8)) { return .gif }
        if starts(with: Array("ftyp".utf8), at: 4) { return isoBrandFormat(bytes) }
        return nil
    }

    /// Whether the format is one of the HEIF family (HEIC, AVIF, HEIF).
    package var isHEIFFamily: Bool { self == .heic || self == .avif || self == .heif }

    /// Whether the format is TIFF or BigTIFF.
    package var isTIFFFamily: Bool { self == .tiff || self == .bigTIFF }

    /// The brands of an ISO-BMFF `ftyp` box: the major brand first, then every compatible brand.
    package static func brands<Bytes: Collection>(_ head: Bytes) -> [String] where Bytes.Element == UInt8 {
        let bytes = Array(head.prefix(headLength))
        guard bytes.count >= 12, bytes[4..<8].elementsEqual("ftyp".utf8) else { return [] }
        let boxSize = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        let end = min(bytes.count, max(boxSize, 12))
        var brands: [String] = []
        var offset = 8
        while offset + 4 <= end {
            if offset != 12 {  // bytes 12..<16 are the minor version, not a brand
                brands.append(String(decoding: bytes[offset..<offset + 4], as: UTF8.self))
            }
            offset += 4
        }
        return brands
    }

    private static let heicBrands: Set<String> = ["heic", "heix", "heim", "heis", "hevc", "hevx"]
    private static let avifBrands: Set<String> = ["avif", "avis"]
    private static let heifBrands: Set<String> = ["mif1", "msf1", "mif2", "miaf"]

    /// HEIC, AVIF or HEIF by the major brand first, then any compatible brand; nil for other ISO-BMFF files (MP4, MOV).
    private static func isoBrandFormat(_ head: [UInt8]) -> FileFormat? {
        let brands = brands(head)
        if let major = brands.first {
            if avifBrands.contains(major) { return .avif }
            if heicBrands.contains(major) { return .heic }
        }
        if brands.contains(where: avifBrands.contains) { return .avif }
        if brands.contains(where: heicBrands.contains) { return .heic }
        if brands.contains(where: heifBrands.contains) { return .heif }
        return nil
    }

    /// The format of the file at `path` from its first bytes, or nil (also when it cannot be read).
    package static func detect(contentsOf path: String) -> FileFormat? {
        (try? sniff(contentsOf: path)) ?? nil
    }

    /// The format of the file at `path` from its first bytes, nil when it is none of these; throws
    /// when the file cannot be opened or read (permission denied, an I/O error), so a caller can
    /// tell "not a photo" from "could not look".
    package static func sniff(contentsOf path: String) throws(SystemError) -> FileFormat? {
        detect(try SystemFile(path).read(headLength, at: 0))
    }
}
