#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Operations on paths: status, links, renames, removal, folders. Paths are strings whose
/// bytes follow ``SystemPath``; every call retries on `EINTR` where the call can be interrupted.
package enum FileSystem {
    /// The status of `path`, following a final symbolic link unless `followingLinks` is false.
    package static func status(of path: String, followingLinks: Bool = true) throws(SystemError) -> FileStatus {
        var raw = stat()
        let result = SystemPath.withCString(path) { followingLinks ? stat($0, &raw) : lstat($0, &raw) }
        guard result == 0 else { throw .last("read the status of", path: path) }
        return FileStatus(raw)
    }

    /// The status of `path`, or nil when it does not exist (or cannot be read).
    package static func statusIfPresent(of path: String, followingLinks: Bool = true) -> FileStatus? {
        try? status(of: path, followingLinks: followingLinks)
    }

    /// Whether something exists at `path` (a dangling symbolic link does not count).
    package static func exists(_ path: String) -> Bool { statusIfPresent(of: path) != nil }

    /// Whether `path` is a folder.
    package static func isFolder(_ path: String) -> Bool { statusIfPresent(of: path)?.kind == .directory }

    /// `path` with every symbolic link and `.`/`..` resolved (`realpath`), or nil when it does not exist.
    package static func resolvedPath(_ path: String) -> String? {
        SystemPath.withCString(path) { pointer -> String? in
            guard let resolved = realpath(pointer, nil) else { return nil }
            defer { free(resolved) }
            return SystemPath.string(fromBytes: UnsafeRawBufferPointer(start: resolved, count: strlen(resolved)))
        }
    }

    /// `path` with every symbolic link and `.`/`..` resolved, also when it does not exist yet: the
    /// nearest existing folder above it resolved (`realpath`), followed by the rest of the path.
    /// Nil when that cannot be known (a dangling symbolic link, a folder that cannot be searched).
    package static func resolvedLocation(_ path: String) -> String? {
        if let resolved = resolvedPath(path) { return resolved }
        // Something is there that `realpath` cannot follow: a dangling link, or no permission.
        if statusIfPresent(of: path, followingLinks: false) != nil { return nil }
        let absolute = absolutePath(path)
        let parent = SystemPath.folder(of: absolute)
        guard parent != absolute, let resolvedParent = resolvedLocation(parent) else { return nil }
        return SystemPath.normalized(SystemPath.join(resolvedParent, SystemPath.fileName(of: absolute)))
    }

    /// Whether `path`, with every symbolic link resolved (``resolvedLocation(_:)``), is `folder`
    /// or lies inside it (also resolved); nil when either cannot be resolved.
    package static func isInside(_ path: String, folder: String) -> Bool? {
        guard let location = resolvedLocation(path), let base = resolvedPath(folder) else { return nil }
        return SystemPath.isContained(location, in: base)
    }

    /// `relativePath` joined to `folder`, for a store that owns its folder and must never touch a
    /// file outside it: nil when `relativePath` is absolute or has a `..` component, when it is
    /// itself a symbolic link, or when its folders lead (through symbolic links) outside `folder`.
    /// The path need not exist. (A link swapped in after this check is not caught.)
    package static func pathInside(_ folder: String, relativePath: String) -> String? {
        guard !relativePath.isEmpty, !relativePath.hasPrefix("/"),
              !relativePath.split(separator: "/").contains(".."), let base = resolvedPath(folder) else { return nil }
        let path = SystemPath.join(folder, relativePath)
        if statusIfPresent(of: path, followingLinks: false)?.kind == .symbolicLink { return nil }
        guard let location = resolvedLocation(path), SystemPath.isContained(location, in: base) else { return nil }
        return path
    }

    /// The file a symbolic link at `path` points to in the end, or `path` itself when it is not a link.
    package static func resolvingSymbolicLink(_ path: String) -> String {
        guard statusIfPresent(of: path, followingLinks: false)?.kind == .symbolicLink else { return path }
        return resolvedPath(path) ?? path
    }

    /// Whether the process may write to `path` and its owner left a write bit on it.
    /// (`access` alone says yes to root for a file marked read-only.)
    package static func isWritable(_ path: String) throws(SystemError) -> Bool {
        let status = try status(of: path)
        return status.permissions & 0o222 != 0 && SystemPath.withCString(path) { access($0, W_OK) } == 0
    }

    /// Renames `source` to `destination`, replacing it (atomic within one file system).
    package static func rename(_ source: String, to destination: String) throws(SystemError) {
        let result = SystemPath.withCString(source) { from in SystemPath.withCString(destination) { to in systemRename(from, to) } }
        guard result == 0 else { throw .last("rename to \(SystemPath.fileName(of: destination))", path: source) }
    }

    /// Makes a second name `destination` for `source`; fails with `EEXIST` when `destination` exists.
    package static func link(_ source: String, to destination: String) throws(SystemError) {
        let result = SystemPath.withCString(source) { from in SystemPath.withCString(destination) { to in systemLink(from, to) } }
        guard result == 0 else { throw .last("create", path: destination) }
    }

    /// Removes the file `path`; a missing file is not an error.
    package static func remove(_ path: String) throws(SystemError) {
        guard SystemPath.withCString(path, { unlink($0) }) == 0 || errno == ENOENT else { throw .last("remove", path: path) }
    }

    /// Removes an empty folder.
    package static func removeFolder(_ path: String) throws(SystemError) {
        guard SystemPath.withCString(path, { rmdir($0) }) == 0 || errno == ENOENT else { throw .last("remove the folder", path: path) }
    }

    /// Removes `path` and, when it is a folder, everything in it (symbolic links are removed, never followed).
    package static func removeTree(_ path: String) throws(SystemError) {
        guard let status = statusIfPresent(of: path, followingLinks: false) else { return }
        if status.kind == .directory {
            for entry in try entries(of: path) { try removeTree(SystemPath.join(path, entry.name)) }
            try removeFolder(path)
        } else {
            try remove(path)
        }
    }

    /// Creates the folder `path` (and, with `withParents`, every missing folder above it) with `permissions`;
    /// an existing folder is not an error.
    package static func makeFolder(_ path: String, withParents: Bool = true, permissions: UInt32 = 0o755) throws(SystemError) {
        if isFolder(path) { return }
        if withParents {
            let parent = SystemPath.folder(of: path)
            if parent != path, parent != ".", parent != "/", !exists(parent) {
                try makeFolder(parent, withParents: true, permissions: permissions)
            }
        }
        guard SystemPath.withCString(path, { mkdir($0, mode_t(permissions)) }) == 0 || (errno == EEXIST && isFolder(path)) else {
            throw .last("create the folder", path: path)
        }
    }

    /// Sets the permission bits of `path`.
    package static func setPermissions(_ path: String, _ permissions: UInt32) throws(SystemError) {
        guard SystemPath.withCString(path, { chmod($0, mode_t(permissions)) }) == 0 else { throw .last("set the permissions of", path: path) }
    }

    /// Makes the database at `path`, with its `-wal` and `-shm` files, 0600, creating it empty
    /// when it is missing (SQLite then gives its journal files the same mode), so that a database
    /// never exists for a moment readable by other local users. Its folder is created 0700; an
    /// existing folder is tightened to 0700 only with `tighteningFolder` (a folder Memora owns, not
    /// one the user chose for other files too).
    package static func preparePrivateDatabase(_ path: String, tighteningFolder: Bool = false) throws(SystemError) {
        let folder = SystemPath.folder(of: path)
        try makeFolder(folder, permissions: 0o700)
        if tighteningFolder { try setPermissions(folder, 0o700) }
        if !exists(path) {
            let file = try SystemFile(path, .readingAndWriting(createWith: 0o600))
            file.close()
        }
        // Best effort for existing files: one another user owns (opened only to read) keeps its mode.
        for file in [path, path + "-wal", path + "-shm"] where exists(file) {
            try? setPermissions(file, 0o600)
        }
    }

    /// Flushes a folder's entries (a rename or a new name in it) to the disk; best effort.
    package static func syncFolder(_ path: String) {
        let descriptor = SystemPath.withCString(path.isEmpty ? "." : path) { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        _ = close(descriptor)
    }

    /// One entry of a folder.
    package struct Entry: Sendable, Hashable {
        /// The name (its bytes per ``SystemPath``).
        package var name: String
        /// The kind, as the folder reports it (without a `stat`); nil when the file system does not say.
        package var kind: FileStatus.Kind?
    }

    /// The entries of the folder `path` (without `.` and `..`), in no particular order.
    package static func entries(of path: String) throws(SystemError) -> [Entry] {
        try entries(of: path, where: { _ in true })
    }

    /// The entries of `path` whose raw name bytes pass `include` (checked before any string is made).
    package static func entries(of path: String, where include: (UnsafeRawBufferPointer) -> Bool) throws(SystemError) -> [Entry] {
        guard let directory = SystemPath.withCString(path, { opendir($0) }) else { throw .last("list the folder", path: path) }
        defer { closedir(directory) }
        var found: [Entry] = []
        while true {
            errno = 0
            guard let entry = readdir(directory) else {
                if errno != 0 { throw .last("list the folder", path: path) }
                break
            }
            let kind: FileStatus.Kind?
            switch Int32(entry.pointee.d_type) {
            case Int32(DT_REG): kind = .regular
            case Int32(DT_DIR): kind = .directory
            case Int32(DT_LNK): kind = .symbolicLink
            case Int32(DT_UNKNOWN): kind = nil
            default: kind = .other
            }
            let name: String? = withUnsafeBytes(of: entry.pointee.d_name) { raw -> String? in
                let length = raw.firstIndex(of: 0) ?? raw.count
                let bytes = UnsafeRawBufferPointer(rebasing: raw[0..<length])
                if bytes.elementsEqual([0x2E]) || bytes.elementsEqual([0x2E, 0x2E]) { return nil }
                guard include(bytes) else { return nil }
                return SystemPath.string(fromBytes: bytes)
            }
            if let name { found.append(Entry(name: name, kind: kind)) }
        }
        return found
    }

    /// The current working folder.
    package static func currentFolder() -> String {
        guard let pointer = getcwd(nil, 0) else { return "." }
        defer { free(pointer) }
        return SystemPath.string(fromBytes: UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)))
    }

    /// `path` made absolute against the current folder (not resolved).
    package static func absolutePath(_ path: String) -> String {
        path.hasPrefix("/") ? path : SystemPath.join(currentFolder(), path)
    }
}

#if canImport(Darwin)
private func systemRename(_ from: UnsafePointer<CChar>, _ to: UnsafePointer<CChar>) -> Int32 { Darwin.rename(from, to) }
private func systemLink(_ from: UnsafePointer<CChar>, _ to: UnsafePointer<CChar>) -> Int32 { Darwin.link(from, to) }
#elseif canImport(Musl)
private func systemRename(_ from: UnsafePointer<CChar>, _ to: UnsafePointer<CChar>) -> Int32 { Musl.rename(from, to) }
private func systemLink(_ from: UnsafePointer<CChar>, _ to: UnsafePointer<CChar>) -> Int32 { Musl.link(from, to) }
#else
private func systemRename(_ from: UnsafePointer<CChar>, _ to: UnsafePointer<CChar>) -> Int32 { Glibc.rename(from, to) }
private func systemLink(_ from: UnsafePointer<CChar>, _ to: UnsafePointer<CChar>) -> Int32 { Glibc.link(from, to) }
#endif
