import Foundation
import GRDB
internal import MemoraSystem

/// An encrypted photo vault in a folder (Docs/Vault.md):
///
///     vault.sqlite                       the catalogue (GRDB)
///     Photos/YYYY/MM/{id}.encrypted      LOCA files, one random key per photo
///     Thumbnails/{id}.thumb              LOCA-encrypted thumbnails
///
/// Photo keys are wrapped under the master key that a ``KeyStore`` keeps. No
/// plaintext is ever written inside the vault. An add or a removal interrupted
/// at any point leaves at worst an orphan encrypted file, which ``verify(repair:)`` removes.
public final class Vault: Sendable {
    /// The vault folder.
    public let folder: String
    private let identifier: String
    private let catalogue: VaultCatalogue
    private let keyStore: any KeyStore
    private let cipher: LOCACipher
    /// The current key wrapper, swapped atomically by a key rotation.
    private let keyWrapper: Locked<PhotoKeyWrapper>
    private let lock: VaultLock
    /// The catalogue key (it survives key rotations) and what it authenticates with.
    private let catalogueKey: SecretKey
    private let authenticator: CatalogueAuthenticator

    static let catalogueName = "vault.sqlite"

    /// The vault format this version writes and reads: 2, an authenticated catalogue
    /// (Docs/Vault.md). A format-1 vault is upgraded when it is opened with its key; a newer one is refused.
    public static let currentFormatVersion = 2

    private init(
        folder: String, identifier: String, catalogue: VaultCatalogue, keyStore: any KeyStore, masterKey: SecretKey,
        catalogueKey: SecretKey, cipher: LOCACipher
    ) {
        self.folder = folder
        self.identifier = identifier
        self.catalogue = catalogue
        self.keyStore = keyStore
        self.cipher = cipher
        self.keyWrapper = Locked(PhotoKeyWrapper(masterKey: masterKey))
        self.lock = VaultLock(path: folder + "/vault.lock")
        self.catalogueKey = catalogueKey
        self.authenticator = CatalogueAuthenticator(catalogueKey: catalogueKey)
    }

    // MARK: Creating and opening

    /// Creates a new, empty vault in `folder` (created if needed, mode 0700), with the master key
    /// from `keyStore` (a new random one if the store is empty). `identifier` names the vault
    /// (a lowercase UUID by default), so a front end can keep one key file per vault.
    public static func create(
        at folder: String, keyStore: any KeyStore, identifier: String? = nil, cipher: LOCACipher? = nil
    ) throws(VaultCryptoError) -> Vault {
        let identifier = identifier ?? UUID().uuidString.lowercased()
        let cataloguePath = folder + "/" + catalogueName
        try checkCreate(at: folder)
        try makeFolder(folder)
        try makeFolder(folder + "/Photos")
        try makeFolder(folder + "/Thumbnails")
        let masterKey = try keyStore.loadOrCreateMasterKey()
        // The catalogue is created 0600 before SQLite opens it; its journal files inherit that.
        try VaultFiles.createEmpty(cataloguePath)
        let catalogue = try VaultCatalogue(path: cataloguePath)
        let catalogueKey = SecretKey()
        var record = VaultRecord(
            formatVersion: currentFormatVersion, identifier: identifier, keyCheck: Data(keyCheck(masterKey, format: currentFormatVersion)),
            createdAt: Date(),
            catalogueKey: Data(PhotoKeyWrapper(masterKey: masterKey).wrap(catalogueKey, photoID: CatalogueAuthenticator.wrappingID(vault: identifier))))
        record.mac = CatalogueAuthenticator(catalogueKey: catalogueKey).mac(of: record)
        try catalogue.write { [record] db in try record.insert(db) }
        return Vault(
            folder: folder, identifier: identifier, catalogue: catalogue, keyStore: keyStore, masterKey: masterKey,
            catalogueKey: catalogueKey, cipher: try cipher.orDefault())
    }

    /// A dry run of ``create(at:keyStore:identifier:cipher:)``'s checks on `folder`: no vault there
    /// already (`vaultExists`), and no file of the user's (`folderNotEmpty`: it would be made private
    /// and hold both). Nothing is written.
    public static func checkCreate(at folder: String) throws(VaultCryptoError) {
        guard !VaultFiles.exists(folder + "/" + catalogueName) else { throw .vaultExists(path: folder) }
        guard VaultFiles.names(in: folder).isEmpty else { throw .folderNotEmpty(path: folder) }
    }

