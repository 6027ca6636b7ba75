import Foundation
import Testing
@testable import VaultCrypto
import TestSupport

@Suite("HPKE (RFC 9180) on libsodium")
struct HPKETests {
    @Test("the key schedule matches RFC 9180 A.2.1")
    func keySchedule() throws {
        let recipient = try SecretKey(copying: hexBytes(HPKEVectors.skRm))
        #expect(recipient.withUnsafeBytes { Sodium.x25519PublicKey(secret: $0) } == hexBytes(HPKEVectors.pkRm))
        let ephemeral = try SecretKey(copying: hexBytes(HPKEVectors.skEm))
        let context = try HPKE.setUp(
            secret: ephemeral, peer: hexBytes(HPKEVectors.pkRm), enc: hexBytes(HPKEVectors.enc),
            recipientPublicKey: hexBytes(HPKEVectors.pkRm), info: hexBytes(HPKEVectors.info))
        #expect(context.sharedSecret == hexBytes(HPKEVectors.sharedSecret))
        #expect(context.key.withUnsafeBytes { Array($0) } == hexBytes(HPKEVectors.key))
        #expect(context.baseNonce == hexBytes(HPKEVectors.baseNonce))
        #expect(context.exporterSecret == hexBytes(HPKEVectors.exporterSecret))
        // The recipient derives the same context from the encapsulated key.
        let decap = try HPKE.setUp(
            secret: recipient, peer: hexBytes(HPKEVectors.enc), enc: hexBytes(HPKEVectors.enc),
            recipientPublicKey: hexBytes(HPKEVectors.pkRm), info: hexBytes(HPKEVectors.info))
        #expect(decap.sharedSecret == context.sharedSecret)
    }

    @Test("single-shot sealing matches the RFC's first encryption")
    func firstEncryption() throws {
        let vector = try #require(HPKEVectors.encryptions.first { $0.sequence == 0 })
        let sealed = try HPKE.seal(
            to: hexBytes(HPKEVectors.pkRm), info: hexBytes(HPKEVectors.info), aad: hexBytes(vector.aad),
            plaintext: hexBytes(vector.plaintext), ephemeralSecret: try SecretKey(copying: hexBytes(HPKEVectors.skEm)))
        #expect(sealed.enc == hexBytes(HPKEVectors.enc))
        #expect(sealed.ciphertext == hexBytes(vector.ciphertext))
    }

    @Test("a low-order public key is refused")
    func lowOrderKey() {
        #expect(throws: VaultCryptoError.self) {
            try HPKE.seal(to: [UInt8](repeating: 0, count: 32), info: [], aad: [], plaintext: [1])
        }
    }
}

@Suite("Share bundles")
struct ShareBundleTests {
    static let cheap = Argon2Parameters(operations: 1, memoryBytes: 1 << 20)
    let alice = SharingIdentity(seed: SecretKey())
    let bob = SharingIdentity(seed: SecretKey())
    let photo = patterned(10_000, salt: 3)
    let metadata = SharedPhotoMetadata(originalFilename: "IMG_7.heic", format: "heic", originalSize: 10_000, captureDate: Date(timeIntervalSince1970: 1_700_000_000), width: 4032, height: 3024)

    func bundleForBob() throws -> [UInt8] {
        try ShareBundle.create(contents: photo, metadata: metadata, photoID: "p-1", from: alice, to: .identity(bob.publicKey))
    }

    @Test("a bundle for an identity opens for that identity only, with its metadata and sender")
    func identityBundle() throws {
        let bundle = try bundleForBob()
        let received = try ShareBundle.open(bundle, identity: bob, expectedSender: alice.publicKey)
        #expect(received.contents == photo && received.metadata == metadata && received.sender == alice.publicKey && received.photoID == "p-1")
        #expect(throws: VaultCryptoError.self) { try ShareBundle.open(bundle, identity: alice) }  // wrongly addressed
        #expect(throws: VaultCryptoError.self) { try ShareBundle.open(bundle) }
        #expect(throws: VaultCryptoError.self) { try ShareBundle.open(bundle, identity: bob, expectedSender: bob.publicKey) }
        // The seed's fields are there, and nothing about the photo is readable in the JSON.
        let json = try #require(try JSONSerialization.jsonObject(with: Data(bundle)) as? [String: Any])
        #expect(Set(json.keys) == ["version", "photo", "recipient", "sender", "metadata", "signature"])
        #expect(!String(decoding: bundle, as: UTF8.self).contains("IMG_7"))
    }

