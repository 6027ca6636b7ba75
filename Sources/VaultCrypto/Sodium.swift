// The one file that imports CSodium: every libsodium call VaultCrypto makes is
// here, turning pointers and status codes into Swift values and errors.
internal import CSodium

/// libsodium wants valid pointers even for zero-length buffers (whose Swift
/// base address may be nil); this byte stands in for them and is never written.
// Unchecked: allocated once and never written, only passed where libsodium reads zero bytes.
nonisolated(unsafe) private let emptyBuffer = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)

private func bytePointer(_ buffer: UnsafeRawBufferPointer) -> UnsafePointer<UInt8> {
    buffer.baseAddress.map { $0.assumingMemoryBound(to: UInt8.self) } ?? UnsafePointer(emptyBuffer)
}

private func mutableBytePointer(_ buffer: UnsafeMutableRawBufferPointer) -> UnsafeMutablePointer<UInt8> {
    buffer.baseAddress.map { $0.assumingMemoryBound(to: UInt8.self) } ?? emptyBuffer
}

/// Thin Swift wrapper over libsodium.
enum Sodium {
    /// `sodium_init` must succeed once before any other call; it is idempotent and thread-safe.
    static let isReady: Bool = sodium_init() >= 0

    /// The libsodium version string, for example "1.0.18".
    static var version: String { String(cString: sodium_version_string()) }

    // MARK: Random bytes and memory

    /// `count` bytes from the operating system's CSPRNG.
    static func randomBytes(count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        fillRandom(&bytes)
        return bytes
    }

