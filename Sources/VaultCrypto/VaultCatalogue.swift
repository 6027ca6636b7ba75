import Foundation
import GRDB
import MemoraDatabase

/// The vault's SQLite catalogue (GRDB). One write transaction per state change.
///
/// Each table has its record type, which holds the table's schema, its migrations and its
/// queries (`VaultCatalogueRecords.swift`): ``VaultRecord`` (`vault`), ``VaultPhotoRecord``
/// (`photo`), ``VaultAlbumRecord`` (`album`) and ``VaultAlbumPhotoRecord`` (`album_photo`).
/// Columns are snake_case and every instant is an INTEGER of milliseconds since 1970 UTC
/// (Docs/Architecture.md, "Databases").
struct VaultCatalogue: Sendable {
    let database: DatabaseQueue

    init(path: String) throws(VaultCryptoError) {
        do {
            // A rollback journal, not WAL: deleted rows (wrapped keys of removed photos) are overwritten
            // (secure_delete), and no -wal file keeps them until a checkpoint.
            database = try DatabasePolicy.openQueue(at: path, migrator: Self.migrator)
        } catch is DatabaseTooNew {
            throw VaultCryptoError.vaultTooNew(path: path, version: nil)  // a newer Memora's catalogue is not touched
        } catch {
            throw VaultCatalogue.failure(error, path: path)
        }
    }

    /// The catalogue's migrations, oldest first. A migration never changes once released: a
    /// change to a table is a new migration, registered last, that converts the rows in place.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try VaultRecord.createV1(db)
            try VaultPhotoRecord.createV1(db)
            try VaultAlbumRecord.createV1(db)
            try VaultAlbumPhotoRecord.createV1(db)
        }
        // v2: snake_case columns (`albumPhoto` becomes `album_photo`) and instants as INTEGER
        // milliseconds instead of GRDB's default date text. Every table is rebuilt with its rows.
        migrator.registerMigration("v2: snake_case columns, instants in milliseconds") { db in
            let instant = v1Instant
            db.add(function: instant)
            defer { db.remove(function: instant) }
            try VaultRecord.migrateToV2(db, instant: instant.name)
            try VaultPhotoRecord.migrateToV2(db, instant: instant.name)
            try VaultAlbumRecord.migrateToV2(db, instant: instant.name)
            try VaultAlbumPhotoRecord.migrateToV2(db)
        }
        // v3: the catalogue key, the rows' MACs and keyed content hashes. The keyed values need
        // the master key, so `Vault.open` fills them (format version 2), not the migration.
        migrator.registerMigration("v3: catalogue key, MACs and content hashes") { db in
            try VaultRecord.migrateToV3(db)
            try VaultPhotoRecord.migrateToV3(db)
        }
        return migrator
    }

    /// For migration v2: the SQL function that turns a v1 instant (GRDB's default `Date` storage,
    /// "yyyy-MM-dd HH:mm:ss.SSS" text in UTC) into milliseconds since 1970, reading it as v1 read
    /// it. NULL stays NULL; a value v1 could not read either stops the migration, which then
    /// leaves the catalogue as it was.
    private static var v1Instant: DatabaseFunction {
        DatabaseFunction("memora_v1_instant", argumentCount: 1, pure: true) { values in
            guard !values[0].isNull else { return nil }
            guard let date = Date.fromDatabaseValue(values[0]) else {
                throw DatabaseError(resultCode: .SQLITE_MISMATCH, message: "not a v1 catalogue date: \(values[0])")
            }
            return VaultRecord.milliseconds(date)
        }
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

    /// `catalogueFailed` for a GRDB or SQLite error: SQLite's own message, not GRDB's description
    /// (which quotes the SQL and its arguments); retrying can help when the database was busy or
    /// locked by another connection, or a system call failed transiently.
    private static func failure(_ error: any Error, path: String) -> VaultCryptoError {
        let failure = DatabaseFailure(error)
        return .catalogueFailed(path: path, reason: failure.reason, systemCode: failure.systemCode, isRetryable: failure.isRetryable)
    }
}

/// A record of the vault catalogue: one `Codable` type per table, its snake_case columns named
/// by its `CodingKeys`, every `Date` stored as an INTEGER of milliseconds since 1970 UTC
/// (MemoraDatabase's `MillisecondRecord`, which also gives the table rebuild migrations use).
protocol CatalogueRecord: MillisecondRecord {}
