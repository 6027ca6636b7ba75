internal import MemoraSystem

/// A photo arriving as a stream of unknown length, kept on disk only encrypted until its size and
/// content hash are known and the LOCA file can be written (a LOCA header holds the plaintext's
/// size, and every chunk is sealed with the header).
///
/// Each record is one batch of the vault's LOCA encryption (``LOCACipher/batchBytes(chunkExponent:)``),
/// sealed on its own as a small LOCA blob under a key that exists only in this process's memory and
/// is wiped with the spool: a crash leaves ciphertext nobody can open, which ``Vault/open(at:keyStore:cipher:clock:)``
/// removes. Memory holds one record, whatever the photo's size.
final class PhotoSpool {
    /// The spool file: `Thumbnails/.{uuid}.spool.memora-XXXXXX` in the vault.
    let path: String
    private let file: SystemFile
    private let cipher: LOCACipher
    private let key = SecretKey()
    private let recordSize: Int
    private var pending: [UInt8] = []
    private var digest: SHA256Digest? = SHA256Digest()
    private var written: Int64 = 0
    /// The plaintext bytes taken so far.
    private(set) var size: UInt64 = 0
    /// Where the next record is read from, and the plaintext offset it starts at.
    private var readOffset: Int64 = 0
    private var readPlaintext: UInt64 = 0

    /// Creates the spool file (0600; it must not exist) for `cipher`'s batches.
    init(path: String, cipher: LOCACipher) throws(VaultCryptoError) {
        self.path = path
        self.cipher = cipher
        recordSize = LOCACipher.batchBytes(chunkExponent: cipher.chunkExponent)
        do throws(SystemError) {
            file = try SystemFile(path, .readingAndWriting(createWith: 0o600))
            guard try file.size() == 0 else { throw SystemError("create", path: path, code: 17) }
        } catch {
            throw .writeFailed(path: path, cause: error)
        }
        pending.reserveCapacity(recordSize)
    }

    deinit {
        Sodium.wipe(&pending)
        file.close()
    }

    /// Takes `bytes` (any length), sealing each full record as it fills.
    func append(_ bytes: [UInt8]) throws(VaultCryptoError) {
        var start = 0
        while start < bytes.count {
            let take = min(recordSize - pending.count, bytes.count - start)
            pending.append(contentsOf: bytes[start..<start + take])
            start += take
            if pending.count == recordSize { try seal() }
        }
        size += UInt64(bytes.count)
    }

    /// Seals what is left and returns the plaintext's SHA-256.
    func finish() throws(VaultCryptoError) -> [UInt8] {
        if !pending.isEmpty { try seal() }
        guard let finished = digest.take() else { throw .readFailed(path: path, reason: "the spool was finished twice") }
        return finished.finalize()
    }

    private func seal() throws(VaultCryptoError) {
        digest?.update(pending)
        let blob = cipher.encrypt(pending, key: key)
        Sodium.wipe(&pending)
        pending.removeAll(keepingCapacity: true)
        let length = UInt32(blob.count)
        let record = [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)] + blob
        do { try file.write(record, at: written) } catch { throw .writeFailed(path: path, cause: error) }
        written += Int64(record.count)
    }

    /// Fills `buffer` with the plaintext at `offset`, the next record in order (the LOCA writer asks
    /// for one batch at a time): each record is opened and checked before its bytes are given.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws(VaultCryptoError) {
        guard !buffer.isEmpty else { return }  // an empty photo: one empty chunk, no record
        guard offset == readPlaintext else { throw .readFailed(path: path, reason: "the spool was read out of order") }
        let blob: [UInt8]
        do throws(SystemError) {
            let prefix = try file.readExactly(4, at: readOffset)
            let length = Int(prefix[0]) << 24 | Int(prefix[1]) << 16 | Int(prefix[2]) << 8 | Int(prefix[3])
            guard length <= cipher.encryptedSize(ofPlaintext: recordSize) else { throw SystemError("read", path: path, code: 5) }
            blob = try file.readExactly(length, at: readOffset + 4)
            readOffset += 4 + Int64(length)
        } catch {
            throw .readFailed(path: path, cause: error, reason: "the spool cannot be read back")
        }
        var plain = try LOCACipher.decrypt(blob, key: key, source: path)
        defer { Sodium.wipe(&plain) }
        guard plain.count == buffer.count else { throw .readFailed(path: path, reason: "a spool record has the wrong length") }
        plain.withUnsafeBytes { buffer.copyMemory(from: $0) }
        readPlaintext += UInt64(plain.count)
    }

    /// Overwrites the spool with zeros and removes it.
    func remove() {
        VaultFiles.overwriteAndRemove(path)
    }
}
