import Foundation
import GRDB
import Testing
@testable import VaultCrypto
import TestSupport

/// The catalogue as migration v1 made it (the schema of a vault created before v2, as SQLite
/// keeps it), with GRDB's default date text in the date columns.
private let v1Schema = """
    CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
    INSERT INTO grdb_migrations VALUES ('v1');
    CREATE TABLE "vault" ("id" INTEGER PRIMARY KEY CHECK ("id" = 1), "formatVersion" INTEGER NOT NULL, "identifier" TEXT NOT NULL,
        "keyCheck" BLOB NOT NULL, "pendingKeyCheck" BLOB, "createdAt" DATETIME NOT NULL);
    CREATE TABLE "photo" ("id" TEXT PRIMARY KEY NOT NULL, "relativePath" TEXT NOT NULL UNIQUE, "wrappedKey" BLOB NOT NULL,
        "pendingWrappedKey" BLOB, "originalSize" INTEGER NOT NULL, "encryptedSize" INTEGER NOT NULL, "originalFilename" TEXT NOT NULL,
        "format" TEXT NOT NULL, "width" INTEGER, "height" INTEGER, "takenAt" DATETIME, "addedAt" DATETIME NOT NULL, "tags" TEXT NOT NULL,
        "isFavorite" BOOLEAN NOT NULL DEFAULT 0, "isHidden" BOOLEAN NOT NULL DEFAULT 0, "hasThumbnail" BOOLEAN NOT NULL DEFAULT 0);
    CREATE TABLE "album" ("id" TEXT PRIMARY KEY NOT NULL, "name" TEXT NOT NULL, "createdAt" DATETIME NOT NULL);
    CREATE TABLE "albumPhoto" ("albumId" TEXT NOT NULL REFERENCES "album"("id") ON DELETE CASCADE,
        "photoId" TEXT NOT NULL REFERENCES "photo"("id") ON DELETE CASCADE, PRIMARY KEY ("albumId", "photoId"));
    """

/// The id of the v1 fixture's photo `index` (a lowercase UUID, as every vault made them).
private func photoID(_ index: Int) -> String { "00000000-0000-4000-8000-00000000000\(index)" }

/// A date a whole number of milliseconds after 1970.
private func instant(_ milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }

/// The key check `Vault` stores for `key`.
private func keyCheck(_ key: SecretKey) -> Data {
    Data(key.withUnsafeBytes { HKDF.deriveKey(inputKeyMaterial: $0, salt: [], info: Array("LOCA v1 vault key check".utf8), length: 32) })
}