    /// The identifier of the vault in `folder`, readable without its key.
    public static func identifier(at folder: String) throws(VaultCryptoError) -> String {
        let cataloguePath = folder + "/" + catalogueName
        guard VaultFiles.exists(cataloguePath) else { throw .vaultNotFound(path: folder) }
        let catalogue = try VaultCatalogue(path: cataloguePath)
        let identifier = try catalogue.read { db in try VaultRecord.current(db)?.identifier }
        guard let identifier else { throw .vaultNotFound(path: folder) }
        return identifier
    }

    /// Opens the vault in `folder` with the master key from `keyStore`: refuses a vault of a newer
    /// format (`vaultTooNew`) and a catalogue changed outside Memora (`catalogueTampered`),
    /// finishes an interrupted key rotation, upgrades a format-1 catalogue (its rows get their
    /// MACs), and removes the temporary files of interrupted adds.
    public static func open(at folder: String, keyStore: any KeyStore, cipher: LOCACipher? = nil) throws(VaultCryptoError) -> Vault {
        let cataloguePath = folder + "/" + catalogueName
        guard VaultFiles.exists(cataloguePath) else { throw .vaultNotFound(path: folder) }
        guard let masterKey = try keyStore.loadMasterKey() else { throw .masterKeyMissing(path: folder) }
        let catalogue = try VaultCatalogue(path: cataloguePath)
        let wrapper = PhotoKeyWrapper(masterKey: masterKey)
        let (identifier, catalogueKey) = try VaultLock(path: folder + "/vault.lock").withLock(.exclusive) {
            () throws(VaultCryptoError) -> (String, SecretKey) in
            let opened = try catalogue.write { db in try openCatalogue(db, folder: folder, masterKey: masterKey, wrapper: wrapper) }
            // No add is in progress while the lock is held exclusively: its temporary files are leftovers.
            VaultLayout.removeTemporaryFiles(inVault: folder)
            return opened
        }
        return Vault(
            folder: folder, identifier: identifier, catalogue: catalogue, keyStore: keyStore, masterKey: masterKey,
            catalogueKey: catalogueKey, cipher: try cipher.orDefault())
    }

    /// `open`'s one transaction: the format, the key check (finishing a rotation), the upgrade
    /// of a format-1 catalogue, the catalogue key and the `vault` row's MAC.
    private static func openCatalogue(
        _ db: Database, folder: String, masterKey: SecretKey, wrapper: PhotoKeyWrapper
    ) throws -> (String, SecretKey) {
        guard var record = try VaultRecord.current(db) else { throw VaultCryptoError.vaultNotFound(path: folder) }
        guard record.formatVersion <= currentFormatVersion else {
            throw VaultCryptoError.vaultTooNew(path: folder, version: record.formatVersion)
        }
        // The check depends on the format, so a catalogue set back to format 1 (to be upgraded,
        // and so re-MACed, again) no longer matches the key.
        let check = Data(keyCheck(masterKey, format: record.formatVersion))
        if constantTimeEqual(record.keyCheck, check) {
            // The current key. A pending rotation, if any, stays as it is: its
            // new key never reached the key store, and the next rotation replaces it.
        } else if let pending = record.pendingKeyCheck, constantTimeEqual(pending, check) {
            // The new key was stored but the catalogue not yet switched: finish the rotation.
            try finishRotation(db)
            guard let switched = try VaultRecord.current(db) else { throw VaultCryptoError.vaultNotFound(path: folder) }
            record = switched
        } else {
            throw VaultCryptoError.wrongMasterKey(path: folder)
        }
        if record.formatVersion < currentFormatVersion {
            return (record.identifier, try upgrade(record, in: db, folder: folder, masterKey: masterKey, wrapper: wrapper))
        }
        let wrappingID = CatalogueAuthenticator.wrappingID(vault: record.identifier)
        guard let wrapped = record.catalogueKey, let key = try? wrapper.unwrap([UInt8](wrapped), photoID: wrappingID) else {
            throw VaultCryptoError.catalogueTampered(path: folder, reason: "its catalogue key is missing or damaged")
        }
        let authenticator = CatalogueAuthenticator(catalogueKey: key)
        guard authenticator.matches(record.mac, authenticator.mac(of: record)) else {
            throw VaultCryptoError.catalogueTampered(path: folder, reason: "the vault record does not match its MAC")
        }
        return (record.identifier, key)
    }

