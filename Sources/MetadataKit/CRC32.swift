/// The CRC-32 of ISO 3309 / ITU-T V.42, as used by PNG chunks and zlib:
/// reflected polynomial 0xEDB88320, register preset to all ones, result inverted.
enum CRC32 {
    /// The 256 remainders of the byte-at-a-time algorithm, computed once.
    private static let table: [UInt32] = (0..<256).map { byte in
        var remainder = UInt32(byte)
        for _ in 0..<8 {
            remainder = remainder & 1 == 1 ? 0xEDB8_8320 ^ (remainder >> 1) : remainder >> 1
        }
        return remainder
    }

    /// Returns the CRC-32 of `bytes`.
    ///
    /// `initial` is the CRC of whatever came before, so checksums can be chained
    /// (as zlib's `crc32(crc, buf, len)`): `checksum(b, initial: checksum(a))`
    /// equals `checksum(a + b)`. For a PNG chunk, checksum the type and data.
    static func checksum(_ bytes: some Collection<UInt8>, initial: UInt32 = 0) -> UInt32 {
        table.withUnsafeBufferPointer { table in
            var crc = ~initial
            let contiguous: Void? = bytes.withContiguousStorageIfAvailable { buffer in
                for byte in buffer {
                    crc = table[Int(UInt8(truncatingIfNeeded: crc) ^ byte)] ^ (crc >> 8)
                }
            }
            if contiguous == nil {
                for byte in bytes {
                    crc = table[Int(UInt8(truncatingIfNeeded: crc) ^ byte)] ^ (crc >> 8)
                }
            }
            return ~crc
        }
    }
}
