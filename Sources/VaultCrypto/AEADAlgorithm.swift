/// The authenticated ciphers a LOCA file can use. Both exist in libsodium 1.0.18
/// and in Apple CryptoKit (`AES.GCM`, `ChaChaPoly`), so either side can read the other's files.
public enum AEADAlgorithm: UInt8, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// AES-256-GCM: fastest where the CPU has AES-NI and CLMUL; libsodium refuses it elsewhere.
    case aes256GCM = 0x01
    /// ChaCha20-Poly1305 (IETF, RFC 8439): constant-time in software on every CPU.
    case chacha20Poly1305 = 0x02

    /// AES-256-GCM when this CPU accelerates it, ChaCha20-Poly1305 otherwise.
    public static var preferred: AEADAlgorithm {
        Sodium.isAES256GCMAvailable ? .aes256GCM : .chacha20Poly1305
    }

    /// Whether this machine can encrypt and decrypt with the algorithm.
    public var isAvailable: Bool {
        self == .chacha20Poly1305 || Sodium.isAES256GCMAvailable
    }

    public var description: String {
        switch self {
        case .aes256GCM: "AES-256-GCM"
        case .chacha20Poly1305: "ChaCha20-Poly1305"
        }
    }
}
