import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An advisory lock on a vault (`flock` on `vault.lock`), shared by the processes
/// using it: adds and removals hold it shared; a key rotation and a repair hold it
/// exclusively, so no photo is added under an old key mid-rotation and no file of
/// an add in progress is taken for an orphan.
struct VaultLock {
    enum Mode { case shared, exclusive }

    let path: String

    /// Runs `body` while holding the lock in `mode` (waiting for it if needed).
    func withLock<Result>(_ mode: Mode, _ body: () throws(VaultCryptoError) -> Result) throws(VaultCryptoError) -> Result {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .writeFailed(path: path, reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        while flock(descriptor, mode == .shared ? LOCK_SH : LOCK_EX) != 0 {
            guard errno == EINTR else { throw .writeFailed(path: path, reason: "cannot lock the vault: \(String(cString: strerror(errno)))") }
        }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }
}
