import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a new file's bytes past the page cache (Linux `O_DIRECT`) when the file system
/// allows it, through the cache otherwise.
///
/// Why: a caption write rewrites the whole photo and fsyncs it before the rename. Through the
/// page cache every byte is first copied into freshly allocated cache pages; on the virtual
/// machines we measure on, that copy and the flush cost 12 ms of kernel time per 5 MB photo
/// (a C probe; under `perf` the copy was 42% of a caption batch's CPU), against 0.5 ms written
/// directly from an aligned buffer. The bytes go to the disk by DMA, and the fsync that
/// follows has only the file's metadata left to flush. The price: a photo just written is
/// not in the page cache, so the next read of it comes from the disk.
enum UncachedFileWrite {
    /// Files smaller than this go through the page cache: the copy is cheap and direct I/O's
    /// fixed cost (a synchronous device write) is not.
    static let minimumSize = 1 << 20
    /// The largest single write (and the aligned buffer's size): a 5 MB photo goes in one write.
    static let chunkSize = 8 << 20
    /// The alignment direct I/O needs for buffers, offsets and lengths (every device's logical block size divides it).
    static let alignment = 4096

    /// Aligned buffers of `chunkSize` bytes reused by the files of one batch: a fresh buffer
    /// per photo costs a page fault for every 4 KiB it is filled with (13% of a batch's CPU
    /// under `perf`). Freed with the object, when the batch ends.
    final class Buffers: @unchecked Sendable {
        private let lock = NSLock()
        private var spare: [UnsafeMutableRawBufferPointer] = []

        init() {}

        deinit {
            for buffer in spare { buffer.deallocate() }
        }

        /// A spare buffer, or a new one.
        func take() -> UnsafeMutableRawBufferPointer {
            lock.withLock { spare.popLast() } ?? UncachedFileWrite.allocate(chunkSize)
        }

        /// Returns `buffer` (from `take`) for the next file.
        func give(_ buffer: UnsafeMutableRawBufferPointer) {
            lock.withLock { spare.append(buffer) }
        }
    }

    /// An aligned buffer of `size` bytes.
    static func allocate(_ size: Int) -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(start: UnsafeMutableRawPointer.allocate(byteCount: size, alignment: alignment), count: size)
    }

    /// Writes all of `bytes` at the start of `descriptor` (a new, empty file open for writing),
    /// through a buffer from `buffers` when given (a batch), else a new one. Returns the
    /// error's text, nil on success. The caller fsyncs.
    static func write(_ bytes: [UInt8], to descriptor: Int32, buffers: Buffers? = nil) -> String? {
        bytes.withUnsafeBytes { source -> String? in
            guard source.count >= minimumSize, let direct = directFlag else { return writeCached(source, at: 0, to: descriptor) }
            let flags = fcntl(descriptor, F_GETFL)
            guard flags >= 0, fcntl(descriptor, F_SETFL, flags | direct) == 0 else {
                return writeCached(source, at: 0, to: descriptor)  // tmpfs and others refuse the flag
            }
            // The aligned part goes directly; the last partial block (under 4 KiB) through the
            // cache. Padding it and cutting the file back instead made the truncate read the
            // block back from the disk and dirty it again: 1.3 ms per photo.
            let aligned = source.count / alignment * alignment
            let buffer = buffers?.take() ?? allocate(min(chunkSize, aligned))
            defer {
                if let buffers { buffers.give(buffer) } else { buffer.deallocate() }
            }
            let bufferSize = min(buffer.count, aligned)
            var offset = 0
            while offset < aligned {
                let length = min(bufferSize, aligned - offset)
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[offset..<(offset + length)]))
                if let error = writeFully(UnsafeRawBufferPointer(rebasing: buffer[0..<length]), at: offset, to: descriptor) {
                    // EINVAL: a device with blocks larger than 4 KiB, or a file system that took
                    // the flag but not the write: the rest goes through the page cache.
                    guard error.code == EINVAL else { return error.reason }
                    break
                }
                offset += length
            }
            _ = fcntl(descriptor, F_SETFL, flags)
            return writeCached(UnsafeRawBufferPointer(rebasing: source[offset...]), at: offset, to: descriptor)
        }
    }

    /// Writes through the page cache.
    private static func writeCached(_ bytes: UnsafeRawBufferPointer, at offset: Int, to descriptor: Int32) -> String? {
        writeFully(bytes, at: offset, to: descriptor)?.reason
    }

    /// `pwrite` until every byte is written; the error's code and text otherwise.
    private static func writeFully(_ bytes: UnsafeRawBufferPointer, at offset: Int, to descriptor: Int32) -> (code: Int32, reason: String)? {
        var done = 0
        while done < bytes.count {
            let count = pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done))
            if count < 0 {
                if errno == EINTR { continue }
                return (errno, String(cString: strerror(errno)))
            }
            if count == 0 { return (EIO, "the disk accepted no more bytes") }
            done += count
        }
        return nil
    }

    /// Linux's `O_DIRECT`, which Swift's Glibc module does not export (glibc declares it only
    /// under `_GNU_SOURCE`); its value depends on the architecture (asm-generic/fcntl.h and the
    /// x86 and arm64 overrides). Nil elsewhere: those systems write through the page cache.
    private static var directFlag: Int32? {
        #if os(Linux) && (arch(x86_64) || arch(i386))
        return 0o40000
        #elseif os(Linux) && arch(arm64)
        return 0o200000
        #else
        return nil
        #endif
    }
}
