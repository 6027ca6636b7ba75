/// The CRC-32 of ISO 3309 / ITU-T V.42, as used by PNG chunks and zlib:
/// reflected polynomial 0xEDB88320, register preset to all ones, result inverted.
///
/// Computed eight bytes at a time ("slicing-by-8", Intel's 2006 method): eight
/// 256-entry tables let one step consume a 64-bit word, several times faster than
/// the byte-at-a-time loop on the multi-megabyte image data a snapshot fingerprints.
enum CRC32 {
    /// Table k holds the CRC contribution of a byte followed by k zero bytes; 8 x 256 entries.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for byte in 0..<256 {
            var remainder = UInt32(byte)
            for _ in 0..<8 {
                remainder = remainder & 1 == 1 ? 0xEDB8_8320 ^ (remainder >> 1) : remainder >> 1
            }
            tables[byte] = remainder
        }
        for slice in 1..<8 {
            for byte in 0..<256 {
                let previous = tables[(slice - 1) * 256 + byte]
                tables[slice * 256 + byte] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    /// Returns the CRC-32 of `bytes`.
    ///
    /// `initial` is the CRC of whatever came before, so checksums can be chained
    /// (as zlib's `crc32(crc, buf, len)`): `checksum(b, initial: checksum(a))`
    /// equals `checksum(a + b)`. For a PNG chunk, checksum the type and data.
    static func checksum(_ bytes: some Collection<UInt8>, initial: UInt32 = 0) -> UInt32 {
        if let crc = bytes.withContiguousStorageIfAvailable({ checksum(UnsafeRawBufferPointer($0), initial: initial) }) {
            return crc
        }
        return Array(bytes).withUnsafeBytes { checksum($0, initial: initial) }
    }

    private static func checksum(_ buffer: UnsafeRawBufferPointer, initial: UInt32) -> UInt32 {
        tables.withUnsafeBufferPointer { t in
            var crc = ~initial
            var index = 0
            let count = buffer.count
            while index + 8 <= count {
                let word = UInt64(littleEndian: buffer.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                let low = UInt32(truncatingIfNeeded: word) ^ crc
                let high = UInt32(truncatingIfNeeded: word >> 32)
                crc = t[7 * 256 + Int(low & 0xFF)] ^ t[6 * 256 + Int((low >> 8) & 0xFF)]
                    ^ t[5 * 256 + Int((low >> 16) & 0xFF)] ^ t[4 * 256 + Int(low >> 24)]
                    ^ t[3 * 256 + Int(high & 0xFF)] ^ t[2 * 256 + Int((high >> 8) & 0xFF)]
                    ^ t[1 * 256 + Int((high >> 16) & 0xFF)] ^ t[Int(high >> 24)]
                index += 8
            }
            while index < count {
                crc = t[Int(UInt8(truncatingIfNeeded: crc) ^ buffer[index])] ^ (crc >> 8)
                index += 1
            }
            return ~crc
        }
    }
}
