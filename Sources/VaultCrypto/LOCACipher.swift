public import Foundation

/// Encrypts and decrypts LOCA version 1 files (Docs/LOCA-format.md).
///
/// The body is a sequence of chunks, each its own AEAD message: the chunk's
/// ciphertext followed by its 16-byte tag. The associated data of every chunk
/// is the whole 64-byte header, so changing any header byte fails decryption.
/// Chunk nonces bind the chunk index and a last-chunk flag, so truncation,
/// reordering, duplication and appended bytes are all detected. A file of at
/// most one chunk is exactly the seed's layout: header, ciphertext, tag.
///
/// Key schedule, from the 32-byte file key K and the header nonce N:
/// `PRK = HKDF-Extract(salt: N, IKM: K)`,
/// `payload key = HKDF-Expand(PRK, "LOCA v1 payload key", 32)`,
/// `commitment = HKDF-Expand(PRK, "LOCA v1 key commitment", 28)`, stored in the header.
public struct LOCACipher: Sendable {
    /// The cipher new files use.
    public let algorithm: AEADAlgorithm
    /// New files use chunks of 2^chunkExponent bytes.
    public let chunkExponent: UInt8

    /// A cipher for new files.
    /// - Throws: when the algorithm cannot run here or the chunk size is outside 4 KiB...16 MiB.
    public init(algorithm: AEADAlgorithm = .preferred, chunkExponent: UInt8 = LOCAHeader.defaultChunkExponent) throws(VaultCryptoError) {
        guard algorithm.isAvailable else { throw .algorithmUnavailable(source: "new file", algorithm: algorithm) }
        guard LOCAHeader.chunkExponentRange.contains(chunkExponent) else {
            throw .invalidChunkSize(source: "new file", exponent: chunkExponent)
        }
        self.algorithm = algorithm
        self.chunkExponent = chunkExponent
    }

    // MARK: In memory

    /// Encrypts `plaintext` under `key` with a fresh random nonce.
    public func encrypt(_ plaintext: [UInt8], key: SecretKey, timestamp: Date = Date()) -> [UInt8] {
        encrypt(plaintext, key: key, nonce: SecureRandom.bytes(count: 12), timestamp: Self.seconds(timestamp))
    }

    /// Deterministic encryption for known-answer tests: never reuse a nonce with the same key.
    func encrypt(_ plaintext: [UInt8], key: SecretKey, nonce: [UInt8], timestamp: UInt64) -> [UInt8] {
        let keys = Self.fileKeys(key, nonce: nonce)
        let header = LOCAHeader(
            algorithm: algorithm, chunkExponent: chunkExponent, nonce: nonce,
            originalSize: UInt64(plaintext.count), timestamp: timestamp, keyCommitment: keys.commitment)
        let headerBytes = header.bytes
        var output = [UInt8](repeating: 0, count: Int(header.fileSize))
        output.replaceSubrange(0..<LOCAHeader.byteCount, with: headerBytes)
        plaintext.withUnsafeBytes { source in
            output.withUnsafeMutableBytes { target in
                for index in 0..<header.chunkCount {
                    let length = header.plaintextLength(ofChunk: index)
                    let plainStart = Int(index) * header.chunkSize
                    let cipherStart = Int(header.fileOffset(ofChunk: index))
                    Self.sealChunk(
                        header: header, headerBytes: headerBytes, index: index, key: keys.payload,
                        plaintext: UnsafeRawBufferPointer(rebasing: source[plainStart..<plainStart + length]),
                        ciphertext: UnsafeMutableRawBufferPointer(rebasing: target[cipherStart..<cipherStart + length]),
                        tag: UnsafeMutableRawBufferPointer(rebasing: target[cipherStart + length..<cipherStart + length + LOCAHeader.tagByteCount]))
                }
            }
        }
        return output
    }

