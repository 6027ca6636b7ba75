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
