/// A JPEG split into its marker segments, so metadata segments can be replaced
/// without touching anything else. Everything from the first SOS on (entropy-coded
/// data, later markers and any trailer after EOI) is kept as one opaque tail, except a
/// FotoStation trailer at the very end, which holds metadata (an IPTC copy).
struct JPEGFile {
    /// One marker segment before the first scan.
    struct Segment {
        /// The marker code (the byte after 0xFF).
        var marker: UInt8
        /// The payload, without the marker and the 2-byte length.
        var payload: [UInt8]

        /// The segment as it is stored.
        var bytes: [UInt8] {
            let length = payload.count + 2
            return [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        }
    }

    static let exifSignature: [UInt8] = Array("Exif".utf8) + [0, 0]
    static let xmpSignature: [UInt8] = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
    static let extendedXMPSignature: [UInt8] = Array("http://ns.adobe.com/xmp/extension/".utf8) + [0]
    static let photoshopSignature: [UInt8] = Array("Photoshop 3.0".utf8) + [0]
    /// The largest payload a segment can carry (65535 minus the length field).
    static let maximumPayload = 65533

    var segments: [Segment]
    /// SOS and everything after it, byte for byte: a slice of the parsed file (no copy of the image data).
    var tail: ArraySlice<UInt8>
    /// The FotoStation trailer that ends the file (or comes right before an AFCP trailer), right after an end-of-image marker.
    var fotoStation: FotoStationTrailer?
    /// The AFCP trailer that ends the file; its absolute offsets are rewritten wherever it lands.
    var afcp: AFCPTrailer?
    /// Why the AFCP trailer that seems to end the file cannot be understood (it then stays in
    /// the tail, and a write that would move it is refused).
    var afcpProblem: String?

    /// Splits `bytes`; fails on anything that is not a well-formed JPEG header sequence.
    init(_ bytes: [UInt8], source: String) throws(MetadataError) {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else {
            throw .unsupportedFormat(source: source, reason: "not a JPEG file")
        }
        var segments: [Segment] = []
        var offset = 2
        while true {
            guard offset + 2 <= bytes.count else { throw .corrupt(source: source, reason: "the JPEG ends before its image data") }
            guard bytes[offset] == 0xFF else {
                throw .corrupt(source: source, reason: "expected a JPEG marker at byte \(offset)")
            }
            let marker = bytes[offset + 1]
            if marker == 0xFF { offset += 1; continue }  // fill byte
            if marker == 0xDA { break }
            if marker == 0xD9 || marker == 0x01 || (0xD0...0xD7).contains(marker) {
                throw .corrupt(source: source, reason: "unexpected marker 0x\(String(marker, radix: 16)) before the image data")
            }
            guard offset + 4 <= bytes.count else { throw .corrupt(source: source, reason: "a JPEG segment header is cut off") }
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            guard length >= 2, offset + 2 + length <= bytes.count else {
                throw .corrupt(source: source, reason: "a JPEG segment at byte \(offset) runs past the end of the file")
            }
            segments.append(Segment(marker: marker, payload: Array(bytes[(offset + 4)..<(offset + 2 + length)])))
            offset += 2 + length
        }
        self.segments = segments
        var tailEnd = bytes.count
        do {
            if let found = try AFCPTrailer.find(in: bytes[offset...]) {
                afcp = found.trailer
                tailEnd = found.start
            }
        } catch {
            afcpProblem = error.reason
        }
        // It must follow an end-of-image marker (a few zero bytes of padding between are seen in the wild).
        if let found = FotoStationTrailer.find(in: bytes[offset..<tailEnd]) {
            var end = found.start
            while end > offset, found.start - end < 16, bytes[end - 1] == 0 { end -= 1 }
            if end >= offset + 2, bytes[end - 2] == 0xFF, bytes[end - 1] == 0xD9 {
                fotoStation = found.trailer
                tailEnd = found.start
            }
        }
        self.tail = bytes[offset..<tailEnd]
    }

    /// The file's bytes.
    var bytes: [UInt8] {
        var output: [UInt8] = [0xFF, 0xD8]
        output.reserveCapacity(tail.count + segments.reduce(0) { $0 + $1.payload.count + 4 } + 2
                               + (fotoStation.map { $0.records.reduce(0) { $0 + $1.data.count + 10 } } ?? 0)
                               + (afcp.map { $0.entries.reduce(24) { $0 + $1.data.count + 12 } } ?? 0))
        for segment in segments { output += segment.bytes }
        output += tail
        if let fotoStation { output += fotoStation.bytes }
        if let afcp { output += afcp.bytes(at: output.count) }
        return output
    }

    /// The index of the first APP1 segment whose payload starts with `signature`.
    func firstIndex(marker: UInt8, signature: [UInt8]) -> Int? {
        segments.firstIndex { $0.marker == marker && $0.payload.starts(with: signature) }
    }

