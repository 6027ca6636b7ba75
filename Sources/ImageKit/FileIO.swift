import Foundation
#if canImport(Glibc)
import Glibc
private let systemRead = Glibc.read
private let systemWrite = Glibc.write
#elseif canImport(Darwin)
import Darwin
private let systemRead = Darwin.read
private let systemWrite = Darwin.write
#endif

/// Reading whole files and writing them atomically, with errors that name the file.
enum FileIO {
    /// Reads the whole file at `path`.
    static func read(_ path: String) throws(ImageError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw openError(path, errno) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        guard status.st_mode & S_IFMT != S_IFDIR else { throw .unreadable(path: path, reason: "it is a directory") }
        // Devices and pipes could stream forever (/dev/zero); photos are regular files.
        guard status.st_mode & S_IFMT == S_IFREG else { throw .unreadable(path: path, reason: "not a regular file") }
        // Read straight into the array's storage: one allocation, no zeroing, no copy.
        // One spare byte tells us whether the file grew since `fstat`.
        let expected = max(Int(status.st_size), 0)
        var failure: Int32 = 0
        var bytes = [UInt8](unsafeUninitializedCapacity: expected + 1) { buffer, count in
            count = 0
            while count < buffer.count {
                let got = systemRead(descriptor, buffer.baseAddress! + count, buffer.count - count)
                if got < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                if got == 0 { break }
                count += got
            }
        }
        if failure != 0 { throw .unreadable(path: path, reason: String(cString: strerror(failure))) }
        if bytes.count > expected {
            // The file is longer than it was a moment ago: read the rest in chunks.
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let got = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
                if got < 0 {
                    if errno == EINTR { continue }
                    throw .unreadable(path: path, reason: String(cString: strerror(errno)))
                }
                if got == 0 { break }
                bytes.append(contentsOf: chunk[0..<got])
            }
        }
        return bytes
    }

    /// Writes `bytes` to `path` so that readers see either the old file or the
    /// complete new one: a temporary file in the same folder, fsync, rename, fsync of the folder.
    /// A symbolic link is written through (its target is replaced, the link kept);
    /// an existing file keeps its permission bits; a new file gets 0644.
    static func writeAtomically(_ bytes: [UInt8], to requestedPath: String) throws(ImageError) {
        let path = resolvingSymbolicLink(requestedPath)
        var existing = stat()
        let mode: mode_t = stat(path, &existing) == 0 ? existing.st_mode & 0o7777 : 0o644
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        var template = Array((folder + "/." + url.lastPathComponent + ".tmp-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw .writeFailed(path: path, reason: String(cString: strerror(errno))) }
        let temporary = String(cString: template.map { UInt8(bitPattern: $0) })
        var committed = false
        defer {
            if !committed { unlink(temporary) }
        }
        do {
            defer { close(descriptor) }
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeBytes { systemWrite(descriptor, $0.baseAddress! + offset, bytes.count - offset) }
                if written < 0 {
                    if errno == EINTR { continue }
                    throw ImageError.writeFailed(path: path, reason: String(cString: strerror(errno)))
                }
                offset += written
            }
            _ = fchmod(descriptor, mode)
            guard fsync(descriptor) == 0 else { throw ImageError.writeFailed(path: path, reason: String(cString: strerror(errno))) }
        } catch let error as ImageError {
            throw error
        } catch {
            throw .writeFailed(path: path, reason: "\(error)")
        }
        guard rename(temporary, path) == 0 else { throw .writeFailed(path: path, reason: String(cString: strerror(errno))) }
        committed = true
        let folderDescriptor = open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folderDescriptor >= 0 {
            _ = fsync(folderDescriptor)
            close(folderDescriptor)
        }
    }

    /// The file a symbolic link points to (following chains), or `path` itself.
    private static func resolvingSymbolicLink(_ path: String) -> String {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFLNK,
              let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func openError(_ path: String, _ code: Int32) -> ImageError {
        code == ENOENT ? .fileNotFound(path: path) : .unreadable(path: path, reason: String(cString: strerror(code)))
    }
}
