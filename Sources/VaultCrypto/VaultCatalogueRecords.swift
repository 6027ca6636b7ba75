import Foundation
import GRDB
import MemoraDatabase

// The catalogue's tables, one record type each: its columns (`CodingKeys`, snake_case), its
// schema and migrations, and its queries. The public values (`VaultPhoto`, `VaultAlbum`) are
// converted at the edge, so GRDB stays out of the public API.

// MARK: - vault

/// The `vault` table's one row: the format, the vault's identifier and the master key's check.
struct VaultRecord: CatalogueRecord, Identifiable, Equatable {
    static let databaseTableName = "vault"

    /// Always 1: the table has one row.
    var id: Int64 = 1
    var formatVersion: Int
    /// The vault's identifier, readable without its key.
    var identifier: String
    /// A one-way value of the master key (see `Vault.keyCheck`).
    var keyCheck: Data
    /// The new master key's check during a rotation.
    var pendingKeyCheck: Data?
    var createdAt: Date
    /// The catalogue key wrapped under the master key (``CatalogueAuthenticator``); nil before
    /// format 2 (a catalogue migrated to v3 but not yet opened with its key).
    var catalogueKey: Data?
    /// The catalogue key wrapped under the new master key during a rotation.
    var pendingCatalogueKey: Data?
    /// The row's MAC (``CatalogueAuthenticator/mac(of:)-(VaultRecord)``); nil before format 2.
    var mac: Data?

    enum CodingKeys: String, CodingKey {
        case id, identifier, mac
        case formatVersion = "format_version", keyCheck = "key_check", pendingKeyCheck = "pending_key_check", createdAt = "created_at"
        case catalogueKey = "catalogue_key", pendingCatalogueKey = "pending_catalogue_key"
    }

    enum Columns {
        static let identifier = Column(CodingKeys.identifier)
        static let keyCheck = Column(CodingKeys.keyCheck)
        static let pendingKeyCheck = Column(CodingKeys.pendingKeyCheck)
        static let catalogueKey = Column(CodingKeys.catalogueKey)
        static let pendingCatalogueKey = Column(CodingKeys.pendingCatalogueKey)
    }

    /// The row, when the catalogue has one.
    static func current(_ db: Database) throws -> VaultRecord? { try fetchOne(db, id: 1) }

    /// Step 1 of a key rotation: the new key's check and the catalogue key wrapped under it, beside the current ones.
    static func setPendingRotation(keyCheck check: Data, catalogueKey: Data?, in db: Database) throws {
        try updateAll(db, Columns.pendingKeyCheck.set(to: check), Columns.pendingCatalogueKey.set(to: catalogueKey))
    }

    /// Step 3 of a key rotation: the pending check and catalogue key become the current ones.
    static func finishRotation(_ db: Database) throws {
        try filter(Columns.pendingKeyCheck != nil).updateAll(
            db, Columns.keyCheck.set(to: Columns.pendingKeyCheck), Columns.pendingKeyCheck.set(to: nil),
            Columns.catalogueKey.set(to: Columns.pendingCatalogueKey ?? Columns.catalogueKey), Columns.pendingCatalogueKey.set(to: nil))
    }

