/// Lists the regular files under a folder: the one folder walk of the package.
///
/// Hidden files and folders (names starting with `.`) are skipped, symbolic links are not
/// followed (no cycles, no file seen twice), names keep their bytes (``SystemPath``), and the
/// result is sorted by path so every run sees the same order.
package struct FolderWalker: Sendable {
    /// The folder walked.
    package var root: String

    package init(root: String) {
        self.root = root.count > 1 && root.hasSuffix("/") ? String(root.dropLast()) : root
    }

    /// One regular file found.
    package struct File: Sendable, Hashable {
        /// Its path (the root joined with the relative path).
        package var path: String
        /// Its size and times.
        package var status: FileStatus
    }

    /// What a walk found: the files, and the folders below the root it could not read.
    package struct Walk: Sendable {
        /// Every regular, non-hidden file, sorted by path.
        package var files: [File]
        /// Folders below the root that could not be listed, with why, sorted by path.
        package var unreadableFolders: [(path: String, error: SystemError)]
    }

    /// Every regular, non-hidden file under the root, sorted by path. Folders that cannot be
    /// read below the root are skipped; the root itself must be readable.
    package func files() throws(SystemError) -> [File] { try walk().files }

    /// The files under the root and the folders below it that could not be read (they are
    /// skipped, not fatal); the root itself must be readable.
    package func walk() throws(SystemError) -> Walk {
        var found: [File] = []
        var unreadable: [(path: String, error: SystemError)] = []
        var pending = [root]
        var first = true
        while let folder = pending.popLast() {
            let entries: [FileSystem.Entry]
            do {
                entries = try FileSystem.entries(of: folder)
            } catch {
                if first { throw error }
                unreadable.append((folder, error))
                continue
            }
            first = false
            for entry in entries where !entry.name.hasPrefix(".") {
                let path = SystemPath.join(folder, entry.name)
                // d_type saves a stat for folders; a file's size and times need one anyway.
                if entry.kind == .symbolicLink || entry.kind == .other { continue }
                guard let status = FileSystem.statusIfPresent(of: path, followingLinks: false) else { continue }
                switch status.kind {
                case .directory: pending.append(path)
                case .regular: found.append(File(path: path, status: status))
                default: continue
                }
            }
        }
        // Sorted by bytes, so the order does not depend on Unicode normalisation.
        let byPath = { (a: String, b: String) in SystemPath.bytes(a).lexicographicallyPrecedes(SystemPath.bytes(b)) }
        return Walk(files: found.sorted { byPath($0.path, $1.path) }, unreadableFolders: unreadable.sorted { byPath($0.path, $1.path) })
    }
}
