import Foundation
import MemoraSystem
import Testing
@testable import VaultCrypto
import TestSupport

@Suite("The encrypted vault")
struct VaultTests {
    /// A vault in a new folder, with a source photo file beside it.
    struct Fixture {
        let root: String
        let vault: Vault
        let keyStore: InMemoryKeyStore
        let source: String
        let plaintext: [UInt8]

        init(size: Int = 3 * 4096 + 7, clock: any MemoraClock = SystemClock()) throws {
            root = try temporaryFolder()
            keyStore = InMemoryKeyStore()
            vault = try Vault.create(at: root + "/vault", keyStore: keyStore, cipher: try LOCACipher(chunkExponent: 12), clock: clock)
            plaintext = patterned(size, salt: 9)
            source = root + "/IMG_0001.jpg"
            try Data(plaintext).write(to: URL(fileURLWithPath: source))
        }

        func files(under folder: String) -> [String] {
            (FileManager.default.enumerator(atPath: root + "/vault/" + folder)?.allObjects as? [String] ?? [])
                .filter { !$0.hasPrefix(".") && ($0.hasSuffix(".encrypted") || $0.hasSuffix(".thumb") || $0.contains(".tmp")) }
        }
    }

    @Test("what the vault records is stamped with its clock: a photo's addition, year folder and file header, an album's creation")
    func stampedWithClock() async throws {
        // 2030-03-17, far from the system's clock.
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_900_000_000))
        let fixture = try Fixture(clock: clock)
        defer { try? FileManager.default.removeItem(atPath: fixture.root) }
        func headerTime(_ photo: VaultPhoto) throws -> UInt64 {
            let stored = try [UInt8](Data(contentsOf: URL(fileURLWithPath: fixture.root + "/vault/" + photo.relativePath)))
            return try LOCAHeader(parsing: stored, source: photo.relativePath).timestamp
        }
        // Each way in: a file, bytes in memory, a stream of chunks.
        let fromFile = try fixture.vault.add(fileAt: fixture.source, details: VaultPhotoDetails(format: "jpeg")).photo
        clock.advance(by: .seconds(10))
        let fromBytes = try fixture.vault.add(contents: [1, 2, 3, 4], originalFilename: "bytes.jpg", details: VaultPhotoDetails(format: "jpeg")).photo
        clock.advance(by: .seconds(10))
        let chunks = AsyncStream<[UInt8]> { $0.yield([5, 6, 7]); $0.finish() }
        let fromStream = try await fixture.vault.add(chunks: chunks, originalFilename: "stream.jpg", details: VaultPhotoDetails(format: "jpeg")).photo
        for (photo, seconds) in [(fromFile, 1_900_000_000), (fromBytes, 1_900_000_010), (fromStream, 1_900_000_020)] {
            #expect(photo.addedAt == Date(timeIntervalSince1970: TimeInterval(seconds)), "\(photo.originalFilename)")
            #expect(try headerTime(photo) == UInt64(seconds), "\(photo.originalFilename): the LOCA header's time is the vault's clock")
            #expect(photo.relativePath.hasPrefix("Photos/2030/03/"), "\(photo.relativePath)")
        }
        clock.advance(by: .seconds(60))
        #expect(try fixture.vault.createAlbum(named: "Spring").createdAt == clock.now())
    }

    @Test("add, list, read, export and remove a photo; no plaintext is written inside the vault")
    func lifecycle() throws {
        let fixture = try Fixture()
        defer { try? FileManager.default.removeItem(atPath: fixture.root) }
        let taken = Date(timeIntervalSince1970: 1_700_000_000)  // 2023-11-14 UTC
        let photo = try fixture.vault.add(
            fileAt: fixture.source,
            details: VaultPhotoDetails(format: "jpeg", width: 4000, height: 3000, takenAt: taken, tags: ["beach"], thumbnail: [1, 2, 3])).photo
        #expect(photo.relativePath == "Photos/2023/11/\(photo.id).encrypted")
        #expect(photo.originalSize == Int64(fixture.plaintext.count) && photo.originalFilename == "IMG_0001.jpg")
        #expect(try fixture.vault.photos().map(\.id) == [photo.id])
        #expect(try fixture.vault.contents(of: photo.id) == fixture.plaintext)
        #expect(try fixture.vault.thumbnail(of: photo.id) == [1, 2, 3])

        // The stored file does not contain the plaintext (any 64-byte window of it).
        let stored = try [UInt8](Data(contentsOf: URL(fileURLWithPath: fixture.root + "/vault/" + photo.relativePath)))
        let window = Array(fixture.plaintext[100..<164])
        #expect(!(0...(stored.count - 64)).contains { Array(stored[$0..<$0 + 64]) == window })

        try fixture.vault.export(photo.id, to: fixture.root + "/exported.jpg")
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: fixture.root + "/exported.jpg"))) == fixture.plaintext)

        try fixture.vault.remove(photo.id)
        #expect(try fixture.vault.photos().isEmpty)
        #expect(fixture.files(under: "Photos").isEmpty && fixture.files(under: "Thumbnails").isEmpty)
        #expect { try fixture.vault.contents(of: photo.id) } throws: { $0.isVaultError(.notFound, mentioning: "id \(photo.id) ") }
    }

    @Test("favourites, hidden photos, tags and albums")
    func organising() throws {
        let fixture = try Fixture(size: 10)
        defer { try? FileManager.default.removeItem(atPath: fixture.root) }
        let first = try fixture.vault.add(fileAt: fixture.source, details: VaultPhotoDetails(format: "jpeg")).photo
        let second = try fixture.vault.add(contents: [1, 2], originalFilename: "b.jpg", details: VaultPhotoDetails(format: "jpeg")).photo
        try fixture.vault.update(first.id, favorite: true, tags: ["family"])
        try fixture.vault.update(second.id, hidden: true)
        #expect(try fixture.vault.photos().map(\.id) == [first.id])
        #expect(Set(try fixture.vault.photos(includeHidden: true).map(\.id)) == [first.id, second.id])
        #expect(try fixture.vault.photo(id: first.id).isFavorite && fixture.vault.photo(id: first.id).tags == ["family"])
        let album = try fixture.vault.createAlbum(named: "Summer")
        try fixture.vault.add(photo: first.id, toAlbum: album.id)
        try fixture.vault.add(photo: first.id, toAlbum: album.id)
        #expect(try fixture.vault.photos(inAlbum: album.id).map(\.id) == [first.id])
        #expect { try fixture.vault.add(photo: "nope", toAlbum: album.id) } throws: { $0.isVaultError(.notFound, mentioning: "id nope ") }
        try fixture.vault.remove(first.id)
        #expect(try fixture.vault.photos(inAlbum: album.id).isEmpty)
    }

    @Test("the vault reopens with its key, refuses another key, and survives a key rotation")
    func keys() throws {
        let fixture = try Fixture()
        defer { try? FileManager.default.removeItem(atPath: fixture.root) }
        let photo = try fixture.vault.add(fileAt: fixture.source, details: VaultPhotoDetails(format: "jpeg")).photo
        let fileBefore = try Data(contentsOf: URL(fileURLWithPath: fixture.root + "/vault/" + photo.relativePath))
        let oldKey = try #require(try fixture.keyStore.loadMasterKey())

        try fixture.vault.rotateMasterKey()
        let newKey = try #require(try fixture.keyStore.loadMasterKey())
        #expect(!newKey.hasSameBytes(as: oldKey))
        #expect(try fixture.vault.contents(of: photo.id) == fixture.plaintext)
        #expect(try Data(contentsOf: URL(fileURLWithPath: fixture.root + "/vault/" + photo.relativePath)) == fileBefore, "photo files are not touched")

        let reopened = try Vault.open(at: fixture.root + "/vault", keyStore: fixture.keyStore)
        #expect(try reopened.contents(of: photo.id) == fixture.plaintext)
        let stale = InMemoryKeyStore()
        try stale.saveMasterKey(oldKey)
        #expect { try Vault.open(at: fixture.root + "/vault", keyStore: stale) } throws: { $0.isVaultError(.wrongMasterKey, path: fixture.root + "/vault") }
        #expect { try Vault.open(at: fixture.root, keyStore: stale) } throws: { $0.isVaultError(.vaultNotFound, path: fixture.root) }
        #expect { try Vault.create(at: fixture.root + "/vault", keyStore: stale) } throws: { $0.isVaultError(.vaultExists, path: fixture.root + "/vault") }
    }

    /// A key store whose save fails, to interrupt a rotation between its steps.
    final class FailingKeyStore: KeyStore, @unchecked Sendable {
        let inner = InMemoryKeyStore()
        var failSaves = false
        func loadMasterKey() throws(VaultCryptoError) -> SecretKey? { try inner.loadMasterKey() }
        func saveMasterKey(_ key: SecretKey) throws(VaultCryptoError) {
            if failSaves { throw .writeFailed(path: "keystore", reason: "simulated crash") }
            try inner.saveMasterKey(key)
        }
    }

    @Test("a rotation interrupted before or after the key store is updated leaves a vault that opens")
    func interruptedRotation() throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = FailingKeyStore()
        let vault = try Vault.create(at: root + "/v", keyStore: store)
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: root + "/a.jpg"))
        let photo = try vault.add(fileAt: root + "/a.jpg", details: VaultPhotoDetails(format: "jpeg")).photo

        // Interrupted before the new key was stored: the old key still opens everything.
        store.failSaves = true
        #expect { try vault.rotateMasterKey() } throws: { $0.isVaultError(.writeFailed, path: "keystore", mentioning: "simulated crash") }
        store.failSaves = false
        #expect(try Vault.open(at: root + "/v", keyStore: store).contents(of: photo.id) == [1, 2, 3])

        // Interrupted after the new key was stored but before the catalogue switched:
        // simulate by writing the pending state by hand, then storing the new key.
        let newKey = SecretKey()
        _ = try vault.prepareRotation(to: newKey)
        try store.saveMasterKey(newKey)
        #expect(try Vault.open(at: root + "/v", keyStore: store).contents(of: photo.id) == [1, 2, 3])
    }

    @Test("verify finds orphan files, missing files and damaged photos, and repair fixes the first two")
    func verifyAndRepair() throws {
        let fixture = try Fixture()
        defer { try? FileManager.default.removeItem(atPath: fixture.root) }
        let kept = try fixture.vault.add(fileAt: fixture.source, details: VaultPhotoDetails(format: "jpeg")).photo
        let damaged = try fixture.vault.add(contents: fixture.plaintext + [1], originalFilename: "d.jpg", details: VaultPhotoDetails(format: "jpeg")).photo
        let lost = try fixture.vault.add(contents: fixture.plaintext + [2], originalFilename: "l.jpg", details: VaultPhotoDetails(format: "jpeg")).photo
        #expect(try fixture.vault.verify().isHealthy)

        // An add interrupted after the file was written, before the record: an orphan.
        try FileManager.default.copyItem(
            atPath: fixture.root + "/vault/" + kept.relativePath,
            toPath: fixture.root + "/vault/Photos/orphan.encrypted")
        try FileManager.default.removeItem(atPath: fixture.root + "/vault/" + lost.relativePath)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: fixture.root + "/vault/" + damaged.relativePath)))
        bytes[200] ^= 1
        try Data(bytes).write(to: URL(fileURLWithPath: fixture.root + "/vault/" + damaged.relativePath))

        let report = try fixture.vault.verify()
        #expect(report.orphanFiles == ["Photos/orphan.encrypted"])
        #expect(report.missingFiles == [lost.id])
        #expect(report.damagedPhotos == [damaged.id])
        let repaired = try fixture.vault.verify(repair: true)
        #expect(!repaired.isHealthy)
        let after = try fixture.vault.verify()
        #expect(after.orphanFiles.isEmpty && after.missingFiles.isEmpty && after.damagedPhotos == [damaged.id])
        #expect(try fixture.vault.contents(of: kept.id) == fixture.plaintext)
    }

    @Test("adding a file that does not exist leaves nothing behind")
    func failedAdd() throws {
        let fixture = try Fixture()
        defer { try? FileManager.default.removeItem(atPath: fixture.root) }
        let missing = fixture.root + "/missing.jpg"
        #expect { try fixture.vault.add(fileAt: missing, details: VaultPhotoDetails(format: "jpeg")) } throws: { thrown in
            // A failed system call: its error number kept, the path named once, nothing to retry.
            guard let error = thrown as? VaultCryptoError else { return false }
            return error.code == .readFailed && error.path == missing && error.systemCode == ENOENT && !error.isRetryable
                && error.description.components(separatedBy: missing).count == 2
        }
        #expect(fixture.files(under: "Photos").isEmpty)
        #expect(try fixture.vault.photos().isEmpty)
    }
}

