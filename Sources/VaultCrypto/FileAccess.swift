import Foundation
#if canImport(Glibc)
import Glibc
private let systemWrite = Glibc.write
#elseif canImport(Darwin)
import Darwin
private let systemWrite = Darwin.write
#endif

/// A read-only file opened once, read at explicit offsets.
final class FileReader {
    let path: String
    let size: UInt64
    /// The permission bits and owner, from `fstat` on the open file.
    let mode: mode_t
    let owner: uid_t
    private let descriptor: Int32

    init(path: String) throws(VaultCryptoError) {
        self.path = path
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .readFailed(path: path, reason: String(cString: strerror(errno))) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw .readFailed(path: path, reason: "not a regular file")
        }
        size = UInt64(status.st_size)
        mode = status.st_mode & 0o7777
        owner = status.st_uid
    }

    deinit { close(descriptor) }

    /// Reads exactly `buffer.count` bytes at `offset`; fails if the file ends first.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws(VaultCryptoError) {
        var done = 0
        while done < buffer.count {
            let got = pread(descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
            if got < 0 {
                if errno == EINTR { continue }
                throw .readFailed(path: path, reason: String(cString: strerror(errno)))
            }
            if got == 0 { throw .readFailed(path: path, reason: "the file became shorter while it was being read") }
            done += got
        }
    }
}

/// Writes a file so that readers see the old file or the complete new one: a
/// temporary file in the same folder, fsync, rename, fsync of the folder.
/// Without `commit()`, the temporary file is removed (after its contents are overwritten).
final class AtomicFileWriter {
    let path: String
    private let temporaryPath: String
    private var descriptor: Int32
    private var written: UInt64 = 0
    private var committed = false
    /// For large files: the writing thread, the block being filled, and how much of the file
    /// has been handed to it (the offset of the block being filled).
    private let blocks: BlockWriter?
    private var block: UnsafeMutableRawBufferPointer?
    private var blockFill = 0
    private var submitted: UInt64 = 0

