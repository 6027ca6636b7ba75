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
    /// The most bytes of a captured stream kept in memory, to read the photo's size and date, make
    /// its thumbnail and remove its location (``add(chunks:name:to:)``). A larger photo is encrypted
    /// as it arrives, with its size and date read from its first bytes, no thumbnail, and no
    /// location removal (refused). 32 MiB: a camera's photo fits whole.
    public var captureMemoryLimit: Int

    /// An import with these settings.
    public init(thumbnailSize: Int? = 384, stripsLocation: Bool = false, tags: [String] = [], captureMemoryLimit: Int = 32 << 20) {
        self.thumbnailSize = thumbnailSize
        self.stripsLocation = stripsLocation
        self.tags = tags
        self.captureMemoryLimit = max(0, captureMemoryLimit)
    }

    /// The record's details: format, upright size and date from what ImageKit and MetadataKit read,
    /// the name's extension when ImageKit cannot tell the format.
    private func details(info: ImageInfo?, taken: Date?, thumbnail: [UInt8]?, name: String) -> VaultPhotoDetails {
        let fallbackFormat = name.contains(".") ? String(name[name.index(after: name.lastIndex(of: ".")!)...]).lowercased() : "unknown"
        return VaultPhotoDetails(
            format: info?.format.rawValue ?? fallbackFormat, width: info?.uprightWidth, height: info?.uprightHeight,
            takenAt: taken, tags: tags, thumbnail: thumbnail)
    }

    // MARK: Capture

    /// Captures a photo held in memory (a camera's output) into `vault` as `name`: its details and
    /// thumbnail read from the bytes, its location removed in memory when ``stripsLocation``, then
    /// encrypted. Nothing but the encrypted copy touches the disk.
    public func add(bytes: [UInt8], name: String, to vault: Vault) throws(MemoraError) -> VaultAddition {
        let thumbnail = thumbnailSize.flatMap { size in
            (try? ImageDecoder.thumbnail(bytes, source: name, maxPixelSize: size, options: DecodingOptions(applyOrientation: true)))
                .flatMap { try? ImageEncoder.encode($0, as: .jpeg()) }
        }
        let details = details(info: try? ImageDecoder.info(of: bytes, source: name),
                              taken: (try? MetadataReader.scan(bytes, source: name))?.dateTaken?.date, thumbnail: thumbnail, name: name)
        var contents = bytes
        if stripsLocation {
            do { contents = try CaptionWriter.strippingLocation(from: bytes, source: name) } catch { throw .metadata(error) }
        }
        do { return try vault.add(contents: contents, originalFilename: name, details: details) } catch { throw .vault(error) }
    }

    /// Captures a photo arriving as chunks (standard input, an iOS front end's `AVCapturePhotoOutput`
    /// data, a download) into `vault` as `name`, without its plaintext ever touching the disk. Up to
    /// ``captureMemoryLimit`` bytes are gathered in memory; a photo that ends within it is added as
    /// ``add(bytes:name:to:)`` adds it. A larger one is encrypted as it arrives (VaultCrypto's
    /// `Vault.add(chunks:originalFilename:details:)`): memory stays at the limit plus a few MiB
    /// whatever the size; its location cannot be removed in memory, so ``stripsLocation`` refuses it
    /// (`invalidConfiguration`) and nothing is stored. A stream that fails is `io`; the vault is unchanged.
    public func add<Chunks: AsyncSequence>(chunks: Chunks, name: String, to vault: Vault) async throws(MemoraError) -> VaultAddition
        where Chunks.Element == [UInt8] {
        var head: [UInt8] = []
        head.reserveCapacity(captureMemoryLimit + (1 << 20))
        var iterator = chunks.makeAsyncIterator()
        var ended = false
        do {
            while head.count <= captureMemoryLimit {
                guard let chunk = try await iterator.next() else {
                    ended = true
                    break
                }
                head += chunk
            }
        } catch {
            throw .io(path: name, reason: "the photo's stream failed: \(MemoraError.reason(of: error)); nothing was stored")
        }
        if ended { return try add(bytes: head, name: name, to: vault) }
        guard !stripsLocation else {
            throw .invalidConfiguration("\(name): the photo is larger than \(captureMemoryLimit >> 20) MiB, too large to remove its location in memory; nothing was stored. Capture it without removing the location, or raise the capture's memory limit")
        }
        let details = details(info: try? ImageDecoder.info(of: head, source: name),
                              taken: (try? MetadataReader.scan(head, source: name))?.dateTaken?.date, thumbnail: nil, name: name)
        do {
            return try await vault.add(chunks: ResumedChunks(head: consume head, rest: iterator), originalFilename: name, details: details)
        } catch {
            throw .vault(error)
        }
    }

    /// Encrypts the photo at `path` into `vault` and returns its record; a photo whose content the
    /// vault already holds is not added again (VaultCrypto's `VaultAddition.wasAlreadyStored`, the existing record).
    public func add(_ path: String, to vault: Vault) throws(MemoraError) -> VaultAddition {
        try store(path, to: vault).addition
    }

    /// ``add(_:to:)``, with the SHA-256 of what was stored (the file's content, or its stripped copy's).
    private func store(_ path: String, to vault: Vault) throws(MemoraError) -> (addition: VaultAddition, storedDigest: [UInt8]?) {
        let thumbnail = thumbnailSize.flatMap { size in
            (try? ImageDecoder.thumbnail(contentsOf: path, maxPixelSize: size, options: DecodingOptions(applyOrientation: true)))
                .flatMap { try? ImageEncoder.encode($0, as: .jpeg()) }
        }
        let name = SystemPath.fileName(of: path)
        let details = details(info: try? ImageDecoder.info(contentsOf: path), taken: (try? MetadataReader.scan(contentsOf: path))?.dateTaken?.date,
                              thumbnail: thumbnail, name: name)
        if !stripsLocation {
            do { return (try vault.add(fileAt: path, details: details), nil) } catch { throw .vault(error) }
        }
        let original = try Self.read(path)
        let stripped: [UInt8]
        do { stripped = try CaptionWriter.strippingLocation(from: original, source: path) } catch { throw .metadata(error) }
        do { return (try vault.add(contents: stripped, originalFilename: name, details: details), SHA256Digest.hash(stripped)) } catch { throw .vault(error) }
    }

    // MARK: Moving originals into the vault

    /// What ``move(_:into:onProgress:)`` did with one original.
    public struct Move: Sendable {
        /// The original's path.
        public var path: String
        /// The vault's record of it.
        public var addition: VaultAddition
        /// Whether the original was removed (after its encrypted copy was read back and verified).
        public var removed: Bool
        /// Why the original was kept, when it was.
        public var keptBecause: String?
    }

    /// Adds each of `paths` as ``add(_:to:)`` does, then removes each original, but only once its
    /// encrypted copy is committed (written, synced, recorded), read back from the disk, decrypted and
    /// found to hash to exactly what was stored, and the original still hashes as it did when it was
    /// read. A photo the vault held already (an earlier run killed before it removed the original, a
    /// capture from standard input) is removed on the same proof: the vault's copy is read back and
    /// must hash to what this call would store. One that failed or was refused is an error and is
    /// kept; one kept for another reason says why (``Move/keptBecause``). Removal
    /// unlinks the file: on an SSD or a copy-on-write file system (btrfs, ZFS, APFS) its old blocks
    /// may survive until reused; it is not a secure wipe. A crash at any point leaves the original, or
    /// a verified encrypted copy, or both.
    public func move(_ paths: [String], into vault: Vault,
                     onProgress: (_ completed: Int, _ path: String) -> Void = { _, _ in }) -> [Result<Move, MemoraError>] {
        var results: [Result<Move, MemoraError>] = []
        for (index, path) in paths.enumerated() {
            results.append(Result { () throws(MemoraError) in try move(path, into: vault) })
            onProgress(index + 1, path)
        }
        return results
    }

    private func move(_ path: String, into vault: Vault) throws(MemoraError) -> Move {
        let before = try Self.digest(of: path)
        let (addition, stored) = try store(path, to: vault)
        var move = Move(path: path, addition: addition, removed: false, keptBecause: nil)
        // The vault's copy is read back whether this run wrote it or an earlier one did (a run killed
        // between encrypting and removing, a capture from standard input): either way the original
        // goes only when that copy decrypts to exactly what this run would store.
        let readBack: [UInt8]
        do { readBack = try vault.plaintextDigest(of: addition.photo.id) } catch { throw .vault(error) }
        // The original first: a file that changed while it was added is kept, whatever the vault holds.
        guard try Self.digest(of: path) == before else {
            move.keptBecause = "it changed while it was being added; the vault holds it as it was read"
            return move
        }
        guard readBack == (stored ?? before) else {
            if addition.wasAlreadyStored {
                move.keptBecause = "the vault's copy of this content (photo \(addition.photo.id)) does not read back as this file; run `memora vault verify`"
                return move
            }
            throw .io(path: path, reason: "its encrypted copy (photo \(addition.photo.id)) does not read back as what was stored; the original was kept. Run `memora vault verify`")
        }
        do { try FileSystem.remove(path) } catch {
            throw .io(path: path, reason: "its encrypted copy is verified (photo \(addition.photo.id)) but the original cannot be removed: \(error.reason)",
                      systemCode: error.systemCode)
        }
        move.removed = true
        return move
    }

    /// The SHA-256 of the file at `path`, read in pieces.
    private static func digest(of path: String) throws(MemoraError) -> [UInt8] {
        do { return try SHA256Digest.hash(contentsOf: path) } catch {
            if error.isNotFound { throw .notFound(path: path) }
            throw .io(path: path, reason: "cannot be read (\(error.reason))", systemCode: error.systemCode, isRetryable: error.isTransient)
        }
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

/// A stream's chunks gathered in memory first (`head`), then the rest of the stream.
struct ResumedChunks<Rest: AsyncIteratorProtocol>: AsyncSequence where Rest.Element == [UInt8] {
    typealias Element = [UInt8]
    var head: [UInt8]?
    var rest: Rest

    init(head: consuming [UInt8], rest: Rest) {
        self.head = head
        self.rest = rest
    }

    func makeAsyncIterator() -> Iterator { Iterator(head: head, rest: rest) }

    struct Iterator: AsyncIteratorProtocol {
        var head: [UInt8]?
        var rest: Rest

        mutating func next() async throws -> [UInt8]? {
            if let first = head.take() { return first }
            return try await rest.next()
        }
    }
}
