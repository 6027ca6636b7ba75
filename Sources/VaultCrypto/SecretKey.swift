/// 256 bits of key material in memory allocated by libsodium (guard pages,
/// wiped when released). Never printed, never logged, never written unwrapped.
///
/// The bytes are immutable after creation, so the key can be shared across tasks.
public final class SecretKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The length of every key: 32 bytes.
    public static let byteCount = 32

    // Unchecked: the bytes are written only by init and wiped by deinit; in between they are only read.
    nonisolated(unsafe) private let storage: UnsafeMutableRawPointer

    /// A fresh random key from the operating system's CSPRNG.
    public init() {
        storage = Sodium.secureAllocate(Self.byteCount)
        Sodium.fillRandom(UnsafeMutableRawBufferPointer(start: storage, count: Self.byteCount))
    }

    /// A key holding a copy of `bytes`, which must be exactly 32 bytes long.
    /// The caller remains responsible for wiping its own copy.
    public init(copying bytes: some Collection<UInt8>) throws(VaultCryptoError) {
        guard bytes.count == Self.byteCount else {
            throw .invalidKeyLength(expected: Self.byteCount, actual: bytes.count)
        }
        storage = Sodium.secureAllocate(Self.byteCount)
        let target = storage.assumingMemoryBound(to: UInt8.self)
        for (index, byte) in bytes.enumerated() { target[index] = byte }
    }

    /// A key filled by `body`, which writes exactly 32 bytes into guarded memory.
    init(filling body: (UnsafeMutableRawBufferPointer) -> Void) {
        storage = Sodium.secureAllocate(Self.byteCount)
        body(UnsafeMutableRawBufferPointer(start: storage, count: Self.byteCount))
    }

    deinit {
        Sodium.secureFree(storage)
    }

    /// Lends the raw key bytes to `body`; do not let them escape.
    public func withUnsafeBytes<Result, Failure: Error>(_ body: (UnsafeRawBufferPointer) throws(Failure) -> Result) throws(Failure) -> Result {
        try body(UnsafeRawBufferPointer(start: storage, count: Self.byteCount))
    }

    /// Whether two keys hold the same bytes (constant time).
    public func hasSameBytes(as other: SecretKey) -> Bool {
        withUnsafeBytes { mine in other.withUnsafeBytes { theirs in Sodium.constantTimeEqual(mine, theirs) } }
    }

    /// Redacted: key material is never printed.
    public var description: String { "SecretKey(<redacted>)" }
    /// Redacted: key material is never printed.
    public var debugDescription: String { description }
}