    /// Format 1 to 2, in `open`'s transaction: a new catalogue key, a MAC on every photo row
    /// (each must name its file in the vault's layout, or nothing is changed), and the key
    /// check of format 2.
    private static func upgrade(
        _ record: VaultRecord, in db: Database, folder: String, masterKey: SecretKey, wrapper: PhotoKeyWrapper
    ) throws -> SecretKey {
        let catalogueKey = SecretKey()
        let authenticator = CatalogueAuthenticator(catalogueKey: catalogueKey)
        for var photo in try VaultPhotoRecord.fetchAll(db) {
            guard VaultLayout.isPhotoID(photo.id), VaultLayout.isPhotoPath(photo.relativePath, id: photo.id) else {
                throw VaultCryptoError.catalogueTampered(
                    path: folder, reason: "photo \(quoted(photo.id)) names the file \(quoted(photo.relativePath)), outside the vault's layout")
            }
            photo.mac = authenticator.mac(of: photo)
            try photo.update(db, columns: [VaultPhotoRecord.Columns.mac])
        }
        var upgraded = record
        upgraded.formatVersion = currentFormatVersion
        upgraded.keyCheck = Data(keyCheck(masterKey, format: currentFormatVersion))
        upgraded.catalogueKey = Data(wrapper.wrap(catalogueKey, photoID: CatalogueAuthenticator.wrappingID(vault: record.identifier)))
        upgraded.mac = authenticator.mac(of: upgraded)
        try upgraded.update(db)
        return catalogueKey
    }

    // MARK: Photos

    /// Encrypts the file at `path` into the vault and records it. The source file is not changed.
    /// A photo with the same content already in the vault is not added again: its record is
    /// returned with ``VaultAddition/wasAlreadyStored``.
    @discardableResult
    public func add(fileAt path: String, details: VaultPhotoDetails) throws(VaultCryptoError) -> VaultAddition {
        try add(fileAt: path, details: details, blockDone: nil)
    }

    /// The file add, with `blockDone` called after each encrypted block (it may throw to stop).
    private func add(fileAt path: String, details: VaultPhotoDetails,
                     blockDone: ((UInt64, UInt64) throws(VaultCryptoError) -> Void)?) throws(VaultCryptoError) -> VaultAddition {
        let size = try FileReader(path: path).size
        let digest: [UInt8]
        do { digest = try SHA256Digest.hash(contentsOf: path) } catch { throw .readFailed(path: path, cause: error) }
        try blockDone?(0, size)
        return try add(
            originalFilename: URL(fileURLWithPath: path).lastPathComponent, originalSize: size,
            contentHash: authenticator.contentHash(ofDigest: digest), details: details
        ) { photoKey, destination throws(VaultCryptoError) in
            try cipher.encryptFile(at: path, to: destination, key: photoKey, progress: blockDone)
        }
    }