    /// Decrypts a whole LOCA file held in memory. Nothing is returned unless every chunk verifies.
    public static func decrypt(_ file: [UInt8], key: SecretKey, source: String = "LOCA data") throws(VaultCryptoError) -> [UInt8] {
        let header = try validatedHeader(file.prefix(LOCAHeader.byteCount), fileSize: UInt64(file.count), key: key, source: source)
        let payloadKey = fileKeys(key, nonce: header.nonce).payload
        let headerBytes = Array(file[0..<LOCAHeader.byteCount])
        var plaintext = [UInt8](repeating: 0, count: Int(header.originalSize))
        var failedChunk: UInt64?
        file.withUnsafeBytes { source in
            plaintext.withUnsafeMutableBytes { target in
                for index in 0..<header.chunkCount {
                    let length = header.plaintextLength(ofChunk: index)
                    let cipherStart = Int(header.fileOffset(ofChunk: index))
                    let plainStart = Int(index) * header.chunkSize
                    let verified = openChunk(
                        header: header, headerBytes: headerBytes, index: index, key: payloadKey,
                        ciphertext: UnsafeRawBufferPointer(rebasing: source[cipherStart..<cipherStart + length]),
                        tag: UnsafeRawBufferPointer(rebasing: source[cipherStart + length..<cipherStart + length + LOCAHeader.tagByteCount]),
                        plaintext: UnsafeMutableRawBufferPointer(rebasing: target[plainStart..<plainStart + length]))
                    if !verified {
                        failedChunk = index
                        return
                    }
                }
            }
        }
        if let failedChunk {
            Sodium.wipe(&plaintext)
            throw .authenticationFailed(source: source, chunk: failedChunk)
        }
        return plaintext
    }

    // MARK: Files

