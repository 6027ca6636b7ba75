import Foundation
import GRDB
import MemoraSystem
import Testing
@testable import VaultCrypto
import TestSupport

/// A vault whose folder someone else could edit (a synced or shared folder): the catalogue is
/// authenticated, and the vault never reads, writes or deletes a file outside its folder.
@Suite("A vault changed outside Memora")
struct VaultTamperingTests {
    /// A vault in `root/v` holding one photo (with a thumbnail), and a file `root/precious.txt` beside it.
    struct Fixture {
        let root: String
        let store = InMemoryKeyStore()
        let vault: Vault
        let photo: VaultPhoto
        var folder: String { root + "/v" }
        var precious: String { root + "/precious.txt" }

        init() throws {
            root = try temporaryFolder()
            vault = try Vault.create(at: root + "/v", keyStore: store, cipher: try LOCACipher(chunkExponent: 12))
            photo = try vault.add(
                contents: Array(repeating: 42, count: 5000), originalFilename: "a.jpg",
                details: VaultPhotoDetails(format: "jpeg", thumbnail: [1, 2, 3])).photo
            try Data("do not touch".utf8).write(to: URL(fileURLWithPath: precious))
        }

        /// Runs `sql` on the catalogue directly, as anyone who can write the folder could.
        func tamper(_ sql: String, _ arguments: StatementArguments = []) throws {
            try DatabaseQueue(path: folder + "/vault.sqlite").write { db in try db.execute(sql: sql, arguments: arguments) }
        }

        func bytes(_ path: String) -> [UInt8]? { FileManager.default.contents(atPath: path).map { [UInt8]($0) } }

        func remove() { try? FileManager.default.removeItem(atPath: root) }
    }

