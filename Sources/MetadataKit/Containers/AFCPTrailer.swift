/// The AXS File Concatenation Protocol trailer some JPEGs carry after their end-of-image
/// marker (written by AXS tools; exiftool reads its IPTC as the `AFCP` group).
///
/// Layout: a 12-byte header (`AXS!` big-endian or `AXS*` little-endian, a 2-byte version, an
/// entry count, a 4-byte checksum), one 12-byte directory entry per record (a four-character
/// tag such as `IPTC`, `TEXT`, `Nail` or `PrVw`, the size, and the **absolute file offset** of
/// the data), the data, then a 12-byte end record (the signature, the absolute offset of the
/// header, a checksum). Because the offsets are absolute, a writer that changes the size of
/// anything before the trailer must rewrite them, or every reader loses the trailer's data:
/// ``bytes(at:)`` does.
struct AFCPTrailer: Equatable {
    /// One record: its tag and data.
    struct Entry: Equatable {
        var tag: [UInt8]
        var data: [UInt8]
    }

    /// The IPTC-IIM record's tag.
    static let iptcTag: [UInt8] = Array("IPTC".utf8)

    /// Whether the numbers are big-endian (`AXS!`) or little-endian (`AXS*`).
    let bigEndian: Bool
    /// The header's version bytes, kept as found.
    let version: [UInt8]
    /// The records, in directory order.
    var entries: [Entry]
    /// The trailer exactly as found, the file offset it was found at and its records then:
    /// written back byte for byte when it lands at the same offset with the same records.
    let original: [UInt8]
    let originalStart: Int
    private let originalEntries: [Entry]

    /// Why a trailer that is there cannot be kept valid.
    struct Unreadable: Error, Equatable {
        var reason: String
    }

    /// The trailer that ends `bytes` (a whole file, or the part of it from the image data on,
    /// indexed as in the file), and the index where it starts. Nil when the last twelve bytes
    /// are not an AFCP end record; throws when they are but the trailer cannot be understood
    /// (its data outside the trailer, offsets that point elsewhere), since then no writer
    /// could keep it valid.
    static func find(in bytes: ArraySlice<UInt8>) throws(Unreadable) -> (start: Int, trailer: AFCPTrailer)? {
        try parse(bytes, fileOffsetOfIndexZero: 0)
    }

    /// A trailer saved on its own (a snapshot): its end record gives the file offset it belongs at.
    static func saved(_ bytes: [UInt8]) -> AFCPTrailer? {
        guard bytes.count >= 24, let endian = endianness(bytes[(bytes.count - 12)...]) else { return nil }
        let start = number(bytes[...], at: bytes.count - 8, width: 4, bigEndian: endian)
        guard let found = try? parse(bytes[...], fileOffsetOfIndexZero: start), found.start == 0 else { return nil }
        return found.trailer
    }

    /// Whether `end` (the last twelve bytes) is an end record, and its byte order.
    private static func endianness(_ end: ArraySlice<UInt8>) -> Bool? {
        guard end.count >= 12, end.prefix(3).elementsEqual("AXS".utf8) else { return nil }
        switch end[end.startIndex + 3] {
        case UInt8(ascii: "!"): return true
        case UInt8(ascii: "*"): return false
        default: return nil
        }
    }

    private static func number(_ bytes: ArraySlice<UInt8>, at index: Int, width: Int, bigEndian: Bool) -> Int {
        let field = bytes[index..<(index + width)]
        return (bigEndian ? Array(field) : field.reversed()).reduce(0) { $0 << 8 | Int($1) }
    }

    /// Parses the trailer ending `bytes`, where file offset `f` is index `f - fileOffsetOfIndexZero`.
    private static func parse(_ bytes: ArraySlice<UInt8>, fileOffsetOfIndexZero base: Int) throws(Unreadable) -> (start: Int, trailer: AFCPTrailer)? {
        let end = bytes.endIndex
        guard end - bytes.startIndex >= 24, let bigEndian = endianness(bytes[(end - 12)...]) else { return nil }
        func number(at index: Int, width: Int) -> Int { Self.number(bytes, at: index, width: width, bigEndian: bigEndian) }
        let start = number(at: end - 8, width: 4) - base
        guard start >= bytes.startIndex, start + 12 <= end - 12, bytes[start..<(start + 4)].elementsEqual(bytes[(end - 12)..<(end - 8)]) else {
            throw Unreadable(reason: "its end record points at byte \(start + base), where no AFCP header is")
        }
        let count = number(at: start + 6, width: 2)
        let dataStart = start + 12 + 12 * count
        guard dataStart <= end - 12 else { throw Unreadable(reason: "its directory of \(count) entries runs past its end") }
        var entries: [Entry] = []
        for index in 0..<count {
            let entry = start + 12 + 12 * index
            let size = number(at: entry + 4, width: 4)
            let offset = number(at: entry + 8, width: 4) - base
            guard offset >= dataStart, offset <= end - 12, size <= end - 12 - offset else {
                throw Unreadable(reason: "its record \(index + 1) lies outside the trailer (offset \(offset + base), \(size) bytes)")
            }
            entries.append(Entry(tag: Array(bytes[entry..<(entry + 4)]), data: Array(bytes[offset..<(offset + size)])))
        }
        let trailer = AFCPTrailer(bigEndian: bigEndian, version: Array(bytes[(start + 4)..<(start + 6)]), entries: entries,
                                  original: Array(bytes[start..<end]), originalStart: start + base, originalEntries: entries)
        return (start, trailer)
    }

    /// The trailer as stored when it starts at file offset `start`: as found when nothing moved
    /// or changed; otherwise rebuilt with every offset pointing at its new place (and zero
    /// checksums, as exiftool writes them: a checksum is optional and could not stay right).
    func bytes(at start: Int) -> [UInt8] {
        if start == originalStart && entries == originalEntries { return original }
        let signature = Array((bigEndian ? "AXS!" : "AXS*").utf8)
        func field(_ value: Int, width: Int) -> [UInt8] {
            let bytes = (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
            return bigEndian ? bytes.reversed() : bytes
        }
        var output = signature + version + field(entries.count, width: 2) + field(0, width: 4)
        var offset = start + 12 + 12 * entries.count
        for entry in entries {
            output += entry.tag + field(entry.data.count, width: 4) + field(offset, width: 4)
            offset += entry.data.count
        }
        for entry in entries { output += entry.data }
        return output + signature + field(start, width: 4) + field(0, width: 4)
    }

    /// The IPTC-IIM blocks it holds.
    var iimBlocks: [[UInt8]] { entries.filter { $0.tag == Self.iptcTag }.map(\.data) }

    /// Its records as the verification compares them.
    var comparableRecords: [TrailerRecord] {
        entries.map { TrailerRecord(id: "record " + String(decoding: $0.tag, as: UTF8.self), data: $0.data, isIIM: $0.tag == Self.iptcTag) }
    }
}