    /// The EXIF TIFF block (after `Exif\0\0`) of the first EXIF APP1 segment.
    var exifTIFF: [UInt8]? {
        firstIndex(marker: 0xE1, signature: Self.exifSignature).map { Array(segments[$0].payload.dropFirst(Self.exifSignature.count)) }
    }

    /// How many APP1 segments hold EXIF (`Exif\0\0`).
    var exifSegmentCount: Int {
        segments.count { $0.marker == 0xE1 && $0.payload.starts(with: Self.exifSignature) }
    }

    /// The main XMP packet (not the extended parts): the first standard XMP segment's, which libexiv2 reads.
    var xmpPacket: [UInt8]? {
        firstIndex(marker: 0xE1, signature: Self.xmpSignature).map { Array(segments[$0].payload.dropFirst(Self.xmpSignature.count)) }
    }

    /// The indices of every standard XMP segment, in file order. Readers disagree on which of
    /// several they take: libexiv2 reads the first, Pillow the last, exiftool all of them (a
    /// property in two shows the last one's value).
    var xmpSegmentIndices: [Int] {
        segments.indices.filter { segments[$0].marker == 0xE1 && segments[$0].payload.starts(with: Self.xmpSignature) }
    }

    /// The packet of every standard XMP segment, in file order.
    var xmpPackets: [[UInt8]] {
        xmpSegmentIndices.map { Array(segments[$0].payload.dropFirst(Self.xmpSignature.count)) }
    }

    /// The Extended XMP (segments `http://ns.adobe.com/xmp/extension/`: a 32-character GUID, the full
    /// length and the offset of the part, both 4 bytes big-endian, then the part), reassembled, one
    /// packet per GUID in order of appearance. Parts that do not fit their declared length are skipped.
    var extendedXMPPackets: [(guid: String, packet: [UInt8])] {
        var order: [String] = []
        var packets: [String: [UInt8]] = [:]
        let header = Self.extendedXMPSignature.count + 40
        for segment in segments where segment.marker == 0xE1 && segment.payload.starts(with: Self.extendedXMPSignature) && segment.payload.count >= header {
            let fields = Array(segment.payload[Self.extendedXMPSignature.count..<header])
            let guid = String(decoding: fields[0..<32], as: UTF8.self)
            let length = fields[32..<36].reduce(0) { $0 << 8 | Int($1) }
            let offset = fields[36..<40].reduce(0) { $0 << 8 | Int($1) }
            let part = segment.payload[header...]
            guard length <= 16 << 20, offset + part.count <= length else { continue }
            if packets[guid] == nil {
                order.append(guid)
                packets[guid] = [UInt8](repeating: 0x20, count: length)
            }
            guard packets[guid]?.count == length else { continue }
            packets[guid]?.replaceSubrange(offset..<(offset + part.count), with: part)
        }
        return order.map { ($0, packets[$0] ?? []) }
    }

    /// The payload of every APP13 "Photoshop 3.0" segment, concatenated (after the signature),
    /// which is how a resource block larger than one segment is stored.
    var photoshopResources: [UInt8]? {
        let parts = segments.filter { $0.marker == 0xED && $0.payload.starts(with: Self.photoshopSignature) }
        guard !parts.isEmpty else { return nil }
        return parts.flatMap { $0.payload.dropFirst(Self.photoshopSignature.count) }
    }

    /// Replaces (or inserts, at the conventional place) the segment identified by `marker`
    /// and `signature` with `payload`; `nil` removes it.
    mutating func setSegment(marker: UInt8, signature: [UInt8], payload: [UInt8]?) {
        if let index = firstIndex(marker: marker, signature: signature) {
            if let payload { segments[index].payload = payload } else { segments.remove(at: index) }
            return
        }
        guard let payload else { return }
        segments.insert(Segment(marker: marker, payload: payload), at: insertionIndex(for: marker, signature: signature))
    }

    /// Replaces all APP13 Photoshop segments with `resources`, split over as many segments as needed.
    mutating func setPhotoshopResources(_ resources: [UInt8]) {
        let firstExisting = segments.firstIndex { $0.marker == 0xED && $0.payload.starts(with: Self.photoshopSignature) }
        segments.removeAll { $0.marker == 0xED && $0.payload.starts(with: Self.photoshopSignature) }
        let chunk = Self.maximumPayload - Self.photoshopSignature.count
        var parts: [Segment] = []
        var offset = 0
        repeat {
            let end = min(resources.count, offset + chunk)
            parts.append(Segment(marker: 0xED, payload: Self.photoshopSignature + resources[offset..<end]))
            offset = end
        } while offset < resources.count
        let index = firstExisting.map { min($0, segments.count) } ?? insertionIndex(for: 0xED, signature: Self.photoshopSignature)
        segments.insert(contentsOf: parts, at: index)
    }

