public import MemoraSystem

/// Everything that can go wrong in VaultCrypto: a code a program can switch on (an extensible
/// set of static values, not a frozen enum), the file or vault folder concerned, a message a
/// person can act on, the system's error number when a system call failed, and whether trying
/// again can help. Messages name the file when there is one and never contain key material.
///
/// Match on ``code`` (`error.code == .wrongKey`); build errors with the static functions, named
/// like the codes (`throw .wrongKey(source: path)`).
public struct VaultCryptoError: CodedError, Hashable {
    /// What kind of failure it is. New codes may be added in later versions, so a `switch`
    /// over codes needs a `default` branch.
    public struct Code: ErrorCode {
        /// The code's stable kebab-case name ("wrong-key").
        public var rawValue: String

        /// A code with this name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The data does not start with the `LOCA` magic.
        public static let notLOCA = Code(rawValue: "not-loca")
        /// A LOCA version this library does not read.
        public static let unsupportedVersion = Code(rawValue: "unsupported-version")
        /// An algorithm byte this library does not know.
        public static let unknownAlgorithm = Code(rawValue: "unknown-algorithm")
        /// The algorithm is known but cannot run on this machine (AES-256-GCM without AES-NI).
        public static let algorithmUnavailable = Code(rawValue: "algorithm-unavailable")
        /// The chunk-size exponent (the seed's reserved byte) is outside what version 1 allows.
        public static let invalidChunkSize = Code(rawValue: "invalid-chunk-size")
        /// The plaintext is larger than a LOCA v1 file can hold (2^32 − 1 chunks).
        public static let fileTooLarge = Code(rawValue: "file-too-large")
        /// The file is shorter than its header says.
        public static let truncated = Code(rawValue: "truncated")
        /// The file is longer than its header says.
        public static let trailingBytes = Code(rawValue: "trailing-bytes")
        /// The key commitment does not match: the file was encrypted with another key.
        public static let wrongKey = Code(rawValue: "wrong-key")
        /// A chunk failed authentication: the file was modified or damaged. No plaintext was released.
        public static let authenticationFailed = Code(rawValue: "authentication-failed")
        /// A requested byte range lies outside the plaintext.
        public static let rangeOutOfBounds = Code(rawValue: "range-out-of-bounds")
        /// Key bytes of the wrong length.
        public static let invalidKeyLength = Code(rawValue: "invalid-key-length")
        /// A wrapped photo key is malformed, was wrapped for another photo, or under another master key.
        public static let keyUnwrapFailed = Code(rawValue: "key-unwrap-failed")
        /// A key file is malformed, or may not be used (permissions, owner).
        public static let keyFileUnreadable = Code(rawValue: "key-file-unreadable")
        /// A key file's passphrase is wrong, missing, or given for an unprotected file.
        public static let passphraseMismatch = Code(rawValue: "passphrase-mismatch")
        /// Argon2id could not run (usually not enough memory).
        public static let passphraseHashingFailed = Code(rawValue: "passphrase-hashing-failed")
        /// Reading a file failed.
        public static let readFailed = Code(rawValue: "read-failed")
        /// Writing a file (or locking the vault) failed; the previous file, if any, is intact.
        public static let writeFailed = Code(rawValue: "write-failed")
        /// The vault's SQLite catalogue could not be opened or updated.
        public static let catalogueFailed = Code(rawValue: "catalogue-failed")
        /// The folder is not a vault (no catalogue).
        public static let vaultNotFound = Code(rawValue: "vault-not-found")
        /// A vault already exists in the folder.
        public static let vaultExists = Code(rawValue: "vault-exists")
        /// The folder for a new vault already holds other files.
        public static let folderNotEmpty = Code(rawValue: "folder-not-empty")
        /// The key store holds no master key for this vault.
        public static let masterKeyMissing = Code(rawValue: "master-key-missing")
        /// The master key from the key store does not open this vault.
        public static let wrongMasterKey = Code(rawValue: "wrong-master-key")
        /// No photo or album with this id.
        public static let notFound = Code(rawValue: "not-found")
        /// A share bundle is malformed, tampered with, too large or not addressed to us.
        public static let shareInvalid = Code(rawValue: "share-invalid")
        /// The catalogue was changed by something other than the vault: a row's MAC does not match,
        /// or it names a file outside the vault's layout. Nothing was read, written or deleted for it.
        public static let catalogueTampered = Code(rawValue: "catalogue-tampered")
        /// The vault was written by a newer version of Memora (a newer format or catalogue migration).
        public static let vaultTooNew = Code(rawValue: "vault-too-new")
        /// An output path lies inside the vault folder, which only the vault itself writes.
        public static let outputInsideVault = Code(rawValue: "output-inside-vault")
        /// An output file already exists and replacing it was not asked for.
        /// The task was cancelled; what it had written was removed and the vault is as it was.
        public static let cancelled = Code(rawValue: "cancelled")
        public static let outputExists = Code(rawValue: "output-exists")
    }

