import Foundation
import GRDB
internal import MemoraSystem

// Albums of the vault's photos.
extension Vault {
    /// Creates an album.
    @discardableResult
    public func createAlbum(named name: String) throws(VaultCryptoError) -> VaultAlbum {
        let album = VaultAlbum(id: UUID().uuidString.lowercased(), name: name, createdAt: clock.now())
        try catalogue.write { db in try VaultAlbumRecord(album).insert(db) }
        return album
    }

    /// Every album, by name.
    public func albums() throws(VaultCryptoError) -> [VaultAlbum] {
        try catalogue.read { db in
            try VaultAlbumRecord.order(VaultAlbumRecord.Columns.name, VaultAlbumRecord.Columns.id).fetchAll(db).map(\.album)
        }
    }

    /// Puts photo `photoID` in album `albumID` (no effect if it is already there).
    public func add(photo photoID: String, toAlbum albumID: String) throws(VaultCryptoError) {
        _ = try photo(id: photoID)
        try catalogue.write { db in
            guard try VaultPhotoRecord.exists(db, id: photoID) else { throw VaultCryptoError.notFound(id: photoID) }
            guard try VaultAlbumRecord.exists(db, id: albumID) else { throw VaultCryptoError.notFound(id: albumID) }
            try VaultAlbumPhotoRecord(albumID: albumID, photoID: photoID).insert(db, onConflict: .ignore)
        }
    }

    /// The photos in album `albumID`.
    public func photos(inAlbum albumID: String) throws(VaultCryptoError) -> [VaultPhoto] {
        let records = try catalogue.read { db in try VaultPhotoRecord.all().inAlbum(albumID).newestFirst().fetchAll(db) }
        return try records.map(checked)
    }
}
