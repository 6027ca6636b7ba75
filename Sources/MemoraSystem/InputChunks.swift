#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A file descriptor's bytes in arrival order, as chunks of at most `chunkSize` bytes: standard
/// input that a camera tool, `curl` or another program pipes in (`memora vault add --stdin`).
/// Reads with `read(2)`, so pipes and terminals work (no offsets); each chunk is a fresh array
/// (the consumer owns it). A read error ends the sequence with a ``SystemError``.
package struct InputChunks: AsyncSequence, Sendable {
    package typealias Element = [UInt8]

    /// The descriptor read (0: standard input). Not closed at the end.
    package let descriptor: Int32
    /// The most bytes a chunk holds.
    package let chunkSize: Int

    /// Standard input, 1 MiB at a time.
    package init(descriptor: Int32 = 0, chunkSize: Int = 1 << 20) {
        self.descriptor = descriptor
        self.chunkSize = Swift.max(1, chunkSize)
    }

    package func makeAsyncIterator() -> Iterator { Iterator(descriptor: descriptor, chunkSize: chunkSize) }

    /// Reads the next chunk when asked.
    package struct Iterator: AsyncIteratorProtocol {
        let descriptor: Int32
        let chunkSize: Int
        var ended = false

        package mutating func next() async throws -> [UInt8]? {
            guard !ended else { return nil }
            var chunk = [UInt8](repeating: 0, count: chunkSize)
            var filled = 0
            // Fill the chunk (a pipe gives at most 64 KiB a read), or stop at the end of input.
            while filled < chunkSize {
                let count = chunk.withUnsafeMutableBytes { buffer in
                    read(descriptor, buffer.baseAddress! + filled, chunkSize - filled)
                }
                if count < 0 {
                    if errno == EINTR { continue }
                    throw SystemError.last("read", path: "standard input")
                }
                if count == 0 {
                    ended = true
                    break
                }
                filled += count
            }
            guard filled > 0 else { return nil }
            if filled < chunkSize { chunk.removeSubrange(filled...) }
            return chunk
        }
    }
}
