import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a large file in 2 MiB blocks on its own thread, so that the disk works while the
/// caller encrypts or decrypts the next block; on Linux the blocks bypass the page cache
/// (`O_DIRECT`) when the file system allows it.
///
/// Why: a LOCA file must be fsynced before it is renamed into place. Written through the page
/// cache, every byte is copied into freshly allocated cache pages and then flushed at the end,
/// after all the work, and on shared virtual machines that copy and flush vary by 3x between
/// runs. Written directly, in large aligned blocks, while the next block is being prepared,
/// the file is on the disk when the last block is, and the final fsync only has the metadata
/// left. Two buffers (4 MiB) are used; both are wiped (`sodium_memzero`) before they are freed,
/// since a decryption writes plaintext through them.
final class BlockWriter: @unchecked Sendable {
    /// The size of one write (a multiple of every device's logical block size). 2 MiB: on the
    /// development machine 1 MiB writes were slower and 4 MiB ones no faster.
    static let blockSize = 2 << 20
    /// Files expected to be smaller than this are written directly by the caller (no thread).
    static let minimumFileSize: UInt64 = 8 << 20
    /// The alignment direct I/O needs for buffers, offsets and lengths.
    static let alignment = 4096

    /// Whether the blocks bypass the page cache (false where `O_DIRECT` was refused, for
    /// example on tmpfs, or on other systems than Linux).
    let isDirect: Bool
    private let descriptor: Int32
    private let path: String
    private let condition = NSCondition()
    private var spare: [UnsafeMutableRawBufferPointer] = []
    private var queued: [(buffer: UnsafeMutableRawBufferPointer, offset: UInt64, length: Int)] = []
    private var failure: String?
    private var finishing = false
    private var running = false
    private let allBuffers: [UnsafeMutableRawBufferPointer]

    /// Starts writing to `descriptor` (opened for writing, empty); `path` names it in errors.
    init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
        if let direct = Self.directFlag {
            let flags = fcntl(descriptor, F_GETFL)
            isDirect = flags >= 0 && fcntl(descriptor, F_SETFL, flags | direct) == 0
        } else {
            isDirect = false
        }
        allBuffers = (0..<2).map { _ in
            UnsafeMutableRawBufferPointer(
                start: UnsafeMutableRawPointer.allocate(byteCount: Self.blockSize, alignment: Self.alignment), count: Self.blockSize)
        }
        spare = allBuffers
    }

    deinit {
        for buffer in allBuffers {
            Sodium.wipe(buffer)
            buffer.deallocate()
        }
    }

    /// An empty buffer of `blockSize` bytes to fill; waits while both are being written.
    func takeBuffer() throws(VaultCryptoError) -> UnsafeMutableRawBufferPointer {
        condition.lock()
        defer { condition.unlock() }
        while spare.isEmpty && failure == nil { condition.wait() }
        if let failure { throw .writeFailed(path: path, reason: failure) }
        return spare.removeLast()
    }

    /// Queues the first `length` bytes of `buffer` (from `takeBuffer`) to be written at `offset`.
    /// With direct I/O, `offset` and `length` must be multiples of `alignment`.
    func submit(_ buffer: UnsafeMutableRawBufferPointer, offset: UInt64, length: Int) {
        condition.lock()
        queued.append((buffer, offset, length))
        if !running {
            running = true
            Thread { [self] in drain() }.start()
        }
        condition.signal()
        condition.unlock()
    }

    /// Waits until every queued block is written; throws the first write error.
    func finish() throws(VaultCryptoError) {
        condition.lock()
        defer { condition.unlock() }
        finishing = true
        condition.broadcast()
        while running { condition.wait() }
        if let failure { throw .writeFailed(path: path, reason: failure) }
    }

    /// Stops using direct I/O, for writes that are not aligned (the clean-up overwrite).
    func endDirectIO() {
        guard isDirect, let direct = Self.directFlag else { return }
        let flags = fcntl(descriptor, F_GETFL)
        if flags >= 0 { _ = fcntl(descriptor, F_SETFL, flags & ~direct) }
    }

    /// Linux's `O_DIRECT`, which Swift's Glibc module does not export (glibc declares it only
    /// under `_GNU_SOURCE`); its value depends on the architecture (asm-generic/fcntl.h and
    /// the x86 and arm64 overrides). Nil where we do not know it: those systems write through the page cache.
    private static var directFlag: Int32? {
        #if os(Linux) && (arch(x86_64) || arch(i386))
        return 0o40000
        #elseif os(Linux) && arch(arm64)
        return 0o200000
        #else
        return nil
        #endif
    }

    /// The writing thread: takes queued blocks in order until `finish` and the queue is empty.
    private func drain() {
        condition.lock()
        while true {
            while queued.isEmpty && !finishing { condition.wait() }
            if queued.isEmpty { break }
            let block = queued.removeFirst()
            let skip = failure != nil
            condition.unlock()
            var error = skip ? nil : Self.write(descriptor, block.buffer, block.length, at: block.offset)
            if error?.code == EINVAL && isDirect {
                // A device whose blocks are larger than 4 KiB, or a file system that accepted the
                // flag but not the write: the rest goes through the page cache.
                endDirectIO()
                error = Self.write(descriptor, block.buffer, block.length, at: block.offset)
            }
            condition.lock()
            if failure == nil, let error { failure = error.reason }
            spare.append(block.buffer)
            condition.broadcast()
        }
        running = false
        condition.broadcast()
        condition.unlock()
    }

    /// Writes `length` bytes of `buffer` at `offset`; returns the error (errno and text), if any.
    private static func write(_ descriptor: Int32, _ buffer: UnsafeMutableRawBufferPointer, _ length: Int, at offset: UInt64) -> (code: Int32, reason: String)? {
        var done = 0
        while done < length {
            let count = pwrite(descriptor, buffer.baseAddress! + done, length - done, off_t(offset) + off_t(done))
            if count < 0 {
                if errno == EINTR { continue }
                return (errno, String(cString: strerror(errno)))
            }
            if count == 0 { return (EIO, "the disk accepted no more bytes") }
            done += count
        }
        return nil
    }
}