    /// Migration v3: the catalogue key and the row's MAC, empty until the vault is opened with its key.
    static func migrateToV3(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE vault ADD COLUMN catalogue_key BLOB;
            ALTER TABLE vault ADD COLUMN pending_catalogue_key BLOB;
            ALTER TABLE vault ADD COLUMN mac BLOB
            """)
    }

    /// Migration v1: camelCase columns, `createdAt` as GRDB's date text.
    static func createV1(_ db: Database) throws {
        try db.create(table: "vault") { table in
            table.primaryKey("id", .integer).check { $0 == 1 }
            table.column("formatVersion", .integer).notNull()
            table.column("identifier", .text).notNull()
            table.column("keyCheck", .blob).notNull()
            table.column("pendingKeyCheck", .blob)
            table.column("createdAt", .datetime).notNull()
        }
    }

    /// Migration v2: snake_case columns, `created_at` in milliseconds (`instant` converts v1's text).
    static func migrateToV2(_ db: Database, instant: String) throws {
        try rebuild(from: "vault", in: db) { name in
            """
            CREATE TABLE \(name) (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                format_version INTEGER NOT NULL,
                identifier TEXT NOT NULL,
                key_check BLOB NOT NULL,
                pending_key_check BLOB,
                created_at INTEGER NOT NULL);
            INSERT INTO \(name) (id, format_version, identifier, key_check, pending_key_check, created_at)
            SELECT id, formatVersion, identifier, keyCheck, pendingKeyCheck, \(instant)(createdAt) FROM vault
            """
        }
    }
}

// MARK: - photo

/// A row of `photo`: a ``VaultPhoto`` and, during a key rotation, its key wrapped under the new master key.
struct VaultPhotoRecord: CatalogueRecord, Identifiable, Equatable {
    static let databaseTableName = "photo"
    /// The albums the photo is in, through `album_photo`.
    static let albumEntries = hasMany(VaultAlbumPhotoRecord.self)

    var id: String
    var relativePath: String
    var wrappedKey: Data
    var pendingWrappedKey: Data?
    var originalSize: Int64
    var encryptedSize: Int64
    var originalFilename: String
    var format: String
    var width: Int?
    var height: Int?
    var takenAt: Date?
    var addedAt: Date
    /// A JSON array of strings in the column.
    var tags: [String]
    var isFavorite: Bool
    var isHidden: Bool
    var hasThumbnail: Bool
    /// The keyed hash of the plaintext (``CatalogueAuthenticator/contentHash(ofDigest:)``); nil
    /// for photos added before format 2.
    var contentHash: Data?
    /// The row's MAC (``CatalogueAuthenticator/mac(of:)-(VaultPhotoRecord)``); nil before format 2.
    var mac: Data?

    enum CodingKeys: String, CodingKey {
        case id, format, width, height, tags, mac
        case contentHash = "content_hash"
        case relativePath = "relative_path", wrappedKey = "wrapped_key", pendingWrappedKey = "pending_wrapped_key"
        case originalSize = "original_size", encryptedSize = "encrypted_size", originalFilename = "original_filename"
        case takenAt = "taken_at", addedAt = "added_at"
        case isFavorite = "is_favorite", isHidden = "is_hidden", hasThumbnail = "has_thumbnail"
    }

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let wrappedKey = Column(CodingKeys.wrappedKey)
        static let pendingWrappedKey = Column(CodingKeys.pendingWrappedKey)
        static let takenAt = Column(CodingKeys.takenAt)
        static let addedAt = Column(CodingKeys.addedAt)
        static let isHidden = Column(CodingKeys.isHidden)
        static let contentHash = Column(CodingKeys.contentHash)
        static let mac = Column(CodingKeys.mac)
    }

    /// The record of `photo` (with no pending wrapping) and its keyed content hash, not yet MACed.
    init(_ photo: VaultPhoto, contentHash: Data?) {
        self.contentHash = contentHash
        mac = nil
        (id, relativePath, wrappedKey, pendingWrappedKey) = (photo.id, photo.relativePath, photo.wrappedKey, nil)
        (originalSize, encryptedSize, originalFilename, format) = (photo.originalSize, photo.encryptedSize, photo.originalFilename, photo.format)
        (width, height, takenAt, addedAt, tags) = (photo.width, photo.height, photo.takenAt, photo.addedAt, photo.tags)
        (isFavorite, isHidden, hasThumbnail) = (photo.isFavorite, photo.isHidden, photo.hasThumbnail)
    }

    /// The public value.
    var photo: VaultPhoto {
        VaultPhoto(
            id: id, relativePath: relativePath, wrappedKey: wrappedKey, originalSize: originalSize, encryptedSize: encryptedSize,
            originalFilename: originalFilename, format: format, width: width, height: height, takenAt: takenAt, addedAt: addedAt,
            tags: tags, isFavorite: isFavorite, isHidden: isHidden, hasThumbnail: hasThumbnail)
    }

    /// Step 3 of a key rotation: every pending wrapping becomes the current one.
    static func finishRotation(_ db: Database) throws {
        try filter(Columns.pendingWrappedKey != nil)
            .updateAll(db, Columns.wrappedKey.set(to: Columns.pendingWrappedKey), Columns.pendingWrappedKey.set(to: nil))
    }

    /// Migration v3: the keyed content hash (unique, so a photo is stored once) and the row's MAC,
    /// empty until the vault is opened with its key.
    static func migrateToV3(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE photo ADD COLUMN content_hash BLOB;
            ALTER TABLE photo ADD COLUMN mac BLOB;
            CREATE UNIQUE INDEX photo_content_hash ON photo(content_hash) WHERE content_hash IS NOT NULL
            """)
    }

    /// Migration v1: camelCase columns, dates as GRDB's date text.
    static func createV1(_ db: Database) throws {
        try db.create(table: "photo") { table in
            table.primaryKey("id", .text)
            table.column("relativePath", .text).notNull().unique()
            table.column("wrappedKey", .blob).notNull()
            table.column("pendingWrappedKey", .blob)
            table.column("originalSize", .integer).notNull()
            table.column("encryptedSize", .integer).notNull()
            table.column("originalFilename", .text).notNull()
            table.column("format", .text).notNull()
            table.column("width", .integer)
            table.column("height", .integer)
            table.column("takenAt", .datetime)
            table.column("addedAt", .datetime).notNull()
            table.column("tags", .text).notNull()
            table.column("isFavorite", .boolean).notNull().defaults(to: false)
            table.column("isHidden", .boolean).notNull().defaults(to: false)
            table.column("hasThumbnail", .boolean).notNull().defaults(to: false)
        }
    }

    /// Migration v2: snake_case columns, `taken_at` and `added_at` in milliseconds (`instant` converts v1's text).
    static func migrateToV2(_ db: Database, instant: String) throws {
        try rebuild(from: "photo", in: db) { name in
            """
            CREATE TABLE \(name) (
                id TEXT PRIMARY KEY NOT NULL,
                relative_path TEXT NOT NULL UNIQUE,
                wrapped_key BLOB NOT NULL,
                pending_wrapped_key BLOB,
                original_size INTEGER NOT NULL,
                encrypted_size INTEGER NOT NULL,
                original_filename TEXT NOT NULL,
                format TEXT NOT NULL,
                width INTEGER,
                height INTEGER,
                taken_at INTEGER,
                added_at INTEGER NOT NULL,
                tags TEXT NOT NULL,            -- a JSON array of strings
                is_favorite BOOLEAN NOT NULL DEFAULT 0,
                is_hidden BOOLEAN NOT NULL DEFAULT 0,
                has_thumbnail BOOLEAN NOT NULL DEFAULT 0);
            INSERT INTO \(name) (id, relative_path, wrapped_key, pending_wrapped_key, original_size, encrypted_size, original_filename,
                                 format, width, height, taken_at, added_at, tags, is_favorite, is_hidden, has_thumbnail)
            SELECT id, relativePath, wrappedKey, pendingWrappedKey, originalSize, encryptedSize, originalFilename,
                   format, width, height, \(instant)(takenAt), \(instant)(addedAt), tags, isFavorite, isHidden, hasThumbnail FROM photo
            """
        }
    }
}

