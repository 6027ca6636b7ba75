// The one file that imports CMemoraSystem, the system layer's small C shim.
internal import CMemoraSystem
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The C shim's calls that are not SHA-256.
enum SystemShim {
    /// Turns `O_DIRECT` (`F_NOCACHE` on Apple platforms) on or off; false when refused.
    static func setDirectIO(_ descriptor: Int32, _ enable: Bool) -> Bool {
        memora_set_direct_io(descriptor, enable ? 1 : 0) == 0
    }

    /// Overwrites memory with zeros in a way the optimiser keeps.
    static func secureZero(_ pointer: UnsafeMutableRawPointer, _ count: Int) {
        memora_secure_zero(pointer, count)
    }

    /// The addresses of the interfaces that are up, the loopback's too, as text.
    static func localAddresses() -> [String] {
        var buffer = [CChar](repeating: 0, count: 4096)
        guard memora_local_addresses(&buffer, buffer.count) == 0 else { return [] }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.split(separator: "\n").map(String.init)
    }
}

/// SHA-256 (FIPS 180-4), incremental: OpenSSL's libcrypto on Linux (SHA-NI where the CPU has it:
/// 3x libsodium's portable C here), CommonCrypto's on Apple platforms.
package struct SHA256Digest: ~Copyable {
    private var state = memora_sha256_state()

    package init() {
        let status = memora_sha256_init(&state)
        precondition(status == 0, "SHA-256 could not start (the crypto library failed to initialise)")
    }

    deinit {
        var copy = state  // the context pointer is in the bytes: freeing through a copy frees it
        memora_sha256_free(&copy)
    }

    /// Adds `bytes`.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        _ = memora_sha256_update(&state, bytes.baseAddress, bytes.count)
    }

    /// Adds `bytes`.
    package mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The 32-byte digest.
    package consuming func finalize() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        _ = digest.withUnsafeMutableBufferPointer { memora_sha256_final(&state, $0.baseAddress!) }
        return digest
    }

    /// The digest of `bytes`.
    package static func hash(_ bytes: [UInt8]) -> [UInt8] {
        var digest = SHA256Digest()
        digest.update(bytes)
        return digest.finalize()
    }

    /// The digest of the file at `path`, read in 1 MiB pieces (memory does not grow with the file).
    /// `head`: the file's first bytes, already read by the caller, hashed without being read again.
    package static func hash(contentsOf path: String, head: [UInt8] = []) throws(SystemError) -> [UInt8] {
        let file = try SystemFile(path)
        file.adviseSequentialRead()
        var digest = SHA256Digest()
        digest.update(head)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var offset = Int64(head.count)
        while true {
            let count = try file.read(into: buffer, at: offset)
            if count == 0 { break }
            digest.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            offset += Int64(count)
        }
        return digest.finalize()
    }
}

/// Lower-case hexadecimal text of bytes.
package enum Hex {
    package static func string<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}

/// Fast byte searches (`memchr`).
package enum ByteSearch {
    /// The index of the first `byte` in `bytes[start..<end]`, or nil.
    package static func firstIndex(of byte: UInt8, in bytes: [UInt8], from start: Int, to end: Int) -> Int? {
        guard start < end, start >= 0, end <= bytes.count else { return nil }
        return bytes.withUnsafeBytes { raw -> Int? in
            guard let base = raw.baseAddress, let found = memchr(base + start, Int32(byte), end - start) else { return nil }
            return base.distance(to: UnsafeRawPointer(found))
        }
    }
}

/// SHA-256 for a stream whose pieces arrive in an asynchronous loop, where a non-copyable
/// ``SHA256Digest`` cannot be kept across suspension points: the same computation in a class.
package final class StreamingSHA256 {
    private var state = memora_sha256_state()

    package init() {
        let status = memora_sha256_init(&state)
        precondition(status == 0, "SHA-256 could not start (the crypto library failed to initialise)")
    }

    deinit {
        memora_sha256_free(&state)
    }

    /// Adds `bytes`.
    package func update(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        _ = bytes.withUnsafeBytes { memora_sha256_update(&state, $0.baseAddress, $0.count) }
    }

    /// Adds the bytes `bytes` points at.
    package func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        _ = memora_sha256_update(&state, base, bytes.count)
    }

    /// The digest in 64 lower-case hex digits; call once, at the end.
    package func finalizeHex() -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        _ = digest.withUnsafeMutableBufferPointer { memora_sha256_final(&state, $0.baseAddress!) }
        return Hex.string(digest)
    }
}