    /// Opens a temporary file beside `path` with permission bits `mode` (0600 for anything secret).
    /// A file expected to reach `expectedSize` of 8 MiB or more is written in large blocks on a
    /// separate thread, directly to the disk where the file system allows it (``BlockWriter``).
    init(path: String, mode: mode_t, expectedSize: UInt64 = 0) throws(VaultCryptoError) {
        self.path = path
        let url = URL(fileURLWithPath: path)
        var template = Array((url.deletingLastPathComponent().path + "/." + url.lastPathComponent + ".tmp-XXXXXX").utf8CString)
        descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw .writeFailed(path: path, reason: String(cString: strerror(errno))) }
        temporaryPath = String(cString: template.map { UInt8(bitPattern: $0) })
        guard fchmod(descriptor, mode) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            unlink(temporaryPath)
            throw .writeFailed(path: path, reason: reason)
        }
        blocks = expectedSize >= BlockWriter.minimumFileSize ? BlockWriter(descriptor: descriptor, path: path) : nil
    }

    deinit {
        guard !committed else { return }
        // Best effort: overwrite what was written before unlinking (see Docs/Vault.md on SSDs).
        if let blocks {
            try? blocks.finish()
            blocks.endDirectIO()
        }
        if descriptor >= 0 {
            var zeros = [UInt8](repeating: 0, count: 1 << 16)
            var offset: UInt64 = 0
            while offset < written {
                let count = Int(min(UInt64(zeros.count), written - offset))
                let result = zeros.withUnsafeMutableBytes { pwrite(descriptor, $0.baseAddress, count, off_t(offset)) }
                if result <= 0 { break }
                offset += UInt64(result)
            }
            _ = fsync(descriptor)
            close(descriptor)
        }
        unlink(temporaryPath)
    }

    /// Appends `bytes`.
    func write(_ bytes: UnsafeRawBufferPointer) throws(VaultCryptoError) {
        if let blocks {
            var done = 0
            while done < bytes.count {
                let target: UnsafeMutableRawBufferPointer
                if let block { target = block } else { target = try blocks.takeBuffer() }
                let count = min(bytes.count - done, target.count - blockFill)
                (target.baseAddress! + blockFill).copyMemory(from: bytes.baseAddress! + done, byteCount: count)
                blockFill += count
                done += count
                if blockFill == target.count {
                    blocks.submit(target, offset: submitted, length: blockFill)
                    submitted += UInt64(blockFill)
                    block = nil
                    blockFill = 0
                } else {
                    block = target
                }
            }
            written += UInt64(bytes.count)
            return
        }
        var done = 0
        while done < bytes.count {
            let count = systemWrite(descriptor, bytes.baseAddress! + done, bytes.count - done)
            if count < 0 {
                if errno == EINTR { continue }
                throw .writeFailed(path: path, reason: String(cString: strerror(errno)))
            }
            done += count
        }
        written += UInt64(bytes.count)
    }

    func write(_ bytes: [UInt8]) throws(VaultCryptoError) {
        try withBytes(bytes) { raw throws(VaultCryptoError) in try write(raw) }
    }

    /// Flushes, renames the temporary file over `path` and flushes the folder.
    func commit() throws(VaultCryptoError) {
        if let blocks {
            if let block, blockFill > 0 {
                // Direct I/O writes whole aligned blocks: the last one is padded with zeros,
                // and the file cut back to its real length once it is written.
                let length = blocks.isDirect ? (blockFill + BlockWriter.alignment - 1) / BlockWriter.alignment * BlockWriter.alignment : blockFill
                (block.baseAddress! + blockFill).initializeMemory(as: UInt8.self, repeating: 0, count: length - blockFill)
                blocks.submit(block, offset: submitted, length: length)
                submitted += UInt64(length)
                self.block = nil
                blockFill = 0
            }
            try blocks.finish()
            if submitted != written, ftruncate(descriptor, off_t(written)) != 0 {
                throw .writeFailed(path: path, reason: String(cString: strerror(errno)))
            }
        }
        guard fsync(descriptor) == 0 else { throw .writeFailed(path: path, reason: String(cString: strerror(errno))) }
        // Rename while the descriptor is still open: if it fails, `deinit` can still
        // overwrite the temporary file before removing it.
        guard rename(temporaryPath, path) == 0 else { throw .writeFailed(path: path, reason: String(cString: strerror(errno))) }
        committed = true
        close(descriptor)
        descriptor = -1
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let folderDescriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folderDescriptor >= 0 {
            _ = fsync(folderDescriptor)
            close(folderDescriptor)
        }
    }
}

/// `Array.withUnsafeBytes` with a typed-throwing body.
func withBytes<Result>(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(VaultCryptoError) -> Result) throws(VaultCryptoError) -> Result {
    let outcome: Swift.Result<Result, VaultCryptoError> = bytes.withUnsafeBytes { raw in
        do throws(VaultCryptoError) { return .success(try body(raw)) } catch { return .failure(error) }
    }
    return try outcome.get()
}

/// `Array.withUnsafeMutableBytes` with a typed-throwing body.
func withMutableBytes<Result>(_ bytes: inout [UInt8], _ body: (UnsafeMutableRawBufferPointer) throws(VaultCryptoError) -> Result) throws(VaultCryptoError) -> Result {
    let outcome: Swift.Result<Result, VaultCryptoError> = bytes.withUnsafeMutableBytes { raw in
        do throws(VaultCryptoError) { return .success(try body(raw)) } catch { return .failure(error) }
    }
    return try outcome.get()
}

/// Overwrites a file with zeros, flushes, then unlinks it. Best effort: on SSDs and
/// copy-on-write file systems the old blocks may survive elsewhere (Docs/Vault.md).
func overwriteAndRemove(_ path: String) {
    let descriptor = open(path, O_WRONLY | O_CLOEXEC)
    if descriptor >= 0 {
        var status = stat()
        if fstat(descriptor, &status) == 0 {
            let zeros = [UInt8](repeating: 0, count: 1 << 16)
            var offset: off_t = 0
            while offset < status.st_size {
                let count = Int(min(off_t(zeros.count), status.st_size - offset))
                let written = zeros.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, count, offset) }
                if written <= 0 { break }
                offset += off_t(written)
            }
            _ = fsync(descriptor)
        }
        close(descriptor)
    }
    unlink(path)
}
