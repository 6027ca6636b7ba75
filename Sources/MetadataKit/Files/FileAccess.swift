import Foundation
internal import MemoraSystem

/// Reading a photo whole, and replacing it atomically while keeping its permissions, through
/// the system layer (``AtomicFileWriter``: large photos are written past the page cache).
enum FileAccess {
    /// What identifies one version of a file (device, inode, size, modification and status-change times).
    typealias Identity = FileStatus.Identity
    /// Aligned write buffers a batch reuses from photo to photo.
    typealias Buffers = AlignedBufferPool

    /// A batch's reusable write buffers.
    static func makeBuffers() -> Buffers { AlignedBufferPool(bufferSize: AtomicFileWriter.blockSize) }

    /// The whole file at `path`.
    static func read(_ path: String) throws(MetadataError) -> [UInt8] {
        try readWithIdentity(path).bytes
    }

    /// The whole file at `path`, read straight into one array, and the identity of the version read.
    static func readWithIdentity(_ path: String) throws(MetadataError) -> (bytes: [UInt8], identity: Identity) {
        do {
            let file = try SystemFile(path)
            let status = try file.status()
            return (try file.readAll(), status.identity)
        } catch {
            throw .system(error, path: path, reason: error.operation == "read" ? "cannot be read (\(error.reason))" : error.reason)
        }
    }

    /// Whether something exists at `path`.
    static func exists(_ path: String) -> Bool { FileSystem.exists(path) }

    /// Creates `path` with `bytes`, atomically and without replacing anything: a temporary file
    /// beside it, fsync, then a hard link to the final name (which fails if the name exists).
    static func create(_ path: String, with bytes: [UInt8]) throws(MetadataError) {
        do {
            try AtomicFileWriter.write(bytes, to: path, options: .init(replacesExisting: false, followsSymbolicLinks: false, uncached: true))
        } catch where error.code == SystemErrorCode.exists {
            throw .io(path: path, reason: "it appeared while it was being written; nothing was changed", code: .changed, systemCode: error.code)
        } catch {
            throw .system(error, path: path, reason: "writing failed (\(error.reason))")
        }
    }

    /// Refuses a file its owner marked read-only (no write bit at all), even when running as root.
    static func requireWritable(_ path: String) throws(MetadataError) {
        let writable: Bool
        do { writable = try FileSystem.isWritable(path) } catch { throw .system(error, path: path, reason: error.reason) }
        guard writable else {
            throw .io(path: path, reason: "the file is read-only; make it writable first if Memora is to change it", code: .notWritable)
        }
    }

    /// Replaces `path` with `bytes`: a temporary file in the same folder with the original's permission
    /// bits, owner (when allowed) and, when asked, its modification time, written past the page cache
    /// when large, fsync, rename, fsync of the folder. On failure the original is untouched and the
    /// temporary file is removed. Fails if the file is no longer the version that was read
    /// (`expected`, identified by `identity`). `buffers`: a batch's reusable write buffers.
    static func replace(_ requestedPath: String, with bytes: [UInt8], expected: [UInt8], identity: Identity, keepModificationTime: Bool,
                        buffers: Buffers? = nil) throws(MetadataError) {
        // A symbolic link is written through: its target is replaced and the link kept.
        let path = FileSystem.resolvedPath(requestedPath) ?? requestedPath
        let status: FileStatus
        do { status = try FileSystem.status(of: path) } catch { throw .system(error, path: path, reason: error.reason) }
        // The file must still be the version we read: someone may have changed or replaced it meanwhile.
        // File times come from a coarse clock (a few milliseconds), so a change made within the same
        // tick as the version we read keeps its times: as git does for "racily clean" files, a file
        // modified in the last two seconds is compared byte for byte instead.
        let recentlyModified = Date().timeIntervalSince1970 - status.modified.timeIntervalSince1970 < 2
        guard status.identity == identity,
              !recentlyModified || (try? read(path)).map({ sameBytes($0[...], expected[...]) }) == true else {
            throw .io(path: path, reason: "the file changed while it was being captioned", code: .changed, isRetryable: true)
        }
        let options = AtomicFileWriter.Options(
            permissions: .keepExisting(otherwise: 0o644), keepsOwner: true, keepsModificationTime: keepModificationTime,
            followsSymbolicLinks: false, uncached: true, removesStaleTemporaryFiles: true)
        do {
            try AtomicFileWriter.write(bytes, to: path, options: options, pool: buffers)
        } catch {
            throw .system(error, path: path, reason: error.operation == "rename to \(SystemPath.fileName(of: path))"
                ? "cannot replace it (\(error.reason))" : "writing failed (\(error.reason))")
        }
    }
}

extension MetadataError {
    /// A failed system call as a MetadataError: "not found" and "not writable" get their codes,
    /// the errno is kept, and a transient failure is retryable.
    static func system(_ error: SystemError, path: String, reason: String) -> MetadataError {
        let code: Code = error.isNotFound ? .notFound : error.isPermissionDenied ? .notWritable : .io
        return .io(path: path, reason: reason, code: code, systemCode: error.systemCode, isRetryable: error.isTransient)
    }
}
