/// A WebP split into RIFF chunks, so EXIF and XMP chunks can be set without touching
/// the bitstream. A simple WebP (one VP8 or VP8L chunk) gains the VP8X header that
/// metadata requires, with a canvas and flags taken from the bitstream itself.
struct WebPFile {
    struct Chunk {
        var fourCC: [UInt8]
        var data: [UInt8]
        var name: String { String(decoding: fourCC, as: UTF8.self) }
        var bytes: [UInt8] {
            let size = UInt32(data.count)
            return fourCC + [UInt8(size & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 24)]
                + data + (data.count % 2 == 1 ? [0] : [])
        }
    }

    static let exifFlag: UInt8 = 0x08
    static let xmpFlag: UInt8 = 0x04
    static let alphaFlag: UInt8 = 0x10

    var chunks: [Chunk]

    init(_ bytes: [UInt8], source: String) throws(MetadataError) {
        guard bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) else {
            throw .unsupportedFormat(source: source, reason: "not a WebP file")
        }
        let riffSize = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24
        guard riffSize + 8 == bytes.count else {
            throw .corrupt(source: source, reason: "the WebP RIFF size (\(riffSize + 8)) does not match the file (\(bytes.count) bytes)")
        }
        var chunks: [Chunk] = []
        var offset = 12
        while offset < bytes.count {
            guard offset + 8 <= bytes.count else { throw .corrupt(source: source, reason: "a WebP chunk header is cut off") }
            let size = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16 | Int(bytes[offset + 7]) << 24
            guard offset + 8 + size <= bytes.count else { throw .corrupt(source: source, reason: "a WebP chunk runs past the end of the file") }
            chunks.append(Chunk(fourCC: Array(bytes[offset..<(offset + 4)]), data: Array(bytes[(offset + 8)..<(offset + 8 + size)])))
            offset += 8 + size + size % 2
        }
        guard let first = chunks.first, ["VP8 ", "VP8L", "VP8X"].contains(first.name) else {
            throw .corrupt(source: source, reason: "the WebP has no image chunk first")
        }
        if first.name == "VP8X" && first.data.count < 10 { throw .corrupt(source: source, reason: "the WebP VP8X chunk is too short") }
        self.chunks = chunks
    }

    var bytes: [UInt8] {
        let body = Array("WEBP".utf8) + chunks.flatMap(\.bytes)
        let size = UInt32(body.count)
        return Array("RIFF".utf8) + [UInt8(size & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 24)] + body
    }

    /// The EXIF TIFF block (some writers prefix it with `Exif\0\0`, which is kept).
    var exif: [UInt8]? {
        guard let data = chunks.first(where: { $0.name == "EXIF" })?.data else { return nil }
        return data.starts(with: JPEGFile.exifSignature) ? Array(data.dropFirst(6)) : data
    }

    var xmpPacket: [UInt8]? { chunks.first { $0.name == "XMP " }?.data }

    /// Sets the EXIF and XMP chunks (converting a simple WebP to the extended form first).
    mutating func setMetadata(exif tiff: [UInt8]?, xmp packet: [UInt8]?, source: String) throws(MetadataError) {
        guard tiff != nil || packet != nil else { return }
        if chunks[0].name != "VP8X" { try addVP8X(source: source) }
        if let tiff { setEXIF(tiff) }
        if let packet { setXMP(packet) }
    }

    private mutating func setEXIF(_ tiff: [UInt8]) {
        if let index = chunks.firstIndex(where: { $0.name == "EXIF" }) {
            let prefix = chunks[index].data.starts(with: JPEGFile.exifSignature) ? JPEGFile.exifSignature : []
            chunks[index].data = prefix + tiff
        } else {
            let xmpIndex = chunks.firstIndex { $0.name == "XMP " }
            chunks.insert(Chunk(fourCC: Array("EXIF".utf8), data: tiff), at: xmpIndex ?? chunks.count)
        }
        chunks[0].data[0] |= Self.exifFlag
    }

    private mutating func setXMP(_ packet: [UInt8]) {
        if let index = chunks.firstIndex(where: { $0.name == "XMP " }) {
            chunks[index].data = packet
        } else {
            chunks.append(Chunk(fourCC: Array("XMP ".utf8), data: packet))
        }
        chunks[0].data[0] |= Self.xmpFlag
    }

    /// Prepends a VP8X chunk whose canvas and alpha flag come from the bitstream.
    private mutating func addVP8X(source: String) throws(MetadataError) {
        let image = chunks[0]
        var width = 0, height = 0, alpha = false
        if image.name == "VP8 " {
            let d = image.data
            guard d.count >= 10, d[3] == 0x9D, d[4] == 0x01, d[5] == 0x2A else { throw .corrupt(source: source, reason: "the VP8 bitstream has no frame header") }
            width = (Int(d[6]) | Int(d[7]) << 8) & 0x3FFF
            height = (Int(d[8]) | Int(d[9]) << 8) & 0x3FFF
        } else {
            let d = image.data
            guard d.count >= 5, d[0] == 0x2F else { throw .corrupt(source: source, reason: "the VP8L bitstream has no signature") }
            let bits = UInt32(d[1]) | UInt32(d[2]) << 8 | UInt32(d[3]) << 16 | UInt32(d[4]) << 24
            width = Int(bits & 0x3FFF) + 1
            height = Int(bits >> 14 & 0x3FFF) + 1
            alpha = bits >> 28 & 1 == 1
        }
        guard width > 0, height > 0 else { throw .corrupt(source: source, reason: "the WebP bitstream has no size") }
        let w = width - 1, h = height - 1
        let data: [UInt8] = [alpha ? Self.alphaFlag : 0, 0, 0, 0,
                             UInt8(w & 0xFF), UInt8(w >> 8 & 0xFF), UInt8(w >> 16 & 0xFF),
                             UInt8(h & 0xFF), UInt8(h >> 8 & 0xFF), UInt8(h >> 16 & 0xFF)]
        chunks.insert(Chunk(fourCC: Array("VP8X".utf8), data: data), at: 0)
    }

    /// The bitstreams and colour profile, for a byte comparison (VP8, VP8L, ALPH, ANIM, ANMF, ICCP).
    var imageChunks: [[UInt8]] {
        chunks.filter { ["VP8 ", "VP8L", "ALPH", "ANIM", "ANMF", "ICCP"].contains($0.name) }.map(\.bytes)
    }

    /// The VP8X canvas size bytes, when the file is in the extended form.
    var canvas: [UInt8]? {
        chunks[0].name == "VP8X" ? Array(chunks[0].data[4..<10]) : nil
    }
}
