/// IEEE 754 half-precision conversion for compact embeddings (2 bytes per value), written
/// out so it behaves the same on every platform (Swift's `Float16` is missing on macOS x86).
/// Rounds to nearest even; overflow becomes infinity; NaN stays NaN.
package enum HalfFloat {
    /// Packs `values` as little-endian half floats.
    package static func encode(_ values: [Float]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(values.count * 2)
        for value in values {
            let half = bits(of: value)
            bytes.append(UInt8(half & 0xFF))
            bytes.append(UInt8(half >> 8))
        }
        return bytes
    }

    /// Unpacks little-endian half floats.
    package static func decode(_ bytes: [UInt8]) -> [Float] {
        stride(from: 0, to: bytes.count - 1, by: 2).map { value(of: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8) }
    }

    static func bits(of value: Float) -> UInt16 {
        let word = value.bitPattern
        let sign = UInt16((word >> 16) & 0x8000)
        let exponent = Int((word >> 23) & 0xFF)
        var mantissa = word & 0x7F_FFFF
        if exponent == 0xFF { return sign | 0x7C00 | (mantissa != 0 ? 0x200 : 0) }
        let halfExponent = exponent - 127 + 15
        if halfExponent >= 0x1F { return sign | 0x7C00 }
        if halfExponent <= 0 {
            // Subnormal half (or zero).
            guard halfExponent >= -10 else { return sign }
            mantissa |= 0x80_0000
            let shift = UInt32(14 - halfExponent)
            var half = mantissa >> shift
            let remainder = mantissa & ((1 << shift) - 1), halfway = UInt32(1) << (shift - 1)
            if remainder > halfway || (remainder == halfway && half & 1 == 1) { half += 1 }
            return sign | UInt16(half)
        }
        var half = UInt32(halfExponent) << 10 | (mantissa >> 13)
        let remainder = mantissa & 0x1FFF
        if remainder > 0x1000 || (remainder == 0x1000 && half & 1 == 1) { half += 1 }  // may carry into the exponent: correct
        return sign | UInt16(half)
    }

    static func value(of half: UInt16) -> Float {
        let sign = UInt32(half & 0x8000) << 16
        let exponent = Int((half >> 10) & 0x1F)
        let mantissa = UInt32(half & 0x3FF)
        if exponent == 0 {
            guard mantissa != 0 else { return Float(bitPattern: sign) }
            let magnitude = Float(mantissa) / 1024 / 16384  // 2^-14 · m/1024
            return sign != 0 ? -magnitude : magnitude
        }
        if exponent == 0x1F { return Float(bitPattern: sign | 0x7F80_0000 | (mantissa << 13)) }
        return Float(bitPattern: sign | UInt32(exponent - 15 + 127) << 23 | mantissa << 13)
    }
}
