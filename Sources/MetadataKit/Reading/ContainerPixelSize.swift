/// The pixel size a file's own structure declares: the JPEG frame header, the PNG `IHDR`, the
/// WebP `VP8X` canvas or frame header, the HEIF/AVIF primary item's `ispe` property. EXIF's
/// `PixelXDimension` is only a copy, which crops and resizes by other programs leave stale.
/// Sizes are as stored, before any EXIF or `irot` rotation.
enum ContainerPixelSize {
    /// The size `bytes` declare (a whole file, or the parts the fast scan reads); nil for other
    /// formats (TIFF's comes from its tags) and damaged headers.
    static func of(_ bytes: [UInt8], source: String) -> (width: Int, height: Int)? {
        switch MetadataContainer(bytes) {
        case .jpeg: (try? JPEGFile(bytes, source: source)).flatMap(jpeg)
        case .png: png(bytes)
        case .webp: webP(bytes)
        case .heif: (try? HEIFFile(bytes, source: source))?.primaryImageSize
        case .tiff, nil: nil
        }
    }

    /// From the first frame header (SOF0–SOF15 but DHT, JPG and DAC): height, then width.
    static func jpeg(_ file: JPEGFile) -> (width: Int, height: Int)? {
        guard let frame = file.segments.first(where: { (0xC0...0xCF).contains($0.marker) && ![0xC4, 0xC8, 0xCC].contains($0.marker) }),
              frame.payload.count >= 5 else { return nil }
        let size = (width: Int(frame.payload[3]) << 8 | Int(frame.payload[4]), height: Int(frame.payload[1]) << 8 | Int(frame.payload[2]))
        return size.width > 0 && size.height > 0 ? size : nil
    }

    /// From `IHDR`, which must be the first chunk.
    private static func png(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard bytes.count >= 24, bytes[12..<16].elementsEqual("IHDR".utf8) else { return nil }
        let width = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let height = bytes[20..<24].reduce(0) { $0 << 8 | Int($1) }
        return width > 0 && height > 0 ? (width, height) : nil
    }

    /// From the first chunk: `VP8X` (the canvas, 24-bit sizes minus one), `VP8 ` (the key
    /// frame's 14-bit sizes after its start code) or `VP8L` (14-bit sizes minus one after the signature).
    private static func webP(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard bytes.count >= 30 else { return nil }
        func little(_ range: Range<Int>) -> Int { bytes[range].reversed().reduce(0) { $0 << 8 | Int($1) } }
        switch String(decoding: bytes[12..<16], as: UTF8.self) {
        case "VP8X":
            return (little(24..<27) + 1, little(27..<30) + 1)
        case "VP8 ":
            guard bytes[23..<26].elementsEqual([0x9D, 0x01, 0x2A]) else { return nil }
            return (little(26..<28) & 0x3FFF, little(28..<30) & 0x3FFF)
        case "VP8L":
            guard bytes[20] == 0x2F else { return nil }
            let bits = little(21..<25)
            return ((bits & 0x3FFF) + 1, (bits >> 14 & 0x3FFF) + 1)
        default:
            return nil
        }
    }
}

extension HEIFFile {
    /// The primary image's size from its `ispe` property (found through `iprp`'s `ipma` and `ipco`).
    var primaryImageSize: (width: Int, height: Int)? {
        guard let iprp = metaChildren.first(where: { $0.typeName == "iprp" }),
              let children = try? BMFFBox.boxes(in: bytes, iprp.payload, source: source),
              let ipco = children.first(where: { $0.typeName == "ipco" }),
              let properties = try? BMFFBox.boxes(in: bytes, ipco.payload, source: source) else { return nil }
        for ipma in children where ipma.typeName == "ipma" {
            var reader = BMFFReader(bytes, ipma.payload, source: source)
            guard let version = try? reader.uint8(), let flags = try? reader.bytes(3), let count = try? reader.uint32() else { return nil }
            let wide = flags[2] & 1 != 0
            for _ in 0..<count {
                guard let item = try? reader.uint(size: version < 1 ? 2 : 4), let associations = try? reader.uint8() else { return nil }
                for _ in 0..<associations {
                    guard let raw = try? reader.uint(size: wide ? 2 : 1) else { return nil }
                    let index = Int(raw) & (wide ? 0x7FFF : 0x7F)
                    guard item == UInt64(primaryItem), index >= 1, index <= properties.count else { continue }
                    let property = properties[index - 1]
                    guard property.typeName == "ispe", property.payload.count >= 12 else { continue }
                    let start = property.payloadStart + 4
                    let width = bytes[start..<(start + 4)].reduce(0) { $0 << 8 | Int($1) }
                    let height = bytes[(start + 4)..<(start + 8)].reduce(0) { $0 << 8 | Int($1) }
                    return width > 0 && height > 0 ? (width, height) : nil
                }
            }
        }
        return nil
    }
}
