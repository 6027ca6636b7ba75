public import Foundation

/// What a share bundle says about its photo. Encrypted inside the bundle.
public struct SharedPhotoMetadata: Sendable, Hashable, Codable {
    /// The file name the sender had.
    public var originalFilename: String
    /// A short format name such as `jpeg`.
    public var format: String
    /// The plaintext size in bytes.
    public var originalSize: Int64
    /// When the photo was taken, when known.
    public var captureDate: Date?
    /// Pixel width, when known.
    public var width: Int?
    /// Pixel height, when known.
    public var height: Int?

    /// Creates metadata.
    public init(originalFilename: String, format: String, originalSize: Int64, captureDate: Date? = nil, width: Int? = nil, height: Int? = nil) {
        self.originalFilename = originalFilename
        self.format = format
        self.originalSize = originalSize
        self.captureDate = captureDate
        self.width = width
        self.height = height
    }
}

/// Who can open a share bundle.
public enum ShareRecipient: Sendable {
    /// The holder of this sharing identity (HPKE to its X25519 key).
    case identity(SharingPublicKey)
    /// Whoever knows this passphrase (Argon2id).
    case passphrase(String, Argon2Parameters = .moderate)
}

/// A photo received in a bundle, verified and decrypted.
public struct ReceivedPhoto: Sendable {
    /// The photo bytes.
    public var contents: [UInt8]
    /// What the sender said about it.
    public var metadata: SharedPhotoMetadata
    /// The identity that signed the bundle.
    public var sender: SharingPublicKey
    /// The id the sender's vault had for it.
    public var photoID: String
}

/// `.locaphoto` share bundles (Docs/Vault.md; every byte in Docs/Share-bundles.md):
/// the seed's JSON layout, with the
/// photo key encrypted for one recipient (RFC 9180 HPKE to an X25519 key, or a
/// passphrase through Argon2id), the metadata encrypted too, and an Ed25519
/// signature over every field. Nothing is decrypted before the size, the format,
/// the addressee and the signature have been checked.
public enum ShareBundle {
    /// Bundles larger than this are refused before they are parsed (256 MiB plus room for the rest).
    public static let defaultMaximumSize = (256 << 20) + (1 << 20)

    static let version = "1.0"
    static let hpkeInfo = Array("LOCA share v1".utf8)

    /// Seals `contents` for `recipient`, signed by `sender`; returns the bundle's bytes (JSON).
    /// `now` is the bundle's timestamp.
    public static func create(
        contents: [UInt8], metadata: SharedPhotoMetadata, photoID: String,
        from sender: SharingIdentity, to recipient: ShareRecipient, now: Date = Date()
    ) throws(VaultCryptoError) -> [UInt8] {
        try create(contents: contents, metadata: metadata, photoID: photoID, from: sender, to: recipient, randomness: .fresh(now: now))
    }

    /// Every random value (and the clock reading) one bundle uses. `create` draws them fresh;
    /// known-answer tests (ShareBundleVectorTests) fix them. Never reuse them for a real bundle.
    struct Randomness {
        /// The photo's content key.
        var contentKey: SecretKey
        /// The LOCA header nonce of `photo.encryptedData`.
        var photoNonce: [UInt8]
        /// The LOCA header nonce of `metadata`.
        var metadataNonce: [UInt8]
        /// The LOCA header timestamp of both payloads (Unix seconds).
        var timestamp: UInt64
        /// The HPKE ephemeral X25519 secret (used for identity recipients).
        var ephemeralSecret: SecretKey
        /// The Argon2id salt (used for passphrase recipients).
        var salt: [UInt8]
        /// The ChaCha20-Poly1305 nonce that seals the content key (used for passphrase recipients).
        var keyNonce: [UInt8]

        /// Fresh values from the CSPRNG, and `now`.
        static func fresh(now: Date) -> Randomness {
            Randomness(
                contentKey: SecretKey(), photoNonce: SecureRandom.bytes(count: 12), metadataNonce: SecureRandom.bytes(count: 12),
                timestamp: LOCACipher.seconds(now), ephemeralSecret: SecretKey(),
                salt: SecureRandom.bytes(count: Sodium.argon2SaltLength), keyNonce: SecureRandom.bytes(count: 12))
        }
    }

