public import Foundation

/// One photo in a vault's catalogue. The photo bytes live encrypted in a LOCA
/// file; this record holds its wrapped key and what a front end shows in a list.
public struct VaultPhoto: Sendable, Hashable, Codable {
    /// The photo's id (a lowercase UUID); also bound into its wrapped key.
    public var id: String
    /// The LOCA file, relative to the vault folder: `Photos/YYYY/MM/{id}.encrypted`.
    public var relativePath: String
    /// The photo key wrapped under the master key (see ``PhotoKeyWrapper``).
    public var wrappedKey: Data
    /// The plaintext size in bytes.
    public var originalSize: Int64
    /// The LOCA file's size in bytes.
    public var encryptedSize: Int64
    /// The name the file had when it was added.
    public var originalFilename: String
    /// A short format name such as `jpeg` or `heic`, as the caller reported it.
    public var format: String
    /// Pixel width, when known.
    public var width: Int?
    /// Pixel height, when known.
    public var height: Int?
    /// When the photo was taken, when known.
    public var takenAt: Date?
    /// When it was added to the vault.
    public var addedAt: Date
    /// Free-form tags.
    public var tags: [String]
    /// Marked as a favourite.
    public var isFavorite: Bool
    /// Hidden from the normal list.
    public var isHidden: Bool
    /// Whether an encrypted thumbnail exists in `Thumbnails/{id}.thumb`.
    public var hasThumbnail: Bool
}

/// What a caller knows about a photo it adds (the vault reads no image formats itself).
public struct VaultPhotoDetails: Sendable, Hashable {
    /// A short format name such as `jpeg`.
    public var format: String
    /// Pixel width, when known.
    public var width: Int?
    /// Pixel height, when known.
    public var height: Int?
    /// When the photo was taken, when known.
    public var takenAt: Date?
    /// Tags to store with it.
    public var tags: [String]
    /// An already encoded thumbnail to store encrypted beside the photo.
    public var thumbnail: [UInt8]?

    /// Creates details; only the format is required.
    public init(format: String, width: Int? = nil, height: Int? = nil, takenAt: Date? = nil, tags: [String] = [], thumbnail: [UInt8]? = nil) {
        self.format = format
        self.width = width
        self.height = height
        self.takenAt = takenAt
        self.tags = tags
        self.thumbnail = thumbnail
    }
}

/// A named group of photos.
public struct VaultAlbum: Sendable, Hashable, Codable {
    /// The album's id (a lowercase UUID).
    public var id: String
    /// Its display name.
    public var name: String
    /// When it was created.
    public var createdAt: Date
}

/// What ``Vault/add(fileAt:details:)`` and ``Vault/add(contents:originalFilename:details:)`` did.
public struct VaultAddition: Sendable, Hashable {
    /// The photo's record: the new one, or the one already holding the same content.
    public var photo: VaultPhoto
    /// True when the vault already held a photo with the same content (found by its keyed
    /// content hash): nothing was added and ``photo`` is the existing record.
    public var wasAlreadyStored: Bool
}

/// What ``Vault/verify(repair:)`` found.
public struct VaultReport: Sendable, Hashable {
    /// Encrypted files that no catalogue record names (by their id), and temporary files left by
    /// an interrupted add; removed when repairing.
    public var orphanFiles: [String]
    /// Records whose encrypted file is missing; removed when repairing.
    public var missingFiles: [String]
    /// Photos whose file failed authentication, whose key could not be unwrapped, or whose file
    /// or plaintext size differs from the recorded one. Never removed by a repair.
    public var damagedPhotos: [String]
    /// Records that fail the catalogue's MAC or name a file outside the vault's layout: changed
    /// outside Memora. Their ids as stored (at most 80 characters; a tampered id may hold anything, so
    /// escape it before showing it). Never removed by a repair, nor the files they name.
    public var tamperedRecords: [String] = []
    /// The original file names of the photos in ``missingFiles`` and ``damagedPhotos``, by id.
    public var fileNames: [String: String] = [:]
    /// Photos checked.
    public var checkedCount: Int
    /// Whether this report comes from a repair (orphans and records without a file were removed).
    public var wasRepaired = false
    /// Files a repair could not remove.
    public var unremovedFiles: [String] = []

    /// Whether everything was consistent and intact when the check ran.
    public var isHealthy: Bool { orphanFiles.isEmpty && missingFiles.isEmpty && damagedPhotos.isEmpty && tamperedRecords.isEmpty }

    /// Whether the vault is healthy now: without a repair, ``isHealthy``; after one, whether
    /// nothing is left that a repair does not fix (damaged or tampered records, files it could not remove).
    public var isHealthyNow: Bool {
        guard wasRepaired else { return isHealthy }
        return damagedPhotos.isEmpty && tamperedRecords.isEmpty && unremovedFiles.isEmpty
    }
}

/// The photos of a vault as a listing shows them: every record that checks out, and the ids of those
/// that do not (changed outside Memora), so one tampered record does not hide the others.
public struct VaultListing: Sendable, Hashable {
    /// The photos whose records check out, newest first.
    public var photos: [VaultPhoto]
    /// The ids of the records that fail the catalogue's checks (as ``VaultReport/tamperedRecords``).
    public var tamperedRecords: [String]
}
