internal import Foundation

/// A value behind a lock, with `Mutex`'s `withLock` shape, on every platform the package declares:
/// the standard library's `Mutex` (Synchronization) needs macOS 15 and iOS 18, and the package
/// supports macOS 14 and iOS 17. The value is reached only inside `withLock`, and it is `Sendable`,
/// so what the body takes out of it or leaves in it may cross threads.
// Unchecked: the lock guards the one mutable property, and every access to it is inside withLock.
package final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    /// A lock around `value`.
    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value while holding the lock, and returns what it returns.
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
