import Foundation
import GRDB

/// The vault's SQLite catalogue (GRDB). One write transaction per state change.
struct VaultCatalogue: Sendable {
    let database: DatabaseQueue

    init(path: String) throws(VaultCryptoError) {
        do {
            var configuration = Configuration()
            configuration.foreignKeysEnabled = true
            // Deleted rows (wrapped keys of removed photos) are overwritten, not left in free pages.
            configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA secure_delete = ON") }
            database = try DatabaseQueue(path: path, configuration: configuration)
            try Self.migrator.migrate(database)
        } catch {
            throw VaultCatalogue.failure(error, path: path)
        }
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "vault") { table in
                table.primaryKey("id", .integer).check { $0 == 1 }
                table.column("formatVersion", .integer).notNull()
                table.column("identifier", .text).notNull()
                table.column("keyCheck", .blob).notNull()
                table.column("pendingKeyCheck", .blob)
                table.column("createdAt", .datetime).notNull()
            }
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
            try db.create(table: "album") { table in
                table.primaryKey("id", .text)
                table.column("name", .text).notNull()
                table.column("createdAt", .datetime).notNull()
            }
            try db.create(table: "albumPhoto") { table in
                table.column("albumId", .text).notNull().references("album", onDelete: .cascade)
                table.column("photoId", .text).notNull().references("photo", onDelete: .cascade)
                table.primaryKey(["albumId", "photoId"])
            }
        }
        return migrator
    }

    /// Runs a read or write, mapping GRDB errors to `catalogueFailed`.
    func write<T>(_ body: (Database) throws -> T) throws(VaultCryptoError) -> T {
        do { return try database.write(body) } catch let error as VaultCryptoError { throw error } catch {
            throw Self.failure(error, path: database.path)
        }
    }

    func read<T>(_ body: (Database) throws -> T) throws(VaultCryptoError) -> T {
        do { return try database.read(body) } catch let error as VaultCryptoError { throw error } catch {
            throw Self.failure(error, path: database.path)
        }
    }

    /// `catalogueFailed` for a GRDB or SQLite error; retrying can help when the database was
    /// busy or locked by another connection. SQLite does not pass on the system's error number.
    private static func failure(_ error: any Error, path: String) -> VaultCryptoError {
        let resultCode = (error as? DatabaseError)?.resultCode
        let busy = resultCode == ResultCode.SQLITE_BUSY || resultCode == ResultCode.SQLITE_LOCKED
        return .catalogueFailed(path: path, reason: "\(error)", systemCode: nil, isRetryable: busy)
    }

    static func photo(from row: Row) throws -> VaultPhoto {
        let tagsText: String = row["tags"]
        let tags = (try? JSONDecoder().decode([String].self, from: Data(tagsText.utf8))) ?? []
        return VaultPhoto(
            id: row["id"], relativePath: row["relativePath"], wrappedKey: row["wrappedKey"],
            originalSize: row["originalSize"], encryptedSize: row["encryptedSize"],
            originalFilename: row["originalFilename"], format: row["format"], width: row["width"], height: row["height"],
            takenAt: row["takenAt"], addedAt: row["addedAt"], tags: tags,
            isFavorite: row["isFavorite"], isHidden: row["isHidden"], hasThumbnail: row["hasThumbnail"])
    }

    static func insert(_ photo: VaultPhoto, into db: Database) throws {
        let tags = String(decoding: try JSONEncoder().encode(photo.tags), as: UTF8.self)
        try db.execute(
            sql: """
                INSERT INTO photo (id, relativePath, wrappedKey, originalSize, encryptedSize, originalFilename, format,
                                   width, height, takenAt, addedAt, tags, isFavorite, isHidden, hasThumbnail)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                photo.id, photo.relativePath, photo.wrappedKey, photo.originalSize, photo.encryptedSize,
                photo.originalFilename, photo.format, photo.width, photo.height, photo.takenAt, photo.addedAt,
                tags, photo.isFavorite, photo.isHidden, photo.hasThumbnail,
            ])
    }
}