    @Test("a passphrase bundle needs the passphrase")
    func passphraseBundle() throws {
        let bundle = try ShareBundle.create(contents: photo, metadata: metadata, photoID: "p-2", from: alice, to: .passphrase("open sesame", Self.cheap))
        #expect(try ShareBundle.open(bundle, passphrase: "open sesame").contents == photo)
        #expect { try ShareBundle.open(bundle, passphrase: "open barley") } throws: {
            $0.isVaultError(.shareInvalid, mentioning: "refused: wrong passphrase")
        }
        #expect(throws: VaultCryptoError.self) { try ShareBundle.open(bundle) }
    }

    @Test("changing any field, even to a valid value, breaks the signature or the decryption")
    func tampering() throws {
        let bundle = try bundleForBob()
        var json = try #require(try JSONSerialization.jsonObject(with: Data(bundle)) as? [String: Any])
        var photoFields = try #require(json["photo"] as? [String: Any])
        let mutations: [(String, (inout [String: Any], inout [String: Any]) -> Void)] = [
            ("photo id", { _, p in p["id"] = "p-2" }),
            ("sender", { j, _ in j["sender"] = bob.publicKey.text }),
            ("metadata", { j, _ in j["metadata"] = try! tweak(j["metadata"] as! String) }),
            ("encrypted data", { _, p in p["encryptedData"] = try! tweak(p["encryptedData"] as! String) }),
            ("encrypted key", { _, p in p["encryptedKey"] = try! tweak(p["encryptedKey"] as! String) }),
            ("auth tag", { _, p in p["authTag"] = try! tweak(p["authTag"] as! String) }),
            ("iv", { _, p in p["iv"] = try! tweak(p["iv"] as! String) }),
            ("signature", { j, _ in j["signature"] = try! tweak(j["signature"] as! String) }),
        ]
        for (name, mutate) in mutations {
            var j = json, p = photoFields
            mutate(&j, &p)
            j["photo"] = p
            let mutated = [UInt8](try JSONSerialization.data(withJSONObject: j))
            #expect(throws: VaultCryptoError.self, "\(name)") { try ShareBundle.open(mutated, identity: bob) }
        }
        // Re-serialising the same JSON differently (key order, spacing) still verifies.
        json["photo"] = photoFields
        photoFields = [:]
        let reformatted = [UInt8](try JSONSerialization.data(withJSONObject: json, options: [.prettyPrinted]))
        #expect(try ShareBundle.open(reformatted, identity: bob).contents == photo)
    }

    @Test("malformed, truncated and oversized bundles are refused with a reason")
    func malformed() throws {
        let bundle = try bundleForBob()
        for cut in [0, 1, 10, bundle.count / 2, bundle.count - 1] {
            #expect(throws: VaultCryptoError.self) { try ShareBundle.open(Array(bundle.prefix(cut)), identity: bob) }
        }
        #expect(throws: VaultCryptoError.self) { try ShareBundle.open(Array("{\"version\":\"2.0\"}".utf8), identity: bob) }
        do {
            _ = try ShareBundle.open(bundle, identity: bob, maximumSize: 1000)
            Issue.record("an oversized bundle was opened")
        } catch {
            #expect(error.description.contains("over the limit"))
        }
    }

    @Test("a bundle moves a photo from one vault to another")
    func vaultToVault() throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let sending = try Vault.create(at: root + "/alice", keyStore: InMemoryKeyStore())
        let receiving = try Vault.create(at: root + "/bob", keyStore: InMemoryKeyStore())
        try Data(photo).write(to: URL(fileURLWithPath: root + "/IMG_7.heic"))
        let original = try sending.add(fileAt: root + "/IMG_7.heic", details: VaultPhotoDetails(format: "heic", width: 4032, height: 3024)).photo
        let bundle = try sending.share(original.id, from: alice, to: .identity(bob.publicKey))
        let (addition, sender) = try receiving.importShare(bundle, identity: bob)
        let imported = addition.photo
        #expect(sender == alice.publicKey)
        #expect(imported.originalFilename == "IMG_7.heic" && imported.width == 4032 && imported.id != original.id)
        #expect(try receiving.contents(of: imported.id) == photo)
        // The same bundle again is found by its content and not added twice.
        let again = try receiving.importShare(bundle, identity: bob).addition
        #expect(again.wasAlreadyStored && again.photo.id == imported.id)
        #expect(throws: VaultCryptoError.self) { try receiving.importShare(bundle, identity: alice) }
        #expect(try receiving.photos().count == 1)
    }

    @Test("a signed bundle's file name is stored without its folders and control characters; a huge unknown version is not echoed back")
    func untrustedFields() throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let receiving = try Vault.create(at: root + "/bob", keyStore: InMemoryKeyStore())
        var hostile = metadata
        hostile.originalFilename = "../../etc/\u{1B}[2Jevil\nname\u{202E}gpj.jpg"
        let bundle = try ShareBundle.create(contents: photo, metadata: hostile, photoID: "p-9", from: alice, to: .identity(bob.publicKey))
        let imported = try receiving.importShare(bundle, identity: bob).addition.photo
        #expect(imported.originalFilename == "[2Jevilnamegpj.jpg")
        for name in ["", "..", "a/b/", "\u{7}"] { #expect(ShareBundle.storedFilename(name) == (name == "a/b/" ? "b" : "photo")) }

        var json = try #require(try JSONSerialization.jsonObject(with: Data(bundle)) as? [String: Any])
        json["version"] = String(repeating: "9", count: 1_000_000) + "\u{1B}[2J"
        let forged = [UInt8](try JSONSerialization.data(withJSONObject: json))
        let error = #expect(throws: VaultCryptoError.self) { try ShareBundle.open(forged, identity: bob) }
        #expect((error?.description.count ?? .max) < 400 && error?.description.contains("\u{1B}") == false, "\(error?.description.prefix(200) ?? "")")
    }

    @Test("a sharing identity survives a round trip through its text form and a key file")
    func identityPersistence() throws {
        let text = alice.publicKey.text
        #expect(text.hasPrefix("memora-share1:"))
        #expect(SharingPublicKey(text: text) == alice.publicKey)
        #expect(SharingPublicKey(text: "memora-share1:abc") == nil)
        #expect(alice.publicKey.fingerprint.count == 39)
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = FileKeyStore(path: root + "/identity.key")
        let first = try SharingIdentity.loadOrCreate(in: store)
        #expect(try SharingIdentity.loadOrCreate(in: store).publicKey == first.publicKey)
    }
}

/// Flips one bit in the middle of a base64 field, keeping it valid base64 of the same length.
func tweak(_ base64: String) throws -> String {
    var bytes = [UInt8](try #require(Data(base64Encoded: base64)))
    bytes[bytes.count / 2] ^= 0x01
    return Data(bytes).base64EncodedString()
}
