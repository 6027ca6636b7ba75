/// Hybrid Public Key Encryption (RFC 9180), base mode, single-shot, with the one
/// ciphersuite LOCA sharing uses: DHKEM(X25519, HKDF-SHA256), HKDF-SHA256,
/// ChaCha20-Poly1305. CryptoKit's `HPKE.Ciphersuite(kem: .Curve25519_HKDF_SHA256,
/// kdf: .HKDF_SHA256, aead: .chaChaPoly)` produces and reads the same bytes.
enum HPKE {
    static let kemID: UInt16 = 0x0020
    static let kdfID: UInt16 = 0x0001
    static let aeadID: UInt16 = 0x0003

    /// The shared secret, key and base nonce of one context (exposed for the RFC's test vectors).
    struct Context {
        let sharedSecret: [UInt8]
        let key: SecretKey
        let baseNonce: [UInt8]
        let exporterSecret: [UInt8]
    }

    /// Encrypts `plaintext` to `recipientPublicKey`: returns the encapsulated key
    /// (the ephemeral public key, 32 bytes) and ciphertext ‖ tag.
    static func seal(to recipientPublicKey: [UInt8], info: [UInt8], aad: [UInt8], plaintext: [UInt8]) throws(VaultCryptoError) -> (enc: [UInt8], ciphertext: [UInt8]) {
        try seal(to: recipientPublicKey, info: info, aad: aad, plaintext: plaintext, ephemeralSecret: SecretKey())
    }

    /// Deterministic form for the RFC vectors: the caller supplies the ephemeral secret.
    static func seal(
        to recipientPublicKey: [UInt8], info: [UInt8], aad: [UInt8], plaintext: [UInt8], ephemeralSecret: SecretKey
    ) throws(VaultCryptoError) -> (enc: [UInt8], ciphertext: [UInt8]) {
        let enc = ephemeralSecret.withUnsafeBytes { Sodium.x25519PublicKey(secret: $0) }
        let context = try setUp(secret: ephemeralSecret, peer: recipientPublicKey, enc: enc, recipientPublicKey: recipientPublicKey, info: info)
        var output = [UInt8](repeating: 0, count: plaintext.count + 16)
        context.key.withUnsafeBytes { k in
            context.baseNonce.withUnsafeBytes { n in
                aad.withUnsafeBytes { a in
                    plaintext.withUnsafeBytes { p in
                        output.withUnsafeMutableBytes { o in
                            Sodium.seal(.chacha20Poly1305, key: k, nonce: n, associatedData: a, plaintext: p,
                                        ciphertext: UnsafeMutableRawBufferPointer(rebasing: o[0..<plaintext.count]),
                                        tag: UnsafeMutableRawBufferPointer(rebasing: o[plaintext.count...]))
                        }
                    }
                }
            }
        }
        return (enc, output)
    }

    /// Decrypts what `seal` produced, with the recipient's secret key; nil when it does not verify.
    static func open(
        recipientSecret: SecretKey, enc: [UInt8], info: [UInt8], aad: [UInt8], ciphertext: [UInt8]
    ) throws(VaultCryptoError) -> SecretKey? {
        guard enc.count == 32, ciphertext.count == SecretKey.byteCount + 16 else { return nil }
        let recipientPublicKey = recipientSecret.withUnsafeBytes { Sodium.x25519PublicKey(secret: $0) }
        let context = try setUp(secret: recipientSecret, peer: enc, enc: enc, recipientPublicKey: recipientPublicKey, info: info)
        var verified = false
        let key = SecretKey { target in
            context.key.withUnsafeBytes { k in
                context.baseNonce.withUnsafeBytes { n in
                    aad.withUnsafeBytes { a in
                        ciphertext.withUnsafeBytes { c in
                            verified = Sodium.open(.chacha20Poly1305, key: k, nonce: n, associatedData: a,
                                                   ciphertext: UnsafeRawBufferPointer(rebasing: c[0..<SecretKey.byteCount]),
                                                   tag: UnsafeRawBufferPointer(rebasing: c[SecretKey.byteCount...]), plaintext: target)
                        }
                    }
                }
            }
        }
        return verified ? key : nil
    }

    /// Encap/Decap and KeySchedule (RFC 9180 §4.1, §5.1) for mode_base.
    static func setUp(secret: SecretKey, peer: [UInt8], enc: [UInt8], recipientPublicKey: [UInt8], info: [UInt8]) throws(VaultCryptoError) -> Context {
        var dh = [UInt8](repeating: 0, count: 32)
        defer { Sodium.wipe(&dh) }
        let agreed = secret.withUnsafeBytes { s in dh.withUnsafeMutableBytes { Sodium.x25519(secret: s, peerPublicKey: peer, output: $0) } }
        guard agreed else { throw .shareInvalid(reason: "the public key is not a valid X25519 key") }
        let kemSuite = Array("KEM".utf8) + bigEndian16(kemID)
        let kemContext = enc + recipientPublicKey
        let eaePRK = labeledExtract(suite: kemSuite, salt: [], label: "eae_prk", ikm: dh)
        let sharedSecret = labeledExpand(suite: kemSuite, prk: eaePRK, label: "shared_secret", info: kemContext, length: 32)

        let suite = Array("HPKE".utf8) + bigEndian16(kemID) + bigEndian16(kdfID) + bigEndian16(aeadID)
        let pskIDHash = labeledExtract(suite: suite, salt: [], label: "psk_id_hash", ikm: [])
        let infoHash = labeledExtract(suite: suite, salt: [], label: "info_hash", ikm: info)
        let keyScheduleContext = [0x00] + pskIDHash + infoHash
        var keySecret = labeledExtract(suite: suite, salt: sharedSecret, label: "secret", ikm: [])
        defer { Sodium.wipe(&keySecret) }
        var key = labeledExpand(suite: suite, prk: keySecret, label: "key", info: keyScheduleContext, length: 32)
        defer { Sodium.wipe(&key) }
        let baseNonce = labeledExpand(suite: suite, prk: keySecret, label: "base_nonce", info: keyScheduleContext, length: 12)
        let exporter = labeledExpand(suite: suite, prk: keySecret, label: "exp", info: keyScheduleContext, length: 32)
        return Context(sharedSecret: sharedSecret, key: SecretKey { $0.copyBytes(from: key) }, baseNonce: baseNonce, exporterSecret: exporter)
    }

    private static func labeledExtract(suite: [UInt8], salt: [UInt8], label: String, ikm: [UInt8]) -> [UInt8] {
        let labeled = Array("HPKE-v1".utf8) + suite + Array(label.utf8) + ikm
        return labeled.withUnsafeBytes { HKDF.extract(salt: salt, inputKeyMaterial: $0) }
    }

    private static func labeledExpand(suite: [UInt8], prk: [UInt8], label: String, info: [UInt8], length: Int) -> [UInt8] {
        let labeled = bigEndian16(UInt16(length)) + Array("HPKE-v1".utf8) + suite + Array(label.utf8) + info
        return prk.withUnsafeBytes { HKDF.expand(pseudorandomKey: $0, info: labeled, length: length) }
    }

    private static func bigEndian16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
}