    @Test("a photo row whose path leads out of the vault is refused: remove and export touch nothing")
    func pathOutsideVault() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        try fixture.tamper("UPDATE photo SET relative_path = '../precious.txt'")
        let vault = try Vault.open(at: fixture.folder, keyStore: fixture.store)
        #expect { try vault.remove(fixture.photo.id) } throws: { $0.isVaultError(.catalogueTampered, mentioning: "outside the vault") }
        #expect { try vault.contents(of: fixture.photo.id) } throws: { $0.isVaultError(.catalogueTampered) }
        #expect(fixture.bytes(fixture.precious) == Array("do not touch".utf8))
        let report = try vault.verify(repair: true)
        #expect(report.tamperedRecords == [fixture.photo.id] && !report.isHealthyNow, "the id as stored, not quoted twice")
        #expect(fixture.bytes(fixture.precious) == Array("do not touch".utf8))
        #expect(fixture.bytes(fixture.folder + "/" + fixture.photo.relativePath) != nil, "the record's real file is kept")
    }

    @Test("an id of ../../victim never reaches the file system: victim.thumb beside the vault survives")
    func idOutsideVault() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        try Data("victim".utf8).write(to: URL(fileURLWithPath: fixture.root + "/victim.thumb"))
        try fixture.tamper("UPDATE photo SET id = '../../victim'")
        let vault = try Vault.open(at: fixture.folder, keyStore: fixture.store)
        #expect { try vault.remove("../../victim") } throws: { $0.isVaultError(.notFound) }
        #expect { try vault.photos() } throws: { $0.isVaultError(.catalogueTampered, mentioning: "../../victim") }
        let report = try vault.verify(repair: true)
        #expect(report.tamperedRecords == ["../../victim"] && !report.isHealthyNow)
        #expect(fixture.bytes(fixture.root + "/victim.thumb") == Array("victim".utf8))
    }

    @Test("a changed size, flag or name fails the row's MAC; verify reports it and a repair keeps its file")
    func changedFieldsFailTheMAC() throws {
        for change in ["encrypted_size = encrypted_size + 1", "original_size = 1", "has_thumbnail = 0", "original_filename = 'b.jpg'"] {
            let fixture = try Fixture()
            defer { fixture.remove() }
            try fixture.tamper("UPDATE photo SET \(change)")
            let vault = try Vault.open(at: fixture.folder, keyStore: fixture.store)
            #expect { try vault.photo(id: fixture.photo.id) } throws: { $0.isVaultError(.catalogueTampered, mentioning: "MAC") }
            let report = try vault.verify(repair: true)
            #expect(report.tamperedRecords.count == 1 && !report.isHealthyNow, "\(change)")
            // A listing shows the other photos and names the tampered one apart.
            let second = try vault.add(contents: Array(repeating: 7, count: 100), originalFilename: "second.jpg", details: VaultPhotoDetails(format: "jpeg")).photo
            let listing = try vault.listing()
            #expect(listing.photos.map(\.id) == [second.id] && listing.tamperedRecords == [fixture.photo.id], "\(change)")
            #expect(fixture.bytes(fixture.folder + "/" + fixture.photo.relativePath) != nil, "\(change): the file is kept")
        }
    }

    @Test("a row copied in from another vault, or a vault row changed, is refused")
    func foreignRows() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let other = try Fixture()
        defer { other.remove() }
        let row = try DatabaseQueue(path: other.folder + "/vault.sqlite").read { db in try Row.fetchOne(db, sql: "SELECT * FROM photo") }
        let columns = try #require(row).columnNames.joined(separator: ", ")
        try fixture.tamper("INSERT INTO photo (\(columns)) VALUES (\(Array(repeating: "?", count: row!.count).joined(separator: ", ")))",
                           StatementArguments(Array(row!.databaseValues)))
        #expect { try fixture.vault.photo(id: other.photo.id) } throws: { $0.isVaultError(.catalogueTampered) }
        try fixture.tamper("UPDATE vault SET identifier = 'someone-else'")
        #expect { try Vault.open(at: fixture.folder, keyStore: fixture.store) } throws: { $0.isVaultError(.catalogueTampered) }
    }

    @Test("a vault file replaced by a symbolic link to a file outside is not followed")
    func symbolicLinkOut() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let file = fixture.folder + "/" + fixture.photo.relativePath
        try FileManager.default.removeItem(atPath: file)
        try FileManager.default.createSymbolicLink(atPath: file, withDestinationPath: fixture.precious)
        #expect { try fixture.vault.remove(fixture.photo.id) } throws: { $0.isVaultError(.catalogueTampered, mentioning: "symbolic link") }
        #expect(fixture.bytes(fixture.precious) == Array("do not touch".utf8))
        // The Photos folder itself a link to another folder: nothing is read or written there.
        try FileManager.default.removeItem(atPath: fixture.folder + "/Photos")
        try FileManager.default.createDirectory(atPath: fixture.root + "/elsewhere", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: fixture.folder + "/Photos", withDestinationPath: fixture.root + "/elsewhere")
        #expect { try fixture.vault.add(contents: [9], originalFilename: "c.jpg", details: VaultPhotoDetails(format: "jpeg")) } throws: {
            $0.isVaultError(.catalogueTampered)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.root + "/elsewhere").isEmpty)
    }

    @Test("a vault of a newer format, or with a newer catalogue migration, is refused with a request to upgrade Memora")
    func newerVault() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        try fixture.tamper("UPDATE vault SET format_version = 3")
        #expect { try Vault.open(at: fixture.folder, keyStore: fixture.store) } throws: { $0.isVaultError(.vaultTooNew, mentioning: "upgrade Memora") }
        try fixture.tamper("UPDATE vault SET format_version = 2; INSERT INTO grdb_migrations VALUES ('v9: from the future')")
        #expect { try Vault.identifier(at: fixture.folder) } throws: { $0.isVaultError(.vaultTooNew, mentioning: "upgrade Memora") }
        #expect { try Vault.open(at: fixture.folder, keyStore: fixture.store) } throws: { $0.isVaultError(.vaultTooNew) }
    }

    @Test("setting an authenticated catalogue back to format 1, to have it re-MACed, fails the key check")
    func downgrade() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        try fixture.tamper("UPDATE vault SET format_version = 1, catalogue_key = NULL, mac = NULL; UPDATE photo SET mac = NULL, original_size = 1")
        #expect { try Vault.open(at: fixture.folder, keyStore: fixture.store) } throws: { $0.isVaultError(.wrongMasterKey) }
    }

    @Test("export and share refuse an output inside the vault folder, even through a link, and replace a file only when asked")
    func outputs() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let catalogue = try #require(fixture.bytes(fixture.folder + "/vault.sqlite"))
        #expect { try fixture.vault.export(fixture.photo.id, to: fixture.folder + "/vault.sqlite", replacingExisting: true) } throws: {
            $0.isVaultError(.outputInsideVault)
        }
        try FileManager.default.createSymbolicLink(atPath: fixture.root + "/link", withDestinationPath: fixture.folder)
        #expect { try fixture.vault.export(fixture.photo.id, to: fixture.root + "/link/Photos/new.jpg") } throws: {
            $0.isVaultError(.outputInsideVault)
        }
        let identity = SharingIdentity(seed: SecretKey())
        #expect { try fixture.vault.share(fixture.photo.id, from: identity, to: .identity(identity.publicKey), writingTo: fixture.folder + "/x.locaphoto") } throws: {
            $0.isVaultError(.outputInsideVault)
        }
        #expect(fixture.bytes(fixture.folder + "/vault.sqlite") == catalogue)
        #expect(!FileManager.default.fileExists(atPath: fixture.folder + "/Photos/new.jpg"))

        #expect { try fixture.vault.export(fixture.photo.id, to: fixture.precious) } throws: { $0.isVaultError(.outputExists, path: fixture.precious) }
        #expect(fixture.bytes(fixture.precious) == Array("do not touch".utf8))
        try fixture.vault.export(fixture.photo.id, to: fixture.precious, replacingExisting: true)
        #expect(fixture.bytes(fixture.precious) == Array(repeating: 42, count: 5000))
    }

    @Test("opening the vault removes the temporary files of interrupted adds, and nothing else")
    func temporaryFilesRemovedOnOpen() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let id = UUID().uuidString.lowercased()
        let month = fixture.folder + "/Photos/2024/01"
        try FileManager.default.createDirectory(atPath: month, withIntermediateDirectories: true)
        let leftovers = [month + "/.\(id).encrypted.tmp-Ab12Cd", month + "/.\(id).encrypted.memora-XyZ123",
                         fixture.folder + "/Thumbnails/.\(id).thumb.memora-abcdef"]
        let others = [month + "/.notes.txt", month + "/.\(id).encrypted.tmp-TOOLONG1", month + "/.abc.encrypted.tmp-XYZ123",
                      fixture.folder + "/.\(id).encrypted.tmp-Ab12Cd", fixture.root + "/.\(id).encrypted.tmp-Ab12Cd"]
        for path in leftovers + others { try Data([1, 2, 3]).write(to: URL(fileURLWithPath: path)) }
        // A link with a temporary file's name is not ours: it stays, and so does its target.
        try FileManager.default.createSymbolicLink(atPath: month + "/.\(id).encrypted.tmp-Link00", withDestinationPath: fixture.precious)

        _ = try Vault.open(at: fixture.folder, keyStore: fixture.store)
        #expect(leftovers.allSatisfy { !FileManager.default.fileExists(atPath: $0) })
        #expect(others.allSatisfy { FileManager.default.fileExists(atPath: $0) })
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: month + "/.\(id).encrypted.tmp-Link00")) == fixture.precious)
        #expect(fixture.bytes(fixture.precious) == Array("do not touch".utf8))
    }

    @Test("adding the same photo again finds it by its keyed content hash and returns the existing record")
    func duplicates() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let source = fixture.root + "/IMG_1.jpg"
        try Data(Array(repeating: 7, count: 9000)).write(to: URL(fileURLWithPath: source))
        let first = try fixture.vault.add(fileAt: source, details: VaultPhotoDetails(format: "jpeg"))
        let second = try fixture.vault.add(fileAt: source, details: VaultPhotoDetails(format: "jpeg"))
        let inMemory = try fixture.vault.add(contents: Array(repeating: 7, count: 9000), originalFilename: "copy.jpg", details: VaultPhotoDetails(format: "jpeg"))
        #expect(!first.wasAlreadyStored && second.wasAlreadyStored && inMemory.wasAlreadyStored)
        #expect(second.photo.id == first.photo.id && inMemory.photo.id == first.photo.id)
        #expect(try fixture.vault.photos().count == 2)
        let encrypted = FileManager.default.enumerator(atPath: fixture.folder + "/Photos")?.allObjects.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".encrypted") || $0.contains(".memora-") } ?? []
        #expect(encrypted.count == 2, "\(encrypted)")
        // The catalogue holds a keyed hash, not the plain SHA-256 of the photo.
        let stored = try DatabaseQueue(path: fixture.folder + "/vault.sqlite").read { db in
            try Data.fetchOne(db, sql: "SELECT content_hash FROM photo WHERE id = ?", arguments: [first.photo.id])
        }
        let plain = SHA256Digest.hash(Array(repeating: 7, count: 9000))
        #expect(stored?.count == 32 && stored != Data(plain))
    }

    @Test("a repair never deletes a ciphertext that a record names by its id, even when the record's path was changed")
    func repairKeepsNeededFiles() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        try fixture.tamper("UPDATE photo SET relative_path = ?", ["Photos/1999/01/\(fixture.photo.id).encrypted"])
        let vault = try Vault.open(at: fixture.folder, keyStore: fixture.store)
        let report = try vault.verify(repair: true)
        #expect(report.orphanFiles.isEmpty && !report.isHealthyNow)
        #expect(fixture.bytes(fixture.folder + "/" + fixture.photo.relativePath) != nil)
        #expect(fixture.bytes(fixture.folder + "/Thumbnails/\(fixture.photo.id).thumb") != nil)
    }
}