    /// What kind of failure it is.
    public var code: Code
    /// The file or vault folder concerned, when there is one (for in-memory data, the name the
    /// caller gave it, such as "LOCA data").
    public var path: String?
    /// What happened and what to do, in words; names ``path`` once when there is one.
    public var message: String
    /// The system's error number (`errno`) when a system call failed (reading, writing or
    /// locking a file); nil otherwise.
    public var systemCode: Int32?
    /// Whether trying again, without changing anything, may succeed (an interrupted or
    /// temporarily failing system call, a busy catalogue). False for wrong keys, damaged or
    /// tampered files, bad formats and things that do not exist.
    public var isRetryable: Bool

    /// An error with every field given.
    public init(_ code: Code, _ message: String, path: String? = nil, systemCode: Int32? = nil, isRetryable: Bool = false) {
        self.code = code
        self.message = message
        self.path = path
        self.systemCode = systemCode
        self.isRetryable = isRetryable
    }

    // MARK: The errors VaultCrypto throws

    /// The data does not start with the `LOCA` magic.
    public static func notLOCA(source: String) -> VaultCryptoError {
        VaultCryptoError(.notLOCA, "\(source): not a LOCA encrypted file (bad magic)", path: source)
    }

    /// A LOCA version this library does not read.
    public static func unsupportedVersion(source: String, version: UInt16) -> VaultCryptoError {
        VaultCryptoError(
            .unsupportedVersion,
            "\(source): LOCA version \(version) is not supported (this library reads version 1); update Memora", path: source)
    }

    /// An algorithm byte this library does not know.
    public static func unknownAlgorithm(source: String, code: UInt8) -> VaultCryptoError {
        VaultCryptoError(
            .unknownAlgorithm,
            "\(source): unknown encryption algorithm 0x\(String(code, radix: 16)); the file is damaged or from a newer version",
            path: source)
    }

    /// The algorithm is known but cannot run on this machine (AES-256-GCM without AES-NI).
    public static func algorithmUnavailable(source: String, algorithm: AEADAlgorithm) -> VaultCryptoError {
        VaultCryptoError(
            .algorithmUnavailable,
            "\(source): \(algorithm) is not available on this CPU (libsodium needs AES-NI and CLMUL); decrypt it on another machine or re-encrypt it with ChaCha20-Poly1305",
            path: source)
    }

    /// The chunk-size exponent (the seed's reserved byte) is outside what version 1 allows.
    public static func invalidChunkSize(source: String, exponent: UInt8) -> VaultCryptoError {
        let range = LOCAHeader.chunkExponentRange
        return VaultCryptoError(
            .invalidChunkSize,
            "\(source): invalid chunk size exponent \(exponent) (version 1 allows \(range.lowerBound)...\(range.upperBound)); the file is damaged",
            path: source)
    }

    /// The plaintext is larger than a LOCA v1 file can hold (2^32 − 1 chunks).
    public static func fileTooLarge(source: String, size: UInt64) -> VaultCryptoError {
        VaultCryptoError(
            .fileTooLarge,
            "\(source): \(size) bytes is more than a LOCA file with this chunk size can hold (2^32 - 1 chunks); use a larger chunk size",
            path: source)
    }

    /// The file is shorter than its header says.
    public static func truncated(source: String, expected: UInt64, actual: UInt64) -> VaultCryptoError {
        VaultCryptoError(
            .truncated,
            "\(source): the file is truncated (\(actual) bytes, its header needs \(expected)); it was probably cut off while copying",
            path: source)
    }

