import Foundation
import GRDB
internal import MemoraSystem

// Replacing the master key without touching the photo files.
extension Vault {
    /// Replaces the master key with a new random one and re-wraps every photo key and the
    /// catalogue key; the photo files are not touched. Safe against interruption at any point:
    /// the catalogue keeps both wrappings until the new key is safely in the key store.
    public func rotateMasterKey() throws(VaultCryptoError) {
        try lock.withLock(.exclusive) { () throws(VaultCryptoError) in try rotateMasterKeyLocked() }
    }

    private func rotateMasterKeyLocked() throws(VaultCryptoError) {
        let newKey = SecretKey()
        // 1. Both wrappings in the catalogue.
        let newWrapper = try prepareRotation(to: newKey)
        // 2. The new key in the key store (atomic there).
        try keyStore.saveMasterKey(newKey)
        // 3. Switch the catalogue over.
        try catalogue.write { db in try Self.finishRotation(db) }
        keyWrapper.withLock { $0 = newWrapper }
    }

    /// Step 1 of a key rotation, in one transaction: every photo key and the catalogue key
    /// wrapped under `newKey` beside the current wrappings, and `newKey`'s check beside the
    /// current one. (Tests call it to leave a rotation half done.)
    func prepareRotation(to newKey: SecretKey) throws(VaultCryptoError) -> PhotoKeyWrapper {
        let newWrapper = PhotoKeyWrapper(masterKey: newKey)
        let current = keyWrapper.withLock { $0 }
        let wrappedCatalogueKey = Data(newWrapper.wrap(catalogueKey, photoID: CatalogueAuthenticator.wrappingID(vault: identifier)))
        try catalogue.write { db in
            for var record in try VaultPhotoRecord.fetchAll(db) {
                let photoKey = try current.unwrap([UInt8](record.wrappedKey), photoID: record.id)
                record.pendingWrappedKey = Data(newWrapper.wrap(photoKey, photoID: record.id))
                try record.update(db, columns: [VaultPhotoRecord.Columns.pendingWrappedKey])
            }
            try VaultRecord.setPendingRotation(
                keyCheck: Data(Self.keyCheck(newKey, format: Self.currentFormatVersion)), catalogueKey: wrappedCatalogueKey, in: db)
        }
        return newWrapper
    }
}
