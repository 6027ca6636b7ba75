import Foundation

/// The exclusive right to work the queue of one database: an advisory `flock` on
/// `<database>.worker-lock`, released when the process ends (even by SIGKILL). Crash
/// recovery (``ProcessingQueue/recoverInterrupted()``) is only safe while it is held.
public final class QueueWorkerLock: Sendable {
    let descriptor: Int32
    /// The lock file.
    public let path: String

    /// Takes the lock without waiting; throws when another worker holds it.
    public init(database: CaptionDatabase) throws(CaptionDatabaseError) {
        path = database.path + ".worker-lock"
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .openFailed(path: path, reason: String(cString: strerror(errno))) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw .queryFailed(reason: "another `memora caption` is working on \(database.path); wait for it to finish")
        }
        self.descriptor = descriptor
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