    /// Encrypts the file at `inputPath` into a new LOCA file at `outputPath` (mode 0600),
    /// one chunk at a time: memory use is two chunks whatever the file size.
    public func encryptFile(at inputPath: String, to outputPath: String, key: SecretKey, timestamp: Date = Date()) throws(VaultCryptoError) {
        let reader = try FileReader(path: inputPath)
        let nonce = SecureRandom.bytes(count: 12)
        let keys = Self.fileKeys(key, nonce: nonce)
        let header = LOCAHeader(
            algorithm: algorithm, chunkExponent: chunkExponent, nonce: nonce,
            originalSize: reader.size, timestamp: Self.seconds(timestamp), keyCommitment: keys.commitment)
        let headerBytes = header.bytes
        let writer = try AtomicFileWriter(path: outputPath, mode: 0o600)
        try writer.write(headerBytes)
        var plain = [UInt8](repeating: 0, count: header.chunkSize)
        var sealed = [UInt8](repeating: 0, count: header.chunkSize + LOCAHeader.tagByteCount)
        defer { Sodium.wipe(&plain) }
        for index in 0..<header.chunkCount {
            let length = header.plaintextLength(ofChunk: index)
            try withMutableBytes(&plain) { buffer throws(VaultCryptoError) in
                try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<length]), at: index * UInt64(header.chunkSize))
            }
            plain.withUnsafeBytes { source in
                sealed.withUnsafeMutableBytes { target in
                    Self.sealChunk(
                        header: header, headerBytes: headerBytes, index: index, key: keys.payload,
                        plaintext: UnsafeRawBufferPointer(rebasing: source[0..<length]),
                        ciphertext: UnsafeMutableRawBufferPointer(rebasing: target[0..<length]),
                        tag: UnsafeMutableRawBufferPointer(rebasing: target[length..<length + LOCAHeader.tagByteCount]))
                }
            }
            try withBytes(sealed) { raw throws(VaultCryptoError) in
                try writer.write(UnsafeRawBufferPointer(rebasing: raw[0..<length + LOCAHeader.tagByteCount]))
            }
        }
        guard try FileReader(path: inputPath).size == reader.size else {
            throw .readFailed(path: inputPath, reason: "the file changed size while it was being encrypted")
        }
        try writer.commit()
    }

    /// Decrypts the LOCA file at `inputPath` into `outputPath`, one chunk at a time.
    /// Each chunk is verified before it is written; the output appears under its
    /// name only when every chunk verified (a temporary file is used until then).
    public static func decryptFile(at inputPath: String, to outputPath: String, key: SecretKey, mode: UInt16 = 0o600) throws(VaultCryptoError) {
        let reader = try FileReader(path: inputPath)
        let header = try readHeader(reader, key: key)
        let writer = try AtomicFileWriter(path: outputPath, mode: mode_t(mode))
        try forEachChunk(reader, header: header, key: key, in: 0..<header.chunkCount) { _, plaintext throws(VaultCryptoError) in
            try writer.write(plaintext)
        }
        try writer.commit()
    }

    /// Decrypts the plaintext bytes in `range` of the LOCA file at `path`, reading only the chunks that hold them.
    public static func decrypt(range: Range<UInt64>, ofFileAt path: String, key: SecretKey) throws(VaultCryptoError) -> [UInt8] {
        let reader = try FileReader(path: path)
        let header = try readHeader(reader, key: key)
        guard range.upperBound <= header.originalSize else {
            throw .rangeOutOfBounds(source: path, range: range, size: header.originalSize)
        }
        guard !range.isEmpty else { return [] }
        let chunkSize = UInt64(header.chunkSize)
        let chunks = (range.lowerBound / chunkSize)..<((range.upperBound - 1) / chunkSize + 1)
        var output: [UInt8] = []
        output.reserveCapacity(range.count)
        try forEachChunk(reader, header: header, key: key, in: chunks) { index, plaintext throws(VaultCryptoError) in
            let chunkStart = index * chunkSize
            let from = Int(max(range.lowerBound, chunkStart) - chunkStart)
            let to = Int(min(range.upperBound, chunkStart + UInt64(plaintext.count)) - chunkStart)
            output.append(contentsOf: UnsafeRawBufferPointer(rebasing: plaintext[from..<to]))
        }
        return output
    }

    /// Verifies every chunk of the LOCA file at `path` without keeping any plaintext.
    public static func verify(fileAt path: String, key: SecretKey) throws(VaultCryptoError) {
        let reader = try FileReader(path: path)
        let header = try readHeader(reader, key: key)
        try forEachChunk(reader, header: header, key: key, in: 0..<header.chunkCount) { _, _ throws(VaultCryptoError) in }
    }

    /// Reads and validates the header of the LOCA file at `path` (magic, version,
    /// algorithm, chunk size, exact file length) without needing the key.
    public static func header(ofFileAt path: String) throws(VaultCryptoError) -> LOCAHeader {
        let reader = try FileReader(path: path)
        return try structuralHeader(reader)
    }

    // MARK: Internals

    /// The payload key and the key commitment of one file.
    static func fileKeys(_ key: SecretKey, nonce: [UInt8]) -> (payload: SecretKey, commitment: [UInt8]) {
        var prk = key.withUnsafeBytes { HKDF.extract(salt: nonce, inputKeyMaterial: $0) }
        defer { Sodium.wipe(&prk) }
        return prk.withUnsafeBytes { prk in
            var payload = HKDF.expand(pseudorandomKey: prk, info: Array("LOCA v1 payload key".utf8), length: 32)
            defer { Sodium.wipe(&payload) }
            let commitment = HKDF.expand(pseudorandomKey: prk, info: Array("LOCA v1 key commitment".utf8), length: 28)
            return (SecretKey { $0.copyBytes(from: payload) }, commitment)
        }
    }

    /// Parses the header and checks the length, the algorithm's availability and the key commitment.
    static func validatedHeader(_ headerBytes: some Collection<UInt8>, fileSize: UInt64, key: SecretKey, source: String) throws(VaultCryptoError) -> LOCAHeader {
        let header = try LOCAHeader(parsing: headerBytes, source: source)
        try checkLength(header, fileSize: fileSize, source: source)
        guard header.algorithm.isAvailable else { throw .algorithmUnavailable(source: source, algorithm: header.algorithm) }
        let expected = fileKeys(key, nonce: header.nonce).commitment
        let matches = expected.withUnsafeBytes { a in header.keyCommitment.withUnsafeBytes { b in Sodium.constantTimeEqual(a, b) } }
        guard matches else { throw .wrongKey(source: source) }
        return header
    }

    private static func checkLength(_ header: LOCAHeader, fileSize: UInt64, source: String) throws(VaultCryptoError) {
        if fileSize < header.fileSize { throw .truncated(source: source, expected: header.fileSize, actual: fileSize) }
        if fileSize > header.fileSize { throw .trailingBytes(source: source, expected: header.fileSize, actual: fileSize) }
    }

    private static func structuralHeader(_ reader: FileReader) throws(VaultCryptoError) -> LOCAHeader {
        var bytes = [UInt8](repeating: 0, count: Int(min(reader.size, UInt64(LOCAHeader.byteCount))))
        try withMutableBytes(&bytes) { raw throws(VaultCryptoError) in try reader.read(into: raw, at: 0) }
        let header = try LOCAHeader(parsing: bytes, source: reader.path)
        try checkLength(header, fileSize: reader.size, source: reader.path)
        return header
    }

    private static func readHeader(_ reader: FileReader, key: SecretKey) throws(VaultCryptoError) -> LOCAHeader {
        var bytes = [UInt8](repeating: 0, count: Int(min(reader.size, UInt64(LOCAHeader.byteCount))))
        try withMutableBytes(&bytes) { raw throws(VaultCryptoError) in try reader.read(into: raw, at: 0) }
        return try validatedHeader(bytes, fileSize: reader.size, key: key, source: reader.path)
    }

    /// Reads, verifies and decrypts each chunk in `chunks`, handing the plaintext to `body`.
    /// The plaintext buffer is wiped afterwards.
    private static func forEachChunk(
        _ reader: FileReader, header: LOCAHeader, key: SecretKey, in chunks: Range<UInt64>,
        _ body: (UInt64, UnsafeRawBufferPointer) throws(VaultCryptoError) -> Void
    ) throws(VaultCryptoError) {
        let payloadKey = fileKeys(key, nonce: header.nonce).payload
        let headerBytes = header.bytes
        var sealed = [UInt8](repeating: 0, count: header.chunkSize + LOCAHeader.tagByteCount)
        var plain = [UInt8](repeating: 0, count: header.chunkSize)
        defer { Sodium.wipe(&plain) }
        for index in chunks {
            let length = header.plaintextLength(ofChunk: index)
            try withMutableBytes(&sealed) { raw throws(VaultCryptoError) in
                try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<length + LOCAHeader.tagByteCount]), at: header.fileOffset(ofChunk: index))
            }
            let verified = sealed.withUnsafeBytes { source in
                plain.withUnsafeMutableBytes { target in
                    openChunk(
                        header: header, headerBytes: headerBytes, index: index, key: payloadKey,
                        ciphertext: UnsafeRawBufferPointer(rebasing: source[0..<length]),
                        tag: UnsafeRawBufferPointer(rebasing: source[length..<length + LOCAHeader.tagByteCount]),
                        plaintext: UnsafeMutableRawBufferPointer(rebasing: target[0..<length]))
                }
            }
            guard verified else { throw .authenticationFailed(source: reader.path, chunk: index) }
            try withBytes(plain) { raw throws(VaultCryptoError) in try body(index, UnsafeRawBufferPointer(rebasing: raw[0..<length])) }
        }
    }

    private static func sealChunk(
        header: LOCAHeader, headerBytes: [UInt8], index: UInt64, key: SecretKey,
        plaintext: UnsafeRawBufferPointer, ciphertext: UnsafeMutableRawBufferPointer, tag: UnsafeMutableRawBufferPointer
    ) {
        let nonce = header.chunkNonce(index: index)
        key.withUnsafeBytes { k in
            nonce.withUnsafeBytes { n in
                headerBytes.withUnsafeBytes { ad in
                    Sodium.seal(header.algorithm, key: k, nonce: n, associatedData: ad, plaintext: plaintext, ciphertext: ciphertext, tag: tag)
                }
            }
        }
    }

    private static func openChunk(
        header: LOCAHeader, headerBytes: [UInt8], index: UInt64, key: SecretKey,
        ciphertext: UnsafeRawBufferPointer, tag: UnsafeRawBufferPointer, plaintext: UnsafeMutableRawBufferPointer
    ) -> Bool {
        let nonce = header.chunkNonce(index: index)
        return key.withUnsafeBytes { k in
            nonce.withUnsafeBytes { n in
                headerBytes.withUnsafeBytes { ad in
                    Sodium.open(header.algorithm, key: k, nonce: n, associatedData: ad, ciphertext: ciphertext, tag: tag, plaintext: plaintext)
                }
            }
        }
    }

    private static func seconds(_ date: Date) -> UInt64 {
        UInt64(max(0, date.timeIntervalSince1970.rounded(.down)))
    }
}
