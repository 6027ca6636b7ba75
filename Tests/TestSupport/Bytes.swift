/// Byte builders for test fixtures: integers in a given byte order.
public enum ByteOrder: Sendable {
    /// Intel order ("II" in TIFF).
    case little
    /// Motorola order ("MM" in TIFF).
    case big

    /// `value` as two bytes in this order.
    public func bytes(_ value: UInt16) -> [UInt8] {
        self == .little ? [UInt8(value & 0xFF), UInt8(value >> 8)] : [UInt8(value >> 8), UInt8(value & 0xFF)]
    }

    /// `value` as four bytes in this order.
    public func bytes(_ value: UInt32) -> [UInt8] {
        let little = (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
        return self == .little ? little : little.reversed()
    }
}

/// `value` as two little-endian bytes.
public func le16(_ value: UInt16) -> [UInt8] { ByteOrder.little.bytes(value) }
/// `value` as four little-endian bytes.
public func le32(_ value: UInt32) -> [UInt8] { ByteOrder.little.bytes(value) }
/// `value` as two big-endian bytes.
public func be16(_ value: UInt16) -> [UInt8] { ByteOrder.big.bytes(value) }
/// `value` as four big-endian bytes.
public func be32(_ value: UInt32) -> [UInt8] { ByteOrder.big.bytes(value) }

/// CRC-32 (ISO 3309), as PNG chunks use.
public func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
}

/// `png` (ImageEncoder's PNG) with its header declaring `width` x `height` and the header's CRC made right
/// again: a decompression bomb's header on a few bytes of pixels.
public func pngDeclaring(width: UInt32, height: UInt32, _ png: [UInt8]) -> [UInt8] {
    var png = png
    png.replaceSubrange(16..<24, with: ByteOrder.big.bytes(width) + ByteOrder.big.bytes(height))
    png.replaceSubrange(29..<33, with: ByteOrder.big.bytes(crc32(Array(png[12..<29]))))
    return png
}
