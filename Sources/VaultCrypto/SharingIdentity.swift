import Foundation

/// Someone's public sharing identity: an X25519 key to encrypt photo keys to,
/// and an Ed25519 key that verifies their bundles. Its text form is
/// `memora-share1:` followed by the base64url of the two keys (64 bytes).
public struct SharingPublicKey: Sendable, Hashable, CustomStringConvertible {
    /// The X25519 public key bundles are encrypted to.
    public let agreementKey: [UInt8]
    /// The Ed25519 public key that verifies bundles signed by this identity.
    public let signingKey: [UInt8]

    static let prefix = "memora-share1:"

    init(agreementKey: [UInt8], signingKey: [UInt8]) {
        precondition(agreementKey.count == 32 && signingKey.count == 32)
        self.agreementKey = agreementKey
        self.signingKey = signingKey
    }

    /// Parses the text form; nil when it is not a valid identity.
    public init?(text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let body = trimmed.dropFirst(Self.prefix.count)
        guard trimmed.hasPrefix(Self.prefix), let bytes = base64URLDecode(String(body)), bytes.count == 64,
              base64URLEncode(bytes) == String(body.prefix { $0 != "=" }) else { return nil }  // one spelling per key
        self.init(agreementKey: Array(bytes[0..<32]), signingKey: Array(bytes[32..<64]))
    }

    /// The text form, to give to people who will share photos with you.
    public var text: String { Self.prefix + base64URLEncode(agreementKey + signingKey) }

    /// A short fingerprint to compare by eye or over the phone (8 groups of 4 hex digits).
    public var fingerprint: String {
        let digest = (agreementKey + signingKey).withUnsafeBytes { HKDF.extract(salt: Array("memora fingerprint".utf8), inputKeyMaterial: $0) }
        let hex = digest.prefix(16).map { String(format: "%02x", $0) }.joined()
        return stride(from: 0, to: hex.count, by: 4).map { offset in
            let start = hex.index(hex.startIndex, offsetBy: offset)
            return String(hex[start..<hex.index(start, offsetBy: 4)])
        }.joined(separator: " ")
    }

    public var description: String { text }
}

/// Your own sharing identity: both secret keys, derived from one 32-byte seed
/// that a ``KeyStore`` can keep (for example a ``FileKeyStore``, 0600, optionally passphrase-protected).
public final class SharingIdentity: Sendable {
    /// What others use to share with you and to check your bundles.
    public let publicKey: SharingPublicKey
    let agreementSecret: SecretKey
    private let signingSeed: SecretKey

    /// The identity derived from `seed` (`HKDF-SHA256(seed, info: "memora sharing x25519" / "memora sharing ed25519")`).
    public init(seed: SecretKey) {
        agreementSecret = HKDF.deriveSecretKey(from: seed, salt: [], info: "memora sharing x25519")
        signingSeed = HKDF.deriveSecretKey(from: seed, salt: [], info: "memora sharing ed25519")
        let agreementPublic = agreementSecret.withUnsafeBytes { Sodium.x25519PublicKey(secret: $0) }
        let signingPublic = Self.withSigningKey(signingSeed) { $0.publicKey }
        publicKey = SharingPublicKey(agreementKey: agreementPublic, signingKey: signingPublic)
    }

    /// The identity kept in `store`, created (with a random seed) the first time.
    public static func loadOrCreate(in store: any KeyStore) throws(VaultCryptoError) -> SharingIdentity {
        SharingIdentity(seed: try store.loadOrCreateMasterKey())
    }

    /// An Ed25519 signature of `message`.
    func sign(_ message: [UInt8]) -> [UInt8] {
        Self.withSigningKey(signingSeed) { Sodium.ed25519Sign(message, secretKey: $0.secretKey) }
    }

    /// Expands the seed into libsodium's 64-byte secret key in guarded memory, wiped afterwards.
    private static func withSigningKey<Result>(_ seed: SecretKey, _ body: ((publicKey: [UInt8], secretKey: UnsafeRawBufferPointer)) -> Result) -> Result {
        let storage = Sodium.secureAllocate(64)
        defer { Sodium.secureFree(storage) }
        let secretKey = UnsafeMutableRawBufferPointer(start: storage, count: 64)
        let publicKey = seed.withUnsafeBytes { Sodium.ed25519KeyPair(seed: $0, secretKey: secretKey) }
        return body((publicKey, UnsafeRawBufferPointer(secretKey)))
    }
}

func base64URLEncode(_ bytes: [UInt8]) -> String {
    Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}

func base64URLDecode(_ text: String) -> [UInt8]? {
    var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while standard.count % 4 != 0 { standard += "=" }
    return Data(base64Encoded: standard).map { [UInt8]($0) }
}
