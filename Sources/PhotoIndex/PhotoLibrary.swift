public import Foundation
public import MemoraSystem

/// One photo a library offers: where it is, and what tells whether it changed.
public struct PhotoAsset: Sendable, Hashable, Codable {
    /// The file's path.
    public var path: String
    /// Its size in bytes.
    public var size: Int64
    /// Its modification time.
    public var modified: Date
    /// An XMP sidecar beside it (`photo.jpg.xmp` or `photo.xmp`), read for its metadata.
    public var sidecarPath: String?
    /// The sidecar's modification time: a photo whose sidecar changed is indexed again.
    public var sidecarModified: Date?

    /// Creates an asset description.
    public init(path: String, size: Int64, modified: Date, sidecarPath: String? = nil, sidecarModified: Date? = nil) {
        self.path = path
        self.size = size
        self.modified = modified
        self.sidecarPath = sidecarPath
        self.sidecarModified = sidecarModified
    }
}

/// A source of photos to index. ``DirectoryPhotoLibrary`` walks a folder; an iOS front end
/// would enumerate the Photos library.
public protocol PhotoLibrary: Sendable {
    /// Every photo the library holds now, in a stable order.
    func assets() throws(PhotoIndexError) -> [PhotoAsset]

    /// Every photo, and what could not be read (the default: ``assets()``, nothing unreadable).
    func survey() throws(PhotoIndexError) -> PhotoLibrarySurvey
}

extension PhotoLibrary {
    public func survey() throws(PhotoIndexError) -> PhotoLibrarySurvey { PhotoLibrarySurvey(assets: try assets()) }
}

/// The photo formats the index recognises, by their first bytes (never by the file name).
public enum PhotoFileKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// JPEG (`FF D8 FF`).
    case jpeg
    /// PNG.
    case png
    /// HEIC, HEIF or AVIF (an ISO-BMFF `ftyp` box with an image brand).
    case heif
    /// TIFF and BigTIFF, and DNG which is TIFF.
    case tiff
    /// WebP (`RIFF....WEBP`).
    case webp

    /// The kind of a file from its first bytes (up to 256: a HEIF `ftyp` box lists its brands that far in),
    /// or nil when it is not a photo the index reads.
    public static func detect(_ head: [UInt8]) -> PhotoFileKind? {
        FileFormat.detect(head).flatMap(kind(of:))
    }

    /// The kind of the file at `path` from its first bytes, or nil (also when it cannot be read).
    public static func detect(contentsOf path: String) -> PhotoFileKind? {
        FileFormat.detect(contentsOf: path).flatMap(kind(of:))
    }

    /// The index's kind of a sniffed format; nil for formats the index does not read (GIF).
    static func kind(of format: FileFormat) -> PhotoFileKind? {
        switch format {
        case .jpeg: .jpeg
        case .png: .png
        case .tiff, .bigTIFF: .tiff
        case .webp: .webp
        case .heic, .avif, .heif: .heif
        case .gif: nil
        }
    }
}

/// A folder tree of photos: JPEG, PNG, HEIC/HEIF/AVIF, TIFF/DNG and WebP recognised by
/// content; hidden files and folders and `.xmp` sidecars are not photos (a sidecar is
/// attached to its photo); symbolic links are not followed (no cycles, no duplicates).
public struct DirectoryPhotoLibrary: PhotoLibrary {
    /// The folder.
    public let root: String

    /// A library of the photos under `root`.
    public init(root: String) {
        self.root = root
    }

    public func assets() throws(PhotoIndexError) -> [PhotoAsset] { try survey().assets }

    /// The photos under the root, and the folders and files that could not be read: a folder that
    /// cannot be listed or a file that cannot be opened (`chmod 000`) is reported with its reason.
    public func survey() throws(PhotoIndexError) -> PhotoLibrarySurvey {
        guard FileSystem.isFolder(root) else { throw .libraryUnavailable(path: root, reason: "not a folder") }
        let walk: FolderWalker.Walk
        do { walk = try FolderWalker(root: root).walk() } catch {
            throw .libraryUnavailable(path: root, reason: error.reason, systemCode: error.systemCode, isRetryable: error.isTransient)
        }
        var survey = PhotoLibrarySurvey(
            assets: [], unreadable: walk.unreadableFolders.map { RejectedPhoto(path: $0.path, reason: "the folder cannot be read: " + $0.error.reason) },
            unlistedFolders: walk.unreadableFolders.map(\.path))
        let sidecarTimes = Dictionary(walk.files.filter { $0.path.lowercased().hasSuffix(".xmp") }.map { ($0.path, $0.status.modified) },
                                      uniquingKeysWith: { first, _ in first })
        let sidecars = Set(sidecarTimes.keys)
        for file in walk.files where !sidecars.contains(file.path) {
            do {
                guard let format = try FileFormat.sniff(contentsOf: file.path), PhotoFileKind.kind(of: format) != nil else { continue }
            } catch {
                survey.unreadable.append(RejectedPhoto(path: file.path, reason: "the file cannot be read: " + error.reason))
                continue
            }
            let path = file.path
            let sidecar = Self.sidecarCandidates(for: path).first(where: sidecars.contains)
            survey.assets.append(PhotoAsset(
                path: path, size: file.status.size,
                modified: Date(timeIntervalSince1970: file.status.modified.timeIntervalSince1970), sidecarPath: sidecar,
                sidecarModified: sidecar.flatMap { sidecarTimes[$0] }.map { Date(timeIntervalSince1970: $0.timeIntervalSince1970) }))
        }
        return survey
    }

    /// Where a photo's XMP sidecar may be, in the order they are looked for: `photo.jpg.xmp`, then `photo.xmp`.
    static func sidecarCandidates(for path: String) -> [String] {
        let stem = (path as NSString).deletingPathExtension
        return [path + ".xmp", path + ".XMP", stem + ".xmp", stem + ".XMP"]
    }
}
