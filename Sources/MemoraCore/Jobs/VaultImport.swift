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
    /// vault already holds is not added again (VaultCrypto's `VaultAddition.wasAlreadyStored`, the existing record).
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
        let original = try Self.read(path)
        let stripped: [UInt8]
        do { stripped = try CaptionWriter.strippingLocation(from: original, source: path) } catch { throw .metadata(error) }
        do { return try vault.add(contents: stripped, originalFilename: name, details: details) } catch { throw .vault(error) }
    }

    /// A dry run of ``add(_:to:)``: the photo `vault` already holds with the content the add would
    /// store (after the location strip, done in memory, when ``stripsLocation``), or nil when the add
    /// would store it. The file is read and, for a strip, edited and verified in memory; nothing is written.
    public func check(_ path: String, against vault: Vault) throws(MemoraError) -> VaultPhoto? {
        guard stripsLocation else {
            do { return try vault.storedPhoto(matchingContentsOf: path) } catch { throw .vault(error) }
        }
        let original = try Self.read(path)
        let stripped: [UInt8]
        do { stripped = try CaptionWriter.strippingLocation(from: original, source: path) } catch { throw .metadata(error) }
        do { return try vault.storedPhoto(matching: stripped) } catch { throw .vault(error) }
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

    /// The whole file, for a strip in memory.
    private static func read(_ path: String) throws(MemoraError) -> [UInt8] {
        do { return try SystemFile(path).readAll() } catch {
            if error.isNotFound { throw .notFound(path: path) }
            throw .io(path: path, reason: "cannot be read (\(error.reason))", systemCode: error.systemCode, isRetryable: error.isTransient)
        }
    }
}
