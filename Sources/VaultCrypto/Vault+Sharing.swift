import Foundation
import GRDB
internal import MemoraSystem

// Sharing: a photo sealed for one recipient in a signed .locaphoto bundle, and a bundle received.
extension Vault {
    /// A `.locaphoto` bundle of photo `id` for `recipient`, signed by `sender` (Docs/Vault.md).
    public func share(_ id: String, from sender: SharingIdentity, to recipient: ShareRecipient) throws(VaultCryptoError) -> [UInt8] {
        let photo = try photo(id: id)
        let metadata = SharedPhotoMetadata(
            originalFilename: photo.originalFilename, format: photo.format, originalSize: photo.originalSize,
            captureDate: photo.takenAt, width: photo.width, height: photo.height)
        return try ShareBundle.create(contents: contents(of: id), metadata: metadata, photoID: id, from: sender, to: recipient, now: clock.now())
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
}
