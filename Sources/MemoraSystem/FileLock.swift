#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An advisory lock (`flock`) on a lock file, shared between processes and released when the
/// holder closes it or ends (even by SIGKILL). The lock file is created with mode 0600.
package final class FileLock: Sendable {
    /// Shared (several holders) or exclusive (one).
    package enum Mode: Sendable { case shared, exclusive }

    /// The lock file.
    package let path: String
    private let file: SystemFile

    /// Takes the lock on `path` in `mode`, waiting for it when `wait`, else failing with
    /// `EWOULDBLOCK` (``SystemError/reason``: "it is locked by another process") when another process holds it.
    package init(_ path: String, _ mode: Mode, wait: Bool = true) throws(SystemError) {
        self.path = path
        file = try SystemFile(path, .readingAndWriting(createWith: 0o600))
        let operation = (mode == .shared ? LOCK_SH : LOCK_EX) | (wait ? 0 : LOCK_NB)
        while flock(file.descriptor, operation) != 0 {
            guard errno == EINTR else { throw .last("lock", path: path) }
        }
    }

    deinit { unlock() }

    /// Releases the lock (idempotent).
    package func unlock() {
        guard file.descriptor >= 0 else { return }
        _ = flock(file.descriptor, LOCK_UN)
        file.close()
    }
}
