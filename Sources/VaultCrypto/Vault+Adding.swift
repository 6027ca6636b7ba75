import Foundation
import GRDB
internal import MemoraSystem

// Adding photos: from a file, from bytes in memory or from a stream of chunks, each encrypted
// under its own key and recorded, unless the vault already holds the same content.
extension Vault {
    /// Encrypts the file at `path` into the vault and records it. The source file is not changed.
    /// A photo with the same content already in the vault is not added again: its record is
    /// returned with ``VaultAddition/wasAlreadyStored``.
    @discardableResult
    public func add(fileAt path: String, details: VaultPhotoDetails) throws(VaultCryptoError) -> VaultAddition {
        try add(fileAt: path, details: details, blockDone: nil)
    }

    /// The file add, with `blockDone` called after each encrypted block (it may throw to stop).
    func add(fileAt path: String, details: VaultPhotoDetails,
                     blockDone: ((UInt64, UInt64) throws(VaultCryptoError) -> Void)?) throws(VaultCryptoError) -> VaultAddition {
        let size = try FileReader(path: path).size
        let digest: [UInt8]
        do { digest = try SHA256Digest.hash(contentsOf: path) } catch { throw .readFailed(path: path, cause: error) }
        try blockDone?(0, size)
        return try add(
            originalFilename: URL(fileURLWithPath: path).lastPathComponent, originalSize: size,
            contentHash: authenticator.contentHash(ofDigest: digest), details: details
        ) { photoKey, destination, now throws(VaultCryptoError) in
            try cipher.encryptFile(at: path, to: destination, key: photoKey, timestamp: now, progress: blockDone)
        }
    }

    /// A block callback that stops a cancelled task (`cancelled`) and otherwise reports to `progress`.
    static func reporting(_ progress: @escaping @Sendable (UInt64, UInt64) -> Void,
                                  path: String) -> (UInt64, UInt64) throws(VaultCryptoError) -> Void {
        { done, total throws(VaultCryptoError) in
            if Task.isCancelled { throw .cancelled(path: path) }
            progress(done, total)
        }
    }

    /// ``add(fileAt:details:)`` for a long file in a task: `progress` gets the bytes encrypted and
    /// the total after each block (a few MiB); cancelling the task stops at the next block, removes
    /// what was written, leaves the catalogue as it was and throws `cancelled`.
    @discardableResult
    public func add(fileAt path: String, details: VaultPhotoDetails,
                    progress: @escaping @Sendable (_ done: UInt64, _ total: UInt64) -> Void) async throws(VaultCryptoError) -> VaultAddition {
        try add(fileAt: path, details: details, blockDone: Self.reporting(progress, path: path))
    }

    /// Encrypts photo bytes held in memory (for example a received share) into the vault, unless
    /// the vault already holds the same content. No plaintext touches the disk.
    @discardableResult
    public func add(contents: [UInt8], originalFilename: String, details: VaultPhotoDetails) throws(VaultCryptoError) -> VaultAddition {
        try add(
            originalFilename: originalFilename, originalSize: UInt64(contents.count),
            contentHash: authenticator.contentHash(ofDigest: SHA256Digest.hash(contents)), details: details
        ) { photoKey, destination, now throws(VaultCryptoError) in
            let writer = try VaultFileWriter(path: destination, mode: 0o600)
            try writer.write(cipher.encrypt(contents, key: photoKey, timestamp: now))
            try writer.commit()
        }
    }

    /// Captures a photo from a stream of chunks (a camera's output, a pipe, a download) without its
    /// plaintext ever touching the disk: the chunks are encrypted as they arrive into a spool under a
    /// key held only in memory, and once the stream ends (its size and content hash known) the spool
    /// is encrypted into the photo's LOCA file and wiped. Memory holds about 3 MiB whatever the size.
    /// A photo whose content the vault holds already is not added again (``VaultAddition/wasAlreadyStored``).
    /// A failing stream (its error becomes `readFailed`), a cancelled task (`cancelled`) or any other
    /// failure leaves the vault as it was. `originalFilename` names the photo in the catalogue and in messages.
    @discardableResult
    public func add<Chunks: AsyncSequence>(chunks: Chunks, originalFilename: String, details: VaultPhotoDetails) async throws(VaultCryptoError)
        -> VaultAddition where Chunks.Element == [UInt8] {
        // The vault lock, shared, while the photo arrives: an `open()` elsewhere (which removes
        // temporary files under the exclusive lock) waits instead of taking the spool for a leftover.
        try await lock.withLock(.shared) { () async throws(VaultCryptoError) -> VaultAddition in
            try await spoolAndAdd(chunks, originalFilename: originalFilename, details: details)
        }
    }

