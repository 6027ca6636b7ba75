/// Wraps each photo's random key under a key-encryption key derived from the
/// master key, with the photo's id bound as associated data, so a wrapped key
/// cannot be moved to another photo.
///
/// `KEK = HKDF-SHA256(IKM: master key, salt: empty, info: "LOCA v1 photo key wrapping")`;
/// a wrapped key is `0x01 ‖ nonce (12) ‖ ChaCha20-Poly1305(KEK, nonce, photo key, AD) ‖ tag (16)`,
/// 61 bytes, with `AD = "LOCA photo key v1" ‖ 0x00 ‖ UTF-8 photo id`.
public struct PhotoKeyWrapper: Sendable {
    /// The length of a wrapped key.
    public static let wrappedByteCount = 1 + 12 + SecretKey.byteCount + 16
    private static let formatVersion: UInt8 = 0x01

    private let keyEncryptionKey: SecretKey

    /// A wrapper for the keys protected by `masterKey`.
    public init(masterKey: SecretKey) {
        keyEncryptionKey = HKDF.deriveSecretKey(from: masterKey, salt: [], info: "LOCA v1 photo key wrapping")
    }

    /// `photoKey` encrypted for storage beside the photo `photoID`. A fresh random nonce is used each time.
    public func wrap(_ photoKey: SecretKey, photoID: String) -> [UInt8] {
        wrap(photoKey, photoID: photoID, nonce: SecureRandom.bytes(count: 12))
    }

    /// Deterministic wrapping for known-answer tests: never reuse a nonce with the same master key.
    func wrap(_ photoKey: SecretKey, photoID: String, nonce: [UInt8]) -> [UInt8] {
        precondition(nonce.count == 12)
        var output = [Self.formatVersion] + nonce + [UInt8](repeating: 0, count: SecretKey.byteCount + 16)
        let associatedData = Self.associatedData(photoID)
        output.withUnsafeMutableBytes { raw in
            keyEncryptionKey.withUnsafeBytes { kek in
                photoKey.withUnsafeBytes { plain in
                    nonce.withUnsafeBytes { n in
                        associatedData.withUnsafeBytes { ad in
                            Sodium.seal(
                                .chacha20Poly1305, key: kek, nonce: n, associatedData: ad, plaintext: plain,
                                ciphertext: UnsafeMutableRawBufferPointer(rebasing: raw[13..<45]),
                                tag: UnsafeMutableRawBufferPointer(rebasing: raw[45..<61]))
                        }
                    }
                }
            }
        }
        return output
    }

    /// The photo key from `wrapped`, after verifying it belongs to `photoID` and this master key.
    public func unwrap(_ wrapped: [UInt8], photoID: String) throws(VaultCryptoError) -> SecretKey {
        guard wrapped.count == Self.wrappedByteCount, wrapped[0] == Self.formatVersion else {
            throw .keyUnwrapFailed(photoID: photoID)
        }
        let associatedData = Self.associatedData(photoID)
        var verified = false
        let key = SecretKey { target in
            wrapped.withUnsafeBytes { raw in
                keyEncryptionKey.withUnsafeBytes { kek in
                    associatedData.withUnsafeBytes { ad in
                        verified = Sodium.open(
                            .chacha20Poly1305, key: kek, nonce: UnsafeRawBufferPointer(rebasing: raw[1..<13]), associatedData: ad,
                            ciphertext: UnsafeRawBufferPointer(rebasing: raw[13..<45]),
                            tag: UnsafeRawBufferPointer(rebasing: raw[45..<61]), plaintext: target)
                    }
                }
            }
        }
        guard verified else { throw .keyUnwrapFailed(photoID: photoID) }
        return key
    }

    private static func associatedData(_ photoID: String) -> [UInt8] {
        Array("LOCA photo key v1".utf8) + [0] + Array(photoID.utf8)
    }
}
