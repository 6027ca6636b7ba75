import Testing
@testable import VaultCrypto

@Suite("Primitive test vectors (RFC 5869, RFC 8439)")
struct PrimitiveVectorTests {
    @Test("HKDF-SHA256 on libsodium's HMAC matches RFC 5869", arguments: RFCVectors.hkdf.map(\.name))
    func hkdf(name: String) throws {
        let vector = try #require(RFCVectors.hkdf.first { $0.name == name })
        let ikm = hexBytes(vector.ikm)
        let prk = ikm.withUnsafeBytes { HKDF.extract(salt: hexBytes(vector.salt), inputKeyMaterial: $0) }
        #expect(prk == hexBytes(vector.prk))
        let okm = prk.withUnsafeBytes { HKDF.expand(pseudorandomKey: $0, info: hexBytes(vector.info), length: vector.length) }
        #expect(okm == hexBytes(vector.okm))
        let oneShot = ikm.withUnsafeBytes { HKDF.deriveKey(inputKeyMaterial: $0, salt: hexBytes(vector.salt), info: hexBytes(vector.info), length: vector.length) }
        #expect(oneShot == okm)
    }

    @Test("ChaCha20-Poly1305 through the libsodium bridge matches RFC 8439", arguments: RFCVectors.chacha20Poly1305.map(\.name))
    func chacha(name: String) throws {
        let vector = try #require(RFCVectors.chacha20Poly1305.first { $0.name == name })
        let key = hexBytes(vector.key), nonce = hexBytes(vector.nonce), aad = hexBytes(vector.aad)
        let plaintext = hexBytes(vector.plaintext)
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count)
        var tag = [UInt8](repeating: 0, count: 16)
        key.withUnsafeBytes { k in nonce.withUnsafeBytes { n in aad.withUnsafeBytes { ad in plaintext.withUnsafeBytes { p in
            ciphertext.withUnsafeMutableBytes { c in tag.withUnsafeMutableBytes { t in
                Sodium.seal(.chacha20Poly1305, key: k, nonce: n, associatedData: ad, plaintext: p, ciphertext: c, tag: t)
            } }
        } } } }
        #expect(ciphertext == hexBytes(vector.ciphertext))
        #expect(tag == hexBytes(vector.tag))

        // Decryption verifies; a flipped tag bit is refused and releases nothing.
        var opened = [UInt8](repeating: 0xEE, count: plaintext.count)
        for flip in [false, true] {
            var badTag = tag
            if flip { badTag[0] ^= 1 }
            let verified = key.withUnsafeBytes { k in nonce.withUnsafeBytes { n in aad.withUnsafeBytes { ad in
                ciphertext.withUnsafeBytes { c in badTag.withUnsafeBytes { t in opened.withUnsafeMutableBytes { o in
                    Sodium.open(.chacha20Poly1305, key: k, nonce: n, associatedData: ad, ciphertext: c, tag: t, plaintext: o)
                } } }
            } } }
            #expect(verified == !flip)
            #expect(opened == (flip ? [UInt8](repeating: 0, count: plaintext.count) : plaintext))
        }
    }
}
