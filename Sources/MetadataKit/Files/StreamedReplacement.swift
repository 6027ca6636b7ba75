import Foundation
internal import MemoraSystem

/// Replacing a large photo without holding it: the new version is written from new bytes and from
/// ranges of the original copied in pieces, atomically, as ``FileAccess/replace(_:with:expected:identity:keepModificationTime:buffers:)``
/// does for a photo held whole (a temporary file with the original's permissions and owner, past the
/// page cache, fsync, rename). A large JPEG's coded image and a large TIFF's strips are copied this way.
struct StreamedReplacement: ~Copyable {
    private let path: String
    private let source: SystemFile
    private let writer: AtomicFileWriter
    private let piece: UnsafeMutableRawBufferPointer
    /// Called with the bytes written so far and the total after each piece; it may throw to stop.
    private let progress: FileProgress?
    private let size: Int64
    private var written: Int64 = 0

    /// Replaces `path`, which must still be the version `identity` names (and, when modified in the
    /// last two seconds, one that `isUnchanged` accepts: file times are coarse), with the `size` bytes
    /// `body` writes; `body` may throw to leave the original untouched.
    static func replace(_ path: String, identity: FileStatus.Identity, size: Int64, keepModificationTime: Bool, buffers: FileAccess.Buffers?,
                        progress: FileProgress? = nil, isUnchanged: (SystemFile) throws(SystemError) -> Bool,
                        body: (inout StreamedReplacement) throws(MetadataError) -> Void) throws(MetadataError) {
        let target = FileSystem.resolvedPath(path) ?? path
        do {
            let source = try SystemFile(path)
            let status = try source.status()
            let recentlyModified = Date().timeIntervalSince1970 - status.modified.timeIntervalSince1970 < 2
            guard status.identity == identity, try !recentlyModified || isUnchanged(source) else {
                throw MetadataError.io(path: path, reason: "the file changed while it was being captioned", code: .changed, isRetryable: true)
            }
            let options = AtomicFileWriter.Options(
                permissions: .keepExisting(otherwise: 0o644), keepsOwner: true, keepsModificationTime: keepModificationTime,
                followsSymbolicLinks: false, uncached: true, removesStaleTemporaryFiles: true)
            let writer = try AtomicFileWriter(path: target, options: options, expectedSize: size, pool: buffers)
            source.adviseSequentialRead()
            var replacement = StreamedReplacement(path: path, source: source, writer: writer,
                                                  piece: .allocate(byteCount: 8 << 20, alignment: AlignedBufferPool.alignment),
                                                  progress: progress, size: size)
            try body(&replacement)
            try writer.commit()
        } catch let error as MetadataError {
            throw error
        } catch let error as SystemError {
            throw .system(error, path: path, reason: "writing failed (\(error.reason))")
        } catch {
            throw .io(path: path, reason: "\(error)")
        }
    }

    deinit { piece.deallocate() }

    /// Writes new bytes.
    mutating func write(_ bytes: some Collection<UInt8>) throws(MetadataError) {
        do { try writer.write(Array(bytes)) } catch { throw .system(error, path: path, reason: "writing failed (\(error.reason))") }
        written += Int64(bytes.count)
        try progress?(written, size)
    }

    /// Copies `range` of the original in pieces; `patch` may change each piece (given with its offset
    /// in the file) before it is written. Returns the CRC-32 of what was written, continued from `crc`.
    mutating func copy(_ range: Range<Int64>, crc: UInt32, patch: (Int64, UnsafeMutableRawBufferPointer) -> Void = { _, _ in }) throws(MetadataError) -> UInt32 {
        var crc = crc
        var offset = range.lowerBound
        while offset < range.upperBound {
            let count = Int(min(Int64(piece.count), range.upperBound - offset))
            let chunk = UnsafeMutableRawBufferPointer(rebasing: piece[0..<count])
            do {
                try source.readExactly(into: chunk, at: offset)
                patch(offset, chunk)
                crc = LibDeflate.crc32(UnsafeRawBufferPointer(chunk), initial: crc)
                try writer.write(UnsafeRawBufferPointer(chunk))
            } catch {
                throw .system(error, path: path, reason: error.operation == "read" ? "cannot be read (\(error.reason))" : "writing failed (\(error.reason))")
            }
            offset += Int64(count)
            written += Int64(count)
            try progress?(written, size)
        }
        return crc
    }
}

/// Progress of a streamed write: the bytes written so far and the total; throwing stops the write
/// (the original is left as it was).
typealias FileProgress = @Sendable (Int64, Int64) throws(MetadataError) -> Void
