import Foundation

/// Writes the blocks of a large file on its own thread, so that the disk works while the caller
/// prepares (encrypts, decrypts, copies) the next block. Used by ``AtomicFileWriter`` for files
/// expected to reach ``AtomicFileWriter/threadedMinimumSize``.
///
/// Why: a file must be fsynced before it is renamed into place. Written through the page cache,
/// every byte is copied into freshly allocated cache pages and flushed at the end, after all the
/// work; on shared virtual machines that copy and flush vary by 3x between runs. Written directly,
/// in large aligned blocks, while the next block is being prepared, the file is on the disk when
/// its last block is, and the final fsync has only the metadata left.
// Unchecked: the queue and its flags are read and written only while holding `condition`.
final class BlockWriter: @unchecked Sendable {
    private let file: SystemFile
    private let pool: AlignedBufferPool
    private let condition = NSCondition()
    private var queued: [(buffer: UnsafeMutableRawBufferPointer, offset: Int64, length: Int, direct: Bool)] = []
    private var failure: SystemError?
    private var finishing = false
    private var running = false
    private var outstanding = 0
    /// At most this many buffers are in flight (one being filled, one being written).
    private let depth = 2

    init(file: SystemFile, pool: AlignedBufferPool) {
        self.file = file
        self.pool = pool
    }

    /// A buffer to fill; waits while `depth` buffers are in flight. Throws an earlier write's error.
    func takeBuffer() throws(SystemError) -> UnsafeMutableRawBufferPointer {
        condition.lock()
        defer { condition.unlock() }
        while outstanding >= depth && failure == nil { condition.wait() }
        if let failure { throw failure }
        outstanding += 1
        return pool.take()
    }

    /// Queues the first `length` bytes of `buffer` (from ``takeBuffer()``) to be written at `offset`.
    func submit(_ buffer: UnsafeMutableRawBufferPointer, offset: Int64, length: Int, direct: Bool) {
        condition.lock()
        queued.append((buffer, offset, length, direct))
        if !running {
            running = true
            Thread { [self] in drain() }.start()
        }
        condition.signal()
        condition.unlock()
    }

    /// Waits until every queued block is written; throws the first write error.
    func finish() throws(SystemError) {
        condition.lock()
        defer { condition.unlock() }
        finishing = true
        condition.broadcast()
        while running { condition.wait() }
        if let failure { throw failure }
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
            var error: SystemError?
            if !skip {
                error = AtomicFileWriter.writeBlock(file, UnsafeRawBufferPointer(rebasing: block.buffer[0..<block.length]), at: block.offset, direct: block.direct)
            }
            pool.give(block.buffer)
            condition.lock()
            outstanding -= 1
            if failure == nil, let error { failure = error }
            condition.broadcast()
        }
        running = false
        condition.broadcast()
        condition.unlock()
    }
}
