import Foundation
import Testing
@testable import VaultCrypto

/// Share bundles against the independent Python reference (scripts/share_reference.py,
/// written from Docs/Share-bundles.md): its identities, its bundles opened here, our bundles
/// equal to its bundles byte for byte, and every damaged byte refused.
@Suite("Share bundle known-answer vectors (from the independent Python reference)")
struct ShareBundleVectorTests {
    /// The identity a vector names, derived from its seed.
    static func identity(_ name: String) throws -> SharingIdentity {
        let vector = try #require(ShareBundleVectors.identities.first { $0.name == name })
        return SharingIdentity(seed: try SecretKey(copying: hexBytes(vector.seed)))
    }

    /// The photo, metadata, recipient and fixed randomness of a bundle vector.
    struct Inputs {
        let contents: [UInt8]
        let metadata: SharedPhotoMetadata
        let recipient: ShareRecipient
        let randomness: ShareBundle.Randomness
    }

    static func inputs(_ vector: ShareBundleVectors.BundleCase) throws -> Inputs {
        let contents = hexBytes(vector.contentsPrefix) + (0..<vector.patternLength).map { UInt8($0 % 251) }
        let metadata = SharedPhotoMetadata(
            originalFilename: vector.originalFilename, format: vector.format, originalSize: Int64(contents.count),
            captureDate: vector.captureDate.map { Date(timeIntervalSince1970: TimeInterval($0)) }, width: vector.width, height: vector.height)
        let recipient: ShareRecipient = if let passphrase = vector.passphrase {
            .passphrase(passphrase, Argon2Parameters(operations: vector.operations, memoryBytes: vector.memoryBytes))
        } else {
            .identity(try identity("bob").publicKey)
        }
        let randomness = ShareBundle.Randomness(
            contentKey: try SecretKey(copying: hexBytes(vector.contentKey)), photoNonce: hexBytes(vector.photoNonce),
            metadataNonce: hexBytes(vector.metadataNonce), timestamp: vector.timestamp,
            ephemeralSecret: try SecretKey(copying: hexBytes(vector.ephemeralSecret)), salt: hexBytes(vector.salt),
            keyNonce: hexBytes(vector.keyNonce))
        return Inputs(contents: contents, metadata: metadata, recipient: recipient, randomness: randomness)
    }

    /// Opens `bytes` the way its vector says (as bob, or with the passphrase), from alice only.
    static func open(_ bytes: [UInt8], _ vector: ShareBundleVectors.BundleCase) throws -> ReceivedPhoto {
        let alice = try identity("alice")
        if let passphrase = vector.passphrase {
            return try ShareBundle.open(bytes, passphrase: passphrase, expectedSender: alice.publicKey)
        }
        return try ShareBundle.open(bytes, identity: try identity("bob"), expectedSender: alice.publicKey)
    }

    @Test("identities derive the documented keys, text form and fingerprint", arguments: ShareBundleVectors.identities.map(\.name))
    func identity(name: String) throws {
        let vector = try #require(ShareBundleVectors.identities.first { $0.name == name })
        let identity = try Self.identity(name)
        #expect(identity.agreementSecret.withUnsafeBytes { Array($0) } == hexBytes(vector.agreementSecret))
        #expect(identity.publicKey.agreementKey == hexBytes(vector.agreementKey))
        #expect(identity.publicKey.signingKey == hexBytes(vector.signingKey))
        #expect(identity.publicKey.text == vector.text)
        #expect(identity.publicKey.fingerprint == vector.fingerprint)
        #expect(SharingPublicKey(text: vector.text) == identity.publicKey)
        #expect(SharingPublicKey(text: " \(vector.text)==\n") == identity.publicKey)
        // The same 64 bytes spelled with one of the last character's unused bits set: refused.
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let lastCharacter = try #require(vector.text.last)
        let last = try #require(alphabet.firstIndex(of: lastCharacter))
        #expect(SharingPublicKey(text: String(vector.text.dropLast()) + String(alphabet[last | 1])) == nil)
        // The Ed25519 seed is HKDF(seed, "memora sharing ed25519"): its libsodium key pair has the vector's public key.
        let seed = try SecretKey(copying: hexBytes(vector.seed))
        let signingSeed = HKDF.deriveSecretKey(from: seed, salt: [], info: "memora sharing ed25519")
        #expect(signingSeed.withUnsafeBytes { Array($0) } == hexBytes(vector.signingSeed))
    }

