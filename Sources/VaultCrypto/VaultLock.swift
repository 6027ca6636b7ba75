internal import MemoraSystem

/// An advisory lock on a vault (`flock` on `vault.lock`), shared by the processes
/// using it: adds and removals hold it shared; a key rotation and a repair hold it
/// exclusively, so no photo is added under an old key mid-rotation and no file of
/// an add in progress is taken for an orphan.
struct VaultLock {
    enum Mode { case shared, exclusive }

    let path: String

    /// Runs `body` while holding the lock in `mode` (waiting for it if needed).
    func withLock<Result>(_ mode: Mode, _ body: () throws(VaultCryptoError) -> Result) throws(VaultCryptoError) -> Result {
        let lock = try acquire(mode)
        defer { lock.unlock() }
        return try body()
    }

    /// ``withLock(_:_:)`` for a body that waits (a capture reading its stream): the lock is held
    /// across its suspensions (an `flock` belongs to the open file, not to a thread).
    func withLock<Result>(_ mode: Mode, _ body: () async throws(VaultCryptoError) -> Result) async throws(VaultCryptoError) -> Result {
        let lock = try acquire(mode)
        defer { lock.unlock() }
        return try await body()
    }

    /// The lock in `mode`, once it is free.
    private func acquire(_ mode: Mode) throws(VaultCryptoError) -> FileLock {
        do {
            return try FileLock(path, mode == .shared ? .shared : .exclusive)
        } catch {
            throw .writeFailed(path: path, cause: error, reason: "cannot lock the vault: \(error.reason)")
        }
    }
}
