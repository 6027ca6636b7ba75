internal import MemoraSystem

/// Reading whole files and writing them atomically through the system layer, with errors that name the file.
enum FileIO {
    /// Reads the whole file at `path` (a regular file: devices and pipes could stream forever).
    static func read(_ path: String) throws(ImageError) -> [UInt8] {
        do {
            return try SystemFile(path).readAll()
        } catch {
            throw error.isNotFound && error.operation == "open" ? .fileNotFound(path: path) : .unreadable(path: path, reason: error.reason)
        }
    }

    /// Writes `bytes` to `path` so that readers see either the old file or the complete new one.
    /// A symbolic link is written through (its target is replaced, the link kept);
    /// an existing file keeps its permission bits; a new file gets 0644.
    static func writeAtomically(_ bytes: [UInt8], to path: String) throws(ImageError) {
        do {
            try AtomicFileWriter.write(bytes, to: path)
        } catch {
            throw .writeFailed(path: error.path ?? path, reason: error.reason)
        }
    }
}
