import Foundation
public import VaultCrypto
import ImageKit
import MetadataKit
internal import MemoraSystem

/// Puts photos into a vault the way every front end should: the pixel size and format read
/// from the file, the date it was taken from its metadata, an encrypted upright thumbnail when
/// ImageKit can decode it, and, when asked, the location removed from the encrypted copy in
/// memory (no second plaintext copy of the photo is ever written). The original is never changed.
public struct VaultImport: Sendable {
    /// The longest side of the encrypted thumbnail, in pixels; nil: no thumbnail.
    public var thumbnailSize: Int?
    /// Remove the location (EXIF GPS, XMP and IPTC location fields) from the encrypted copy.
    public var stripsLocation: Bool
    /// Tags attached to every photo added.
    public var tags: [String]

    public init(thumbnailSize: Int? = 384, stripsLocation: Bool = false, tags: [String] = []) {
        self.thumbnailSize = thumbnailSize
        self.stripsLocation = stripsLocation
        self.tags = tags
    }

    /// Encrypts the photo at `path` into `vault` and returns its record; a photo whose content the
    /// vault already holds is not added again (``VaultAddition/wasAlreadyStored``, the existing record).
    public func add(_ path: String, to vault: Vault) throws(MemoraError) -> VaultAddition {
        let info = try? ImageDecoder.info(contentsOf: path)
        let thumbnail = thumbnailSize.flatMap { size in
            (try? ImageDecoder.thumbnail(contentsOf: path, maxPixelSize: size, options: DecodingOptions(applyOrientation: true)))
                .flatMap { try? ImageEncoder.encode($0, as: .jpeg()) }
        }
        let taken = (try? MetadataReader.scan(contentsOf: path))?.dateTaken?.date
        let name = SystemPath.fileName(of: path)
        let fallbackFormat = name.contains(".") ? String(name[name.index(after: name.lastIndex(of: ".")!)...]).lowercased() : "unknown"
        let details = VaultPhotoDetails(
            format: info?.format.rawValue ?? fallbackFormat, width: info?.uprightWidth, height: info?.uprightHeight,
            takenAt: taken, tags: tags, thumbnail: thumbnail)
        if !stripsLocation {
            do { return try vault.add(fileAt: path, details: details) } catch { throw .vault(error) }
        }
        let original: [UInt8]
        do { original = try SystemFile(path).readAll() } catch {
            if error.isNotFound { throw .notFound(path: path) }
            throw .io(path: path, reason: "cannot be read (\(error.reason))", systemCode: error.systemCode, isRetryable: error.isTransient)
        }
        let stripped: [UInt8]
        do { stripped = try CaptionWriter.strippingLocation(from: original, source: path) } catch { throw .metadata(error) }
        do { return try vault.add(contents: stripped, originalFilename: name, details: details) } catch { throw .vault(error) }
    }

    /// Adds each of `paths` in turn; a failure does not stop the others. `onProgress` is called
    /// after each photo with how many are done and that photo's path.
    public func add(_ paths: [String], to vault: Vault,
                    onProgress: (_ completed: Int, _ path: String) -> Void = { _, _ in }) -> [Result<VaultAddition, MemoraError>] {
        var results: [Result<VaultAddition, MemoraError>] = []
        for (index, path) in paths.enumerated() {
            results.append(Result { () throws(MemoraError) in try add(path, to: vault) })
            onProgress(index + 1, path)
        }
        return results
    }
}
