/// One box of an ISO base media file (ISO/IEC 14496-12 §4.2): where it starts, how long
/// its header is, and its total size, as positions in the file it was read from.
struct BMFFBox: Equatable {
    /// The four-character type, for example `meta` or `mdat`.
    let type: [UInt8]
    /// The offset of the box's first byte (its size field).
    let start: Int
    /// 8, or 16 with a 64-bit `largesize`, plus 16 for a `uuid` box's extended type.
    let headerSize: Int
    /// The whole box, header included.
    let size: Int
    /// Whether the size field was 0 ("to the end of the file").
    let extendsToEnd: Bool

    var typeName: String { String(decoding: type, as: UTF8.self) }
    var payloadStart: Int { start + headerSize }
    var end: Int { start + size }
    var payload: Range<Int> { payloadStart..<end }

    /// The boxes that fill `range` of `bytes` back to back. A box may only extend to the end
    /// when `allowsOpenEnd` (the last top-level box); any box that does not fit is an error.
    static func boxes(in bytes: [UInt8], _ range: Range<Int>, allowsOpenEnd: Bool = false, source: String) throws(MetadataError) -> [BMFFBox] {
        var result: [BMFFBox] = []
        var offset = range.lowerBound
        while offset < range.upperBound {
            guard range.upperBound - offset >= 8 else {
                throw .corrupt(source: source, reason: "a box header at byte \(offset) is cut off")
            }
            var reader = BMFFReader(bytes, offset..<range.upperBound, source: source)
            let size32 = try reader.uint32()
            let type = try reader.bytes(4)
            var size = Int(size32)
            var extendsToEnd = false
            if size32 == 1 {
                let large = try reader.uint64()
                guard large <= UInt64(range.upperBound - offset) else {
                    throw .corrupt(source: source, reason: "the '\(String(decoding: type, as: UTF8.self))' box at byte \(offset) runs past its container")
                }
                size = Int(large)
            } else if size32 == 0 {
                guard allowsOpenEnd else {
                    throw .corrupt(source: source, reason: "the '\(String(decoding: type, as: UTF8.self))' box at byte \(offset) has no size")
                }
                size = range.upperBound - offset
                extendsToEnd = true
            }
            if type == Array("uuid".utf8) { _ = try reader.bytes(16) }
            let headerSize = reader.position - offset
            guard size >= headerSize, size <= range.upperBound - offset else {
                throw .corrupt(source: source, reason: "the '\(String(decoding: type, as: UTF8.self))' box at byte \(offset) runs past its container")
            }
            result.append(BMFFBox(type: type, start: offset, headerSize: headerSize, size: size, extendsToEnd: extendsToEnd))
            offset += size
        }
        return result
    }

    /// A box with `payload`, with a 32-bit size when it fits and a 64-bit `largesize` otherwise.
    static func encode(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        let total = payload.count + 8
        if total <= Int(UInt32.max) {
            return BigEndian.bytes(UInt64(total), size: 4) + Array(type.utf8) + payload
        }
        return BigEndian.bytes(1, size: 4) + Array(type.utf8) + BigEndian.bytes(UInt64(total + 8), size: 8) + payload
    }
}

/// Big-endian integers of 0 to 8 bytes, as ISO base media files store them.
enum BigEndian {
    static func bytes(_ value: UInt64, size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(size - 1 - $0))) }
    }

    /// Whether `value` can be stored in a field of `size` bytes.
    static func fits(_ value: UInt64, size: Int) -> Bool {
        size >= 8 || value < (UInt64(1) << (8 * UInt64(size)))
    }
}

/// Reads big-endian fields from a range of bytes; reading past the range is a `.corrupt` error.
struct BMFFReader {
    private let data: [UInt8]
    private let end: Int
    private let source: String
    private(set) var position: Int

    init(_ data: [UInt8], _ range: Range<Int>, source: String) {
        self.data = data
        self.position = range.lowerBound
        self.end = range.upperBound
        self.source = source
    }

    var remaining: Int { end - position }

    mutating func bytes(_ count: Int) throws(MetadataError) -> [UInt8] {
        guard count >= 0, count <= remaining else {
            throw .corrupt(source: source, reason: "a box field at byte \(position) is cut off")
        }
        defer { position += count }
        return Array(data[position..<(position + count)])
    }

    /// An unsigned integer of `size` bytes (0 reads nothing and gives 0).
    mutating func uint(size: Int) throws(MetadataError) -> UInt64 {
        try bytes(size).reduce(0) { $0 << 8 | UInt64($1) }
    }

    mutating func uint8() throws(MetadataError) -> UInt8 { try bytes(1)[0] }
    mutating func uint16() throws(MetadataError) -> UInt16 { UInt16(try uint(size: 2)) }
    mutating func uint32() throws(MetadataError) -> UInt32 { UInt32(try uint(size: 4)) }
    mutating func uint64() throws(MetadataError) -> UInt64 { try uint(size: 8) }

    /// A null-terminated string's bytes (without the terminator); an unterminated string
    /// runs to the end of the range, as some writers leave it.
    mutating func cString() -> [UInt8] {
        let terminator = data[position..<end].firstIndex(of: 0) ?? end
        defer { position = min(terminator + 1, end) }
        return Array(data[position..<terminator])
    }
}
