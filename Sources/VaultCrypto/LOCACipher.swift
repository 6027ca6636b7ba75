public import Foundation
internal import MemoraSystem

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

    /// Encrypts `plaintext` into `file`, reusing its storage when it already has the encrypted
    /// size (``encryptedSize(ofPlaintext:)``), for callers that encrypt many buffers in a loop.
    public func encrypt(_ plaintext: [UInt8], into file: inout [UInt8], key: SecretKey, timestamp: Date = Date()) {
        let nonce = SecureRandom.bytes(count: 12)
        guard file.count == encryptedSize(ofPlaintext: plaintext.count) else {
            file = encrypt(plaintext, key: key, nonce: nonce, timestamp: Self.seconds(timestamp))
            return
        }
        file.withUnsafeMutableBytes { seal(plaintext, key: key, nonce: nonce, timestamp: Self.seconds(timestamp), into: $0) }
    }

    /// The size of the LOCA file for `count` plaintext bytes with this cipher's chunk size.
    public func encryptedSize(ofPlaintext count: Int) -> Int {
        Int(LOCAHeader(algorithm: algorithm, chunkExponent: chunkExponent, nonce: [UInt8](repeating: 0, count: 12),
                       originalSize: UInt64(count), timestamp: 0, keyCommitment: [UInt8](repeating: 0, count: 28)).fileSize)
    }

    /// Deterministic encryption for known-answer tests: never reuse a nonce with the same key.
    func encrypt(_ plaintext: [UInt8], key: SecretKey, nonce: [UInt8], timestamp: UInt64) -> [UInt8] {
        let size = encryptedSize(ofPlaintext: plaintext.count)
        return [UInt8](unsafeUninitializedCapacity: size) { output, count in
            seal(plaintext, key: key, nonce: nonce, timestamp: timestamp, into: UnsafeMutableRawBufferPointer(output))
            count = size
        }
    }

    /// Writes the header and the sealed chunks into `output` (exactly the file's size).
    private func seal(_ plaintext: [UInt8], key: SecretKey, nonce: [UInt8], timestamp: UInt64, into output: UnsafeMutableRawBufferPointer) {
        let keys = Self.fileKeys(key, nonce: nonce)
        let header = LOCAHeader(
            algorithm: algorithm, chunkExponent: chunkExponent, nonce: nonce,
            originalSize: UInt64(plaintext.count), timestamp: timestamp, keyCommitment: keys.commitment)
        let headerBytes = header.bytes
        output.copyBytes(from: headerBytes)
        plaintext.withUnsafeBytes { source in
            Self.sealChunks(
                header: header, headerBytes: headerBytes, key: keys.payload, chunks: 0..<header.chunkCount,
                plaintext: source, sealed: UnsafeMutableRawBufferPointer(rebasing: output[LOCAHeader.byteCount...]))
        }
    }

    /// Decrypts a whole LOCA file held in memory. Nothing is returned unless every chunk verifies.
    public static func decrypt(_ file: [UInt8], key: SecretKey, source: String = "LOCA data") throws(VaultCryptoError) -> [UInt8] {
        let header = try validatedHeader(file.prefix(LOCAHeader.byteCount), fileSize: UInt64(file.count), key: key, source: source)
        var failedChunk: UInt64?
        var plaintext = [UInt8](unsafeUninitializedCapacity: Int(header.originalSize)) { output, count in
            failedChunk = open(file, header: header, key: key, into: UnsafeMutableRawBufferPointer(output))
            count = output.count
        }
        if let failedChunk {
            Sodium.wipe(&plaintext)
            throw .authenticationFailed(source: source, chunk: failedChunk)
        }
        return plaintext
    }

    /// Decrypts a whole LOCA file into `plaintext`, reusing its storage when it already has the
    /// original size, for callers that open many files in a loop. Every chunk is verified; on
    /// failure `plaintext` holds only zeros, never unverified data.
    public static func decrypt(_ file: [UInt8], into plaintext: inout [UInt8], key: SecretKey, source: String = "LOCA data") throws(VaultCryptoError) {
        let header = try validatedHeader(file.prefix(LOCAHeader.byteCount), fileSize: UInt64(file.count), key: key, source: source)
        guard plaintext.count == Int(header.originalSize) else {
            plaintext = try decrypt(file, key: key, source: source)
            return
        }
        if let failedChunk = plaintext.withUnsafeMutableBytes({ open(file, header: header, key: key, into: $0) }) {
            throw .authenticationFailed(source: source, chunk: failedChunk)
        }
    }

    /// Opens every chunk of `file` into `output`; the first chunk that failed, or nil (`output` is wiped on failure).
    private static func open(_ file: [UInt8], header: LOCAHeader, key: SecretKey, into output: UnsafeMutableRawBufferPointer) -> UInt64? {
        let payloadKey = fileKeys(key, nonce: header.nonce).payload
        let headerBytes = header.bytes
        return file.withUnsafeBytes { raw in
            openChunks(
                header: header, headerBytes: headerBytes, key: payloadKey, chunks: 0..<header.chunkCount,
                sealed: UnsafeRawBufferPointer(rebasing: raw[LOCAHeader.byteCount...]), plaintext: output)
        }
    }

    // MARK: Files

    /// Encrypts the file at `inputPath` into a new LOCA file at `outputPath` (mode 0600),
    /// one chunk at a time: memory use is two chunks whatever the file size. `progress` gets the
    /// plaintext bytes done and the total after each block; an error it throws stops the
    /// encryption and nothing is left at `outputPath`.
    public func encryptFile(at inputPath: String, to outputPath: String, key: SecretKey, timestamp: Date = Date(),
                            progress: ((UInt64, UInt64) throws(VaultCryptoError) -> Void)? = nil) throws(VaultCryptoError) {
        let reader = try FileReader(path: inputPath)
        guard LOCAHeader.fits(size: reader.size, chunkExponent: chunkExponent) else {
            throw .fileTooLarge(source: inputPath, size: reader.size)
        }
        try encrypt(size: reader.size, read: reader.read, to: outputPath, key: key, timestamp: timestamp, progress: progress) { () throws(VaultCryptoError) in
            guard try FileReader(path: inputPath).size == reader.size else {
                throw .readFailed(path: inputPath, reason: "the file changed size while it was being encrypted")
            }
        }
    }

    /// The plaintext bytes one batch of chunks holds (what `read` is asked for at a time, but the last).
    static func batchBytes(chunkExponent: UInt8) -> Int {
        let chunkSize = 1 << Int(chunkExponent)
        return max(1, (1 << 20) / chunkSize) * chunkSize
    }

    /// Encrypts `size` plaintext bytes, which `read` gives in order (a buffer to fill and its offset;
    /// one batch of ``batchBytes(chunkExponent:)`` at a time), into a new LOCA file at `outputPath`
    /// (mode 0600, put in place when complete and `check` passes): memory use is two batches whatever the size.
    func encrypt(size: UInt64, read: (UnsafeMutableRawBufferPointer, UInt64) throws(VaultCryptoError) -> Void, to outputPath: String,
                 key: SecretKey, timestamp: Date, progress: ((UInt64, UInt64) throws(VaultCryptoError) -> Void)?,
                 check: () throws(VaultCryptoError) -> Void = {}) throws(VaultCryptoError) {
        let nonce = SecureRandom.bytes(count: 12)
        let keys = Self.fileKeys(key, nonce: nonce)
        let header = LOCAHeader(
            algorithm: algorithm, chunkExponent: chunkExponent, nonce: nonce,
            originalSize: size, timestamp: Self.seconds(timestamp), keyCommitment: keys.commitment)
        let headerBytes = header.bytes
        let writer = try VaultFileWriter(path: outputPath, mode: 0o600, expectedSize: header.fileSize)
        try writer.write(headerBytes)
        let batch = Self.batchSize(header)
        var plain = [UInt8](repeating: 0, count: batch * header.chunkSize)
        var sealed = [UInt8](repeating: 0, count: batch * (header.chunkSize + LOCAHeader.tagByteCount))
        defer { Sodium.wipe(&plain) }
        var first: UInt64 = 0
        while first < header.chunkCount {
            let chunks = first..<min(header.chunkCount, first + UInt64(batch))
            let plainLength = Int(header.plaintextOffset(ofChunk: chunks.upperBound) - header.plaintextOffset(ofChunk: first))
            let sealedLength = plainLength + chunks.count * LOCAHeader.tagByteCount
            try withMutableBytes(&plain) { buffer throws(VaultCryptoError) in
                try read(UnsafeMutableRawBufferPointer(rebasing: buffer[0..<plainLength]), header.plaintextOffset(ofChunk: first))
            }
            plain.withUnsafeBytes { source in
                sealed.withUnsafeMutableBytes { target in
                    Self.sealChunks(
                        header: header, headerBytes: headerBytes, key: keys.payload, chunks: chunks,
                        plaintext: UnsafeRawBufferPointer(rebasing: source[0..<plainLength]),
                        sealed: UnsafeMutableRawBufferPointer(rebasing: target[0..<sealedLength]))
                }
            }
            try withBytes(sealed) { raw throws(VaultCryptoError) in
                try writer.write(UnsafeRawBufferPointer(rebasing: raw[0..<sealedLength]))
            }
            first = chunks.upperBound
            try progress?(header.plaintextOffset(ofChunk: first), size)
        }
        try check()
        try writer.commit()
    }

    /// Decrypts the LOCA file at `inputPath` into `outputPath`, one chunk at a time.
    /// Each chunk is verified before it is written; the output appears under its
    /// name only when every chunk verified (a temporary file is used until then). Without
    /// `replacingExisting`, an existing file at `outputPath` is left as it is (`outputExists`).
    /// `progress` gets the bytes done and the total after each block; an error it throws stops the
    /// decryption and nothing is left at `outputPath`.
    public static func decryptFile(
        at inputPath: String, to outputPath: String, key: SecretKey, mode: UInt16 = 0o600, replacingExisting: Bool = true,
        progress: ((UInt64, UInt64) throws(VaultCryptoError) -> Void)? = nil
    ) throws(VaultCryptoError) {
        let reader = try FileReader(path: inputPath)
        let header = try readHeader(reader, key: key)
        let writer = try VaultFileWriter(
            path: outputPath, mode: UInt32(mode), expectedSize: header.originalSize, replacingExisting: replacingExisting)
        try forEachChunk(reader, header: header, key: key, in: 0..<header.chunkCount) { start, plaintext throws(VaultCryptoError) in
            try writer.write(plaintext)
            try progress?(start + UInt64(plaintext.count), header.originalSize)
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
        try forEachChunk(reader, header: header, key: key, in: chunks) { chunkStart, plaintext throws(VaultCryptoError) in
            let from = Int(max(range.lowerBound, chunkStart) - chunkStart)
            let to = Int(min(range.upperBound, chunkStart + UInt64(plaintext.count)) - chunkStart)
            output.append(contentsOf: UnsafeRawBufferPointer(rebasing: plaintext[from..<to]))
        }
        return output
    }

    /// Verifies every chunk of the LOCA file at `path` and returns the SHA-256 of its plaintext,
    /// keeping no more than one batch of it in memory (wiped).
    public static func plaintextDigest(ofFileAt path: String, key: SecretKey) throws(VaultCryptoError) -> [UInt8] {
        let reader = try FileReader(path: path)
        let header = try readHeader(reader, key: key)
        var digest = SHA256Digest()
        try forEachChunk(reader, header: header, key: key, in: 0..<header.chunkCount) { _, plaintext throws(VaultCryptoError) in
            digest.update(plaintext)
        }
        return digest.finalize()
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

    /// Reads, verifies and decrypts the chunks in `chunks` in batches of about 1 MiB,
    /// handing each batch's plaintext and its offset in the original data to `body`,
    /// in order. The plaintext buffer is wiped afterwards.
    private static func forEachChunk(
        _ reader: FileReader, header: LOCAHeader, key: SecretKey, in chunks: Range<UInt64>,
        _ body: (UInt64, UnsafeRawBufferPointer) throws(VaultCryptoError) -> Void
    ) throws(VaultCryptoError) {
        let payloadKey = fileKeys(key, nonce: header.nonce).payload
        let headerBytes = header.bytes
        let batch = batchSize(header)
        var sealed = [UInt8](repeating: 0, count: batch * (header.chunkSize + LOCAHeader.tagByteCount))
        var plain = [UInt8](repeating: 0, count: batch * header.chunkSize)
        defer { Sodium.wipe(&plain) }
        var first = chunks.lowerBound
        while first < chunks.upperBound {
            let run = first..<min(chunks.upperBound, first + UInt64(batch))
            let plainLength = Int(header.plaintextOffset(ofChunk: run.upperBound) - header.plaintextOffset(ofChunk: first))
            let sealedLength = plainLength + run.count * LOCAHeader.tagByteCount
            try withMutableBytes(&sealed) { raw throws(VaultCryptoError) in
                try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<sealedLength]), at: header.fileOffset(ofChunk: first))
            }
            let failed = sealed.withUnsafeBytes { source in
                plain.withUnsafeMutableBytes { target in
                    openChunks(
                        header: header, headerBytes: headerBytes, key: payloadKey, chunks: run,
                        sealed: UnsafeRawBufferPointer(rebasing: source[0..<sealedLength]),
                        plaintext: UnsafeMutableRawBufferPointer(rebasing: target[0..<plainLength]))
                }
            }
            if let failed { throw .authenticationFailed(source: reader.path, chunk: failed) }
            try withBytes(plain) { raw throws(VaultCryptoError) in
                try body(header.plaintextOffset(ofChunk: first), UnsafeRawBufferPointer(rebasing: raw[0..<plainLength]))
            }
            first = run.upperBound
        }
    }

    /// Chunks handled per read or write: about 1 MiB, so memory stays small and syscalls few.
    private static func batchSize(_ header: LOCAHeader) -> Int {
        batchBytes(chunkExponent: header.chunkExponent) / header.chunkSize
    }

    /// Seals `chunks`: `plaintext` holds their plaintexts back to back, `sealed`
    /// receives each ciphertext followed by its tag. Runs on all cores when there is enough work.
    static func sealChunks(
        header: LOCAHeader, headerBytes: [UInt8], key: SecretKey, chunks: Range<UInt64>,
        plaintext: UnsafeRawBufferPointer, sealed: UnsafeMutableRawBufferPointer
    ) {
        let base = header.plaintextOffset(ofChunk: chunks.lowerBound)
        let shared = SharedBuffers(input: plaintext, output: sealed)
        inParallel(chunks) { index in
            let length = header.plaintextLength(ofChunk: index)
            let plainStart = Int(header.plaintextOffset(ofChunk: index) - base)
            let sealedStart = plainStart + Int(index - chunks.lowerBound) * LOCAHeader.tagByteCount
            sealChunk(
                header: header, headerBytes: headerBytes, index: index, key: key,
                plaintext: UnsafeRawBufferPointer(rebasing: shared.input[plainStart..<plainStart + length]),
                ciphertext: UnsafeMutableRawBufferPointer(rebasing: shared.output[sealedStart..<sealedStart + length]),
                tag: UnsafeMutableRawBufferPointer(rebasing: shared.output[sealedStart + length..<sealedStart + length + LOCAHeader.tagByteCount]))
            return true
        }
    }

    /// Verifies and opens `chunks` (the inverse of `sealChunks`); returns the first chunk that
    /// failed, or nil. On failure the whole `plaintext` buffer is wiped.
    static func openChunks(
        header: LOCAHeader, headerBytes: [UInt8], key: SecretKey, chunks: Range<UInt64>,
        sealed: UnsafeRawBufferPointer, plaintext: UnsafeMutableRawBufferPointer
    ) -> UInt64? {
        let base = header.plaintextOffset(ofChunk: chunks.lowerBound)
        let shared = SharedBuffers(input: sealed, output: plaintext)
        let failed = inParallel(chunks) { index in
            let length = header.plaintextLength(ofChunk: index)
            let plainStart = Int(header.plaintextOffset(ofChunk: index) - base)
            let sealedStart = plainStart + Int(index - chunks.lowerBound) * LOCAHeader.tagByteCount
            return openChunk(
                header: header, headerBytes: headerBytes, index: index, key: key,
                ciphertext: UnsafeRawBufferPointer(rebasing: shared.input[sealedStart..<sealedStart + length]),
                tag: UnsafeRawBufferPointer(rebasing: shared.input[sealedStart + length..<sealedStart + length + LOCAHeader.tagByteCount]),
                plaintext: UnsafeMutableRawBufferPointer(rebasing: shared.output[plainStart..<plainStart + length]))
        }
        if failed != nil { Sodium.wipe(plaintext) }
        return failed
    }

    /// Runs `body` for every chunk, split into contiguous runs over the machine's cores
    /// when there are at least 8 chunks; returns the lowest chunk for which `body` returned false.
    @discardableResult
    private static func inParallel(_ chunks: Range<UInt64>, _ body: @Sendable (UInt64) -> Bool) -> UInt64? {
        let workers = min(ProcessInfo.processInfo.activeProcessorCount, chunks.count / 4)
        guard workers > 1 else {
            return chunks.first { !body($0) }
        }
        let failures = ResultSlots<UInt64>(count: workers)
        let perWorker = (UInt64(chunks.count) + UInt64(workers) - 1) / UInt64(workers)
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            let start = chunks.lowerBound + UInt64(worker) * perWorker
            let end = min(chunks.upperBound, start + perWorker)
            guard start < end else { return }
            failures[worker] = (start..<end).first { !body($0) }
        }
        return (0..<workers).compactMap { failures[$0] }.min()
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

    /// `date` as whole Unix seconds for the header (0 before 1970).
    static func seconds(_ date: Date) -> UInt64 {
        let value = date.timeIntervalSince1970
        guard value.isFinite, value > 0 else { return 0 }
        return value >= 1.8e19 ? UInt64.max : UInt64(value.rounded(.down))
    }
}

/// The buffers a parallel seal or open works on.
private struct SharedBuffers: Sendable {
    // Unchecked: the workers read the input and each writes a disjoint range of the output.
    nonisolated(unsafe) let input: UnsafeRawBufferPointer
    nonisolated(unsafe) let output: UnsafeMutableRawBufferPointer
}

