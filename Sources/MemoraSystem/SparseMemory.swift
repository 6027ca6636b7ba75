#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A zero-filled region of memory as large as a file, of which only the pages written to take
/// up memory: a big photo's metadata is read into it at the metadata's own offsets (a TIFF's
/// offsets are absolute), and the image data between is never read. Anonymous private pages
/// the process never writes stay unbacked, so the resident size follows what is written, not
/// the region's size.
package final class SparseMemory {
    /// The region: `count` bytes, zero where nothing was written.
    package let bytes: UnsafeMutableRawBufferPointer

    /// A zero-filled region of `count` bytes (at least one page is mapped).
    package init(count: Int) throws(SystemError) {
        precondition(count >= 0, "a negative size")
        let length = max(count, 1)
        #if canImport(Darwin)
        let flags = MAP_PRIVATE | MAP_ANON
        #else
        let flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE
        #endif
        guard let address = mmap(nil, length, PROT_READ | PROT_WRITE, flags, -1, 0), address != MAP_FAILED else {
            throw SystemError.last("mmap")
        }
        self.address = address
        bytes = UnsafeMutableRawBufferPointer(start: address, count: count)
        mappedLength = length
    }

    private let address: UnsafeMutableRawPointer
    private let mappedLength: Int

    deinit { munmap(address, mappedLength) }

    /// The number of bytes.
    package var count: Int { bytes.count }
}
