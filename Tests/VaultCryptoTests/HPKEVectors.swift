/// RFC 9180 A.2.1: DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20Poly1305, Base mode.
/// Copied from the RFC and checked with an independent implementation.
///
/// Suite: mode 0 (Base), kem_id 0x0020, kdf_id 0x0001, aead_id 0x0003.
/// Source: RFC 9180 sections A.2.1 ("Base Setup Information") and A.2.1.1 ("Encryptions").
/// Every value is a lowercase hex string without spaces; decode with `hexBytes(_:)` in the tests.
/// Verified with Python `cryptography` (X25519, ChaCha20Poly1305) plus a separate HMAC-SHA256 implementation
/// of the RFC 9180 key schedule: public keys from private keys, DeriveKeyPair(ikmE/ikmR), shared_secret,
/// key_schedule_context, secret, key, base_nonce, exporter_secret, and the three encryptions below.
enum HPKEVectors {
    static let info = "4f6465206f6e2061204772656369616e2055726e" // "Ode on a Grecian Urn"

    /// Input keying material for DeriveKeyPair (ephemeral and recipient).
    static let ikmE = "909a9b35d3dc4713a5e72a4da274b55d3d3821a37e5d099e74a647db583a904b"
    static let ikmR = "1ac01f181fdf9f352797655161c58b75c656a6cc2716dcb66372da835542e1df"

    static let skEm = "f4ec9b33b792c372c1d2c2063507b684ef925b8c75a42dbcbf57d63ccd381600"
    static let pkEm = "1afa08d3dec047a643885163f1180476fa7ddb54c6a8029ea33f95796bf2ac4a"
    static let skRm = "8057991eef8f1f1af18f4a9491d16a1ce333f695d4db8e38da75975c4478e0fb"
    static let pkRm = "4310ee97d88cc1f088a5576c77ab0cf5c3ac797f3d95139c6c84b5429c59662a"

    /// enc == pkEm for DHKEM(X25519).
    static let enc = "1afa08d3dec047a643885163f1180476fa7ddb54c6a8029ea33f95796bf2ac4a"
    static let sharedSecret = "0bbe78490412b4bbea4812666f7916932b828bba79942424abb65244930d69a7"
    /// mode (1 byte) || psk_id_hash (32 bytes) || info_hash (32 bytes).
    static let keyScheduleContext = "00431df6cd95e11ff49d7013563baf7f11588c75a6611ee2a4404a49306ae4cfc5"
        + "b69c5718a60cc5876c358d3f7fc31ddb598503f67be58ea1e798c0bb19eb9796"
    static let secret = "5b9cd775e64b437a2335cf499361b2e0d5e444d5cb41a8a53336d8fe402282c6"

    static let key = "ad2744de8e17f4ebba575b3f5f5a8fa1f69c2a07f6e7500bc60ca6e3e3ec1c91"
    static let baseNonce = "5c4d98150661b848853b547f"
    static let exporterSecret = "a3b010d4994890e2c6968a36f64470d3c824c8f5029942feb11e7a74b2921922"

    /// One sealed message. `nonce` is baseNonce XOR I2OSP(sequence, 12);
    /// `ciphertext` is the ChaCha20Poly1305 output with the 16-byte tag appended.
    struct Encryption: Sendable {
        let sequence: UInt64
        let aad: String
        let nonce: String
        let plaintext: String
        let ciphertext: String
    }

    /// RFC 9180 A.2.1.1, sequence numbers 0, 1 and 2.
    static let encryptions: [Encryption] = [
        Encryption(
            sequence: 0,
            aad: "436f756e742d30", // "Count-0"
            nonce: "5c4d98150661b848853b547f",
            plaintext: "4265617574792069732074727574682c20747275746820626561757479", // "Beauty is truth, truth beauty"
            ciphertext: "1c5250d8034ec2b784ba2cfd69dbdb8af406cfe3ff938e131f0def8c8b60b4db"
                + "21993c62ce81883d2dd1b51a28"
        ),
        Encryption(
            sequence: 1,
            aad: "436f756e742d31", // "Count-1"
            nonce: "5c4d98150661b848853b547e",
            plaintext: "4265617574792069732074727574682c20747275746820626561757479",
            ciphertext: "6b53c051e4199c518de79594e1c4ab18b96f081549d45ce015be002090bb119e"
                + "85285337cc95ba5f59992dc98c"
        ),
        Encryption(
            sequence: 2,
            aad: "436f756e742d32", // "Count-2"
            nonce: "5c4d98150661b848853b547d",
            plaintext: "4265617574792069732074727574682c20747275746820626561757479",
            ciphertext: "71146bd6795ccc9c49ce25dda112a48f202ad220559502cef1f34271e0cb4b02"
                + "b4f10ecac6f48c32f878fae86b"
        ),
    ]
}
