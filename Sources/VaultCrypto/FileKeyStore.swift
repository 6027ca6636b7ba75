import Foundation
internal import MemoraSystem

/// Argon2id cost parameters for passphrase-protected key files.
public struct Argon2Parameters: Sendable, Hashable {
    /// Passes over memory (libsodium's opslimit).
    public var operations: UInt32
    /// Memory in bytes (libsodium's memlimit).
    public var memoryBytes: UInt32

    /// Creates parameters; libsodium needs at least 1 operation and 8 KiB.
    public init(operations: UInt32, memoryBytes: UInt32) {
        self.operations = operations
        self.memoryBytes = memoryBytes
    }

    /// libsodium's "moderate" level: 3 passes over 256 MiB (about a second). The default.
    public static let moderate = Argon2Parameters(operations: 3, memoryBytes: 256 << 20)
    /// libsodium's "interactive" level: 2 passes over 64 MiB.
    public static let interactive = Argon2Parameters(operations: 2, memoryBytes: 64 << 20)

    /// What a key file may ask for before it is refused as hostile (a denial-of-service guard).
    static let maximumOperations: UInt32 = 64
    static let maximumMemoryBytes: UInt32 = 2 << 30

    /// Whether a key file may use these parameters (both when writing and when reading).
    var isAccepted: Bool {
        (1...Self.maximumOperations).contains(operations) && (8192...Self.maximumMemoryBytes).contains(memoryBytes)
    }
}

/// Keeps the master key in a file, mode 0600, written atomically; optionally
/// encrypted under a passphrase through Argon2id.
///
/// File layout (big-endian), all of it authenticated when a passphrase is used:
/// `"LOCAKEY" ‖ 0x01 (version) ‖ protection`, then for protection 0x00 the 32 key bytes,
/// and for 0x01 `operations (u32) ‖ memory bytes (u32) ‖ salt (16) ‖ nonce (12) ‖
/// ChaCha20-Poly1305(Argon2id(passphrase, salt), nonce, key, AD: everything before the ciphertext) ‖ tag (16)`.
public struct FileKeyStore: KeyStore {
    /// Where the key lives.
    public let path: String
    private let passphrase: [UInt8]?
    private let parameters: Argon2Parameters

    private static let magic = Array("LOCAKEY".utf8) + [0x01]

    /// Whether the key file at `path` is protected by a passphrase (false when there is no
    /// readable key file there). Reads only the file's header.
    public static func needsPassphrase(at path: String) -> Bool {
        guard let reader = try? FileReader(path: path), reader.size >= 9, reader.size <= 256 else { return false }
        var header = [UInt8](repeating: 0, count: 9)
        guard (try? withMutableBytes(&header, { raw throws(VaultCryptoError) in try reader.read(into: raw, at: 0) })) != nil else { return false }
        return Array(header[0..<8]) == magic && header[8] == 0x01
    }

    /// A store at `path`; with a `passphrase` the key is encrypted with Argon2id at `parameters`.
    public init(path: String, passphrase: String? = nil, parameters: Argon2Parameters = .moderate) {
        self.path = path
        self.passphrase = passphrase.map { Array($0.utf8) }
        self.parameters = parameters
    }

    public func loadMasterKey() throws(VaultCryptoError) -> SecretKey? {
        guard FileSystem.exists(path) else { return nil }
        // Permissions are checked on the open file, not the path, so they cannot change in between.
        let reader = try FileReader(path: path)
        guard reader.mode & 0o077 == 0 else {
            throw .keyFileUnreadable(path: path, reason: "its permissions \(String(reader.mode & 0o777, radix: 8)) let other users read it; run chmod 600 on it")
        }
        guard reader.owner == ProcessEnvironment.userID || ProcessEnvironment.userID == 0 else {
            throw .keyFileUnreadable(path: path, reason: "it belongs to another user")
        }
        guard reader.size <= 256 else { throw .keyFileUnreadable(path: path, reason: "it is too large to be a key file") }
        var bytes = [UInt8](repeating: 0, count: Int(reader.size))
        defer { Sodium.wipe(&bytes) }
        try withMutableBytes(&bytes) { raw throws(VaultCryptoError) in try reader.read(into: raw, at: 0) }
        guard bytes.count >= 9, Array(bytes[0..<8]) == Self.magic else {
            throw .keyFileUnreadable(path: path, reason: "not a Memora key file")
        }
        switch bytes[8] {
        case 0x00:
            guard passphrase == nil else {
                throw .passphraseMismatch(path: path, reason: "this key file is not protected by a passphrase, but one was given")
            }
            guard bytes.count == 9 + SecretKey.byteCount else { throw .keyFileUnreadable(path: path, reason: "wrong length") }
            return try SecretKey(copying: bytes[9...])
        case 0x01:
            guard let passphrase else {
                throw .passphraseMismatch(path: path, reason: "this key file is protected by a passphrase; give it to unlock the vault")
            }
            return try unlock(bytes, passphrase: passphrase)
        default:
            throw .keyFileUnreadable(path: path, reason: "unknown protection \(bytes[8])")
        }
    }