    /// `create` with the given random values (deterministic, for known-answer tests).
    static func create(
        contents: [UInt8], metadata: SharedPhotoMetadata, photoID: String,
        from sender: SharingIdentity, to recipient: ShareRecipient, randomness: Randomness
    ) throws(VaultCryptoError) -> [UInt8] {
        let contentKey = randomness.contentKey
        let cipher = try LOCACipher(algorithm: .chacha20Poly1305)
        let encryptedData = cipher.encrypt(contents, key: contentKey, nonce: randomness.photoNonce, timestamp: randomness.timestamp)
        let metadataJSON: [UInt8]
        do { metadataJSON = Array(try JSONEncoder.bundle.encode(metadata)) } catch {
            throw .shareInvalid(reason: "the metadata cannot be encoded: \(error)")
        }
        let encryptedMetadata = cipher.encrypt(metadataJSON, key: metadataKey(contentKey), nonce: randomness.metadataNonce, timestamp: randomness.timestamp)
        let aad = keyAssociatedData(photoID: photoID, sender: sender.publicKey)

        var body = Wire.Photo(id: photoID, encryptedData: "", encryptedKey: "", iv: "", authTag: "")
        let recipientField: Wire.Recipient
        switch recipient {
        case .identity(let publicKey):
            let sealed = try contentKey.withUnsafeBytes { key throws(VaultCryptoError) in
                try HPKE.seal(to: publicKey.agreementKey, info: hpkeInfo, aad: aad, plaintext: Array(key), ephemeralSecret: randomness.ephemeralSecret)
            }
            body.iv = base64(sealed.enc)
            body.encryptedKey = base64(Array(sealed.ciphertext[0..<32]))
            body.authTag = base64(Array(sealed.ciphertext[32...]))
            recipientField = Wire.Recipient(type: "x25519", publicKey: base64(publicKey.agreementKey))
        case .passphrase(let passphrase, let parameters):
            guard parameters.isAccepted else { throw .shareInvalid(reason: "Argon2id parameters out of range") }
            let salt = randomness.salt
            let nonce = randomness.keyNonce
            let wrappingKey = try passphraseKey(passphrase, salt: salt, parameters: parameters)
            var sealed = [UInt8](repeating: 0, count: 48)
            wrappingKey.withUnsafeBytes { k in contentKey.withUnsafeBytes { p in nonce.withUnsafeBytes { n in aad.withUnsafeBytes { a in
                sealed.withUnsafeMutableBytes { o in
                    Sodium.seal(.chacha20Poly1305, key: k, nonce: n, associatedData: a, plaintext: p,
                                ciphertext: UnsafeMutableRawBufferPointer(rebasing: o[0..<32]), tag: UnsafeMutableRawBufferPointer(rebasing: o[32...]))
                }
            } } } }
            body.iv = base64(nonce)
            body.encryptedKey = base64(Array(sealed[0..<32]))
            body.authTag = base64(Array(sealed[32...]))
            recipientField = Wire.Recipient(type: "passphrase", kdf: "argon2id", operations: parameters.operations, memoryBytes: parameters.memoryBytes, salt: base64(salt))
        }
        body.encryptedData = base64(encryptedData)
        var bundle = Wire.Bundle(
            version: version, photo: body, recipient: recipientField, sender: sender.publicKey.text,
            metadata: base64(encryptedMetadata), signature: "")
        let decoded = try Decoded(bundle)
        bundle.signature = base64(sender.sign(decoded.transcript))
        do { return Array(try JSONEncoder.bundle.encode(bundle)) } catch {
            throw .shareInvalid(reason: "the bundle cannot be encoded: \(error)")
        }
    }

