import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading a file whole, and replacing it atomically while keeping its permissions.
enum FileAccess {
    /// The whole file at `path`.
    static func read(_ path: String) throws(MetadataError) -> [UInt8] {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw errno == ENOENT ? .io(path: path, reason: "no such file") : .io(path: path, reason: String(cString: strerror(errno)))
        }
        guard status.st_mode & S_IFMT == S_IFREG else { throw .io(path: path, reason: "not a regular file") }
        do {
            return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw .io(path: path, reason: "cannot be read (\(error.localizedDescription))")
        }
    }

    /// How old a temporary file must be before a later write treats it as left by a killed writer.
    static let staleTemporaryAge: TimeInterval = 15 * 60

    /// Removes `.NAME.memora-XXXXXX` files beside `url` that a writer killed mid-write
    /// (SIGKILL, power loss) could not remove; recent ones may belong to a running writer.
    static func removeStaleTemporaryFiles(of url: URL, now: Date = Date()) {
        let folder = url.deletingLastPathComponent().path
        let prefix = "." + url.lastPathComponent + ".memora-"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for name in names where name.hasPrefix(prefix) && name.count == prefix.count + 6 {
            let path = folder + "/" + name
            guard let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date,
                  now.timeIntervalSince(modified) > staleTemporaryAge else { continue }
            unlink(path)
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
    /// original's permission bits (and, when asked, its modification time), fsync,
    /// rename, fsync of the folder. On failure the original is untouched and the
    /// temporary file is removed. Fails if the file changed since `expected` was read.
    static func replace(_ requestedPath: String, with bytes: [UInt8], expected original: [UInt8], keepModificationTime: Bool) throws(MetadataError) {
        // A symbolic link is written through: its target is replaced and the link kept.
        var path = requestedPath
        if let resolved = realpath(requestedPath, nil) {
            path = String(cString: resolved)
            free(resolved)
        }
        var status = stat()
        guard stat(path, &status) == 0 else { throw .io(path: path, reason: String(cString: strerror(errno))) }
        // The file must still be the one we read: someone may have replaced it meanwhile.
        guard let current = try? read(path), sameBytes(current[...], original[...]) else {
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
        var failure: String?
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = String(cString: strerror(errno))
                    return
                }
                offset += written
            }
        }
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