    public func saveMasterKey(_ key: SecretKey) throws(VaultCryptoError) {
        var contents = Self.magic
        if let passphrase {
            // Never write a file that could not be read back (see the bounds in `unlock`).
            guard parameters.isAccepted else {
                throw .passphraseHashingFailed(reason: "Argon2id parameters out of range: 1...\(Argon2Parameters.maximumOperations) passes, 8 KiB...2 GiB of memory")
            }
            contents.append(0x01)
            contents += bigEndian32(parameters.operations) + bigEndian32(parameters.memoryBytes)
            let salt = SecureRandom.bytes(count: Sodium.argon2SaltLength)
            let nonce = SecureRandom.bytes(count: 12)
            contents += salt + nonce
            let associatedData = contents
            let wrappingKey = try Self.passphraseKey(passphrase, salt: salt, parameters: parameters)
            var sealed = [UInt8](repeating: 0, count: SecretKey.byteCount + 16)
            sealed.withUnsafeMutableBytes { out in
                wrappingKey.withUnsafeBytes { k in
                    key.withUnsafeBytes { plain in
                        nonce.withUnsafeBytes { n in
                            associatedData.withUnsafeBytes { ad in
                                Sodium.seal(.chacha20Poly1305, key: k, nonce: n, associatedData: ad, plaintext: plain,
                                            ciphertext: UnsafeMutableRawBufferPointer(rebasing: out[0..<32]),
                                            tag: UnsafeMutableRawBufferPointer(rebasing: out[32..<48]))
                            }
                        }
                    }
                }
            }
            contents += sealed
        } else {
            contents.append(0x00)
            key.withUnsafeBytes { contents.append(contentsOf: $0) }
        }
        defer { Sodium.wipe(&contents) }
        let writer = try VaultFileWriter(path: path, mode: 0o600)
        try writer.write(contents)
        try writer.commit()
    }

    private func unlock(_ bytes: [UInt8], passphrase: [UInt8]) throws(VaultCryptoError) -> SecretKey {
        let headerLength = 9 + 8 + Sodium.argon2SaltLength + 12
        guard bytes.count == headerLength + SecretKey.byteCount + 16 else {
            throw .keyFileUnreadable(path: path, reason: "wrong length")
        }
        let stored = Argon2Parameters(operations: readBigEndian32(bytes[9..<13]), memoryBytes: readBigEndian32(bytes[13..<17]))
        guard stored.isAccepted else {
            throw .keyFileUnreadable(path: path, reason: "its Argon2id parameters are out of range")
        }
        let salt = Array(bytes[17..<33])
        let wrappingKey = try Self.passphraseKey(passphrase, salt: salt, parameters: stored)
        var verified = false
        let key = SecretKey { target in
            bytes.withUnsafeBytes { raw in
                wrappingKey.withUnsafeBytes { k in
                    verified = Sodium.open(
                        .chacha20Poly1305, key: k, nonce: UnsafeRawBufferPointer(rebasing: raw[33..<45]),
                        associatedData: UnsafeRawBufferPointer(rebasing: raw[0..<headerLength]),
                        ciphertext: UnsafeRawBufferPointer(rebasing: raw[headerLength..<headerLength + 32]),
                        tag: UnsafeRawBufferPointer(rebasing: raw[headerLength + 32..<headerLength + 48]), plaintext: target)
                }
            }
        }
        guard verified else {
            throw .passphraseMismatch(path: path, reason: "wrong passphrase (or the key file was modified)")
        }
        return key
    }

    private static func passphraseKey(_ passphrase: [UInt8], salt: [UInt8], parameters: Argon2Parameters) throws(VaultCryptoError) -> SecretKey {
        var succeeded = false
        let key = SecretKey { target in
            passphrase.withUnsafeBytes { p in
                salt.withUnsafeBytes { s in
                    succeeded = Sodium.argon2id(output: target, passphrase: p, salt: s, operations: UInt64(parameters.operations), memoryBytes: Int(parameters.memoryBytes))
                }
            }
        }
        guard succeeded else {
            throw .passphraseHashingFailed(reason: "Argon2id with \(parameters.memoryBytes >> 20) MiB failed; is there enough free memory?")
        }
        return key
    }
}

private func bigEndian32(_ value: UInt32) -> [UInt8] {
    [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
}

private func readBigEndian32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
    bytes.reduce(0) { $0 << 8 | UInt32($1) }
}