    @Test("Python-made bundles open here with the exact photo, metadata, id and sender", arguments: ShareBundleVectors.bundles.map(\.name))
    func opensReferenceBundle(name: String) throws {
        let vector = try #require(ShareBundleVectors.bundles.first { $0.name == name })
        let inputs = try Self.inputs(vector)
        let received = try Self.open(Array(vector.bundle.utf8), vector)
        #expect(received.contents == inputs.contents)
        #expect(received.metadata == inputs.metadata)
        #expect(received.photoID == vector.photoID)
        #expect(received.sender == (try Self.identity("alice")).publicKey)
    }

    @Test("bundles made here with the same randomness equal the Python ones byte for byte", arguments: ShareBundleVectors.bundles.map(\.name))
    func createsReferenceBundle(name: String) throws {
        let vector = try #require(ShareBundleVectors.bundles.first { $0.name == name })
        let inputs = try Self.inputs(vector)
        #expect(Array(try JSONEncoder.bundle.encode(inputs.metadata)) == Array(vector.metadataJSON.utf8))
        let bundle = try ShareBundle.create(
            contents: inputs.contents, metadata: inputs.metadata, photoID: vector.photoID, from: try Self.identity("alice"),
            to: inputs.recipient, randomness: inputs.randomness)
        #expect(String(decoding: bundle, as: UTF8.self) == vector.bundle)
        // The signed transcript, as the documentation lays it out.
        let decoded = try ShareBundle.Decoded(JSONDecoder().decode(ShareBundle.Wire.Bundle.self, from: Data(vector.bundle.utf8)))
        #expect(decoded.transcript.withUnsafeBytes { HKDF.extract(salt: [], inputKeyMaterial: $0) } == hexBytes(vector.transcriptDigest))
        #expect(Array(decoded.transcript.prefix(13)) == Array("LOCAPHOTO v1\u{0}".utf8))
    }

