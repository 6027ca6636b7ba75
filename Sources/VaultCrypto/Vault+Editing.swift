import Foundation
import GRDB
internal import MemoraSystem

// Changing what the vault holds: removing a photo, and its favourite, hidden and tags fields.
extension Vault {
    /// Removes photo `id`: the record first (one transaction), then its files, overwritten before unlinking.
    public func remove(_ id: String) throws(VaultCryptoError) {
        try lock.withLock(.shared) { () throws(VaultCryptoError) in try removeLocked(id) }
    }

    private func removeLocked(_ id: String) throws(VaultCryptoError) {
        let photo = try photo(id: id)
        let photoFile = try file(photo.relativePath)
        let thumbnailFile = photo.hasThumbnail ? try file(VaultLayout.thumbnailPath(id: photo.id)) : nil
        try catalogue.write { db in _ = try VaultPhotoRecord.deleteOne(db, id: id) }
        VaultFiles.overwriteAndRemove(photoFile)
        if let thumbnailFile { VaultFiles.overwriteAndRemove(thumbnailFile) }
    }

    /// Marks or unmarks photo `id` as a favourite, hides or shows it, and replaces its tags.
    public func update(_ id: String, favorite: Bool? = nil, hidden: Bool? = nil, tags: [String]? = nil) throws(VaultCryptoError) {
        _ = try photo(id: id)
        try catalogue.write { db in
            guard var record = try VaultPhotoRecord.fetchOne(db, id: id) else { throw VaultCryptoError.notFound(id: id) }
            try record.updateChanges(db) { record in
                if let favorite { record.isFavorite = favorite }
                if let hidden { record.isHidden = hidden }
                if let tags { record.tags = tags }
            }
        }
    }
}
