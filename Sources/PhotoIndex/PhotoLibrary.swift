public import Foundation

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

    /// Creates an asset description.
    public init(path: String, size: Int64, modified: Date, sidecarPath: String? = nil) {
        self.path = path
        self.size = size
        self.modified = modified
        self.sidecarPath = sidecarPath
    }
}

/// A source of photos to index. ``DirectoryPhotoLibrary`` walks a folder; an iOS front end
/// would enumerate the Photos library.
public protocol PhotoLibrary: Sendable {
    /// Every photo the library holds now, in a stable order.
    func assets() throws(PhotoIndexError) -> [PhotoAsset]
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

    /// The kind of a file from its first 32 bytes, or nil when it is not a photo the index reads.
    public static func detect(_ head: [UInt8]) -> PhotoFileKind? {
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if head.starts(with: [0x49, 0x49, 0x2A, 0x00]) || head.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        if head.starts(with: [0x49, 0x49, 0x2B, 0x00]) || head.starts(with: [0x4D, 0x4D, 0x00, 0x2B]) { return .tiff }  // BigTIFF
        if head.count >= 12, head.starts(with: Array("RIFF".utf8)), Array(head[8..<12]) == Array("WEBP".utf8) { return .webp }
        if head.count >= 12, Array(head[4..<8]) == Array("ftyp".utf8) {
            let brand = String(decoding: head[8..<12], as: UTF8.self)
            if ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1", "avif", "avis"].contains(brand) { return .heif }
        }
        return nil
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

    public func assets() throws(PhotoIndexError) -> [PhotoAsset] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw .libraryUnavailable(path: root, reason: "not a folder")
        }
        guard let enumerator = FileManager.default.enumerator(atPath: root) else {
            throw .libraryUnavailable(path: root, reason: "cannot be listed")
        }
        var found: [PhotoAsset] = []
        var sidecars: Set<String> = []
        var candidates: [String] = []
        while let relative = enumerator.nextObject() as? String {
            let name = (relative as NSString).lastPathComponent
            if name.hasPrefix(".") {
                if enumerator.fileAttributes?[.type] as? FileAttributeType == .typeDirectory { enumerator.skipDescendants() }
                continue
            }
            guard enumerator.fileAttributes?[.type] as? FileAttributeType == .typeRegular else { continue }
            let path = root + "/" + relative
            if name.lowercased().hasSuffix(".xmp") { sidecars.insert(path) } else { candidates.append(path) }
        }
        for path in candidates.sorted() {
            guard let handle = FileHandle(forReadingAtPath: path) else { continue }
            let head = [UInt8](handle.readData(ofLength: 32))
            try? handle.close()
            guard PhotoFileKind.detect(head) != nil,
                  let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { continue }
            let sidecar = [path + ".xmp", path + ".XMP", (path as NSString).deletingPathExtension + ".xmp", (path as NSString).deletingPathExtension + ".XMP"]
                .first(where: sidecars.contains)
            found.append(PhotoAsset(
                path: path, size: (attributes[.size] as? NSNumber)?.int64Value ?? 0,
                modified: attributes[.modificationDate] as? Date ?? Date(timeIntervalSince1970: 0), sidecarPath: sidecar))
        }
        return found
    }
}