    @Test("Docs/Vault.md alone is enough to verify a bundle's signature: its transcript rules, read by the test from the JSON, verify both vectors", arguments: ShareBundleVectors.bundles.map(\.name))
    func vaultDocumentTranscript(name: String) throws {
        let vector = try #require(ShareBundleVectors.bundles.first { $0.name == name })
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Docs/Vault.md").standardized.path
        let document = try String(contentsOfFile: path, encoding: .utf8)
        // The document's worked F(recipient) lines ("identity:   LENGTH VALUE", "passphrase: …"), as hex.
        func documented(_ label: String) -> [UInt8]? {
            document.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.first { $0.hasPrefix(label + ":") }
                .map { hexBytes($0.dropFirst(label.count + 1).replacingOccurrences(of: " ", with: "")) }
        }
        // The bundle read as any JSON reader would, and the transcript built as Docs/Vault.md says.
        let json = try #require(try JSONSerialization.jsonObject(with: Data(vector.bundle.utf8)) as? [String: Any])
        let photo = try #require(json["photo"] as? [String: Any]), recipient = try #require(json["recipient"] as? [String: Any])
        func base64(_ value: Any?) throws -> [UInt8] {
            let text = try #require(value as? String)
            return [UInt8](try #require(Data(base64Encoded: text)))
        }
        func field(_ value: [UInt8]) -> [UInt8] { withUnsafeBytes(of: UInt64(value.count).bigEndian) { Array($0) } + value }
        func u64(_ value: Any?) throws -> [UInt8] { withUnsafeBytes(of: UInt64(try #require(value as? Int)).bigEndian) { Array($0) } }
        let recipientValue: [UInt8] = if recipient["type"] as? String == "x25519" {
            Array("x25519".utf8) + (try base64(recipient["publicKey"]))
        } else {
            Array("passphrase argon2id".utf8) + (try u64(recipient["operations"])) + (try u64(recipient["memoryBytes"])) + (try base64(recipient["salt"]))
        }
        let sender = try #require((json["sender"] as? String)?.dropFirst("memora-share1:".count))
        var urlSafe = sender.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while urlSafe.count % 4 != 0 { urlSafe += "=" }
        let senderKeys = [UInt8](try #require(Data(base64Encoded: urlSafe)))
        var transcript = hexBytes("4c4f434150484f544f207631") + [0]
        for value in [Array(try #require(json["version"] as? String).utf8), Array(try #require(photo["id"] as? String).utf8),
                      try base64(photo["encryptedData"]), try base64(photo["encryptedKey"]), try base64(photo["iv"]), try base64(photo["authTag"]),
                      recipientValue, senderKeys, try base64(json["metadata"])] {
            transcript += field(value)
        }
        #expect(Sodium.ed25519Verify(try base64(json["signature"]), message: transcript, publicKey: Array(senderKeys[32..<64])))
        // The document's worked example is this vector's recipient field, byte for byte.
        #expect(documented(vector.passphrase == nil ? "identity" : "passphrase") == field(recipientValue))
    }

    @Test("capture dates are written YYYY-MM-DDTHH:MM:SSZ; null is absent; a date in another form is refused")
    func captureDateForm() throws {
        let json = #"{"captureDate":"2023-11-14T22:13:20Z","format":"jpeg","originalFilename":"a.jpg","originalSize":1}"#
        let metadata = try JSONDecoder.bundle.decode(SharedPhotoMetadata.self, from: Data(json.utf8))
        #expect(metadata.captureDate == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(String(decoding: try JSONEncoder.bundle.encode(metadata), as: UTF8.self) == json)
        let withNull = #"{"captureDate":null,"format":"png","originalFilename":"b","originalSize":2,"width":null}"#
        #expect(try JSONDecoder.bundle.decode(SharedPhotoMetadata.self, from: Data(withNull.utf8)).captureDate == nil)
        // Read but never written: fractional seconds.
        let fractional = json.replacingOccurrences(of: ":20Z", with: ":20.5Z")
        let read = try JSONDecoder.bundle.decode(SharedPhotoMetadata.self, from: Data(fractional.utf8)).captureDate
        #expect(read.map { $0.timeIntervalSince1970.rounded(.down) } == 1_700_000_000)
        let spaced = json.replacingOccurrences(of: "T22", with: " 22").replacingOccurrences(of: ":20Z", with: ":20")
        #expect(throws: (any Error).self) { try JSONDecoder.bundle.decode(SharedPhotoMetadata.self, from: Data(spaced.utf8)) }
    }

    @Test("every byte of a vector, flipped, is refused", arguments: ShareBundleVectors.bundles.map(\.name))
    func flippedBytes(name: String) throws {
        let vector = try #require(ShareBundleVectors.bundles.first { $0.name == name })
        let bytes = Array(vector.bundle.utf8)
        var accepted: [Int] = []
        for index in bytes.indices {
            var damaged = bytes
            damaged[index] ^= 0x01
            if (try? Self.open(damaged, vector)) != nil { accepted.append(index) }
        }
        #expect(accepted.isEmpty, "accepted with a flipped byte at offsets \(accepted)")
    }

    @Test("every byte of every decoded field, flipped, is refused (the JSON stays valid)", arguments: ShareBundleVectors.bundles.map(\.name))
    func flippedFields(name: String) throws {
        let vector = try #require(ShareBundleVectors.bundles.first { $0.name == name })
        let wire = try JSONDecoder().decode(ShareBundle.Wire.Bundle.self, from: Data(vector.bundle.utf8))
        let fields: [WritableKeyPath<ShareBundle.Wire.Bundle, String>] = [
            \.photo.encryptedData, \.photo.encryptedKey, \.photo.iv, \.photo.authTag, \.metadata, \.signature,
        ]
        let recipientField: WritableKeyPath<ShareBundle.Wire.Bundle, String?> = vector.passphrase == nil ? \.recipient.publicKey : \.recipient.salt
        var accepted: [String] = []
        func check(_ damaged: ShareBundle.Wire.Bundle, _ label: String) throws {
            let bytes = Array(try JSONEncoder.bundle.encode(damaged))
            if (try? Self.open(bytes, vector)) != nil { accepted.append(label) }
        }
        /// Flips each byte of the base64 value `text` in turn, storing the result with `store`.
        func flipEachByte(of text: String?, _ label: String, store: (inout ShareBundle.Wire.Bundle, String) -> Void) throws {
            let value = try #require(text)
            let raw = [UInt8](try #require(Data(base64Encoded: value)))
            for index in raw.indices {
                var flipped = raw
                flipped[index] ^= 0x80
                var damaged = wire
                store(&damaged, Data(flipped).base64EncodedString())
                try check(damaged, "\(label) byte \(index)")
            }
        }
        for field in fields {
            try flipEachByte(of: wire[keyPath: field], "\(field)") { $0[keyPath: field] = $1 }
        }
        try flipEachByte(of: wire[keyPath: recipientField], "recipient") { $0[keyPath: recipientField] = $1 }
        var otherID = wire
        otherID.photo.id += "x"
        try check(otherID, "photo id")
        var otherSender = wire
        otherSender.sender = try Self.identity("bob").publicKey.text
        try check(otherSender, "sender")
        if vector.passphrase != nil {
            var otherCost = wire
            otherCost.recipient.operations = (wire.recipient.operations ?? 1) + 1
            try check(otherCost, "operations")
            var otherMemory = wire
            otherMemory.recipient.memoryBytes = (wire.recipient.memoryBytes ?? 8192) * 2
            try check(otherMemory, "memoryBytes")
        }
        #expect(accepted.isEmpty, "accepted with \(accepted)")
    }
}
