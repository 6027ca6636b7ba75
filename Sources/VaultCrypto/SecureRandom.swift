/// Cryptographically secure random bytes from libsodium (the kernel's CSPRNG).
public enum SecureRandom {
    /// `count` random bytes; suitable for nonces, salts and identifiers.
    public static func bytes(count: Int) -> [UInt8] {
        precondition(count >= 0, "a byte count cannot be negative")
        return Sodium.randomBytes(count: count)
    }

    /// The libsodium version VaultCrypto runs on.
    public static var libraryVersion: String { Sodium.version }
}
