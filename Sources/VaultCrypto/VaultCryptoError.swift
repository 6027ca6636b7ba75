/// Everything that can go wrong in VaultCrypto. Messages name the file when
/// there is one and never contain key material.
public enum VaultCryptoError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The data does not start with the `LOCA` magic.
    case notLOCA(source: String)
    /// A LOCA version this library does not read.
    case unsupportedVersion(source: String, version: UInt16)
    /// An algorithm byte this library does not know.
    case unknownAlgorithm(source: String, code: UInt8)
    /// The algorithm is known but cannot run on this machine (AES-256-GCM without AES-NI).
    case algorithmUnavailable(source: String, algorithm: AEADAlgorithm)
    /// The chunk-size exponent (the seed's reserved byte) is outside what version 1 allows.
    case invalidChunkSize(source: String, exponent: UInt8)
    /// The plaintext is larger than a LOCA v1 file can hold (2^32 − 1 chunks).
    case fileTooLarge(source: String, size: UInt64)
    /// The file is shorter than its header says.
    case truncated(source: String, expected: UInt64, actual: UInt64)
    /// The file is longer than its header says.
    case trailingBytes(source: String, expected: UInt64, actual: UInt64)
    /// The key commitment does not match: this file was encrypted with another key.
    case wrongKey(source: String)
    /// A chunk failed authentication: the file was modified or damaged. No plaintext was released.
    case authenticationFailed(source: String, chunk: UInt64)
    /// A requested byte range lies outside the plaintext.
    case rangeOutOfBounds(source: String, range: Range<UInt64>, size: UInt64)
    /// Key bytes of the wrong length.
    case invalidKeyLength(expected: Int, actual: Int)
    /// A wrapped photo key is malformed, was wrapped for another photo, or under another master key.
    case keyUnwrapFailed(photoID: String)
    /// A key file is malformed, or its passphrase is wrong.
    case keyFileUnreadable(path: String, reason: String)
    /// A key file needs a passphrase and none was given (or one was given for an unprotected file).
    case passphraseMismatch(path: String, reason: String)
    /// Argon2id could not run (usually not enough memory).
    case passphraseHashingFailed(reason: String)
    /// Reading a file failed.
    case readFailed(path: String, reason: String)
    /// Writing a file failed; the previous file (if any) is intact and no temporary file is left.
    case writeFailed(path: String, reason: String)
    /// The vault's SQLite catalogue could not be opened or updated.
    case catalogueFailed(path: String, reason: String)
    /// The folder is not a vault (no catalogue), or a vault already exists where one is being created.
    case vaultNotFound(path: String)
    /// A vault already exists in the folder.
    case vaultExists(path: String)
    /// The key store holds no master key for this vault.
    case masterKeyMissing(path: String)
    /// The master key from the key store does not open this vault.
    case wrongMasterKey(path: String)
    /// No photo or album with this id.
    case notFound(id: String)
    /// A share bundle is malformed, tampered with, too large or not addressed to us. Nothing was decrypted.
    case shareInvalid(reason: String)

    public var description: String {
        switch self {
        case .notLOCA(let source):
            "\(source): not a LOCA encrypted file (bad magic)"
        case .unsupportedVersion(let source, let version):
            "\(source): LOCA version \(version) is not supported (this library reads version 1); update Memora"
        case .unknownAlgorithm(let source, let code):
            "\(source): unknown encryption algorithm 0x\(String(code, radix: 16)); the file is damaged or from a newer version"
        case .algorithmUnavailable(let source, let algorithm):
            "\(source): \(algorithm) is not available on this CPU (libsodium needs AES-NI and CLMUL); decrypt it on another machine or re-encrypt it with ChaCha20-Poly1305"
        case .invalidChunkSize(let source, let exponent):
            "\(source): invalid chunk size exponent \(exponent) (version 1 allows \(LOCAHeader.chunkExponentRange.lowerBound)...\(LOCAHeader.chunkExponentRange.upperBound)); the file is damaged"
        case .fileTooLarge(let source, let size):
            "\(source): \(size) bytes is more than a LOCA file with this chunk size can hold (2^32 - 1 chunks); use a larger chunk size"
        case .truncated(let source, let expected, let actual):
            "\(source): the file is truncated (\(actual) bytes, its header needs \(expected)); it was probably cut off while copying"
        case .trailingBytes(let source, let expected, let actual):
            "\(source): \(actual - expected) unexpected bytes after the end of the encrypted data; the file was modified"
        case .wrongKey(let source):
            "\(source): this file was encrypted with a different key"
        case .authenticationFailed(let source, let chunk):
            "\(source): chunk \(chunk) failed authentication; the file was modified or damaged, and nothing was decrypted from it"
        case .rangeOutOfBounds(let source, let range, let size):
            "\(source): bytes \(range.lowerBound)..<\(range.upperBound) lie outside the \(size)-byte plaintext"
        case .invalidKeyLength(let expected, let actual):
            "a key must be \(expected) bytes, got \(actual)"
        case .keyUnwrapFailed(let photoID):
            "the key of photo \(photoID) cannot be unwrapped: it is damaged, belongs to another photo, or was wrapped under another master key"
        case .keyFileUnreadable(let path, let reason):
            "\(path): the key file cannot be used (\(reason))"
        case .passphraseMismatch(let path, let reason):
            "\(path): \(reason)"
        case .passphraseHashingFailed(let reason):
            "deriving a key from the passphrase failed (\(reason))"
        case .readFailed(let path, let reason):
            "\(path): cannot be read (\(reason))"
        case .writeFailed(let path, let reason):
            "\(path): could not be written (\(reason)); the previous file is intact"
        case .catalogueFailed(let path, let reason):
            "\(path): the vault catalogue failed (\(reason))"
        case .vaultNotFound(let path):
            "\(path): no vault here; create one with `memora vault init`"
        case .vaultExists(let path):
            "\(path): a vault already exists here"
        case .masterKeyMissing(let path):
            "\(path): its master key was not found (no key file, or an empty key store); give the vault's key file"
        case .wrongMasterKey(let path):
            "\(path): the master key does not open this vault (wrong key file or passphrase)"
        case .notFound(let id):
            "no photo or album with id \(id) in this vault"
        case .shareInvalid(let reason):
            "the share bundle was refused: \(reason)"
        }
    }
}