    /// Fills `buffer` with CSPRNG bytes.
    static func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) {
        precondition(isReady, "libsodium failed to initialise")
        if let base = buffer.baseAddress { randombytes_buf(base, buffer.count) }
    }

    static func fillRandom(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { fillRandom($0) }
    }

    /// Guarded memory for key material: guard pages, a canary, never swapped
    /// when the system allows it. Released with `secureFree`, which wipes it.
    static func secureAllocate(_ count: Int) -> UnsafeMutableRawPointer {
        precondition(isReady, "libsodium failed to initialise")
        guard let pointer = sodium_malloc(count) else { fatalError("sodium_malloc(\(count)) failed: out of memory") }
        return pointer
    }

    /// Wipes and releases memory from `secureAllocate`.
    static func secureFree(_ pointer: UnsafeMutableRawPointer) {
        sodium_free(pointer)
    }

    /// Overwrites memory with zeros in a way the compiler cannot optimise away.
    static func wipe(_ buffer: UnsafeMutableRawBufferPointer) {
        if let base = buffer.baseAddress, buffer.count > 0 { sodium_memzero(base, buffer.count) }
    }

    static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { wipe($0) }
    }

    /// Constant-time comparison of two equally long buffers.
    static func constantTimeEqual(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count else { return false }
        guard a.count > 0 else { return true }
        return sodium_memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0
    }

    // MARK: HMAC-SHA256

    /// HMAC-SHA256(`key`, concatenation of `messages`).
    static func hmacSHA256(key: UnsafeRawBufferPointer, messages: [UnsafeRawBufferPointer]) -> [UInt8] {
        precondition(isReady, "libsodium failed to initialise")
        var state = crypto_auth_hmacsha256_state()
        defer { withUnsafeMutableBytes(of: &state) { wipe($0) } }
        _ = crypto_auth_hmacsha256_init(&state, bytePointer(key), key.count)
        for message in messages where message.count > 0 {
            _ = crypto_auth_hmacsha256_update(&state, message.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(message.count))
        }
        var mac = [UInt8](repeating: 0, count: Int(crypto_auth_hmacsha256_BYTES))
        _ = crypto_auth_hmacsha256_final(&state, &mac)
        return mac
    }

    // MARK: AEAD

    /// Whether libsodium's AES-256-GCM can run here (it needs AES-NI and CLMUL).
    static var isAES256GCMAvailable: Bool {
        precondition(isReady, "libsodium failed to initialise")
        return crypto_aead_aes256gcm_is_available() == 1
    }

    /// Encrypts `plaintext` into `ciphertext` (same length) and writes the 16-byte tag.
    static func seal(
        _ algorithm: AEADAlgorithm, key: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer,
        associatedData: UnsafeRawBufferPointer, plaintext: UnsafeRawBufferPointer,
        ciphertext: UnsafeMutableRawBufferPointer, tag: UnsafeMutableRawBufferPointer
    ) {
        precondition(key.count == 32 && nonce.count == 12 && tag.count == 16 && ciphertext.count == plaintext.count)
        let status: Int32
        let c = mutableBytePointer(ciphertext)
        let m = bytePointer(plaintext)
        let mac = tag.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let ad = bytePointer(associatedData)
        let npub = nonce.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let k = key.baseAddress!.assumingMemoryBound(to: UInt8.self)
        switch algorithm {
        case .chacha20Poly1305:
            status = crypto_aead_chacha20poly1305_ietf_encrypt_detached(
                c, mac, nil, m, UInt64(plaintext.count), ad, UInt64(associatedData.count), nil, npub, k)
        case .aes256GCM:
            precondition(isAES256GCMAvailable, "AES-256-GCM is not available on this CPU")
            status = crypto_aead_aes256gcm_encrypt_detached(
                c, mac, nil, m, UInt64(plaintext.count), ad, UInt64(associatedData.count), nil, npub, k)
        }
        precondition(status == 0, "libsodium AEAD encryption failed")
    }

    /// Verifies `tag` and decrypts `ciphertext` into `plaintext`. On failure returns
    /// false and leaves `plaintext` zeroed: nothing unverified is ever released.
    static func open(
        _ algorithm: AEADAlgorithm, key: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer,
        associatedData: UnsafeRawBufferPointer, ciphertext: UnsafeRawBufferPointer,
        tag: UnsafeRawBufferPointer, plaintext: UnsafeMutableRawBufferPointer
    ) -> Bool {
        precondition(key.count == 32 && nonce.count == 12 && tag.count == 16 && ciphertext.count == plaintext.count)
        let m = mutableBytePointer(plaintext)
        let c = bytePointer(ciphertext)
        let mac = tag.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let ad = bytePointer(associatedData)
        let npub = nonce.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let k = key.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let status: Int32
        switch algorithm {
        case .chacha20Poly1305:
            status = crypto_aead_chacha20poly1305_ietf_decrypt_detached(
                m, nil, c, UInt64(ciphertext.count), mac, ad, UInt64(associatedData.count), npub, k)
        case .aes256GCM:
            guard isAES256GCMAvailable else { return false }
            status = crypto_aead_aes256gcm_decrypt_detached(
                m, nil, c, UInt64(ciphertext.count), mac, ad, UInt64(associatedData.count), npub, k)
        }
        if status != 0 {
            wipe(plaintext)
            return false
        }
        return true
    }

    // MARK: X25519 and Ed25519

    /// The X25519 public key of a 32-byte secret scalar.
    static func x25519PublicKey(secret: UnsafeRawBufferPointer) -> [UInt8] {
        precondition(isReady && secret.count == 32)
        var publicKey = [UInt8](repeating: 0, count: 32)
        _ = crypto_scalarmult_base(&publicKey, bytePointer(secret))
        return publicKey
    }

    /// X25519(secret, peer public key) into `output` (32 bytes). Returns false for a
    /// low-order peer key (an all-zero shared secret), which must be rejected.
    static func x25519(secret: UnsafeRawBufferPointer, peerPublicKey: [UInt8], output: UnsafeMutableRawBufferPointer) -> Bool {
        precondition(isReady && secret.count == 32 && output.count == 32)
        guard peerPublicKey.count == 32 else { return false }
        return peerPublicKey.withUnsafeBytes { peer in
            crypto_scalarmult(mutableBytePointer(output), bytePointer(secret), bytePointer(peer)) == 0
        }
    }

    /// The Ed25519 public key and 64-byte libsodium secret key of a 32-byte seed.
    static func ed25519KeyPair(seed: UnsafeRawBufferPointer, secretKey: UnsafeMutableRawBufferPointer) -> [UInt8] {
        precondition(isReady && seed.count == 32 && secretKey.count == 64)
        var publicKey = [UInt8](repeating: 0, count: 32)
        _ = crypto_sign_seed_keypair(&publicKey, mutableBytePointer(secretKey), bytePointer(seed))
        return publicKey
    }

    /// An Ed25519 signature (64 bytes) of `message`.
    static func ed25519Sign(_ message: [UInt8], secretKey: UnsafeRawBufferPointer) -> [UInt8] {
        precondition(isReady && secretKey.count == 64)
        var signature = [UInt8](repeating: 0, count: 64)
        message.withUnsafeBytes { m in
            _ = crypto_sign_detached(&signature, nil, bytePointer(m), UInt64(m.count), bytePointer(secretKey))
        }
        return signature
    }

    /// Whether `signature` is a valid Ed25519 signature of `message` by `publicKey`.
    static func ed25519Verify(_ signature: [UInt8], message: [UInt8], publicKey: [UInt8]) -> Bool {
        precondition(isReady)
        guard signature.count == 64, publicKey.count == 32 else { return false }
        return signature.withUnsafeBytes { s in
            message.withUnsafeBytes { m in
                publicKey.withUnsafeBytes { p in
                    crypto_sign_verify_detached(bytePointer(s), bytePointer(m), UInt64(m.count), bytePointer(p)) == 0
                }
            }
        }
    }

    // MARK: Argon2id

    /// Derives `output.count` bytes from a passphrase with Argon2id v1.3.
    /// Returns false when libsodium refuses (out of memory, limits out of range).
    static func argon2id(
        output: UnsafeMutableRawBufferPointer, passphrase: UnsafeRawBufferPointer, salt: UnsafeRawBufferPointer,
        operations: UInt64, memoryBytes: Int
    ) -> Bool {
        precondition(isReady, "libsodium failed to initialise")
        precondition(salt.count == Int(crypto_pwhash_SALTBYTES))
        let status = crypto_pwhash(
            output.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(output.count),
            UnsafeRawPointer(bytePointer(passphrase)).assumingMemoryBound(to: CChar.self), UInt64(passphrase.count),
            salt.baseAddress!.assumingMemoryBound(to: UInt8.self), operations, memoryBytes, crypto_pwhash_ALG_ARGON2ID13)
        return status == 0
    }

    /// The Argon2id salt length libsodium requires (16).
    static var argon2SaltLength: Int { Int(crypto_pwhash_SALTBYTES) }
}
