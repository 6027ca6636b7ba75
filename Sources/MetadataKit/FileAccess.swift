import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading a file whole, and replacing it atomically while keeping its permissions.
enum FileAccess {
    /// What identifies one version of a file: device, inode, size, and the modification and
    /// status-change times to the nanosecond. Any write to the file, or a replacement of it,
    /// changes at least one of them (the kernel sets the status-change time; no program can).
    struct Identity: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: timespec
        var changed: timespec

        init(_ status: stat) {
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
            size = Int64(status.st_size)
            modified = status.st_mtim
            changed = status.st_ctim
        }

        static func == (lhs: Identity, rhs: Identity) -> Bool {
            lhs.device == rhs.device && lhs.inode == rhs.inode && lhs.size == rhs.size
                && lhs.modified.tv_sec == rhs.modified.tv_sec && lhs.modified.tv_nsec == rhs.modified.tv_nsec
                && lhs.changed.tv_sec == rhs.changed.tv_sec && lhs.changed.tv_nsec == rhs.changed.tv_nsec
        }
    }

    /// The whole file at `path`.
    static func read(_ path: String) throws(MetadataError) -> [UInt8] {
        try readWithIdentity(path).bytes
    }

    /// The whole file at `path`, read straight into one array, and the identity of the version read.
    static func readWithIdentity(_ path: String) throws(MetadataError) -> (bytes: [UInt8], identity: Identity) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw errno == ENOENT ? .io(path: path, reason: "no such file") : .io(path: path, reason: String(cString: strerror(errno)))
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .io(path: path, reason: String(cString: strerror(errno))) }
        guard status.st_mode & S_IFMT == S_IFREG else { throw .io(path: path, reason: "not a regular file") }
        let size = Int(status.st_size)
        var failure: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            count = 0
            while count < size {
                let got = Foundation.read(descriptor, buffer.baseAddress! + count, size - count)
                if got < 0 && errno == EINTR { continue }
                if got <= 0 { failure = got < 0 ? errno : EIO; break }
                count += got
            }
        }
        guard failure == 0 else { throw .io(path: path, reason: "cannot be read (\(String(cString: strerror(failure))))") }
        return (bytes, Identity(status))
    }

    /// How old a temporary file must be before a later write treats it as left by a killed writer.
    static let staleTemporaryAge: TimeInterval = 15 * 60

    /// Removes `.NAME.memora-XXXXXX` files beside `url` that a writer killed mid-write
    /// (SIGKILL, power loss) could not remove; recent ones may belong to a running writer.
    static func removeStaleTemporaryFiles(of url: URL, now: Date = Date()) {
        let folder = url.deletingLastPathComponent().path
        let prefix = Array(("." + url.lastPathComponent + ".memora-").utf8)
        guard let directory = opendir(folder) else { return }
        defer { closedir(directory) }
        // readdir and a byte comparison: no String per entry, so a folder of thousands of photos stays cheap.
        while let entry = readdir(directory) {
            let matches = withUnsafeBytes(of: entry.pointee.d_name) { name -> Bool in
                guard let length = name.firstIndex(of: 0), length == prefix.count + 6 else { return false }
                return name.starts(with: prefix)
            }
            guard matches else { continue }
            let path = folder + "/" + withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            var status = stat()
            guard stat(path, &status) == 0,
                  now.timeIntervalSince1970 - Double(status.st_mtim.tv_sec) > staleTemporaryAge else { continue }
            unlink(path)
        }
    }

    /// Creates `path` with `bytes`, atomically and without replacing anything: a temporary file
    /// beside it, fsync, then a hard link to the final name (which fails if the name exists).
    static func create(_ path: String, with bytes: [UInt8]) throws(MetadataError) {
        let folder = (path as NSString).deletingLastPathComponent
        let temporary = (folder.isEmpty ? "." : folder) + "/." + (path as NSString).lastPathComponent + ".memora-new-\(getpid())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .io(path: path, reason: "cannot create a file beside it (\(String(cString: strerror(errno))))") }
        defer { unlink(temporary) }
        let failure = UncachedFileWrite.write(bytes, to: descriptor) ?? (fsync(descriptor) == 0 ? nil : String(cString: strerror(errno)))
        close(descriptor)
        if let failure { throw .io(path: path, reason: "writing failed (\(failure))") }
        guard link(temporary, path) == 0 else {
            throw .io(path: path, reason: errno == EEXIST ? "it appeared while it was being written; nothing was changed" : String(cString: strerror(errno)))
        }
        let directory = open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            _ = fsync(directory)
            close(directory)
        }
    }

    /// Refuses a file its owner marked read-only (no write bit at all), even when running as root.
    static func requireWritable(_ path: String) throws(MetadataError) {
        var status = stat()
        guard stat(path, &status) == 0 else { throw .io(path: path, reason: String(cString: strerror(errno))) }
        guard status.st_mode & 0o222 != 0, access(path, W_OK) == 0 else {
            throw .io(path: path, reason: "the file is read-only; make it writable first if you want it captioned")
        }
    }

    /// Replaces `path` with `bytes`: a temporary file in the same folder with the
    /// original's permission bits (and, when asked, its modification time), written past the
    /// page cache when large (``UncachedFileWrite``), fsync,
    /// rename, fsync of the folder. On failure the original is untouched and the
    /// temporary file is removed. Fails if the file is no longer the version that was read
    /// (`expected`, identified by `identity`). `buffers`: a batch's reusable write buffers.
    static func replace(_ requestedPath: String, with bytes: [UInt8], expected: [UInt8], identity: Identity, keepModificationTime: Bool,
                        buffers: UncachedFileWrite.Buffers? = nil) throws(MetadataError) {
        // A symbolic link is written through: its target is replaced and the link kept.
        var path = requestedPath
        if let resolved = realpath(requestedPath, nil) {
            path = String(cString: resolved)
            free(resolved)
        }
        var status = stat()
        guard stat(path, &status) == 0 else { throw .io(path: path, reason: String(cString: strerror(errno))) }
        // The file must still be the version we read: someone may have changed or replaced it meanwhile.
        // File times come from a coarse clock (a few milliseconds), so a change made within the same
        // tick as the version we read keeps its times: as git does for "racily clean" files, a file
        // modified in the last two seconds is compared byte for byte instead.
        let recentlyModified = Double(time(nil)) - Double(status.st_mtim.tv_sec) < 2
        guard Identity(status) == identity,
              !recentlyModified || (try? read(path)).map({ sameBytes($0[...], expected[...]) }) == true else {
            throw .io(path: path, reason: "the file changed while it was being captioned")
        }
        let url = URL(fileURLWithPath: path)
        removeStaleTemporaryFiles(of: url)
        var template = Array((url.deletingLastPathComponent().path + "/." + url.lastPathComponent + ".memora-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw .io(path: path, reason: "cannot create a temporary file beside it (\(String(cString: strerror(errno))))") }
        let temporary = String(cString: template.map { UInt8(bitPattern: $0) })
        var committed = false
        defer {
            if !committed { unlink(temporary) }
        }
        // Large photos bypass the page cache where the file system allows it (see UncachedFileWrite).
        var failure = UncachedFileWrite.write(bytes, to: descriptor, buffers: buffers)
        if failure == nil { _ = fchown(descriptor, status.st_uid, status.st_gid) }  // best effort: needs privileges for another owner
        if failure == nil, fchmod(descriptor, status.st_mode & 0o7777) != 0 { failure = String(cString: strerror(errno)) }
        if failure == nil, keepModificationTime {
            var times = [status.st_atim, status.st_mtim]
            if futimens(descriptor, &times) != 0 { failure = String(cString: strerror(errno)) }
        }
        if failure == nil, fsync(descriptor) != 0 { failure = String(cString: strerror(errno)) }
        close(descriptor)
        if let failure { throw .io(path: path, reason: "writing failed (\(failure))") }
        guard rename(temporary, path) == 0 else { throw .io(path: path, reason: "cannot replace it (\(String(cString: strerror(errno))))") }
        committed = true
        let folder = open(url.deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            _ = fsync(folder)
            close(folder)
        }
    }
}
