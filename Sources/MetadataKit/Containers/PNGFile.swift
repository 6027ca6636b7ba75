import Foundation

/// A PNG split into chunks, so the `eXIf` and XMP `iTXt` chunks can be replaced
/// without touching any other chunk.
struct PNGFile {
    /// One chunk; the CRC is recomputed when written.
    struct Chunk {
        var type: [UInt8]
        var data: [UInt8]

        var typeName: String { String(decoding: type, as: UTF8.self) }

        var bytes: [UInt8] {
            let length = UInt32(data.count)
            let crc = CRC32.checksum(type + data)
            return [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
                + type + data + [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
        }
    }

    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    static let xmpKeyword = Array("XML:com.adobe.xmp".utf8)

    var chunks: [Chunk]
    /// Bytes after IEND, kept as they were.
    var trailer: [UInt8]

    init(_ bytes: [UInt8], source: String) throws(MetadataError) {
        guard bytes.starts(with: Self.signature) else { throw .unsupportedFormat(source: source, reason: "not a PNG file") }
        var chunks: [Chunk] = []
        var offset = 8
        while true {
            guard offset + 12 <= bytes.count else { throw .corrupt(source: source, reason: "the PNG ends before its IEND chunk") }
            let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            guard length >= 0, offset + 12 + length <= bytes.count else { throw .corrupt(source: source, reason: "a PNG chunk runs past the end of the file") }
            let type = Array(bytes[(offset + 4)..<(offset + 8)])
            let data = Array(bytes[(offset + 8)..<(offset + 8 + length)])
            let stored = bytes[(offset + 8 + length)..<(offset + 12 + length)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            guard stored == CRC32.checksum(type + data) else {
                throw .corrupt(source: source, reason: "the PNG chunk \(String(decoding: type, as: UTF8.self)) has a bad CRC")
            }
            chunks.append(Chunk(type: type, data: data))
            offset += 12 + length
            if type == Array("IEND".utf8) { break }
        }
        guard chunks.first?.typeName == "IHDR" else { throw .corrupt(source: source, reason: "the PNG does not start with IHDR") }
        self.chunks = chunks
        self.trailer = Array(bytes[offset...])
    }

    var bytes: [UInt8] {
        Self.signature + chunks.flatMap(\.bytes) + trailer
    }

    /// The index of the standard XMP chunk (iTXt with keyword `XML:com.adobe.xmp`).
    var xmpIndex: Int? {
        chunks.firstIndex { $0.typeName == "iTXt" && $0.data.starts(with: Self.xmpKeyword + [0]) }
    }

    /// ImageMagick's legacy metadata chunks: tEXt, zTXt or iTXt "raw profiles".
    enum LegacyProfile: String {
        case xmp
        case exif
        /// IPTC, the only way to carry it in a PNG (exiftool and ImageMagick write it): a Photoshop
        /// resource block (`8BIM`…) or a bare IIM block.
        case iptc

        /// The chunk keyword, `Raw profile type xmp`, `exif` or `iptc`.
        var keyword: [UInt8] { Array("Raw profile type \(rawValue)".utf8) }
    }

    /// The index of a legacy raw-profile text chunk.
    func legacyIndex(_ profile: LegacyProfile) -> Int? {
        chunks.firstIndex { ["tEXt", "zTXt", "iTXt"].contains($0.typeName) && $0.data.starts(with: profile.keyword + [0]) }
    }

    /// The XMP packet of the standard iTXt chunk (compressed or not), or nil.
    func xmpPacket(source: String) throws(MetadataError) -> [UInt8]? {
        guard let index = xmpIndex else { return nil }
        return try text(ofChunk: chunks[index], source: source)
    }

    /// The bytes of a legacy raw-profile chunk, or nil. Its text is a newline, the profile name,
    /// the byte count, then the bytes in hexadecimal over several lines. An EXIF profile holds
    /// `Exif\0\0` and a TIFF block.
    func legacyProfile(_ profile: LegacyProfile, source: String) throws(MetadataError) -> [UInt8]? {
        guard let index = legacyIndex(profile) else { return nil }
        let lines = try text(ofChunk: chunks[index], source: source).split(separator: 0x0A, omittingEmptySubsequences: true)
        let damaged = MetadataError.corrupt(source: source, reason: "its legacy \(profile.rawValue) profile chunk is damaged")
        guard lines.count >= 2, let count = Int(String(decoding: lines[1], as: UTF8.self).trimmingCharacters(in: .whitespaces)), count >= 0 else {
            throw damaged
        }
        var packet: [UInt8] = []
        packet.reserveCapacity(count)
        var high: UInt8?
        for byte in lines.dropFirst(2).joined() where packet.count < count {
            let nibble: UInt8
            switch byte {
            case 0x30...0x39: nibble = byte - 0x30
            case 0x61...0x66: nibble = byte - 0x61 + 10
            case 0x41...0x46: nibble = byte - 0x41 + 10
            case 0x20, 0x09, 0x0D: continue
            default: throw damaged
            }
            if let first = high {
                packet.append(first << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        guard packet.count == count else { throw damaged }
        return packet
    }

    /// Replaces the bytes of the existing legacy raw-profile chunk, keeping its chunk type,
    /// keyword, profile name and (for zTXt and iTXt) its compression; the text is laid out as
    /// ImageMagick and exiftool write it (the byte count in 8 columns, 72 hex digits a line).
    mutating func setLegacyProfile(_ profile: LegacyProfile, _ bytes: [UInt8], source: String) throws(MetadataError) {
        guard let index = legacyIndex(profile) else { return }
        let chunk = chunks[index]
        let oldText = try text(ofChunk: chunk, source: source)
        let name = oldText.split(separator: 0x0A, omittingEmptySubsequences: true).first.map(Array.init) ?? Array("\(profile.rawValue) profile".utf8)
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = [0x0A] + name + [0x0A] + Array(String(repeating: " ", count: max(0, 8 - String(bytes.count).count)).utf8)
            + Array(String(bytes.count).utf8) + [0x0A]
        text.reserveCapacity(text.count + bytes.count * 2 + bytes.count / 36 + 2)
        for (offset, byte) in bytes.enumerated() {
            text += [digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]]
            if offset % 36 == 35 { text.append(0x0A) }
        }
        if bytes.count % 36 != 0 { text.append(0x0A) }
        let keywordEnd = chunk.data.firstIndex(of: 0) ?? chunk.data.count
        let cannotCompress = MetadataError.io(path: source, reason: "zlib could not compress the IPTC profile")
        var data: [UInt8]
        switch chunk.typeName {
        case "tEXt":
            data = Array(chunk.data[...keywordEnd]) + text
        case "zTXt":
            guard let compressed = Zlib.deflate(text) else { throw cannotCompress }
            data = Array(chunk.data[...keywordEnd]) + [0] + compressed
        default:  // iTXt: keep the flags, language and translated keyword
            var offset = keywordEnd + 3
            for _ in 0..<2 { offset = (chunk.data[offset...].firstIndex(of: 0) ?? chunk.data.count - 1) + 1 }
            let compressed = chunk.data[keywordEnd + 1] != 0
            guard let body = compressed ? Zlib.deflate(text) : text else { throw cannotCompress }
            data = Array(chunk.data[..<offset]) + body
        }
        chunks[index] = Chunk(type: chunk.type, data: data)
    }

    /// The text of a tEXt, zTXt or iTXt chunk (after its keyword and, for iTXt, its language
    /// fields), inflated when it is compressed.
    func text(ofChunk chunk: Chunk, source: String) throws(MetadataError) -> [UInt8] {
        let data = chunk.data
        let damaged = MetadataError.corrupt(source: source, reason: "the PNG \(chunk.typeName) chunk is damaged")
        guard let keywordEnd = data.firstIndex(of: 0) else { throw damaged }
        var offset = keywordEnd + 1
        switch chunk.typeName {
        case "tEXt":
            return Array(data[offset...])
        case "zTXt":
            guard offset < data.count, data[offset] == 0 else { throw damaged }
            return try Zlib.inflate(data[(offset + 1)...], source: source)
        default:  // iTXt: compression flag, method, language \0, translated keyword \0, text
            guard offset + 2 <= data.count else { throw damaged }
            let compressed = data[offset] != 0
            guard !compressed || data[offset + 1] == 0 else { throw damaged }
            offset += 2
            for _ in 0..<2 {
                guard let end = data[offset...].firstIndex(of: 0) else { throw damaged }
                offset = end + 1
            }
            return compressed ? try Zlib.inflate(data[offset...], source: source) : Array(data[offset...])
        }
    }

    /// Sets the XMP chunk (uncompressed iTXt), replacing the existing one or inserting one before IDAT.
    mutating func setXMP(_ packet: [UInt8]) {
        let chunk = Chunk(type: Array("iTXt".utf8), data: Self.xmpKeyword + [0, 0, 0, 0, 0] + packet)
        if let index = xmpIndex { chunks[index] = chunk } else { chunks.insert(chunk, at: beforeImageData) }
    }

    /// Replaces (or inserts before the image data) the XMP iTXt chunk with raw chunk data.
    mutating func setXMPChunkData(_ data: [UInt8]) {
        let chunk = Chunk(type: Array("iTXt".utf8), data: data)
        if let index = xmpIndex { chunks[index] = chunk } else { chunks.insert(chunk, at: beforeImageData) }
    }

    /// The TIFF block of the standard `eXIf` chunk.
    var exif: [UInt8]? { chunks.first { $0.typeName == "eXIf" }?.data }

    /// Sets the `eXIf` chunk, which must come before the image data.
    mutating func setEXIF(_ tiff: [UInt8]) {
        let chunk = Chunk(type: Array("eXIf".utf8), data: tiff)
        if let index = chunks.firstIndex(where: { $0.typeName == "eXIf" }) { chunks[index] = chunk } else { chunks.insert(chunk, at: beforeImageData) }
    }

    /// Just before the first IDAT (after IHDR, PLTE and colour chunks).
    private var beforeImageData: Int {
        chunks.firstIndex { $0.typeName == "IDAT" } ?? max(1, chunks.count - 1)
    }

    /// Whether a chunk holds metadata a write may change: `eXIf`, the XMP iTXt, a legacy XMP, EXIF or IPTC profile.
    private func isMetadata(_ index: Int) -> Bool {
        chunks[index].typeName == "eXIf" || index == xmpIndex || index == legacyIndex(.xmp) || index == legacyIndex(.exif) || index == legacyIndex(.iptc)
    }

    /// A CRC-32 fingerprint of every chunk a caption write must not touch (all but the metadata chunks).
    var imageDataDigest: [UInt8] { imageDataDigest(countingLegacyIPTC: false) }

    /// The same fingerprint as taken before a legacy IPTC profile counted as metadata (it was
    /// then fingerprinted with the image), so those snapshots still restore.
    var legacyImageDataDigest: [UInt8] { imageDataDigest(countingLegacyIPTC: true) }

    private func imageDataDigest(countingLegacyIPTC: Bool) -> [UInt8] {
        let legacyIPTC = countingLegacyIPTC ? legacyIndex(.iptc) : nil
        var crc: UInt32 = 0
        for (index, chunk) in chunks.enumerated() where !isMetadata(index) || index == legacyIPTC {
            crc = CRC32.checksum(chunk.bytes, initial: crc)
        }
        crc = CRC32.checksum(trailer, initial: crc)
        return [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
    }

    /// The chunks a caption write must not touch, for a byte comparison.
    var imageChunks: [[UInt8]] {
        chunks.indices.filter { !isMetadata($0) }.map { chunks[$0].bytes } + [trailer]
    }
}
