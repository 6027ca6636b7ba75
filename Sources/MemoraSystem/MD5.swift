/// The MD5 message digest (RFC 1321), written from the RFC's description.
///
/// MetadataKit needs MD5 only for the Photoshop `IPTCDigest` (the digest of the
/// IPTC-IIM block that Photoshop stores in image resource 0x0425 so readers can
/// tell whether the IPTC data was edited by another program). MD5 is broken as
/// a cryptographic hash: never use it for anything security-related.
package enum MD5 {
    /// Returns the 16-byte MD5 digest of `bytes`.
    ///
    /// Contiguous collections (`[UInt8]`, `ArraySlice`, `Data`, native strings'
    /// UTF-8 views) are hashed in place; any other collection is copied once.
    package static func digest(_ bytes: some Collection<UInt8>) -> [UInt8] {
        if let result = bytes.withContiguousStorageIfAvailable({ digest(raw: UnsafeRawBufferPointer($0)) }) {
            return result
        }
        return Array(bytes).withUnsafeBytes { digest(raw: $0) }
    }

    /// The sine-derived constants T[1...64] of RFC 1321 section 3.4,
    /// `floor(2^32 * abs(sin(i)))` for i in 1...64.
    private static let sineTable: [UInt32] = [
        0xD76AA478, 0xE8C7B756, 0x242070DB, 0xC1BDCEEE,
        0xF57C0FAF, 0x4787C62A, 0xA8304613, 0xFD469501,
        0x698098D8, 0x8B44F7AF, 0xFFFF5BB1, 0x895CD7BE,
        0x6B901122, 0xFD987193, 0xA679438E, 0x49B40821,
        0xF61E2562, 0xC040B340, 0x265E5A51, 0xE9B6C7AA,
        0xD62F105D, 0x02441453, 0xD8A1E681, 0xE7D3FBC8,
        0x21E1CDE6, 0xC33707D6, 0xF4D50D87, 0x455A14ED,
        0xA9E3E905, 0xFCEFA3F8, 0x676F02D9, 0x8D2A4C8A,
        0xFFFA3942, 0x8771F681, 0x6D9D6122, 0xFDE5380C,
        0xA4BEEA44, 0x4BDECFA9, 0xF6BB4B60, 0xBEBFBC70,
        0x289B7EC6, 0xEAA127FA, 0xD4EF3085, 0x04881D05,
        0xD9D4D039, 0xE6DB99E5, 0x1FA27CF8, 0xC4AC5665,
        0xF4292244, 0x432AFF97, 0xAB9423A7, 0xFC93A039,
        0x655B59C3, 0x8F0CCC92, 0xFFEFF47D, 0x85845DD1,
        0x6FA87E4F, 0xFE2CE6E0, 0xA3014314, 0x4E0811A1,
        0xF7537E82, 0xBD3AF235, 0x2AD7D2BB, 0xEB86D391,
    ]

    /// The four 32-bit chaining words A, B, C, D (RFC 1321 section 3.3).
    private typealias State = (UInt32, UInt32, UInt32, UInt32)

    /// Hashes a contiguous message: all whole 64-byte blocks in place, then the
    /// padded tail (a 0x80 byte, zeros up to 56 mod 64, the bit length mod 2^64
    /// little-endian; RFC 1321 sections 3.1 and 3.2).
    private static func digest(raw message: UnsafeRawBufferPointer) -> [UInt8] {
        sineTable.withUnsafeBufferPointer { table in
            var state: State = (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476)
            let wholeBytes = message.count - message.count % 64
            for offset in stride(from: 0, to: wholeBytes, by: 64) {
                compress(&state, UnsafeRawBufferPointer(rebasing: message[offset..<offset + 64]), table)
            }

            var tail = [UInt8](message[wholeBytes...])
            tail.append(0x80)
            tail += repeatElement(0, count: (120 - tail.count) % 64)  // to 56 mod 64
            let bitLength = UInt64(message.count) &* 8
            withUnsafeBytes(of: bitLength.littleEndian) { tail += $0 }
            tail.withUnsafeBytes { padded in
                for offset in stride(from: 0, to: padded.count, by: 64) {
                    compress(&state, UnsafeRawBufferPointer(rebasing: padded[offset..<offset + 64]), table)
                }
            }

            var result: [UInt8] = []
            result.reserveCapacity(16)
            for word in [state.0, state.1, state.2, state.3] {
                withUnsafeBytes(of: word.littleEndian) { result += $0 }
            }
            return result
        }
    }

    /// Runs the four rounds of RFC 1321 section 3.4 over one 64-byte block
    /// (sixteen little-endian words) and adds the result into `state`.
    @inline(__always)
    private static func compress(
        _ state: inout State, _ block: UnsafeRawBufferPointer, _ table: UnsafeBufferPointer<UInt32>
    ) {
        var (a, b, c, d) = state
        for i in 0..<64 {
            let f: UInt32
            let wordIndex: Int
            let shifts: UInt32  // the round's four rotation amounts, one per byte
            switch i >> 4 {
            case 0:
                f = (b & c) | (~b & d)
                wordIndex = i
                shifts = 0x1611_0C07  // 7, 12, 17, 22
            case 1:
                f = (b & d) | (c & ~d)
                wordIndex = (5 &* i &+ 1) & 15
                shifts = 0x140E_0905  // 5, 9, 14, 20
            case 2:
                f = b ^ c ^ d
                wordIndex = (3 &* i &+ 5) & 15
                shifts = 0x1710_0B04  // 4, 11, 16, 23
            default:
                f = c ^ (b | ~d)
                wordIndex = (7 &* i) & 15
                shifts = 0x150F_0A06  // 6, 10, 15, 21
            }
            let word = UInt32(littleEndian: block.loadUnaligned(fromByteOffset: wordIndex &* 4, as: UInt32.self))
            let sum = a &+ f &+ table[i] &+ word
            let s = (shifts &>> UInt32((i & 3) &* 8)) & 0xFF
            a = d
            d = c
            c = b
            b = b &+ ((sum &<< s) | (sum &>> (32 &- s)))
        }
        state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d)
    }
}
