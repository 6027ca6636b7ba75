internal import MemoraSystem

/// Writing image files atomically through the system layer, with errors that name the file.
enum FileIO {
    /// Writes `bytes` to `path` so that readers see either the old file or the complete new one.
    /// A symbolic link is written through (its target is replaced, the link kept);
    /// an existing file keeps its permission bits; a new file gets 0644.
    /// Without `replacingExisting`, an existing file (or link) at `path` is left as it is (`outputExists`).
    static func writeAtomically(_ bytes: [UInt8], to path: String, replacingExisting: Bool = true) throws(ImageError) {
        if !replacingExisting, FileSystem.statusIfPresent(of: path, followingLinks: false) != nil { throw .outputExists(path: path) }
        do {
            try AtomicFileWriter.write(bytes, to: path, options: .init(replacesExisting: replacingExisting))
        } catch where error.code == SystemErrorCode.exists && !replacingExisting {
            throw .outputExists(path: path)
        } catch {
            throw .writeFailed(path: error.path ?? path, reason: error.reason, systemCode: error.systemCode, isRetryable: error.isTransient)
        }
    }
}

extension ImageError {
    /// `unreadable` for a failed system call: its `errno` kept, retryable when the failure is transient.
    static func unreadable(path: String, cause: SystemError) -> ImageError {
        .unreadable(path: path, reason: cause.reason, systemCode: cause.systemCode, isRetryable: cause.isTransient)
    }
}
