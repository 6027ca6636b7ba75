import Foundation
import GRDB
internal import MemoraSystem

// Reading the vault: the photos and their listing, one photo's bytes and thumbnail, exporting a
// photo to a file, and finding a photo by its content.
extension Vault {
    /// The photos, newest first by date taken (then date added); hidden ones only when asked.
    public func photos(includeHidden: Bool = false) throws(VaultCryptoError) -> [VaultPhoto] {
        let records = try catalogue.read { db in
            let all = VaultPhotoRecord.all()
            return try (includeHidden ? all : all.notHidden()).newestFirst().fetchAll(db)
        }
        return try records.map(checked)
    }

    /// The photos in the vault, newest first (hidden ones too when asked), and the records that fail
    /// the catalogue's checks listed apart: ``photos(includeHidden:)`` for a list that refuses them.
    public func listing(includeHidden: Bool = false) throws(VaultCryptoError) -> VaultListing {
        let records = try catalogue.read { db in
            let all = VaultPhotoRecord.all()
            return try (includeHidden ? all : all.notHidden()).newestFirst().fetchAll(db)
        }
        var listing = VaultListing(photos: [], tamperedRecords: [])
        for record in records {
            do throws(VaultCryptoError) { listing.photos.append(try checked(record)) } catch { listing.tamperedRecords.append(shortened(record.id)) }
        }
        return listing
    }

    /// The record of photo `id`.
    public func photo(id: String) throws(VaultCryptoError) -> VaultPhoto {
        guard VaultLayout.isPhotoID(id) else { throw .notFound(id: id) }
        let found = try catalogue.read { db in try VaultPhotoRecord.fetchOne(db, id: id) }
        guard let found else { throw .notFound(id: id) }
        return try checked(found)
    }

    /// The decrypted bytes of photo `id`, in memory; nothing is returned unless every chunk verifies.
    public func contents(of id: String) throws(VaultCryptoError) -> [UInt8] {
        let (photo, key) = try photoAndKey(id)
        let reader = try FileReader(path: file(photo.relativePath))
        var bytes = [UInt8](repeating: 0, count: Int(reader.size))
        try withMutableBytes(&bytes) { raw throws(VaultCryptoError) in try reader.read(into: raw, at: 0) }
        return try LOCACipher.decrypt(bytes, key: key, source: photo.relativePath)
    }

    /// The decrypted thumbnail of photo `id`, or nil when it has none.
    public func thumbnail(of id: String) throws(VaultCryptoError) -> [UInt8]? {
        let (photo, key) = try photoAndKey(id)
        guard photo.hasThumbnail else { return nil }
        let reader = try FileReader(path: file(VaultLayout.thumbnailPath(id: photo.id)))
        var bytes = [UInt8](repeating: 0, count: Int(reader.size))
        try withMutableBytes(&bytes) { raw throws(VaultCryptoError) in try reader.read(into: raw, at: 0) }
        return try LOCACipher.decrypt(bytes, key: Self.thumbnailKey(key), source: VaultLayout.thumbnailPath(id: photo.id))
    }

    /// Decrypts photo `id` to `path` (streaming; the file appears only once every chunk verified).
    /// `path` must lie outside the vault folder (`outputInsideVault`); an existing file there is
    /// replaced only when `replacingExisting` (else `outputExists`).
    public func export(_ id: String, to path: String, replacingExisting: Bool = false) throws(VaultCryptoError) {
        try export(id, to: path, replacingExisting: replacingExisting, blockDone: nil)
    }

    func export(_ id: String, to path: String, replacingExisting: Bool,
                        blockDone: ((UInt64, UInt64) throws(VaultCryptoError) -> Void)?) throws(VaultCryptoError) {
        try checkOutput(path, replacingExisting: replacingExisting)
        let (photo, key) = try photoAndKey(id)
        try LOCACipher.decryptFile(at: file(photo.relativePath), to: path, key: key, replacingExisting: replacingExisting, progress: blockDone)
    }

    /// Reads photo `id`'s encrypted file back from the disk, verifies every chunk and returns the
    /// SHA-256 of its plaintext (memory holds one batch of it): what a caller compares with the
    /// original's own hash before removing it (`memora vault add --remove-originals`).
    public func plaintextDigest(of id: String) throws(VaultCryptoError) -> [UInt8] {
        let (photo, key) = try photoAndKey(id)
        return try LOCACipher.plaintextDigest(ofFileAt: file(photo.relativePath), key: key)
    }

    /// Refuses an output `path` that lies inside the vault folder once symbolic links are resolved
    /// (`outputInsideVault`: only the vault writes there), and an existing file at `path` unless
    /// `replacingExisting` (`outputExists`). Every command that writes a file checks its output here.
    public func checkOutput(_ path: String, replacingExisting: Bool) throws(VaultCryptoError) {
        switch FileSystem.isInside(path, folder: folder) {
        case false?: break
        case true?: throw .outputInsideVault(path: path, vault: folder)
        case nil: throw .writeFailed(path: path, reason: "where it leads cannot be resolved (a broken symbolic link or a folder that cannot be read)")
        }
        if !replacingExisting, FileSystem.statusIfPresent(of: path, followingLinks: false) != nil { throw .outputExists(path: path) }
    }

    /// ``export(_:to:replacingExisting:)`` for a long file in a task: `progress` gets the bytes
    /// decrypted and the total after each block; cancelling the task stops at the next block,
    /// leaves nothing at `path` and throws `cancelled`.
    public func export(_ id: String, to path: String, replacingExisting: Bool = false,
                       progress: @escaping @Sendable (_ done: UInt64, _ total: UInt64) -> Void) async throws(VaultCryptoError) {
        try export(id, to: path, replacingExisting: replacingExisting, blockDone: Self.reporting(progress, path: path))
    }

    /// The photo this vault holds with the same content as the file at `path` (a dry run of an
    /// add: nil means the add would store it).
    public func storedPhoto(matchingContentsOf path: String) throws(VaultCryptoError) -> VaultPhoto? {
        let digest: [UInt8]
        do { digest = try SHA256Digest.hash(contentsOf: path) } catch { throw .readFailed(path: path, cause: error) }
        return try photo(withContentHash: authenticator.contentHash(ofDigest: digest))
    }

    /// The photo this vault holds with exactly these bytes, if any.
    public func storedPhoto(matching contents: [UInt8]) throws(VaultCryptoError) -> VaultPhoto? {
        try photo(withContentHash: authenticator.contentHash(ofDigest: SHA256Digest.hash(contents)))
    }
}
