import Foundation
import GRDB

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
    private let catalogue: VaultCatalogue
    private let keyStore: any KeyStore
    private let cipher: LOCACipher
    private let state: LockedWrapper
    private let lock: VaultLock

    static let catalogueName = "vault.sqlite"
    private static let formatVersion = 1

    private init(folder: String, catalogue: VaultCatalogue, keyStore: any KeyStore, masterKey: SecretKey, cipher: LOCACipher) {
        self.folder = folder
        self.catalogue = catalogue
        self.keyStore = keyStore
        self.cipher = cipher
        self.state = LockedWrapper(PhotoKeyWrapper(masterKey: masterKey))
        self.lock = VaultLock(path: folder + "/vault.lock")
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
        guard !VaultFiles.exists(cataloguePath) else { throw .vaultExists(path: folder) }
        try makeFolder(folder)
        try makeFolder(folder + "/Photos")
        try makeFolder(folder + "/Thumbnails")
        let masterKey = try keyStore.loadOrCreateMasterKey()
        // The catalogue is created 0600 before SQLite opens it; its journal files inherit that.
        try VaultFiles.createEmpty(cataloguePath)
        let catalogue = try VaultCatalogue(path: cataloguePath)
        let check = keyCheck(masterKey)
        try catalogue.write { db in
            try VaultRecord(formatVersion: formatVersion, identifier: identifier, keyCheck: Data(check), createdAt: Date()).insert(db)
        }
        return Vault(folder: folder, catalogue: catalogue, keyStore: keyStore, masterKey: masterKey, cipher: try cipher.orDefault())
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

    /// Opens the vault in `folder` with the master key from `keyStore`, finishing an
    /// interrupted key rotation if there was one.
    public static func open(at folder: String, keyStore: any KeyStore, cipher: LOCACipher? = nil) throws(VaultCryptoError) -> Vault {
        let cataloguePath = folder + "/" + catalogueName
        guard VaultFiles.exists(cataloguePath) else { throw .vaultNotFound(path: folder) }
        guard let masterKey = try keyStore.loadMasterKey() else { throw .masterKeyMissing(path: folder) }
        let catalogue = try VaultCatalogue(path: cataloguePath)
        let check = Data(keyCheck(masterKey))
        try VaultLock(path: folder + "/vault.lock").withLock(.exclusive) { () throws(VaultCryptoError) in
            try catalogue.write { db in
                guard let record = try VaultRecord.current(db) else {
                    throw VaultCryptoError.vaultNotFound(path: folder)
                }
                if constantTimeEqual(record.keyCheck, check) {
                    // The current key. A pending rotation, if any, stays as it is: its
                    // new key never reached the key store, and the next rotation replaces it.
                } else if let pending = record.pendingKeyCheck, constantTimeEqual(pending, check) {
                    // The new key was stored but the catalogue not yet switched: finish the rotation.
                    try finishRotation(db)
                } else {
                    throw VaultCryptoError.wrongMasterKey(path: folder)
                }
            }
        }
        return Vault(folder: folder, catalogue: catalogue, keyStore: keyStore, masterKey: masterKey, cipher: try cipher.orDefault())
    }

    // MARK: Photos

    /// Encrypts the file at `path` into the vault and records it. The source file is not changed.
    @discardableResult
    public func add(fileAt path: String, details: VaultPhotoDetails) throws(VaultCryptoError) -> VaultPhoto {
        let size = try FileReader(path: path).size
        return try add(originalFilename: URL(fileURLWithPath: path).lastPathComponent, originalSize: size, details: details) {
            photoKey, destination throws(VaultCryptoError) in
            try cipher.encryptFile(at: path, to: destination, key: photoKey)
        }
    }

    /// Encrypts photo bytes held in memory (for example a received share) into the vault.
    /// No plaintext touches the disk.
    @discardableResult
    public func add(contents: [UInt8], originalFilename: String, details: VaultPhotoDetails) throws(VaultCryptoError) -> VaultPhoto {
        try add(originalFilename: originalFilename, originalSize: UInt64(contents.count), details: details) {
            photoKey, destination throws(VaultCryptoError) in
            let writer = try VaultFileWriter(path: destination, mode: 0o600)
            try writer.write(cipher.encrypt(contents, key: photoKey))
            try writer.commit()
        }
    }

    /// The steps every add shares: a new id and key, the encrypted file (written by
    /// `encrypt`), the thumbnail, then the record in one transaction.
    private func add(
        originalFilename: String, originalSize: UInt64, details: VaultPhotoDetails,
        encrypt: (SecretKey, String) throws(VaultCryptoError) -> Void
    ) throws(VaultCryptoError) -> VaultPhoto {
        try lock.withLock(.shared) { () throws(VaultCryptoError) in
            try addLocked(originalFilename: originalFilename, originalSize: originalSize, details: details, encrypt: encrypt)
        }
    }

    private func addLocked(
        originalFilename: String, originalSize: UInt64, details: VaultPhotoDetails,
        encrypt: (SecretKey, String) throws(VaultCryptoError) -> Void
    ) throws(VaultCryptoError) -> VaultPhoto {
        let id = UUID().uuidString.lowercased()
        let folderDate = details.takenAt ?? Date()
        let components = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: folderDate)
        let relativeFolder = String(format: "Photos/%04d/%02d", components.year ?? 1970, components.month ?? 1)
        try Self.makeFolder(folder + "/" + relativeFolder)
        let relativePath = relativeFolder + "/" + id + ".encrypted"
        let photoKey = SecretKey()
        try encrypt(photoKey, folder + "/" + relativePath)
        var written = [folder + "/" + relativePath]
        do {
            if let thumbnail = details.thumbnail {
                let encrypted = cipher.encrypt(thumbnail, key: Self.thumbnailKey(photoKey))
                let writer = try VaultFileWriter(path: thumbnailPath(id), mode: 0o600)
                try writer.write(encrypted)
                try writer.commit()
                written.append(thumbnailPath(id))
            }
            let encryptedSize = try FileReader(path: folder + "/" + relativePath).size
            let photo = VaultPhoto(
                id: id, relativePath: relativePath, wrappedKey: Data(state.wrapper.wrap(photoKey, photoID: id)),
                originalSize: Int64(originalSize), encryptedSize: Int64(encryptedSize),
                originalFilename: originalFilename, format: details.format,
                width: details.width, height: details.height, takenAt: details.takenAt, addedAt: Date(),
                tags: details.tags, isFavorite: false, isHidden: false, hasThumbnail: details.thumbnail != nil)
            try catalogue.write { db in try VaultPhotoRecord(photo).insert(db) }
            return photo
        } catch {
            written.forEach(VaultFiles.overwriteAndRemove)
            throw error
        }
    }

    /// The photos, newest first by date taken (then date added); hidden ones only when asked.
    public func photos(includeHidden: Bool = false) throws(VaultCryptoError) -> [VaultPhoto] {
        try catalogue.read { db in
            let all = VaultPhotoRecord.all()
            return try (includeHidden ? all : all.notHidden()).newestFirst().fetchAll(db).map(\.photo)
        }
    }

    /// The record of photo `id`.
    public func photo(id: String) throws(VaultCryptoError) -> VaultPhoto {
        let found = try catalogue.read { db in try VaultPhotoRecord.fetchOne(db, id: id)?.photo }
        guard let found else { throw .notFound(id: id) }
        return found
    }

    /// The decrypted bytes of photo `id`, in memory; nothing is returned unless every chunk verifies.
    public func contents(of id: String) throws(VaultCryptoError) -> [UInt8] {
        let (photo, key) = try photoAndKey(id)
        let reader = try FileReader(path: folder + "/" + photo.relativePath)
        var bytes = [UInt8](repeating: 0, count: Int(reader.size))
        try withMutableBytes(&bytes) { raw throws(VaultCryptoError) in try reader.read(into: raw, at: 0) }
        return try LOCACipher.decrypt(bytes, key: key, source: photo.relativePath)
    }

    /// The decrypted thumbnail of photo `id`, or nil when it has none.
    public func thumbnail(of id: String) throws(VaultCryptoError) -> [UInt8]? {
        let (photo, key) = try photoAndKey(id)
        guard photo.hasThumbnail else { return nil }
        let reader = try FileReader(path: thumbnailPath(id))
        var bytes = [UInt8](repeating: 0, count: Int(reader.size))
        try withMutableBytes(&bytes) { raw throws(VaultCryptoError) in try reader.read(into: raw, at: 0) }
        return try LOCACipher.decrypt(bytes, key: Self.thumbnailKey(key), source: "Thumbnails/\(id).thumb")
    }

    /// Decrypts photo `id` to `path` (streaming; the file appears only once every chunk verified).
    public func export(_ id: String, to path: String) throws(VaultCryptoError) {
        let (photo, key) = try photoAndKey(id)
        try LOCACipher.decryptFile(at: folder + "/" + photo.relativePath, to: path, key: key)
    }

    /// A `.locaphoto` bundle of photo `id` for `recipient`, signed by `sender` (Docs/Vault.md).
    public func share(_ id: String, from sender: SharingIdentity, to recipient: ShareRecipient) throws(VaultCryptoError) -> [UInt8] {
        let photo = try photo(id: id)
        let metadata = SharedPhotoMetadata(
            originalFilename: photo.originalFilename, format: photo.format, originalSize: photo.originalSize,
            captureDate: photo.takenAt, width: photo.width, height: photo.height)
        return try ShareBundle.create(contents: contents(of: id), metadata: metadata, photoID: id, from: sender, to: recipient)
    }

    /// Verifies and opens a share bundle and adds its photo to this vault (under a new id and key).
    @discardableResult
    public func importShare(
        _ bundle: [UInt8], identity: SharingIdentity? = nil, passphrase: String? = nil, expectedSender: SharingPublicKey? = nil
    ) throws(VaultCryptoError) -> (photo: VaultPhoto, sender: SharingPublicKey) {
        let received = try ShareBundle.open(bundle, identity: identity, passphrase: passphrase, expectedSender: expectedSender)
        let details = VaultPhotoDetails(
            format: received.metadata.format, width: received.metadata.width, height: received.metadata.height,
            takenAt: received.metadata.captureDate, tags: [])
        let photo = try add(contents: received.contents, originalFilename: received.metadata.originalFilename, details: details)
        return (photo, received.sender)
    }

    /// Removes photo `id`: the record first (one transaction), then its files, overwritten before unlinking.
    public func remove(_ id: String) throws(VaultCryptoError) {
        try lock.withLock(.shared) { () throws(VaultCryptoError) in try removeLocked(id) }
    }

    private func removeLocked(_ id: String) throws(VaultCryptoError) {
        let photo = try photo(id: id)
        try catalogue.write { db in _ = try VaultPhotoRecord.deleteOne(db, id: id) }
        VaultFiles.overwriteAndRemove(folder + "/" + photo.relativePath)
        if photo.hasThumbnail { VaultFiles.overwriteAndRemove(thumbnailPath(id)) }
    }

    /// Marks or unmarks photo `id` as a favourite, hides or shows it, and replaces its tags.
    public func update(_ id: String, favorite: Bool? = nil, hidden: Bool? = nil, tags: [String]? = nil) throws(VaultCryptoError) {
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
        try catalogue.write { db in
            guard try VaultPhotoRecord.exists(db, id: photoID) else { throw VaultCryptoError.notFound(id: photoID) }
            guard try VaultAlbumRecord.exists(db, id: albumID) else { throw VaultCryptoError.notFound(id: albumID) }
            try VaultAlbumPhotoRecord(albumID: albumID, photoID: photoID).insert(db, onConflict: .ignore)
        }
    }

    /// The photos in album `albumID`.
    public func photos(inAlbum albumID: String) throws(VaultCryptoError) -> [VaultPhoto] {
        try catalogue.read { db in try VaultPhotoRecord.all().inAlbum(albumID).newestFirst().fetchAll(db).map(\.photo) }
    }

    // MARK: Keys and integrity

    /// Replaces the master key with a new random one and re-wraps every photo key;
    /// the photo files are not touched. Safe against interruption at any point: the
    /// catalogue keeps both wrappings until the new key is safely in the key store.
    public func rotateMasterKey() throws(VaultCryptoError) {
        try lock.withLock(.exclusive) { () throws(VaultCryptoError) in try rotateMasterKeyLocked() }
    }

    private func rotateMasterKeyLocked() throws(VaultCryptoError) {
        let newKey = SecretKey()
        let newWrapper = PhotoKeyWrapper(masterKey: newKey)
        let current = state.wrapper
        // 1. Both wrappings in the catalogue.
        try catalogue.write { db in
            for var record in try VaultPhotoRecord.fetchAll(db) {
                let photoKey = try current.unwrap([UInt8](record.wrappedKey), photoID: record.id)
                record.pendingWrappedKey = Data(newWrapper.wrap(photoKey, photoID: record.id))
                try record.update(db, columns: [VaultPhotoRecord.Columns.pendingWrappedKey])
            }
            try VaultRecord.setPendingKeyCheck(Data(Self.keyCheck(newKey)), in: db)
        }
        // 2. The new key in the key store (atomic there).
        try keyStore.saveMasterKey(newKey)
        // 3. Switch the catalogue over.
        try catalogue.write { db in try Self.finishRotation(db) }
        state.wrapper = newWrapper
    }

    /// Checks that catalogue and files agree and that every photo decrypts; with
    /// `repair`, removes orphan files and records whose file is gone.
    public func verify(repair: Bool = false) throws(VaultCryptoError) -> VaultReport {
        try lock.withLock(repair ? .exclusive : .shared) { () throws(VaultCryptoError) in try verifyLocked(repair: repair) }
    }

    private func verifyLocked(repair: Bool) throws(VaultCryptoError) -> VaultReport {
        let records = try photos(includeHidden: true)
        var report = VaultReport(orphanFiles: [], missingFiles: [], damagedPhotos: [], checkedCount: records.count)
        let known = Set(records.map(\.relativePath))
        let knownThumbnails = Set(records.filter(\.hasThumbnail).map { "Thumbnails/\($0.id).thumb" })
        // Temporary files of an interrupted add are hidden (`.NAME.memora-XXXXXX`), so the walk lists them separately.
        let photosFolder = folder + "/Photos"
        var hidden: [String] = []
        for year in VaultFiles.names(in: photosFolder) {
            for month in VaultFiles.names(in: photosFolder + "/" + year) {
                hidden += VaultFiles.names(in: photosFolder + "/" + year + "/" + month).filter { $0.hasPrefix(".") }.map { year + "/" + month + "/" + $0 }
            }
        }
        for file in VaultFiles.files(under: photosFolder) + hidden {
            let relative = "Photos/" + file
            let name = file.split(separator: "/").last.map(String.init) ?? file
            let isLeftover = name.hasPrefix(".") && (name.contains(".memora-") || name.contains(".tmp-"))
            if (file.hasSuffix(".encrypted") && !known.contains(relative)) || isLeftover { report.orphanFiles.append(relative) }
        }
        for file in VaultFiles.names(in: folder + "/Thumbnails") {
            let relative = "Thumbnails/" + file
            let isLeftover = file.hasPrefix(".") && (file.contains(".memora-") || file.contains(".tmp-"))
            if (file.hasSuffix(".thumb") && !knownThumbnails.contains(relative)) || isLeftover { report.orphanFiles.append(relative) }
        }
        for photo in records {
            let path = folder + "/" + photo.relativePath
            guard VaultFiles.exists(path) else {
                report.missingFiles.append(photo.id)
                continue
            }
            do throws(VaultCryptoError) {
                let key = try state.wrapper.unwrap([UInt8](photo.wrappedKey), photoID: photo.id)
                try LOCACipher.verify(fileAt: path, key: key)
                if photo.hasThumbnail { try LOCACipher.verify(fileAt: thumbnailPath(photo.id), key: Self.thumbnailKey(key)) }
            } catch {
                report.damagedPhotos.append(photo.id)
            }
        }
        if repair {
            report.orphanFiles.forEach { VaultFiles.overwriteAndRemove(folder + "/" + $0) }
            let missing = report.missingFiles
            try catalogue.write { db in _ = try VaultPhotoRecord.deleteAll(db, ids: missing) }
            for id in missing where VaultFiles.exists(thumbnailPath(id)) {
                VaultFiles.overwriteAndRemove(thumbnailPath(id))
            }
        }
        return report
    }

    // MARK: Internals

    private func photoAndKey(_ id: String) throws(VaultCryptoError) -> (VaultPhoto, SecretKey) {
        let photo = try photo(id: id)
        return (photo, try state.wrapper.unwrap([UInt8](photo.wrappedKey), photoID: id))
    }

    private func thumbnailPath(_ id: String) -> String { folder + "/Thumbnails/" + id + ".thumb" }

    /// Thumbnails get their own key, derived from the photo key.
    private static func thumbnailKey(_ photoKey: SecretKey) -> SecretKey {
        HKDF.deriveSecretKey(from: photoKey, salt: [], info: "LOCA v1 thumbnail key")
    }

    /// A value that identifies the master key without revealing it.
    private static func keyCheck(_ masterKey: SecretKey) -> [UInt8] {
        masterKey.withUnsafeBytes { HKDF.deriveKey(inputKeyMaterial: $0, salt: [], info: Array("LOCA v1 vault key check".utf8), length: 32) }
    }

    private static func finishRotation(_ db: Database) throws {
        try VaultPhotoRecord.finishRotation(db)
        try VaultRecord.finishRotation(db)
    }

    private static func makeFolder(_ path: String) throws(VaultCryptoError) {
        try VaultFiles.makePrivateFolder(path)
    }
}

/// The current key wrapper, swapped atomically by a key rotation.
private final class LockedWrapper: @unchecked Sendable {
    private let lock = NSLock()
    private var current: PhotoKeyWrapper

    init(_ wrapper: PhotoKeyWrapper) { current = wrapper }

    var wrapper: PhotoKeyWrapper {
        get { lock.withLock { current } }
        set { lock.withLock { current = newValue } }
    }
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