@Suite("Vault files and concurrency guards")
struct VaultGuardTests {
    @Test("the catalogue is 0600, the folders 0700, and the vault's identifier is readable without its key")
    func permissions() throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/v", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        _ = try Vault.create(at: root + "/v", keyStore: InMemoryKeyStore(), identifier: "vault-1")
        func mode(_ path: String) throws -> Int { try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int ?? -1 }
        #expect(try mode(root + "/v/vault.sqlite") == 0o600)
        #expect(try mode(root + "/v") == 0o700 && mode(root + "/v/Photos") == 0o700)
        #expect(try Vault.identifier(at: root + "/v") == "vault-1")
        #expect { try Vault.open(at: root + "/v", keyStore: InMemoryKeyStore()) } throws: { $0.isVaultError(.masterKeyMissing, path: root + "/v") }
    }

    @Test("opening a vault while a rotation is half done never discards the pending wrappings")
    func openDuringRotation() throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = InMemoryKeyStore()
        let vault = try Vault.create(at: root + "/v", keyStore: store)
        try Data([7, 7, 7]).write(to: URL(fileURLWithPath: root + "/a.jpg"))
        let photo = try vault.add(fileAt: root + "/a.jpg", details: VaultPhotoDetails(format: "jpeg")).photo
        // Step 1 of a rotation by "another process": pending wrappings and key check.
        let newKey = SecretKey()
        _ = try Vault.open(at: root + "/v", keyStore: store).prepareRotation(to: newKey)
        // Someone opens the vault with the old key in between: it must keep the pending state...
        #expect(try Vault.open(at: root + "/v", keyStore: store).contents(of: photo.id) == [7, 7, 7])
        // ...so that when the rotator stores the new key, the vault still opens (and finishes the rotation).
        try store.saveMasterKey(newKey)
        #expect(try Vault.open(at: root + "/v", keyStore: store).contents(of: photo.id) == [7, 7, 7])
    }

    @Test("verify reports temporary files left by an interrupted add, and repair removes them")
    func leftovers() throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let vault = try Vault.create(at: root + "/v", keyStore: InMemoryKeyStore())
        try FileManager.default.createDirectory(atPath: root + "/v/Photos/2024/01", withIntermediateDirectories: true)
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: root + "/v/Photos/2024/01/.abc.encrypted.tmp-XYZ123"))
        #expect(try vault.verify().orphanFiles == ["Photos/2024/01/.abc.encrypted.tmp-XYZ123"])
        _ = try vault.verify(repair: true)
        #expect(try vault.verify().isHealthy)
    }
}