    /// Verifies and opens a bundle. Give `identity` for bundles sent to you, or
    /// `passphrase` for passphrase bundles; with `expectedSender`, bundles signed by
    /// anyone else are refused.
    public static func open(
        _ bytes: [UInt8], identity: SharingIdentity? = nil, passphrase: String? = nil,
        expectedSender: SharingPublicKey? = nil, maximumSize: Int = defaultMaximumSize
    ) throws(VaultCryptoError) -> ReceivedPhoto {
        guard bytes.count <= maximumSize else {
            throw .shareInvalid(reason: "it is \(bytes.count) bytes, over the limit of \(maximumSize)")
        }
        let wire: Wire.Bundle
        do { wire = try JSONDecoder().decode(Wire.Bundle.self, from: Data(bytes)) } catch {
            throw .shareInvalid(reason: "not a .locaphoto bundle (\(error))")
        }
        let bundle = try Decoded(wire)
        if let expectedSender, expectedSender != bundle.sender {
            throw .shareInvalid(reason: "it was signed by \(bundle.sender.fingerprint), not by the expected sender \(expectedSender.fingerprint)")
        }
        let aad = keyAssociatedData(photoID: bundle.photoID, sender: bundle.sender)
        let contentKey: SecretKey
        switch bundle.recipient {
        case .identity(let publicKey):
            guard let identity else { throw .shareInvalid(reason: "it is addressed to a sharing identity; give yours to open it") }
            guard publicKey == identity.publicKey.agreementKey else {
                throw .shareInvalid(reason: "it is addressed to someone else, not to \(identity.publicKey.fingerprint)")
            }
            guard Sodium.ed25519Verify(bundle.signature, message: bundle.transcript, publicKey: bundle.sender.signingKey) else {
                throw .shareInvalid(reason: "the signature does not match: the bundle was modified after it was signed")
            }
            guard let key = try HPKE.open(recipientSecret: identity.agreementSecret, enc: bundle.iv, info: hpkeInfo, aad: aad,
                                          ciphertext: bundle.encryptedKey + bundle.authTag) else {
                throw .shareInvalid(reason: "the photo key does not decrypt")
            }
            contentKey = key
        case .passphrase(let salt, let parameters):
            guard let passphrase else { throw .shareInvalid(reason: "it is protected by a passphrase; give it to open the bundle") }
            guard Sodium.ed25519Verify(bundle.signature, message: bundle.transcript, publicKey: bundle.sender.signingKey) else {
                throw .shareInvalid(reason: "the signature does not match: the bundle was modified after it was signed")
            }
            let wrappingKey = try passphraseKey(passphrase, salt: salt, parameters: parameters)
            var verified = false
            let key = SecretKey { target in
                wrappingKey.withUnsafeBytes { k in bundle.iv.withUnsafeBytes { n in aad.withUnsafeBytes { a in
                    bundle.encryptedKey.withUnsafeBytes { c in bundle.authTag.withUnsafeBytes { t in
                        verified = Sodium.open(.chacha20Poly1305, key: k, nonce: n, associatedData: a, ciphertext: c, tag: t, plaintext: target)
                    } }
                } } }
            }
            guard verified else { throw .shareInvalid(reason: "wrong passphrase") }
            contentKey = key
        }
        let metadataBytes = try LOCACipher.decrypt(bundle.metadata, key: metadataKey(contentKey), source: "bundle metadata")
        let metadata: SharedPhotoMetadata
        do { metadata = try JSONDecoder.bundle.decode(SharedPhotoMetadata.self, from: Data(metadataBytes)) } catch {
            throw .shareInvalid(reason: "its metadata is not readable (\(error))")
        }
        let contents = try LOCACipher.decrypt(bundle.encryptedData, key: contentKey, source: "bundle photo")
        guard metadata.originalSize == Int64(contents.count) else {
            throw .shareInvalid(reason: "the photo is \(contents.count) bytes but its metadata says \(metadata.originalSize)")
        }
        return ReceivedPhoto(contents: contents, metadata: metadata, sender: bundle.sender, photoID: bundle.photoID)
    }

    /// The metadata has its own key, derived from the photo's content key.
    private static func metadataKey(_ contentKey: SecretKey) -> SecretKey {
        HKDF.deriveSecretKey(from: contentKey, salt: [], info: "LOCA v1 share metadata key")
    }

