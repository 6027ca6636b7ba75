/// HKDF with HMAC-SHA256 (RFC 5869), built on libsodium's HMAC-SHA256 because
/// libsodium 1.0.18 has no HKDF. CryptoKit's `HKDF<SHA256>` gives the same bytes.
package enum HKDF {
    /// HKDF-Extract: a pseudorandom key from input keying material and an optional salt
    /// (an empty salt means 32 zero bytes, as the RFC says).
    package static func extract(salt: [UInt8], inputKeyMaterial: UnsafeRawBufferPointer) -> [UInt8] {
        let zeros = [UInt8](repeating: 0, count: 32)
        let key = salt.isEmpty ? zeros : salt
        return key.withUnsafeBytes { Sodium.hmacSHA256(key: $0, messages: [inputKeyMaterial]) }
    }

    /// HKDF-Expand: `length` bytes (at most 255 × 32) from a pseudorandom key and context `info`.
    package static func expand(pseudorandomKey: UnsafeRawBufferPointer, info: [UInt8], length: Int) -> [UInt8] {
        precondition(length >= 0 && length <= 255 * 32, "HKDF-SHA256 can produce at most 8160 bytes")
        var output: [UInt8] = []
        output.reserveCapacity(length)
        var previous: [UInt8] = []
        var counter: UInt8 = 1
        while output.count < length {
            previous = previous.withUnsafeBytes { t in
                info.withUnsafeBytes { i in
                    withUnsafeBytes(of: counter) { c in
                        Sodium.hmacSHA256(key: pseudorandomKey, messages: [t, i, c])
                    }
                }
            }
            output.append(contentsOf: previous.prefix(length - output.count))
            counter &+= 1
        }
        Sodium.wipe(&previous)
        return output
    }

    /// Extract then expand, in one call.
    package static func deriveKey(inputKeyMaterial: UnsafeRawBufferPointer, salt: [UInt8], info: [UInt8], length: Int) -> [UInt8] {
        var prk = extract(salt: salt, inputKeyMaterial: inputKeyMaterial)
        defer { Sodium.wipe(&prk) }
        return prk.withUnsafeBytes { expand(pseudorandomKey: $0, info: info, length: length) }
    }

    /// Derives a 32-byte ``SecretKey`` from `key`; intermediate bytes are wiped.
    static func deriveSecretKey(from key: SecretKey, salt: [UInt8], info: String) -> SecretKey {
        var bytes = key.withUnsafeBytes { deriveKey(inputKeyMaterial: $0, salt: salt, info: Array(info.utf8), length: SecretKey.byteCount) }
        defer { Sodium.wipe(&bytes) }
        return SecretKey { target in target.copyBytes(from: bytes) }
    }
}
