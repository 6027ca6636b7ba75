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

/// What ``Vault/verify(repair:)`` found.
public struct VaultReport: Sendable, Hashable {
    /// Encrypted files with no catalogue record (left by an interrupted add); removed when repairing.
    public var orphanFiles: [String]
    /// Records whose encrypted file is missing; removed when repairing.
    public var missingFiles: [String]
    /// Photos whose file failed authentication or whose key could not be unwrapped.
    public var damagedPhotos: [String]
    /// Photos checked.
    public var checkedCount: Int

    /// Whether everything was consistent and intact.
    public var isHealthy: Bool { orphanFiles.isEmpty && missingFiles.isEmpty && damagedPhotos.isEmpty }
}
