import Foundation

/// Page-aligned buffers of one size, reused by the files of a batch (a fresh buffer faults in
/// every 4 KiB page it is filled with: 13% of a caption batch's CPU under `perf`). Buffers are
/// wiped before they are reused or freed when the pool holds secrets.
package final class AlignedBufferPool: Sendable {
    /// The alignment direct I/O needs for buffers, offsets and lengths (every device's logical block size divides it).
    package static let alignment = 4096

    /// The size of each buffer.
    package let bufferSize: Int
    /// Whether buffers are overwritten with zeros when given back and when freed.
    package let wipes: Bool
    /// The addresses of the buffers given back, for the next ``take()``: the pool owns them (nothing
    /// else holds a buffer once it is given back), so an address is all it keeps.
    private let spare = Locked<[UInt]>([])

    /// A pool of buffers of `bufferSize` bytes (rounded up to the alignment).
    package init(bufferSize: Int, wipes: Bool = false) {
        self.bufferSize = (bufferSize + Self.alignment - 1) / Self.alignment * Self.alignment
        self.wipes = wipes
    }

    deinit {
        spare.withLock { spare in
            for address in spare { buffer(at: address).deallocate() }
        }
    }

    /// A spare buffer, or a new one.
    package func take() -> UnsafeMutableRawBufferPointer {
        if let address = spare.withLock({ $0.popLast() }) { return buffer(at: address) }
        return UnsafeMutableRawBufferPointer(start: UnsafeMutableRawPointer.allocate(byteCount: bufferSize, alignment: Self.alignment), count: bufferSize)
    }

    /// The buffer of this pool at `address`.
    private func buffer(at address: UInt) -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(start: UnsafeMutableRawPointer(bitPattern: address), count: bufferSize)
    }

    /// Returns `buffer` (from ``take()``) for the next file.
    package func give(_ buffer: UnsafeMutableRawBufferPointer) {
        if wipes { SecureMemory.wipe(buffer) }
        guard let base = buffer.baseAddress else { return }
        spare.withLock { $0.append(UInt(bitPattern: base)) }
    }
}

/// Wiping memory that held secrets.
package enum SecureMemory {
    /// Overwrites `buffer` with zeros in a way the optimiser cannot remove.
    package static func wipe(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress else { return }
        SystemShim.secureZero(base, buffer.count)
    }

    /// Overwrites the array's bytes with zeros in a way the optimiser cannot remove.
    package static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { wipe($0) }
    }
}