    /// The file is longer than its header says.
    public static func trailingBytes(source: String, expected: UInt64, actual: UInt64) -> VaultCryptoError {
        VaultCryptoError(
            .trailingBytes,
            "\(source): \(actual - expected) unexpected bytes after the end of the encrypted data; the file was modified",
            path: source)
    }

    /// The key commitment does not match: this file was encrypted with another key.
    public static func wrongKey(source: String) -> VaultCryptoError {
        VaultCryptoError(.wrongKey, "\(source): this file was encrypted with a different key", path: source)
    }

    /// A chunk failed authentication: the file was modified or damaged. No plaintext was released.
    public static func authenticationFailed(source: String, chunk: UInt64) -> VaultCryptoError {
        VaultCryptoError(
            .authenticationFailed,
            "\(source): chunk \(chunk) failed authentication; the file was modified or damaged, and nothing was decrypted from it",
            path: source)
    }

    /// A requested byte range lies outside the plaintext.
    public static func rangeOutOfBounds(source: String, range: Range<UInt64>, size: UInt64) -> VaultCryptoError {
        VaultCryptoError(
            .rangeOutOfBounds,
            "\(source): bytes \(range.lowerBound)..<\(range.upperBound) lie outside the \(size)-byte plaintext", path: source)
    }

    /// Key bytes of the wrong length.
    public static func invalidKeyLength(expected: Int, actual: Int) -> VaultCryptoError {
        VaultCryptoError(.invalidKeyLength, "a key must be \(expected) bytes, got \(actual)")
    }

    /// A wrapped photo key is malformed, was wrapped for another photo, or under another master key.
    public static func keyUnwrapFailed(photoID: String) -> VaultCryptoError {
        VaultCryptoError(
            .keyUnwrapFailed,
            "the key of photo \(photoID) cannot be unwrapped: it is damaged, belongs to another photo, or was wrapped under another master key")
    }

    /// A key file is malformed, or its permissions or owner forbid using it.
    public static func keyFileUnreadable(path: String, reason: String) -> VaultCryptoError {
        VaultCryptoError(.keyFileUnreadable, "\(path): the key file cannot be used (\(reason))", path: path)
    }

    /// A key file needs a passphrase and none was given, one was given for an unprotected file, or it is wrong.
    public static func passphraseMismatch(path: String, reason: String) -> VaultCryptoError {
        VaultCryptoError(.passphraseMismatch, "\(path): \(reason)", path: path)
    }

    /// Argon2id could not run (usually not enough memory).
    public static func passphraseHashingFailed(reason: String) -> VaultCryptoError {
        VaultCryptoError(.passphraseHashingFailed, "deriving a key from the passphrase failed (\(reason))")
    }

    /// Reading a file failed, for a reason other than a failed system call.
    public static func readFailed(path: String, reason: String) -> VaultCryptoError {
        readFailed(path: path, reason: reason, systemCode: nil, isRetryable: false)
    }

    /// Reading a file failed; `systemCode` is the system's error number, `isRetryable` whether it is transient.
    public static func readFailed(path: String, reason: String, systemCode: Int32?, isRetryable: Bool) -> VaultCryptoError {
        VaultCryptoError(
            .readFailed, "\(path): cannot be read (\(reason))", path: path, systemCode: systemCode, isRetryable: isRetryable)
    }

    /// Writing a file failed, for a reason other than a failed system call; the previous file
    /// (if any) is intact and no temporary file is left.
    public static func writeFailed(path: String, reason: String) -> VaultCryptoError {
        writeFailed(path: path, reason: reason, systemCode: nil, isRetryable: false)
    }

    /// Writing a file (or locking the vault) failed; `systemCode` is the system's error number,
    /// `isRetryable` whether it is transient. The previous file (if any) is intact.
    public static func writeFailed(path: String, reason: String, systemCode: Int32?, isRetryable: Bool) -> VaultCryptoError {
        VaultCryptoError(
            .writeFailed, "\(path): could not be written (\(reason)); the previous file is intact", path: path,
            systemCode: systemCode, isRetryable: isRetryable)
    }