@Suite("The vault catalogue's schema")
struct CatalogueMigrationTests {
    /// A v1 vault in `root/v` with three photos (one hidden, one with a pending wrapping) and
    /// an album, and the key store that opens it.
    func makeV1Vault(in root: String) throws -> InMemoryKeyStore {
        let store = InMemoryKeyStore()
        let master = try store.loadOrCreateMasterKey()
        let wrapper = PhotoKeyWrapper(masterKey: master)
        try FileManager.default.createDirectory(atPath: root + "/v/Photos", withIntermediateDirectories: true)
        let old = try DatabaseQueue(path: root + "/v/vault.sqlite")
        try old.write { db in
            try db.execute(sql: v1Schema)
            // Dates as v1 wrote them: GRDB's text for a `Date` argument, or that text itself.
            try db.execute(sql: "INSERT INTO vault VALUES (1, 1, 'old-vault', ?, NULL, ?)", arguments: [keyCheck(master), instant(1_600_000_000_500)])
            for (index, (taken, added)) in [(nil, "2023-11-14 22:13:20.123"), ("2001-09-09 01:46:40.999", "2024-02-29 23:59:59.000"),
                                             ("1969-12-31 23:59:59.500", "2024-03-01 00:00:00.001")].enumerated() {
                let id = photoID(index)
                try db.execute(sql: """
                    INSERT INTO photo VALUES (?, ?, ?, ?, ?, ?, ?, 'jpeg', ?, NULL, ?, ?, ?, ?, ?, ?)
                    """, arguments: [id, "Photos/2024/01/\(id).encrypted", Data(wrapper.wrap(SecretKey(), photoID: id)),
                                     index == 1 ? Data([9, 9]) : nil, 100 + index, 200 + index, "IMG_\(index).jpg", index == 0 ? 4000 : nil,
                                     taken, added, index == 2 ? #"["a","b/c"]"# : "[]", index == 1, index == 2, index == 0])
            }
            try db.execute(sql: "INSERT INTO album VALUES ('album-1', 'Summer', ?)", arguments: [instant(1_650_000_000_250)])
            try db.execute(sql: "INSERT INTO albumPhoto VALUES ('album-1', '00000000-0000-4000-8000-000000000001'), ('album-1', '00000000-0000-4000-8000-000000000002')")
        }
        return store
    }

    @Test("a v1 catalogue is migrated in place: snake_case columns, the same instants in milliseconds, no row lost")
    func v1Migrated() throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = try makeV1Vault(in: root)

        let vault = try Vault.open(at: root + "/v", keyStore: store)
        #expect(try Vault.identifier(at: root + "/v") == "old-vault")
        let photos = try vault.photos(includeHidden: true)
        #expect(photos.map(\.id) == [photoID(0), photoID(1), photoID(2)], "newest first by date taken, else date added")
        let byID = Dictionary(uniqueKeysWithValues: photos.map { ($0.id, $0) })
        #expect(byID[photoID(0)]?.takenAt == nil && byID[photoID(0)]?.addedAt == instant(1_700_000_000_123))
        #expect(byID[photoID(1)]?.takenAt == instant(1_000_000_000_999) && byID[photoID(1)]?.addedAt == instant(1_709_251_199_000))
        #expect(byID[photoID(2)]?.takenAt == instant(-500) && byID[photoID(2)]?.addedAt == instant(1_709_251_200_001))
        #expect(byID[photoID(0)]?.width == 4000 && byID[photoID(0)]?.hasThumbnail == true && byID[photoID(0)]?.originalFilename == "IMG_0.jpg")
        #expect(byID[photoID(1)]?.isFavorite == true && byID[photoID(2)]?.isHidden == true && byID[photoID(2)]?.tags == ["a", "b/c"])
        #expect(try vault.photos().map(\.id) == [photoID(0), photoID(1)])
        #expect(try vault.albums() == [VaultAlbum(id: "album-1", name: "Summer", createdAt: instant(1_650_000_000_250))])
        #expect(Set(try vault.photos(inAlbum: "album-1").map(\.id)) == [photoID(1), photoID(2)])

        // The file itself: every instant an INTEGER, the old tables gone, the rotation state kept.
        let reopened = try DatabaseQueue(path: root + "/v/vault.sqlite")
        try reopened.read { db throws in
            #expect(try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier")
                == ["v1", "v2: snake_case columns, instants in milliseconds", "v3: catalogue key, MACs and content hashes"])
            #expect(try db.tableExists("album_photo") && !db.tableExists("albumPhoto"))
            #expect(try db.columns(in: "photo").map(\.name) == [
                "id", "relative_path", "wrapped_key", "pending_wrapped_key", "original_size", "encrypted_size", "original_filename",
                "format", "width", "height", "taken_at", "added_at", "tags", "is_favorite", "is_hidden", "has_thumbnail", "content_hash", "mac",
            ])
            #expect(try db.columns(in: "vault").map(\.name) == [
                "id", "format_version", "identifier", "key_check", "pending_key_check", "created_at", "catalogue_key", "pending_catalogue_key", "mac",
            ])
            // Opened with its key, the vault was upgraded to format 2: a catalogue key and a MAC on every row.
            #expect(try Int.fetchOne(db, sql: "SELECT format_version FROM vault") == Vault.currentFormatVersion)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM vault WHERE catalogue_key IS NOT NULL AND mac IS NOT NULL") == 1)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM photo WHERE length(mac) = 32") == 3)
            #expect(try String.fetchOne(db, sql: "SELECT typeof(created_at) FROM vault") == "integer")
            #expect(try Int64.fetchOne(db, sql: "SELECT created_at FROM vault") == 1_600_000_000_500)
            #expect(try Int64.fetchAll(db, sql: "SELECT added_at FROM photo ORDER BY id") == [1_700_000_000_123, 1_709_251_199_000, 1_709_251_200_001])
            #expect(try Int64?.fetchAll(db, sql: "SELECT taken_at FROM photo ORDER BY id") == [nil, 1_000_000_000_999, -500])
            #expect(try Data?.fetchAll(db, sql: "SELECT pending_wrapped_key FROM photo ORDER BY id") == [nil, Data([9, 9]), nil])
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM album_photo") == 2)
            #expect(try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").isEmpty)
        }
        // The foreign keys still cascade.
        try vault.remove(photoID(1))
        #expect(try vault.photos(inAlbum: "album-1").map(\.id) == [photoID(2)])
    }

    @Test("a v1 date v1 could not read either stops the migration, and the catalogue stays as it was")
    func unreadableDate() throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = try makeV1Vault(in: root)
        let old = try DatabaseQueue(path: root + "/v/vault.sqlite")
        try old.write { db in try db.execute(sql: "UPDATE photo SET addedAt = 'last Tuesday' WHERE id = '00000000-0000-4000-8000-000000000001'") }

        #expect { try Vault.open(at: root + "/v", keyStore: store) } throws: { $0.isVaultError(.catalogueFailed, mentioning: "last Tuesday") }
        try old.read { db throws in
            #expect(try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations") == ["v1"])
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM photo") == 3 && db.tableExists("albumPhoto"))
            #expect(try String.fetchOne(db, sql: "SELECT addedAt FROM photo WHERE id = '00000000-0000-4000-8000-000000000000'") == "2023-11-14 22:13:20.123")
        }
    }

    @Test("a new catalogue round-trips every field, instants to the millisecond")
    func roundTrip() throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = InMemoryKeyStore()
        let vault = try Vault.create(at: root + "/v", keyStore: store, identifier: "new-vault")
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: root + "/a.jpg"))
        let taken = instant(1_700_000_000_123)
        let added = try vault.add(fileAt: root + "/a.jpg", details: VaultPhotoDetails(
            format: "heic", width: 3, height: 2, takenAt: taken, tags: ["x", "ü"], thumbnail: [4])).photo
        try vault.update(added.id, favorite: true, hidden: true)
        let album = try vault.createAlbum(named: "Trip")
        try vault.add(photo: added.id, toAlbum: album.id)

        let reopened = try Vault.open(at: root + "/v", keyStore: store)
        var expected = added
        (expected.isFavorite, expected.isHidden) = (true, true)
        expected.addedAt = instant(VaultRecord.milliseconds(added.addedAt))
        #expect(try reopened.photos(includeHidden: true) == [expected])
        #expect(try reopened.photos(inAlbum: album.id) == [expected])
        #expect(try reopened.albums().map(\.createdAt) == [instant(VaultRecord.milliseconds(album.createdAt))])
        #expect(try reopened.contents(of: added.id) == [1, 2, 3] && reopened.thumbnail(of: added.id) == [4])
        try DatabaseQueue(path: root + "/v/vault.sqlite").read { db throws in
            #expect(try String.fetchOne(db, sql: "SELECT typeof(taken_at) || ' ' || taken_at FROM photo") == "integer 1700000000123")
            #expect(try String.fetchOne(db, sql: "SELECT tags FROM photo") == #"["x","ü"]"#)
        }
    }
}