    /// Binds the encrypted photo key to the photo id and to the sender.
    private static func keyAssociatedData(photoID: String, sender: SharingPublicKey) -> [UInt8] {
        Array("LOCA share key v1".utf8) + [0] + sender.signingKey + Array(photoID.utf8)
    }

    private static func passphraseKey(_ passphrase: String, salt: [UInt8], parameters: Argon2Parameters) throws(VaultCryptoError) -> SecretKey {
        var succeeded = false
        let passphraseBytes = Array(passphrase.utf8)
        let key = SecretKey { target in
            passphraseBytes.withUnsafeBytes { p in salt.withUnsafeBytes { s in
                succeeded = Sodium.argon2id(output: target, passphrase: p, salt: s, operations: UInt64(parameters.operations), memoryBytes: Int(parameters.memoryBytes))
            } }
        }
        guard succeeded else { throw .passphraseHashingFailed(reason: "Argon2id failed; is there enough free memory?") }
        return key
    }

    private static func base64(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }

    /// A value read from a bundle, as an error message may quote it: at most 40 characters, with
    /// control characters dropped (a bundle is untrusted; a 10 MB field is not echoed back).
    static func shown(_ value: String) -> String {
        let clean = String(String.UnicodeScalarView(value.unicodeScalars.prefix(41).filter { !$0.properties.generalCategory.isControlLike }))
        return clean.count > 40 ? String(clean.prefix(40)) + "…" : clean
    }

    /// A received photo's file name as the vault stores it: the last path component only (no
    /// `../`), without control or bidirectional characters, at most 255 bytes; "photo" when nothing is left.
    static func storedFilename(_ name: String) -> String {
        let last = name.split(separator: "/").last.map(String.init) ?? ""
        var kept = String(String.UnicodeScalarView(last.unicodeScalars.filter { !$0.properties.generalCategory.isControlLike }))
        while kept.utf8.count > 255 { kept.removeLast() }
        return kept.isEmpty || kept == "." || kept == ".." ? "photo" : kept
    }

    /// The JSON layout, field for field as the seed has it, plus `recipient` and `sender`.
    enum Wire {
        struct Bundle: Codable {
            var version: String
            var photo: Photo
            var recipient: Recipient
            var sender: String
            var metadata: String
            var signature: String
        }

        struct Photo: Codable {
            var id: String
            var encryptedData: String
            var encryptedKey: String
            var iv: String
            var authTag: String
        }

        struct Recipient: Codable {
            var type: String
            var publicKey: String?
            var kdf: String?
            var operations: UInt32?
            var memoryBytes: UInt32?
            var salt: String?
        }
    }

    /// A bundle whose every field has been decoded and checked for size and format.
    struct Decoded {
        enum Recipient {
            case identity([UInt8])
            case passphrase(salt: [UInt8], parameters: Argon2Parameters)
        }

        let photoID: String
        let encryptedData: [UInt8]
        let encryptedKey: [UInt8]
        let iv: [UInt8]
        let authTag: [UInt8]
        let recipient: Recipient
        let sender: SharingPublicKey
        let metadata: [UInt8]
        let signature: [UInt8]
        let transcript: [UInt8]

