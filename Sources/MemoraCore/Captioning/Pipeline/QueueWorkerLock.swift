import Foundation
internal import MemoraSystem

/// The exclusive right to work the queue of one database: an advisory `flock` on
/// `<database>.worker-lock`, released when the process ends (even by SIGKILL). Crash
/// recovery (``ProcessingQueue/recoverInterrupted()``) is only safe while it is held.
package final class QueueWorkerLock: Sendable {
    private let lock: FileLock
    /// The lock file.
    package let path: String

    /// Takes the lock without waiting; throws when another worker holds it.
    package init(database: CaptionDatabase) throws(MemoraError) {
        path = database.path + ".worker-lock"
        do {
            lock = try FileLock(path, .exclusive, wait: false)
        } catch where error.code == SystemErrorCode.wouldBlock {
            throw .locked(path: database.path)
        } catch {
            throw .openFailed(path: path, reason: error.reason, systemCode: error.systemCode, isRetryable: error.isTransient)
        }
    }

    deinit { lock.unlock() }
}