extension DerivableRequest<VaultPhotoRecord> {
    /// Newest first by date taken (the date added when it is unknown), then by id.
    func newestFirst() -> Self {
        order((VaultPhotoRecord.Columns.takenAt ?? VaultPhotoRecord.Columns.addedAt).desc, VaultPhotoRecord.Columns.id)
    }

    /// Without the hidden photos.
    func notHidden() -> Self {
        filter(VaultPhotoRecord.Columns.isHidden == false)
    }

    /// The photos in album `albumID`.
    func inAlbum(_ albumID: String) -> Self {
        joining(required: VaultPhotoRecord.albumEntries.filter(VaultAlbumPhotoRecord.Columns.albumID == albumID))
    }
}

// MARK: - album

/// A row of `album`: a ``VaultAlbum``.
struct VaultAlbumRecord: CatalogueRecord, Identifiable, Equatable {
    static let databaseTableName = "album"

    var id: String
    var name: String
    var createdAt: Date

    enum CodingKeys: String, CodingKey {
        case id, name
        case createdAt = "created_at"
    }

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let name = Column(CodingKeys.name)
    }

    /// The record of `album`.
    init(_ album: VaultAlbum) {
        (id, name, createdAt) = (album.id, album.name, album.createdAt)
    }

    /// The public value.
    var album: VaultAlbum { VaultAlbum(id: id, name: name, createdAt: createdAt) }

    /// Migration v1: camelCase columns, `createdAt` as GRDB's date text.
    static func createV1(_ db: Database) throws {
        try db.create(table: "album") { table in
            table.primaryKey("id", .text)
            table.column("name", .text).notNull()
            table.column("createdAt", .datetime).notNull()
        }
    }

    /// Migration v2: `created_at` in milliseconds (`instant` converts v1's text).
    static func migrateToV2(_ db: Database, instant: String) throws {
        try rebuild(from: "album", in: db) { name in
            """
            CREATE TABLE \(name) (id TEXT PRIMARY KEY NOT NULL, name TEXT NOT NULL, created_at INTEGER NOT NULL);
            INSERT INTO \(name) (id, name, created_at) SELECT id, name, \(instant)(createdAt) FROM album
            """
        }
    }
}

// MARK: - album_photo

/// A row of `album_photo` (v1's `albumPhoto`): photo `photoID` is in album `albumID`.
struct VaultAlbumPhotoRecord: CatalogueRecord, Equatable {
    static let databaseTableName = "album_photo"

    var albumID: String
    var photoID: String

    enum CodingKeys: String, CodingKey {
        case albumID = "album_id", photoID = "photo_id"
    }

    enum Columns {
        static let albumID = Column(CodingKeys.albumID)
    }

    /// Migration v1: the table `albumPhoto`.
    static func createV1(_ db: Database) throws {
        try db.create(table: "albumPhoto") { table in
            table.column("albumId", .text).notNull().references("album", onDelete: .cascade)
            table.column("photoId", .text).notNull().references("photo", onDelete: .cascade)
            table.primaryKey(["albumId", "photoId"])
        }
    }

    /// Migration v2: `albumPhoto` becomes `album_photo`, with snake_case columns.
    static func migrateToV2(_ db: Database) throws {
        try rebuild(from: "albumPhoto", in: db) { name in
            """
            CREATE TABLE \(name) (
                album_id TEXT NOT NULL REFERENCES album(id) ON DELETE CASCADE,
                photo_id TEXT NOT NULL REFERENCES photo(id) ON DELETE CASCADE,
                PRIMARY KEY (album_id, photo_id));
            INSERT INTO \(name) (album_id, photo_id) SELECT albumId, photoId FROM albumPhoto
            """
        }
    }
}