    private func spoolAndAdd<Chunks: AsyncSequence>(_ chunks: Chunks, originalFilename: String, details: VaultPhotoDetails) async throws(VaultCryptoError)
        -> VaultAddition where Chunks.Element == [UInt8] {
        let spoolPath = try file(VaultLayout.spoolPath(id: UUID().uuidString.lowercased()))
        try Self.makeFolder(SystemPath.folder(of: spoolPath))
        let spool = try PhotoSpool(path: spoolPath, cipher: cipher)
        defer { spool.remove() }
        do {
            for try await chunk in chunks {
                if Task.isCancelled { throw VaultCryptoError.cancelled(path: originalFilename) }
                try spool.append(chunk)
                guard LOCAHeader.fits(size: spool.size, chunkExponent: cipher.chunkExponent) else {
                    throw VaultCryptoError.fileTooLarge(source: originalFilename, size: spool.size)
                }
            }
        } catch let error as VaultCryptoError {
            throw error
        } catch {
            throw .readFailed(path: originalFilename, reason: "the photo's stream failed: \(error)")
        }
        let digest = try spool.finish()
        let size = spool.size
        return try add(originalFilename: originalFilename, originalSize: size, contentHash: authenticator.contentHash(ofDigest: digest),
                       details: details) { photoKey, destination, now throws(VaultCryptoError) in
            try cipher.encrypt(size: size, read: spool.read, to: destination, key: photoKey, timestamp: now, progress: nil)
        }
    }

    /// The steps every add shares: the duplicate check, a new id and key, the encrypted file
    /// (written by `encrypt` with the photo's key, its path and the time the LOCA header is stamped
    /// with), the thumbnail, then the record in one transaction.
    func add(
        originalFilename: String, originalSize: UInt64, contentHash: Data, details: VaultPhotoDetails,
        encrypt: (SecretKey, String, Date) throws(VaultCryptoError) -> Void
    ) throws(VaultCryptoError) -> VaultAddition {
        try lock.withLock(.shared) { () throws(VaultCryptoError) in
            if let existing = try photo(withContentHash: contentHash) { return VaultAddition(photo: existing, wasAlreadyStored: true) }
            return try addLocked(
                originalFilename: originalFilename, originalSize: originalSize, contentHash: contentHash, details: details, encrypt: encrypt)
        }
    }

    private func addLocked(
        originalFilename: String, originalSize: UInt64, contentHash: Data, details: VaultPhotoDetails,
        encrypt: (SecretKey, String, Date) throws(VaultCryptoError) -> Void
    ) throws(VaultCryptoError) -> VaultAddition {
        let id = UUID().uuidString.lowercased()
        // The clock is read once: the file's stamp, an undated photo's year folder and `addedAt` agree,
        // even across midnight on 31 December.
        let now = clock.now()
        let folderDate = details.takenAt ?? now
        let components = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: folderDate)
        let relativePath = VaultLayout.photoPath(id: id, year: components.year ?? 1970, month: components.month ?? 1)
        let relativeFolder = SystemPath.folder(of: relativePath)
        _ = try file(relativeFolder)
        try Self.makeFolder(folder + "/" + relativeFolder)
        let destination = try file(relativePath)
        let photoKey = SecretKey()
        try encrypt(photoKey, destination, now)
        var written = [destination]
        do {
            if let thumbnail = details.thumbnail {
                let encrypted = cipher.encrypt(thumbnail, key: Self.thumbnailKey(photoKey))
                let thumbnailPath = try file(VaultLayout.thumbnailPath(id: id))
                let writer = try VaultFileWriter(path: thumbnailPath, mode: 0o600)
                try writer.write(encrypted)
                try writer.commit()
                written.append(thumbnailPath)
            }
            let encryptedSize = try FileReader(path: destination).size
            let photo = VaultPhoto(
                id: id, relativePath: relativePath, wrappedKey: Data(keyWrapper.withLock { $0 }.wrap(photoKey, photoID: id)),
                originalSize: Int64(originalSize), encryptedSize: Int64(encryptedSize),
                originalFilename: originalFilename, format: details.format,
                width: details.width, height: details.height, takenAt: details.takenAt, addedAt: now,
                tags: details.tags, isFavorite: false, isHidden: false, hasThumbnail: details.thumbnail != nil)
            var record = VaultPhotoRecord(photo, contentHash: contentHash)
            record.mac = authenticator.mac(of: record)
            // Another process may have added the same content since the check: its record wins.
            let existing = try catalogue.write { [record] db in
                if let existing = try VaultPhotoRecord.filter(VaultPhotoRecord.Columns.contentHash == contentHash).fetchOne(db) {
                    return Optional(existing)
                }
                try record.insert(db)
                return nil
            }
            if let existing {
                written.forEach(VaultFiles.overwriteAndRemove)
                return VaultAddition(photo: try checked(existing), wasAlreadyStored: true)
            }
            return VaultAddition(photo: photo, wasAlreadyStored: false)
        } catch {
            written.forEach(VaultFiles.overwriteAndRemove)
            throw error
        }
    }
}