    /// Where a new metadata segment goes: after SOI's JFIF/EXIF/XMP application segments, in the
    /// order EXIF, XMP, Photoshop, and always before the first table or frame segment.
    private func insertionIndex(for marker: UInt8, signature: [UInt8]) -> Int {
        let order: (Segment) -> Int = { segment in
            if segment.marker == 0xE0 { return 0 }
            if segment.marker == 0xE1 && segment.payload.starts(with: Self.exifSignature) { return 1 }
            if segment.marker == 0xE1 && segment.payload.starts(with: Self.xmpSignature) { return 2 }
            if segment.marker == 0xE1 && segment.payload.starts(with: Self.extendedXMPSignature) { return 3 }
            if segment.marker == 0xED && segment.payload.starts(with: Self.photoshopSignature) { return 4 }
            return 5
        }
        let rank = order(Segment(marker: marker, payload: signature))
        var index = 0
        while index < segments.count, order(segments[index]) <= rank, segments[index].marker >= 0xE0 {
            index += 1
        }
        return index
    }

    /// A CRC-32 fingerprint of the coded image: every segment that is not metadata (tables,
    /// frame, other application data, extended XMP) and the tail (without a FotoStation trailer). Snapshots use it to make
    /// sure a restore lands on the same picture.
    var imageDataDigest: [UInt8] {
        Self.digestBytes(imageDataCRC(tailPrefix: tail.count))
    }

    /// The digest as releases before the Ricoh block could be removed made it (``isRicohBlock(_:)``
    /// counted as image data), so their snapshots of a Ricoh photo still restore.
    var legacyImageDataDigest: [UInt8] {
        Self.digestBytes(imageDataCRC(tailPrefix: tail.count, countingRicohBlock: true))
    }

    /// The CRC-32 of the digest's bytes up to `tailPrefix` bytes into the tail (a windowed write
    /// continues it through the bytes it never read into memory, then over the rest of the tail).
    func imageDataCRC(tailPrefix: Int, countingRicohBlock: Bool = false) -> UInt32 {
        var crc: UInt32 = 0
        for segment in segments where !Self.isSaved(segment) || (countingRicohBlock && Self.isRicohBlock(segment)) {
            let length = segment.payload.count + 2
            crc = CRC32.checksum([0xFF, segment.marker, UInt8(length >> 8), UInt8(length & 0xFF)], initial: crc)
            crc = CRC32.checksum(segment.payload, initial: crc)
        }
        return CRC32.checksum(tail.prefix(tailPrefix), initial: crc)
    }

    /// A CRC-32 as the four big-endian bytes snapshots store.
    static func digestBytes(_ crc: UInt32) -> [UInt8] {
        [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
    }

    /// Whether `other` holds exactly the same coded image (byte comparison with memcmp, no hashing).
    func hasSameImageData(as other: JPEGFile) -> Bool {
        let mine = segments.filter { !Self.isSaved($0) }
        let theirs = other.segments.filter { !Self.isSaved($0) }
        return sameBytes(tail, other.tail) && mine.count == theirs.count
            && zip(mine, theirs).allSatisfy { $0.marker == $1.marker && sameBytes($0.payload[...], $1.payload[...]) }
    }

    /// EXIF, main XMP and Photoshop segments: what a caption write may touch (extended XMP is not).
    static func isMetadata(_ segment: Segment) -> Bool {
        (segment.marker == 0xE1 && (segment.payload.starts(with: exifSignature) || segment.payload.starts(with: xmpSignature)))
            || (segment.marker == 0xED && segment.payload.starts(with: photoshopSignature))
    }

    /// The signature of a Ricoh RMETA block.
    static let ricohSignature: [UInt8] = Array("RMETA".utf8) + [0]

    /// A Ricoh RMETA block (APP5): a place the user typed (`Location`) and the camera's
    /// sign-recognition fields, nothing else. No editor parses it; a location strip removes it whole.
    static func isRicohBlock(_ segment: Segment) -> Bool {
        segment.marker == 0xE5 && segment.payload.starts(with: ricohSignature)
    }

    /// A Ricoh RMETA block that holds a `Location` field.
    static func isRicohLocation(_ segment: Segment) -> Bool {
        isRicohBlock(segment) && contains(segment.payload[...], Array("Location".utf8) + [0])
    }

    /// What a write may change and its snapshot saves: ``isMetadata(_:)`` and a Ricoh RMETA block.
    /// Everything else is the image, fingerprinted by ``imageDataDigest``.
    static func isSaved(_ segment: Segment) -> Bool {
        isMetadata(segment) || isRicohBlock(segment)
    }

    /// Whether `needle` occurs anywhere in `haystack`.
    static func contains(_ haystack: ArraySlice<UInt8>, _ needle: [UInt8]) -> Bool {
        guard haystack.count >= needle.count else { return false }
        var index = haystack.startIndex
        while index + needle.count <= haystack.endIndex {
            if haystack[index..<(index + needle.count)].elementsEqual(needle) { return true }
            index += 1
        }
        return false
    }
}
