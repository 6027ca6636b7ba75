import Foundation
public import MemoraSystem

extension CaptionWriter {
    /// How many files a batch works on at once by default: two per core, so that one
    /// file's `fsync` wait overlaps with another file's parsing and verification, and at most
    /// 8, because each file in flight holds about three copies of itself in memory, plus a
    /// write buffer of at most 8 MiB (a batch of 50 MB raw files on a 64-core machine would
    /// otherwise need gigabytes).
    public static var defaultConcurrency: Int { min(8, max(1, ProcessInfo.processInfo.activeProcessorCount * 2)) }

    /// Writes `update` into every file of `paths`, `concurrency` files at a time, each with
    /// the same guarantees as ``write(_:to:options:)`` (verified, atomic, its original
    /// intact on failure). One file's failure does not stop the others.
    ///
    /// - Parameters:
    ///   - update: the caption and alt text to write.
    ///   - paths: the files.
    ///   - concurrency: how many files are worked on at once.
    ///   - options: the options for each file (for example a `beforeReplacing` that stores
    ///     that file's snapshot); called once per file, possibly from several threads.
    ///   - completed: called as each file is done, with its index in `paths` and its result,
    ///     possibly from several threads (for progress); nil by default.
    /// - Returns: one result per path, in the order of `paths`.
    public static func write(
        _ update: CaptionUpdate, toEach paths: [String], concurrency: Int = defaultConcurrency,
        options: @escaping @Sendable (String) -> CaptionWriteOptions = { _ in CaptionWriteOptions() },
        completed: (@Sendable (Int, Result<MetadataSnapshot, MetadataError>) -> Void)? = nil
    ) -> [Result<MetadataSnapshot, MetadataError>] {
        let buffers = FileAccess.makeBuffers()
        return inBatch(paths, concurrency: concurrency, completed: completed) { path throws(MetadataError) in
            try perform(.caption(update), on: path, options: options(path), buffers: buffers)
        }
    }

    /// Removes the location from every file of `paths`, `concurrency` files at a time, as
    /// ``stripLocation(from:options:)`` does for one; one result per path, in order.
    /// `options` and `completed` are as for ``write(_:toEach:concurrency:options:completed:)``.
    public static func stripLocation(
        fromEach paths: [String], concurrency: Int = defaultConcurrency,
        options: @escaping @Sendable (String) -> CaptionWriteOptions = { _ in CaptionWriteOptions() },
        completed: (@Sendable (Int, Result<MetadataSnapshot, MetadataError>) -> Void)? = nil
    ) -> [Result<MetadataSnapshot, MetadataError>] {
        let buffers = FileAccess.makeBuffers()
        return inBatch(paths, concurrency: concurrency, completed: completed) { path throws(MetadataError) in
            var snapshot = try perform(.stripAllLocation, on: path, options: options(path), buffers: buffers)
            snapshot.locationLeft = UneditableLocation.fields(inFileAt: path)
            return snapshot
        }
    }

    /// Runs `body` on every path with up to `concurrency` threads, each taking the next path
    /// not yet started (so a few large files do not leave the other threads idle). The threads
    /// are our own, not Dispatch's pool: the pool runs about one thread per core, and the point
    /// of more threads than cores is that some wait on `fsync` while the others compute.
    static func inBatch<Value: Sendable>(
        _ paths: [String], concurrency: Int, completed: (@Sendable (Int, Result<Value, MetadataError>) -> Void)?,
        _ body: @escaping @Sendable (String) throws(MetadataError) -> Value
    ) -> [Result<Value, MetadataError>] {
        let queue = BatchQueue<Value>(count: paths.count)
        let workers = max(1, min(concurrency, paths.count))
        // The threads keep `work` (and so `body`) alive a little after they signal the group:
        // both are escaping closures, so that is safe.
        let work: @Sendable () -> Void = {
            while let index = queue.next() {
                let result = Result { () throws(MetadataError) in try body(paths[index]) }
                queue.record(index, result)
                completed?(index, result)
            }
        }
        if workers > 1 {
            let finished = DispatchGroup()
            for _ in 0..<workers {
                finished.enter()
                Thread {
                    work()
                    finished.leave()
                }.start()
            }
            finished.wait()
        } else {
            work()
        }
        return queue.results
    }
}

/// The shared state of a batch: the next path to start and the results so far.
private final class BatchQueue<Value: Sendable>: Sendable {
    private let state: Locked<(upcoming: Int, slots: [Result<Value, MetadataError>?])>

    init(count: Int) {
        state = Locked((upcoming: 0, slots: Array(repeating: nil, count: count)))
    }

    /// The index of the next path to work on, or nil when every path has been started.
    func next() -> Int? {
        state.withLock { state in
            guard state.upcoming < state.slots.count else { return nil }
            defer { state.upcoming += 1 }
            return state.upcoming
        }
    }

    func record(_ index: Int, _ result: Result<Value, MetadataError>) {
        state.withLock { $0.slots[index] = result }
    }

    /// Every result, in path order (call once every worker has finished).
    var results: [Result<Value, MetadataError>] {
        state.withLock { $0.slots.map { $0! } }
    }
}
