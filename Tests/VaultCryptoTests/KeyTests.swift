import Foundation
import Testing
@testable import VaultCrypto
import TestSupport

@Suite("Keys: wrapping, stores and hygiene")
struct KeyTests {
    @Test("a wrapped photo key unwraps only for its own photo and master key")
    func wrapping() throws {
        let master = SecretKey()
        let wrapper = PhotoKeyWrapper(masterKey: master)
        let photoKey = SecretKey()
        let wrapped = wrapper.wrap(photoKey, photoID: "photo-1")
        #expect(wrapped.count == PhotoKeyWrapper.wrappedByteCount)
        #expect(try wrapper.unwrap(wrapped, photoID: "photo-1").hasSameBytes(as: photoKey))
        #expect { try wrapper.unwrap(wrapped, photoID: "photo-2") } throws: { $0.isVaultError(.keyUnwrapFailed, mentioning: "photo photo-2 ") }
        #expect(throws: VaultCryptoError.self) { try PhotoKeyWrapper(masterKey: SecretKey()).unwrap(wrapped, photoID: "photo-1") }
        for index in wrapped.indices {
            var damaged = wrapped
            damaged[index] ^= 0x40
            #expect(throws: VaultCryptoError.self) { try wrapper.unwrap(damaged, photoID: "photo-1") }
        }
        #expect(wrapper.wrap(photoKey, photoID: "photo-1") != wrapped, "each wrap uses a fresh nonce")
    }

    @Test("key material is never printed")
    func redacted() {
        let key = SecretKey()
        #expect("\(key)" == "SecretKey(<redacted>)")
        #expect(String(reflecting: key) == "SecretKey(<redacted>)")
    }

    @Test("a file key store writes mode 0600 atomically and reads the same key back")
    func fileStore() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = FileKeyStore(path: folder + "/master.key")
        #expect(try store.loadMasterKey() == nil)
        let key = try store.loadOrCreateMasterKey()
        #expect(try store.loadMasterKey()?.hasSameBytes(as: key) == true)
        #expect(try store.loadOrCreateMasterKey().hasSameBytes(as: key))
        let attributes = try FileManager.default.attributesOfItem(atPath: folder + "/master.key")
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["master.key"])

        // A key file others can read is refused, with the fix in the message.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: folder + "/master.key")
        #expect(throws: VaultCryptoError.self) { try store.loadMasterKey() }
    }

    @Test("a passphrase-protected key file needs the right passphrase")
    func passphrase() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cheap = Argon2Parameters(operations: 1, memoryBytes: 1 << 20)
        let path = folder + "/master.key"
        let store = FileKeyStore(path: path, passphrase: "correct horse", parameters: cheap)
        let key = SecretKey()
        try store.saveMasterKey(key)
        let raw = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        key.withUnsafeBytes { keyBytes in
            let needle = Array(keyBytes)
            #expect(!(0...(raw.count - needle.count)).contains { Array(raw[$0..<$0 + needle.count]) == needle }, "the key is not stored in the clear")
        }
        #expect(try FileKeyStore(path: path, passphrase: "correct horse").loadMasterKey()?.hasSameBytes(as: key) == true)
        #expect(throws: VaultCryptoError.self) { try FileKeyStore(path: path, passphrase: "wrong horse").loadMasterKey() }
        #expect(throws: VaultCryptoError.self) { try FileKeyStore(path: path).loadMasterKey() }
        // Tampering with the stored Argon2 parameters is detected (they are authenticated).
        var tampered = raw
        tampered[12] ^= 0x01
        try Data(tampered).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        #expect(throws: VaultCryptoError.self) { try FileKeyStore(path: path, passphrase: "correct horse").loadMasterKey() }
    }

    @Test("a hostile key file asking for absurd Argon2 costs is refused before hashing")
    func hostileParameters() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/master.key"
        try FileKeyStore(path: path, passphrase: "p", parameters: Argon2Parameters(operations: 1, memoryBytes: 1 << 20)).saveMasterKey(SecretKey())
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        bytes.replaceSubrange(9..<13, with: [0xFF, 0xFF, 0xFF, 0xFF])
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        #expect { try FileKeyStore(path: path, passphrase: "p").loadMasterKey() } throws: {
            $0.isVaultError(.keyFileUnreadable, path: path, mentioning: "(its Argon2id parameters are out of range)")
        }
    }

    @Test("the in-memory store keeps one key")
    func inMemory() throws {
        let store = InMemoryKeyStore()
        #expect(try store.loadMasterKey() == nil)
        let key = try store.loadOrCreateMasterKey()
        #expect(try store.loadOrCreateMasterKey().hasSameBytes(as: key))
    }
}

@Suite("Key file parameters")
struct KeyFileParameterTests {
    @Test("a key file that could never be read back is not written")
    func unreadableParametersRefused() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = FileKeyStore(path: folder + "/k", passphrase: "p", parameters: Argon2Parameters(operations: 0, memoryBytes: 1 << 20))
        #expect(throws: VaultCryptoError.self) { try store.saveMasterKey(SecretKey()) }
        #expect(!FileManager.default.fileExists(atPath: folder + "/k"))
    }
}