        init(_ wire: Wire.Bundle) throws(VaultCryptoError) {
            guard wire.version == ShareBundle.version else {
                throw .shareInvalid(reason: "version \(ShareBundle.shown(wire.version)) is not supported (this library reads \(ShareBundle.version))")
            }
            func decode(_ text: String, _ field: String, count: Int? = nil) throws(VaultCryptoError) -> [UInt8] {
                guard let data = Data(base64Encoded: text), Self.hasZeroUnusedBits(text) else { throw .shareInvalid(reason: "\(field) is not base64") }
                if let count, data.count != count { throw .shareInvalid(reason: "\(field) is \(data.count) bytes, expected \(count)") }
                return [UInt8](data)
            }
            guard !wire.photo.id.isEmpty, wire.photo.id.utf8.count <= 128 else { throw .shareInvalid(reason: "the photo id is missing or too long") }
            photoID = wire.photo.id
            encryptedData = try decode(wire.photo.encryptedData, "photo.encryptedData")
            encryptedKey = try decode(wire.photo.encryptedKey, "photo.encryptedKey", count: 32)
            authTag = try decode(wire.photo.authTag, "photo.authTag", count: 16)
            metadata = try decode(wire.metadata, "metadata")
            signature = wire.signature.isEmpty ? [] : try decode(wire.signature, "signature", count: 64)
            guard let sender = SharingPublicKey(text: wire.sender) else { throw .shareInvalid(reason: "sender is not a sharing identity") }
            self.sender = sender
            var recipientBytes: [UInt8]
            switch wire.recipient.type {
            case "x25519":
                let key = try decode(wire.recipient.publicKey ?? "", "recipient.publicKey", count: 32)
                iv = try decode(wire.photo.iv, "photo.iv", count: 32)
                recipient = .identity(key)
                recipientBytes = Array("x25519".utf8) + key
            case "passphrase":
                guard wire.recipient.kdf == "argon2id", let operations = wire.recipient.operations, let memory = wire.recipient.memoryBytes else {
                    throw .shareInvalid(reason: "the passphrase parameters are incomplete")
                }
                let parameters = Argon2Parameters(operations: operations, memoryBytes: memory)
                guard parameters.isAccepted else { throw .shareInvalid(reason: "its Argon2id parameters are out of range") }
                let salt = try decode(wire.recipient.salt ?? "", "recipient.salt", count: 16)
                iv = try decode(wire.photo.iv, "photo.iv", count: 12)
                recipient = .passphrase(salt: salt, parameters: parameters)
                recipientBytes = Array("passphrase argon2id".utf8) + bigEndianBytes(UInt64(operations)) + bigEndianBytes(UInt64(memory)) + salt
            default:
                throw .shareInvalid(reason: "unknown recipient type \(wire.recipient.type)")
            }
            // The LOCA payloads must be structurally valid before anything else happens.
            for (name, payload) in [("photo.encryptedData", encryptedData), ("metadata", metadata)] {
                let header = try LOCAHeader(parsing: payload, source: name)
                guard header.fileSize == UInt64(payload.count) else {
                    throw .shareInvalid(reason: "\(name) is \(payload.count) bytes but its LOCA header needs \(header.fileSize)")
                }
            }
            // The signed transcript: every field, length-prefixed, in a fixed order.
            var transcript = Array("LOCAPHOTO v1".utf8) + [0]
            for field in [Array(wire.version.utf8), Array(photoID.utf8), encryptedData, encryptedKey, iv, authTag,
                          recipientBytes, sender.agreementKey + sender.signingKey, metadata] {
                transcript += bigEndianBytes(UInt64(field.count)) + field
            }
            self.transcript = transcript
        }

        /// Whether the bits that the last character of padded base64 `text` does not use are zero
        /// (RFC 4648 §3.5), so that each value has one spelling and no byte of a bundle can change
        /// without changing what was signed.
        static func hasZeroUnusedBits(_ text: String) -> Bool {
            let bytes = Array(text.utf8.suffix(3))
            let padding = bytes.reversed().prefix { $0 == UInt8(ascii: "=") }.count
            guard padding > 0, padding < bytes.count else { return true }
            let character = bytes[bytes.count - 1 - padding]
            let value: UInt8 = switch character {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): character - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): character - UInt8(ascii: "a") + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0") + 52
            case UInt8(ascii: "+"): 62
            default: 63
            }
            return value & (padding == 1 ? 0b11 : 0b1111) == 0
        }
    }
}

extension JSONEncoder {
    static var bundle: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }
}

extension JSONDecoder {
    static var bundle: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}

extension Unicode.GeneralCategory {
    /// Control (Cc) and format (Cf: bidirectional overrides, zero-width marks) characters, and line and paragraph separators.
    var isControlLike: Bool { self == .control || self == .format || self == .lineSeparator || self == .paragraphSeparator }
}