    /// The vault's SQLite catalogue could not be opened or updated.
    public static func catalogueFailed(path: String, reason: String) -> VaultCryptoError {
        catalogueFailed(path: path, reason: reason, systemCode: nil, isRetryable: false)
    }

    /// The vault's SQLite catalogue could not be opened or updated; `isRetryable` when it was
    /// busy or locked by another connection.
    public static func catalogueFailed(path: String, reason: String, systemCode: Int32?, isRetryable: Bool) -> VaultCryptoError {
        VaultCryptoError(
            .catalogueFailed, "\(path): the vault catalogue failed (\(reason))", path: path,
            systemCode: systemCode, isRetryable: isRetryable)
    }

    /// The folder is not a vault (no catalogue).
    public static func vaultNotFound(path: String) -> VaultCryptoError {
        VaultCryptoError(.vaultNotFound, "\(path): no vault here; create one with `memora vault init`", path: path)
    }

    /// A vault already exists in the folder.
    public static func vaultExists(path: String) -> VaultCryptoError {
        VaultCryptoError(.vaultExists, "\(path): a vault already exists here", path: path)
    }

    /// The folder for a new vault already holds other files.
    public static func folderNotEmpty(path: String) -> VaultCryptoError {
        VaultCryptoError(.folderNotEmpty, "\(path): the folder is not empty; a vault needs a new or empty folder (it makes its folder private and would mix your files with its own). Choose another --vault path", path: path)
    }

    /// The key store holds no master key for this vault.
    public static func masterKeyMissing(path: String) -> VaultCryptoError {
        VaultCryptoError(
            .masterKeyMissing,
            "\(path): its master key was not found (no key file, or an empty key store); give the vault's key file", path: path)
    }

    /// The master key from the key store does not open this vault.
    public static func wrongMasterKey(path: String) -> VaultCryptoError {
        VaultCryptoError(.wrongMasterKey, "\(path): the master key does not open this vault (wrong key file or passphrase)", path: path)
    }

    /// No photo or album with this id.
    public static func notFound(id: String) -> VaultCryptoError {
        VaultCryptoError(.notFound, "no photo or album with id \(id) in this vault")
    }

    /// The catalogue of the vault in `path` was changed by something other than the vault
    /// (`reason` says what: a row whose MAC does not match, a path outside the vault's layout).
    public static func catalogueTampered(path: String, reason: String) -> VaultCryptoError {
        VaultCryptoError(
            .catalogueTampered,
            "\(path): the vault catalogue was modified outside Memora (\(reason)); nothing was done with it. Restore vault.sqlite from a backup",
            path: path)
    }

    /// The vault in `path` was written by a newer Memora: format `version` (nil: a newer catalogue migration).
    public static func vaultTooNew(path: String, version: Int?) -> VaultCryptoError {
        let what = version.map { "format \($0)" } ?? "a newer catalogue"
        return VaultCryptoError(
            .vaultTooNew,
            "\(path): this vault was written by a newer version of Memora (\(what); this version reads format \(Vault.currentFormatVersion)); upgrade Memora to open it",
            path: path)
    }

    /// Output `path` lies inside the vault folder `vault`, which only the vault itself writes.
    public static func outputInsideVault(path: String, vault: String) -> VaultCryptoError {
        VaultCryptoError(
            .outputInsideVault,
            "\(path): refusing to write inside the vault folder \(vault) (only the vault writes there); choose an output outside it",
            path: path)
    }

    /// The task was cancelled while working on `path`; nothing of it was kept.
    public static func cancelled(path: String) -> VaultCryptoError {
        VaultCryptoError(.cancelled, "\(path): cancelled; nothing was written", path: path)
    }

    /// Output `path` already exists and replacing it was not asked for.
    public static func outputExists(path: String) -> VaultCryptoError {
        VaultCryptoError(.outputExists, "\(path): already exists; nothing was written (pass --force to replace it)", path: path)
    }

    /// A share bundle is malformed, tampered with, too large or not addressed to us. Nothing was decrypted.
    public static func shareInvalid(reason: String) -> VaultCryptoError {
        VaultCryptoError(.shareInvalid, "the share bundle was refused: \(reason)")
    }
}