    /// A block callback that stops a cancelled task (`cancelled`) and otherwise reports to `progress`.
    private static func reporting(_ progress: @escaping @Sendable (UInt64, UInt64) -> Void,
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

    /// ``export(_:to:replacingExisting:)`` for a long file in a task: `progress` gets the bytes
    /// decrypted and the total after each block; cancelling the task stops at the next block,
    /// leaves nothing at `path` and throws `cancelled`.
    public func export(_ id: String, to path: String, replacingExisting: Bool = false,
                       progress: @escaping @Sendable (_ done: UInt64, _ total: UInt64) -> Void) async throws(VaultCryptoError) {
        try export(id, to: path, replacingExisting: replacingExisting, blockDone: Self.reporting(progress, path: path))
    }

    /// Encrypts photo bytes held in memory (for example a received share) into the vault, unless
    /// the vault already holds the same content. No plaintext touches the disk.
    @discardableResult
    public func add(contents: [UInt8], originalFilename: String, details: VaultPhotoDetails) throws(VaultCryptoError) -> VaultAddition {
        try add(
            originalFilename: originalFilename, originalSize: UInt64(contents.count),
            contentHash: authenticator.contentHash(ofDigest: SHA256Digest.hash(contents)), details: details
        ) { photoKey, destination throws(VaultCryptoError) in
            let writer = try VaultFileWriter(path: destination, mode: 0o600)
            try writer.write(cipher.encrypt(contents, key: photoKey))
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
                       details: details) { photoKey, destination throws(VaultCryptoError) in
            try cipher.encrypt(size: size, read: spool.read, to: destination, key: photoKey, timestamp: Date(), progress: nil)
        }
    }

    /// The steps every add shares: the duplicate check, a new id and key, the encrypted file
    /// (written by `encrypt`), the thumbnail, then the record in one transaction.
    private func add(
        originalFilename: String, originalSize: UInt64, contentHash: Data, details: VaultPhotoDetails,
        encrypt: (SecretKey, String) throws(VaultCryptoError) -> Void
    ) throws(VaultCryptoError) -> VaultAddition {
        try lock.withLock(.shared) { () throws(VaultCryptoError) in
            if let existing = try photo(withContentHash: contentHash) { return VaultAddition(photo: existing, wasAlreadyStored: true) }
            return try addLocked(
                originalFilename: originalFilename, originalSize: originalSize, contentHash: contentHash, details: details, encrypt: encrypt)
        }
    }

    private func addLocked(
        originalFilename: String, originalSize: UInt64, contentHash: Data, details: VaultPhotoDetails,
        encrypt: (SecretKey, String) throws(VaultCryptoError) -> Void
    ) throws(VaultCryptoError) -> VaultAddition {
        let id = UUID().uuidString.lowercased()
        let folderDate = details.takenAt ?? Date()
        let components = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: folderDate)
        let relativePath = VaultLayout.photoPath(id: id, year: components.year ?? 1970, month: components.month ?? 1)
        let relativeFolder = SystemPath.folder(of: relativePath)
        _ = try file(relativeFolder)
        try Self.makeFolder(folder + "/" + relativeFolder)
        let destination = try file(relativePath)
        let photoKey = SecretKey()
        try encrypt(photoKey, destination)
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
                width: details.width, height: details.height, takenAt: details.takenAt, addedAt: Date(),
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

    private func export(_ id: String, to path: String, replacingExisting: Bool,
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

    /// A `.locaphoto` bundle of photo `id` for `recipient`, signed by `sender` (Docs/Vault.md).
    public func share(_ id: String, from sender: SharingIdentity, to recipient: ShareRecipient) throws(VaultCryptoError) -> [UInt8] {
        let photo = try photo(id: id)
        let metadata = SharedPhotoMetadata(
            originalFilename: photo.originalFilename, format: photo.format, originalSize: photo.originalSize,
            captureDate: photo.takenAt, width: photo.width, height: photo.height)
        return try ShareBundle.create(contents: contents(of: id), metadata: metadata, photoID: id, from: sender, to: recipient)
    }

    /// Writes a `.locaphoto` bundle of photo `id` to `path` (mode 0600, atomically), with the
    /// same output checks as ``export(_:to:replacingExisting:)``.
    public func share(
        _ id: String, from sender: SharingIdentity, to recipient: ShareRecipient, writingTo path: String, replacingExisting: Bool = false
    ) throws(VaultCryptoError) {
        try checkOutput(path, replacingExisting: replacingExisting)
        let bundle = try share(id, from: sender, to: recipient)
        let writer = try VaultFileWriter(path: path, mode: 0o600, replacingExisting: replacingExisting)
        try writer.write(bundle)
        try writer.commit()
    }

    /// Verifies and opens a share bundle and adds its photo to this vault (under a new id and
    /// key), unless the vault already holds the same photo (`wasAlreadyStored`, the existing record).
    @discardableResult
    public func importShare(
        _ bundle: [UInt8], identity: SharingIdentity? = nil, passphrase: String? = nil, expectedSender: SharingPublicKey? = nil
    ) throws(VaultCryptoError) -> (addition: VaultAddition, sender: SharingPublicKey) {
        let received = try ShareBundle.open(bundle, identity: identity, passphrase: passphrase, expectedSender: expectedSender)
        let details = VaultPhotoDetails(
            format: received.metadata.format, width: received.metadata.width, height: received.metadata.height,
            takenAt: received.metadata.captureDate, tags: [])
        let addition = try add(contents: received.contents, originalFilename: ShareBundle.storedFilename(received.metadata.originalFilename), details: details)
        return (addition, received.sender)
    }

    /// A dry run of ``importShare(_:identity:passphrase:expectedSender:)``: the bundle verified and
    /// opened in memory exactly as the import would, and the photo this vault already holds with
    /// the same content (nil: the import would add it). Nothing is written.
    public func checkImportShare(
        _ bundle: [UInt8], identity: SharingIdentity? = nil, passphrase: String? = nil, expectedSender: SharingPublicKey? = nil
    ) throws(VaultCryptoError) -> (received: ReceivedPhoto, alreadyStored: VaultPhoto?) {
        let received = try ShareBundle.open(bundle, identity: identity, passphrase: passphrase, expectedSender: expectedSender)
        return (received, try storedPhoto(matching: received.contents))
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

    // MARK: Albums

    /// Creates an album.
    @discardableResult
    public func createAlbum(named name: String) throws(VaultCryptoError) -> VaultAlbum {
        let album = VaultAlbum(id: UUID().uuidString.lowercased(), name: name, createdAt: Date())
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

    // MARK: Keys and integrity

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

    /// Checks that catalogue and files agree: every record authentic and naming a file inside the
    /// vault, every file there with its recorded sizes, every photo and thumbnail decrypting. With
    /// `repair`, removes orphan files (no record has their id) and records whose file is gone;
    /// damaged and tampered records, and every file a record names, are kept.
    public func verify(repair: Bool = false) throws(VaultCryptoError) -> VaultReport {
        try lock.withLock(repair ? .exclusive : .shared) { () throws(VaultCryptoError) in try verifyLocked(repair: repair) }
    }

    private func verifyLocked(repair: Bool) throws(VaultCryptoError) -> VaultReport {
        let records = try catalogue.read { db in try VaultPhotoRecord.fetchAll(db) }
        var report = VaultReport(orphanFiles: [], missingFiles: [], damagedPhotos: [], checkedCount: records.count)
        // A file is needed by any record with its id, authentic or not: a repair never takes it.
        let knownIDs = Set(records.map(\.id))
        var photos: [VaultPhoto] = []
        for record in records {
            do throws(VaultCryptoError) { photos.append(try checked(record)) } catch { report.tamperedRecords.append(shortened(record.id)) }
        }
        // Temporary files of an interrupted add are hidden (`.NAME.memora-XXXXXX`), so the walk lists them separately.
        let photosFolder = folder + "/Photos"
        var hidden: [String] = []
        for year in VaultFiles.names(in: photosFolder) {
            for month in VaultFiles.names(in: photosFolder + "/" + year) {
                hidden += VaultFiles.names(in: photosFolder + "/" + year + "/" + month).filter { $0.hasPrefix(".") }.map { year + "/" + month + "/" + $0 }
            }
        }
        for file in VaultFiles.files(under: photosFolder) + hidden {
            let name = SystemPath.fileName(of: file)
            let isOrphan = name.hasSuffix(".encrypted") && !(VaultLayout.photoID(inFileName: name).map(knownIDs.contains) ?? false)
            if isOrphan || Self.isLeftover(name) { report.orphanFiles.append("Photos/" + file) }
        }
        for name in VaultFiles.names(in: folder + "/Thumbnails") {
            let id = name.hasSuffix(".thumb") ? String(name.dropLast(".thumb".count)) : nil
            let isOrphan = id.map { !knownIDs.contains($0) } ?? false
            if isOrphan || Self.isLeftover(name) { report.orphanFiles.append("Thumbnails/" + name) }
        }
        for photo in photos {
            guard let path = FileSystem.pathInside(folder, relativePath: photo.relativePath) else {
                report.tamperedRecords.append(shortened(photo.id))
                continue
            }
            guard VaultFiles.exists(path) else {
                report.missingFiles.append(photo.id)
                report.fileNames[photo.id] = photo.originalFilename
                continue
            }
            do throws(VaultCryptoError) {
                let key = try keyWrapper.withLock { $0 }.unwrap([UInt8](photo.wrappedKey), photoID: photo.id)
                let header = try LOCACipher.header(ofFileAt: path)
                guard header.fileSize == UInt64(photo.encryptedSize), header.originalSize == UInt64(photo.originalSize) else {
                    throw VaultCryptoError.truncated(source: path, expected: UInt64(photo.encryptedSize), actual: header.fileSize)
                }
                try LOCACipher.verify(fileAt: path, key: key)
                if photo.hasThumbnail {
                    try LOCACipher.verify(fileAt: file(VaultLayout.thumbnailPath(id: photo.id)), key: Self.thumbnailKey(key))
                }
            } catch {
                report.damagedPhotos.append(photo.id)
                report.fileNames[photo.id] = photo.originalFilename
            }
        }
        if repair {
            report.wasRepaired = true
            let missing = report.missingFiles
            try catalogue.write { db in _ = try VaultPhotoRecord.deleteAll(db, ids: missing) }
            var removals = report.orphanFiles
            for id in missing where VaultFiles.exists(folder + "/" + VaultLayout.thumbnailPath(id: id)) {
                removals.append(VaultLayout.thumbnailPath(id: id))
            }
            for relative in removals {
                guard let path = FileSystem.pathInside(folder, relativePath: relative) else {
                    report.unremovedFiles.append(relative)
                    continue
                }
                VaultFiles.overwriteAndRemove(path)
                if VaultFiles.exists(path) { report.unremovedFiles.append(relative) }
            }
        }
        return report
    }

    // MARK: Internals

    /// The public value of a row, once it is known to be authentic: its id and path in the
    /// vault's layout, and its MAC right; else `catalogueTampered`.
    private func checked(_ record: VaultPhotoRecord) throws(VaultCryptoError) -> VaultPhoto {
        guard VaultLayout.isPhotoID(record.id), VaultLayout.isPhotoPath(record.relativePath, id: record.id) else {
            throw .catalogueTampered(
                path: folder, reason: "photo \(quoted(record.id)) names the file \(quoted(record.relativePath)), outside the vault's layout")
        }
        guard authenticator.matches(record.mac, authenticator.mac(of: record)) else {
            throw .catalogueTampered(path: folder, reason: "the record of photo \(record.id) does not match its MAC")
        }
        return record.photo
    }

    /// The photo whose keyed content hash is `contentHash`, if the vault holds one.
    private func photo(withContentHash contentHash: Data) throws(VaultCryptoError) -> VaultPhoto? {
        let found = try catalogue.read { db in
            try VaultPhotoRecord.filter(VaultPhotoRecord.Columns.contentHash == contentHash).fetchOne(db)
        }
        return try found.map(checked)
    }

    /// The path of `relativePath` in the vault folder, refused (`catalogueTampered`) when it or a
    /// symbolic link on its way leads outside the folder, or when it is itself a symbolic link.
    private func file(_ relativePath: String) throws(VaultCryptoError) -> String {
        guard let path = FileSystem.pathInside(folder, relativePath: relativePath) else {
            throw .catalogueTampered(path: folder, reason: "\(quoted(relativePath)) is a symbolic link or leads outside the vault folder")
        }
        return path
    }

    /// Whether `name` is the temporary file of an atomic write (`.NAME.memora-XXXXXX`, or `.NAME.tmp-XXXXXX` of older versions).
    private static func isLeftover(_ name: String) -> Bool {
        name.hasPrefix(".") && (name.contains(".memora-") || name.contains(".tmp-"))
    }

    private func photoAndKey(_ id: String) throws(VaultCryptoError) -> (VaultPhoto, SecretKey) {
        let photo = try photo(id: id)
        return (photo, try keyWrapper.withLock { $0 }.unwrap([UInt8](photo.wrappedKey), photoID: id))
    }

    /// Thumbnails get their own key, derived from the photo key.
    private static func thumbnailKey(_ photoKey: SecretKey) -> SecretKey {
        HKDF.deriveSecretKey(from: photoKey, salt: [], info: "LOCA v1 thumbnail key")
    }

    /// A value that identifies the master key without revealing it; format 2 uses another info
    /// string than format 1, so a catalogue set back to format 1 no longer opens.
    private static func keyCheck(_ masterKey: SecretKey, format: Int) -> [UInt8] {
        let info = format >= 2 ? "LOCA v2 vault key check" : "LOCA v1 vault key check"
        return masterKey.withUnsafeBytes { HKDF.deriveKey(inputKeyMaterial: $0, salt: [], info: Array(info.utf8), length: 32) }
    }

    private static func finishRotation(_ db: Database) throws {
        try VaultPhotoRecord.finishRotation(db)
        try VaultRecord.finishRotation(db)
    }

    private static func makeFolder(_ path: String) throws(VaultCryptoError) {
        try VaultFiles.makePrivateFolder(path)
    }
}

/// `text` for a message: quoted, control characters escaped, at most 80 characters (a catalogue
/// value may come from anyone who could edit the file).
private func quoted(_ text: String) -> String {
    String(reflecting: shortened(text))
}

/// `text`, cut to 80 characters (an id read from a tampered record may be anything).
private func shortened(_ text: String) -> String {
    text.count > 80 ? String(text.prefix(80)) + "…" : text
}

extension Optional where Wrapped == LOCACipher {
    /// The given cipher, or the default one (the preferred algorithm, 64 KiB chunks).
    func orDefault() throws(VaultCryptoError) -> LOCACipher {
        if let cipher = self { return cipher }
        return try LOCACipher()
    }
}

private func constantTimeEqual(_ a: Data, _ b: Data) -> Bool {
    [UInt8](a).withUnsafeBytes { x in [UInt8](b).withUnsafeBytes { y in Sodium.constantTimeEqual(x, y) } }
}
