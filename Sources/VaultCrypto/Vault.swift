import Foundation
import GRDB
public import MemoraSystem

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
    let identifier: String
    let catalogue: VaultCatalogue
    let keyStore: any KeyStore
    let cipher: LOCACipher
    /// The current key wrapper, swapped atomically by a key rotation.
    let keyWrapper: Locked<PhotoKeyWrapper>
    let lock: VaultLock
    /// The catalogue key (it survives key rotations) and what it authenticates with.
    let catalogueKey: SecretKey
    let authenticator: CatalogueAuthenticator
    /// Where the time is read: when photos and albums were added, the LOCA files' timestamps.
    let clock: any MemoraClock

    static let catalogueName = "vault.sqlite"

    /// The vault format this version writes and reads: 2, an authenticated catalogue
    /// (Docs/Vault.md). A format-1 vault is upgraded when it is opened with its key; a newer one is refused.
    public static let currentFormatVersion = 2

    private init(
        folder: String, identifier: String, catalogue: VaultCatalogue, keyStore: any KeyStore, masterKey: SecretKey,
        catalogueKey: SecretKey, cipher: LOCACipher, clock: any MemoraClock
    ) {
        self.clock = clock
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
    /// (a lowercase UUID by default), so a front end can keep one key file per vault. `clock` stamps
    /// what the vault records (the system's unless a test moves time).
    public static func create(
        at folder: String, keyStore: any KeyStore, identifier: String? = nil, cipher: LOCACipher? = nil, clock: any MemoraClock = SystemClock()
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
            createdAt: clock.now(),
            catalogueKey: Data(PhotoKeyWrapper(masterKey: masterKey).wrap(catalogueKey, photoID: CatalogueAuthenticator.wrappingID(vault: identifier))))
        record.mac = CatalogueAuthenticator(catalogueKey: catalogueKey).mac(of: record)
        try catalogue.write { [record] db in try record.insert(db) }
        return Vault(
            folder: folder, identifier: identifier, catalogue: catalogue, keyStore: keyStore, masterKey: masterKey,
            catalogueKey: catalogueKey, cipher: try cipher.orDefault(), clock: clock)
    }

    /// A dry run of ``create(at:keyStore:identifier:cipher:clock:)``'s checks on `folder`: no vault there
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
    public static func open(at folder: String, keyStore: any KeyStore, cipher: LOCACipher? = nil,
                            clock: any MemoraClock = SystemClock()) throws(VaultCryptoError) -> Vault {
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
            catalogueKey: catalogueKey, cipher: try cipher.orDefault(), clock: clock)
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

    // MARK: Internals

    /// The public value of a row, once it is known to be authentic: its id and path in the
    /// vault's layout, and its MAC right; else `catalogueTampered`.
    func checked(_ record: VaultPhotoRecord) throws(VaultCryptoError) -> VaultPhoto {
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
    func photo(withContentHash contentHash: Data) throws(VaultCryptoError) -> VaultPhoto? {
        let found = try catalogue.read { db in
            try VaultPhotoRecord.filter(VaultPhotoRecord.Columns.contentHash == contentHash).fetchOne(db)
        }
        return try found.map(checked)
    }

    /// The path of `relativePath` in the vault folder, refused (`catalogueTampered`) when it or a
    /// symbolic link on its way leads outside the folder, or when it is itself a symbolic link.
    func file(_ relativePath: String) throws(VaultCryptoError) -> String {
        guard let path = FileSystem.pathInside(folder, relativePath: relativePath) else {
            throw .catalogueTampered(path: folder, reason: "\(quoted(relativePath)) is a symbolic link or leads outside the vault folder")
        }
        return path
    }

    /// Whether `name` is the temporary file of an atomic write (`.NAME.memora-XXXXXX`, or `.NAME.tmp-XXXXXX` of older versions).
    static func isLeftover(_ name: String) -> Bool {
        name.hasPrefix(".") && (name.contains(".memora-") || name.contains(".tmp-"))
    }

    func photoAndKey(_ id: String) throws(VaultCryptoError) -> (VaultPhoto, SecretKey) {
        let photo = try photo(id: id)
        return (photo, try keyWrapper.withLock { $0 }.unwrap([UInt8](photo.wrappedKey), photoID: id))
    }

    /// Thumbnails get their own key, derived from the photo key.
    static func thumbnailKey(_ photoKey: SecretKey) -> SecretKey {
        HKDF.deriveSecretKey(from: photoKey, salt: [], info: "LOCA v1 thumbnail key")
    }

    /// A value that identifies the master key without revealing it; format 2 uses another info
    /// string than format 1, so a catalogue set back to format 1 no longer opens.
    static func keyCheck(_ masterKey: SecretKey, format: Int) -> [UInt8] {
        let info = format >= 2 ? "LOCA v2 vault key check" : "LOCA v1 vault key check"
        return masterKey.withUnsafeBytes { HKDF.deriveKey(inputKeyMaterial: $0, salt: [], info: Array(info.utf8), length: 32) }
    }

    static func finishRotation(_ db: Database) throws {
        try VaultPhotoRecord.finishRotation(db)
        try VaultRecord.finishRotation(db)
    }

    static func makeFolder(_ path: String) throws(VaultCryptoError) {
        try VaultFiles.makePrivateFolder(path)
    }
}

/// `text` for a message: quoted, control characters escaped, at most 80 characters (a catalogue
/// value may come from anyone who could edit the file).
private func quoted(_ text: String) -> String {
    String(reflecting: shortened(text))
}

/// `text`, cut to 80 characters (an id read from a tampered record may be anything).
func shortened(_ text: String) -> String {
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
