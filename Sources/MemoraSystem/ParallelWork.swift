internal import Dispatch
internal import Foundation

/// Work spread over threads: the indices of a job run on at most a number of workers, one of
/// them the caller's thread, and the results come back in the indices' order.
package enum ParallelWork {
    /// `body(0) … body(count - 1)` on at most `workers` threads, each index once; returns the
    /// values in the order of the indices, or throws the error of the lowest index that failed.
    /// With one worker (or one index) everything runs on the caller's thread, in order. A map
    /// called from inside another also runs in order, on one thread (Dispatch gives a
    /// `concurrentPerform` nested in another one thread, even once the outer work is done): work
    /// that should use every core runs outside any other map (`IndexVision.look` reads the text after
    /// its faces and scene, not beside them).
    package static func map<Value: Sendable, Failure: Error>(
        _ count: Int, workers: Int, _ body: @Sendable (Int) throws(Failure) -> Value
    ) throws(Failure) -> [Value] {
        guard count > 0 else { return [] }
        guard workers > 1, count > 1 else {
            var values: [Value] = []
            values.reserveCapacity(count)
            for index in 0..<count { values.append(try body(index)) }
            return values
        }
        let counter = WorkCounter()
        let results = ResultSlots<Result<Value, Failure>>(count: count)
        DispatchQueue.concurrentPerform(iterations: min(workers, count)) { _ in
            while let index = counter.next(below: count) {
                results[index] = Result { () throws(Failure) -> Value in try body(index) }
            }
        }
        var values: [Value] = []
        values.reserveCapacity(count)
        for index in 0..<count {
            // concurrentPerform returns once every worker has, and a worker returns only when the
            // counter has handed out every index: each slot is filled.
            guard let result = results[index] else { preconditionFailure("ParallelWork: index \(index) did not run") }
            values.append(try result.get())
        }
        return values
    }
}

/// The next piece of work for whichever worker asks first.
package final class WorkCounter: Sendable {
    private let nextItem = Locked(0)

    /// A counter at 0.
    package init() {}

    /// The next item below `limit`, or nil when all are taken.
    package func next(below limit: Int) -> Int? {
        nextItem.withLock { next in
            guard next < limit else { return nil }
            next += 1
            return next - 1
        }
    }
}

/// One result per slot, each slot written by one worker only and read after the workers are done.
// Unchecked: a slot is written by one worker only and read after every worker is done.
package final class ResultSlots<Value: Sendable>: @unchecked Sendable {
    private let slots: UnsafeMutablePointer<Value?>
    private let count: Int

    /// `count` empty slots.
    package init(count: Int) {
        self.count = count
        slots = .allocate(capacity: count)
        slots.initialize(repeating: nil, count: count)
    }

    deinit {
        slots.deinitialize(count: count)
        slots.deallocate()
    }

    /// The value in `slot` (nil until one is written).
    package subscript(slot: Int) -> Value? {
        get { slots[slot] }
        set { slots[slot] = newValue }
    }
}
