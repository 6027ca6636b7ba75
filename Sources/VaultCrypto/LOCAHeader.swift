/// The 64-byte header of a LOCA version 1 file (see Docs/LOCA-format.md).
/// Integers are big-endian. The whole header is the AEAD associated data of every chunk.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 4 | magic `LOCA` |
/// | 4 | 2 | version, `0x0001` |
/// | 6 | 1 | algorithm: `0x01` AES-256-GCM, `0x02` ChaCha20-Poly1305 |
/// | 7 | 1 | chunk size exponent *e* (chunk = 2^e bytes; the seed's reserved byte) |
/// | 8 | 12 | nonce (random per file) |
/// | 20 | 8 | original (plaintext) size |
/// | 28 | 8 | timestamp, seconds since 1970-01-01 UTC |
/// | 36 | 28 | key commitment (the seed's reserved bytes) |
public struct LOCAHeader: Sendable, Hashable {
    /// The header's length in bytes.
    public static let byteCount = 64
    /// The authentication tag's length after each chunk.
    public static let tagByteCount = 16
    /// The chunk size exponents version 1 accepts: 4 KiB to 16 MiB.
    public static let chunkExponentRange: ClosedRange<UInt8> = 12...24
    /// The default chunk size exponent: 16, 64 KiB chunks.
    public static let defaultChunkExponent: UInt8 = 16
    /// The only version this library writes and reads.
    public static let version: UInt16 = 1
    static let magic: [UInt8] = Array("LOCA".utf8)

    /// The cipher.
    public var algorithm: AEADAlgorithm
    /// Chunk size = 2^chunkExponent bytes.
    public var chunkExponent: UInt8
    /// The file's random 12-byte nonce; chunk nonces are derived from it.
    public var nonce: [UInt8]
    /// The plaintext length.
    public var originalSize: UInt64
    /// When the file was encrypted, in seconds since the Unix epoch.
    public var timestamp: UInt64
    /// 28 bytes that bind the file to its key (HKDF output, see ``LOCACipher``).
    public var keyCommitment: [UInt8]

    /// Whether `size` bytes fit in at most 2^32 − 1 chunks of 2^chunkExponent bytes.
    static func fits(size: UInt64, chunkExponent: UInt8) -> Bool {
        size <= UInt64(UInt32.max) << UInt64(chunkExponent)
    }

    /// The chunk size in bytes.
    public var chunkSize: Int { 1 << Int(chunkExponent) }

    /// The number of chunks: at least one, so an empty file still carries a tag.
    public var chunkCount: UInt64 {
        originalSize == 0 ? 1 : (originalSize + UInt64(chunkSize) - 1) / UInt64(chunkSize)
    }

    /// The exact length of a valid file with this header.
    public var fileSize: UInt64 {
        UInt64(Self.byteCount) + originalSize + chunkCount * UInt64(Self.tagByteCount)
    }

    /// The plaintext length of chunk `index`.
    func plaintextLength(ofChunk index: UInt64) -> Int {
        if index + 1 < chunkCount { return chunkSize }
        return Int(originalSize - (chunkCount - 1) * UInt64(chunkSize))
    }

    /// The offset of chunk `index`'s plaintext in the original data.
    func plaintextOffset(ofChunk index: UInt64) -> UInt64 {
        min(index * UInt64(chunkSize), originalSize)
    }

    /// The offset of chunk `index`'s ciphertext in the file.
    func fileOffset(ofChunk index: UInt64) -> UInt64 {
        UInt64(Self.byteCount) + index * UInt64(chunkSize + Self.tagByteCount)
    }

    /// The 64 bytes of the header.
    public var bytes: [UInt8] {
        var output = Self.magic
        output += [UInt8(Self.version >> 8), UInt8(Self.version & 0xFF), algorithm.rawValue, chunkExponent]
        output += nonce
        output += bigEndianBytes(originalSize)
        output += bigEndianBytes(timestamp)
        output += keyCommitment
        precondition(output.count == Self.byteCount)
        return output
    }

    /// Parses and validates a header; `source` names the file in errors.
    /// Checks magic, version, algorithm and chunk size; the file length is checked by the caller.
    public init(parsing bytes: some Collection<UInt8>, source: String) throws(VaultCryptoError) {
        let header = Array(bytes.prefix(Self.byteCount))
        guard header.count == Self.byteCount else {
            if header.count >= 4 && Array(header[0..<4]) != Self.magic { throw .notLOCA(source: source) }
            throw .truncated(source: source, expected: UInt64(Self.byteCount), actual: UInt64(header.count))
        }
        guard Array(header[0..<4]) == Self.magic else { throw .notLOCA(source: source) }
        let version = UInt16(header[4]) << 8 | UInt16(header[5])
        guard version == Self.version else { throw .unsupportedVersion(source: source, version: version) }
        guard let algorithm = AEADAlgorithm(rawValue: header[6]) else { throw .unknownAlgorithm(source: source, code: header[6]) }
        guard Self.chunkExponentRange.contains(header[7]) else { throw .invalidChunkSize(source: source, exponent: header[7]) }
        self.algorithm = algorithm
        self.chunkExponent = header[7]
        self.nonce = Array(header[8..<20])
        self.originalSize = readBigEndian(header[20..<28])
        self.timestamp = readBigEndian(header[28..<36])
        self.keyCommitment = Array(header[36..<64])
        // At most 2^32 - 1 chunks (the nonce counter is 32 bits); this also keeps every size computable.
        guard Self.fits(size: originalSize, chunkExponent: chunkExponent) else {
            throw .fileTooLarge(source: source, size: originalSize)
        }
    }

    /// Creates a header; the caller supplies a fresh random nonce and the commitment.
    init(algorithm: AEADAlgorithm, chunkExponent: UInt8, nonce: [UInt8], originalSize: UInt64, timestamp: UInt64, keyCommitment: [UInt8]) {
        precondition(nonce.count == 12 && keyCommitment.count == 28 && Self.chunkExponentRange.contains(chunkExponent))
        self.algorithm = algorithm
        self.chunkExponent = chunkExponent
        self.nonce = nonce
        self.originalSize = originalSize
        self.timestamp = timestamp
        self.keyCommitment = keyCommitment
    }

    /// The nonce of chunk `index`: the file nonce XOR (7 zero bytes ‖ index as a
    /// big-endian u32 ‖ 0x01 for the last chunk, else 0x00).
    func chunkNonce(index: UInt64) -> [UInt8] {
        precondition(index <= UInt64(UInt32.max), "a LOCA file holds at most 2^32 - 1 chunks")
        var derived = nonce
        derived[7] ^= UInt8(index >> 24 & 0xFF)
        derived[8] ^= UInt8(index >> 16 & 0xFF)
        derived[9] ^= UInt8(index >> 8 & 0xFF)
        derived[10] ^= UInt8(index & 0xFF)
        if index == chunkCount - 1 { derived[11] ^= 0x01 }
        return derived
    }
}

func bigEndianBytes(_ value: UInt64) -> [UInt8] {
    (0..<8).map { UInt8(value >> (56 - 8 * UInt64($0)) & 0xFF) }
}

func readBigEndian(_ bytes: ArraySlice<UInt8>) -> UInt64 {
    bytes.reduce(0) { $0 << 8 | UInt64($1) }
}
