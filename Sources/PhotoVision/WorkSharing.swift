internal import Dispatch
internal import Foundation

/// The next piece of work for whichever worker asks first.
final class WorkCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var nextItem = 0

    /// The next item below `limit`, or nil when all are taken.
    func next(below limit: Int) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard nextItem < limit else { return nil }
        nextItem += 1
        return nextItem - 1
    }
}

/// One result per slot, each written by one worker only.
final class ResultSlots<Value>: @unchecked Sendable {
    private let slots: UnsafeMutablePointer<Value?>
    private let count: Int

    init(count: Int) {
        self.count = count
        slots = .allocate(capacity: count)
        slots.initialize(repeating: nil, count: count)
    }

    deinit {
        slots.deinitialize(count: count)
        slots.deallocate()
    }

    subscript(slot: Int) -> Value? {
        get { slots[slot] }
        set { slots[slot] = newValue }
    }
}

/// `body(0) … body(count - 1)` on at most `workers` threads, each index once, in the order of the
/// indices; the error of the lowest index that failed is thrown. One worker runs on the caller's thread.
func inParallel<Value>(_ count: Int, workers: Int, _ body: @Sendable (Int) throws(VisionError) -> Value) throws(VisionError) -> [Value] {
    guard count > 0 else { return [] }
    guard workers > 1, count > 1 else {
        var values: [Value] = []
        values.reserveCapacity(count)
        for index in 0..<count { values.append(try body(index)) }
        return values
    }
    let counter = WorkCounter()
    let results = ResultSlots<Result<Value, VisionError>>(count: count)
    DispatchQueue.concurrentPerform(iterations: min(workers, count)) { _ in
        while let index = counter.next(below: count) {
            results[index] = Result { () throws(VisionError) -> Value in try body(index) }
        }
    }
    var values: [Value] = []
    values.reserveCapacity(count)
    for index in 0..<count {
        switch results[index] {
        case .success(let value): values.append(value)
        case .failure(let error): throw error
        case nil: throw .inferenceFailed("a worker stopped before its work was done")
        }
    }
    return values
}
