// The one file that imports CSodium: libsodium's C calls become Swift values here.
internal import CSodium

/// Thin Swift wrapper over libsodium.
enum Sodium {
    /// `sodium_init` must succeed once before any other call; it is idempotent and thread-safe.
    static let isReady: Bool = sodium_init() >= 0

    /// The libsodium version string, for example "1.0.18".
    static var version: String { String(cString: sodium_version_string()) }

    /// `count` bytes from the operating system's CSPRNG.
    static func randomBytes(count: Int) -> [UInt8] {
        precondition(isReady, "libsodium failed to initialise")
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { randombytes_buf($0.baseAddress!, $0.count) }
        return bytes
    }

    /// Overwrites `bytes` with zeros in a way the compiler cannot optimise away.
    static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { raw in
            if let base = raw.baseAddress { sodium_memzero(base, raw.count) }
        }
    }
}
