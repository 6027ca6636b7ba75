#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An open file descriptor, closed when the object goes away. Every read and write retries
/// on `EINTR` and loops until all bytes are transferred; failures are ``SystemError``s
/// naming the path.
// Unchecked: the descriptor changes only in close(), which the owner calls once no other thread uses the file.
package final class SystemFile: @unchecked Sendable {
    /// How to open a file.
    package enum Access: Sendable {
        /// Read only.
        case reading
        /// Read and write, creating the file with `permissions` when it does not exist.
        case readingAndWriting(createWith: UInt32?)
        /// Write only, creating the file (which must not exist) with `permissions`.
        case creatingNew(permissions: UInt32)
    }

    /// The path it was opened with (for messages).
    package let path: String
    /// The descriptor (valid until ``close()``).
    package private(set) var descriptor: Int32

    /// Opens `path`. `requireRegularFile` refuses folders, devices and pipes (a photo is a regular file;
    /// `/dev/zero` would stream forever).
    package init(_ path: String, _ access: Access = .reading, requireRegularFile: Bool = true) throws(SystemError) {
        self.path = path
        let flags: Int32
        var mode: mode_t = 0
        switch access {
        case .reading: flags = O_RDONLY
        case .readingAndWriting(let create):
            flags = O_RDWR | (create == nil ? 0 : O_CREAT)
            mode = mode_t(create ?? 0)
        case .creatingNew(let permissions):
            flags = O_WRONLY | O_CREAT | O_EXCL
            mode = mode_t(permissions)
        }
        var opened: Int32 = -1
        repeat {
            opened = SystemPath.withCString(path) { systemOpen($0, flags | O_CLOEXEC, mode) }
        } while opened < 0 && errno == EINTR
        guard opened >= 0 else { throw .last("open", path: path) }
        descriptor = opened
        if requireRegularFile {
            let kind: FileStatus.Kind
            do { kind = try status().kind } catch { Self.closeDescriptor(opened); throw error }
            guard kind == .regular else {
                Self.closeDescriptor(opened)
                throw SystemError("open", path: path, code: kind == .directory ? EISDIR : SystemErrorCode.notRegularFile)
            }
        }
    }

    /// Adopts an open descriptor (closed with the object).
    package init(adopting descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit { close() }

    /// Closes the descriptor now (idempotent).
    package func close() {
        guard descriptor >= 0 else { return }
        Self.closeDescriptor(descriptor)
        descriptor = -1
    }

    private static func closeDescriptor(_ descriptor: Int32) {
        #if canImport(Darwin)
        _ = Darwin.close(descriptor)
        #elseif canImport(Musl)
        _ = Musl.close(descriptor)
        #else
        _ = Glibc.close(descriptor)
        #endif
    }

    /// `fstat` of the open file.
    package func status() throws(SystemError) -> FileStatus {
        var raw = stat()
        guard fstat(descriptor, &raw) == 0 else { throw .last("read the status of", path: path) }
        return FileStatus(raw)
    }

    /// The file's size now.
    package func size() throws(SystemError) -> Int64 { try status().size }

    /// Reads up to `buffer.count` bytes at `offset`; returns how many were read (fewer only at the end of the file).
    package func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(SystemError) -> Int {
        var done = 0
        while done < buffer.count {
            let got = pread(descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
            if got < 0 {
                if errno == EINTR { continue }
                throw .last("read", path: path)
            }
            if got == 0 { break }
            done += got
        }
        return done
    }

    /// Reads exactly `buffer.count` bytes at `offset`; fails if the file ends first.
    package func readExactly(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(SystemError) {
        guard try read(into: buffer, at: offset) == buffer.count else {
            throw SystemError("read", path: path, code: SystemErrorCode.endOfFile)
        }
    }

    /// Up to `count` bytes at `offset` (fewer at the end of the file).
    package func read(_ count: Int, at offset: Int64) throws(SystemError) -> [UInt8] {
        var failure: SystemError?
        let bytes = [UInt8](unsafeUninitializedCapacity: max(count, 0)) { buffer, initialized in
            do throws(SystemError) {
                initialized = try read(into: UnsafeMutableRawBufferPointer(buffer), at: offset)
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        return bytes
    }

    /// Exactly `count` bytes at `offset`; fails if the file ends first.
    package func readExactly(_ count: Int, at offset: Int64) throws(SystemError) -> [UInt8] {
        let bytes = try read(count, at: offset)
        guard bytes.count == count else { throw SystemError("read", path: path, code: SystemErrorCode.endOfFile) }
        return bytes
    }

    /// The whole file, read straight into one array (one allocation, no copy). A file that grows
    /// while it is read is read to its new end.
    package func readAll() throws(SystemError) -> [UInt8] {
        let expected = Int(max(try size(), 0))
        // One spare byte tells whether the file grew since `fstat`.
        var bytes = try read(expected + 1, at: 0)
        if bytes.count > expected {
            while true {
                let more = try read(1 << 20, at: Int64(bytes.count))
                if more.isEmpty { break }
                bytes += more
            }
        }
        return bytes
    }

    /// Writes all of `bytes` at `offset`.
    package func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(SystemError) {
        var done = 0
        while done < bytes.count {
            let count = pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            if count < 0 {
                if errno == EINTR { continue }
                throw .last("write", path: path)
            }
            if count == 0 { throw SystemError("write", path: path, code: EIO) }
            done += count
        }
    }

    /// Writes all of `bytes` at `offset`.
    package func write(_ bytes: [UInt8], at offset: Int64) throws(SystemError) {
        let outcome: Result<Void, SystemError> = bytes.withUnsafeBytes { raw in
            do throws(SystemError) { try write(raw, at: offset); return .success(()) } catch { return .failure(error) }
        }
        try outcome.get()
    }

    /// Overwrites the first `length` bytes with zeros and flushes them (best effort: on SSDs and
    /// copy-on-write file systems the old blocks may survive elsewhere). Stops at the first error.
    package func overwriteWithZeros(length: Int64) {
        let zeros = [UInt8](repeating: 0, count: 1 << 16)
        var offset: Int64 = 0
        while offset < length {
            let count = Int(min(Int64(zeros.count), length - offset))
            guard (try? write(Array(zeros[0..<count]), at: offset)) != nil else { break }
            offset += Int64(count)
        }
        try? sync()
    }

    /// Flushes the file's data and metadata to the disk.
    package func sync() throws(SystemError) {
        while fsync(descriptor) != 0 {
            guard errno == EINTR else { throw .last("flush to disk", path: path) }
        }
    }

    /// Cuts or extends the file to `size` bytes.
    package func truncate(to size: Int64) throws(SystemError) {
        while ftruncate(descriptor, off_t(size)) != 0 {
            guard errno == EINTR else { throw .last("resize", path: path) }
        }
    }

    /// Sets the permission bits.
    package func setPermissions(_ permissions: UInt32) throws(SystemError) {
        guard fchmod(descriptor, mode_t(permissions)) == 0 else { throw .last("set the permissions of", path: path) }
    }

    /// Sets the owner and group; returns false when not permitted (only root may give a file away).
    @discardableResult
    package func setOwner(_ owner: UInt32, group: UInt32) -> Bool {
        fchown(descriptor, uid_t(owner), gid_t(group)) == 0
    }

    /// Sets the access and modification times.
    package func setTimes(accessed: FileStatus.Time, modified: FileStatus.Time) throws(SystemError) {
        var times = [accessed.timespecValue, modified.timespecValue]
        guard futimens(descriptor, &times) == 0 else { throw .last("set the times of", path: path) }
    }

    /// Turns writing past the page cache on or off (`O_DIRECT`; `F_NOCACHE` on Apple platforms).
    /// Returns false where the file system or platform refuses it: writes then go through the cache.
    @discardableResult
    package func setUncached(_ uncached: Bool) -> Bool {
        SystemShim.setDirectIO(descriptor, uncached)
    }

    /// Tells the kernel the file will be read once from start to end (a hint; ignored where unsupported).
    package func adviseSequentialRead() {
        #if os(Linux)
        _ = posix_fadvise(descriptor, 0, 0, Int32(POSIX_FADV_SEQUENTIAL))
        #endif
    }
}

#if canImport(Darwin)
private func systemOpen(_ path: UnsafePointer<CChar>, _ flags: Int32, _ mode: mode_t) -> Int32 { Darwin.open(path, flags, mode) }
#elseif canImport(Musl)
private func systemOpen(_ path: UnsafePointer<CChar>, _ flags: Int32, _ mode: mode_t) -> Int32 { Musl.open(path, flags, mode) }
#else
private func systemOpen(_ path: UnsafePointer<CChar>, _ flags: Int32, _ mode: mode_t) -> Int32 { Glibc.open(path, flags, mode) }
#endif
