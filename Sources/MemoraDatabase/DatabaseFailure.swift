import GRDB
import MemoraSystem

/// What went wrong around GRDB, in the terms every module's error type takes: SQLite's own
/// message and (extended) result code, not GRDB's description, which quotes the SQL and its
/// arguments (captions, paths); or a failed system call's phrase and `errno`. Each module turns
/// it into its own error (`MemoraError`, `PhotoIndexError`, `VaultCryptoError`).
package struct DatabaseFailure: Sendable, Hashable {
    /// The cause in words, without a path.
    package var reason: String
    /// The `errno` of a failed system call.
    package var systemCode: Int32?
    /// SQLite's extended result code.
    package var libraryCode: Int32?
    /// Whether trying again can help: the database was busy or locked, or the system call failed transiently.
    package var isRetryable: Bool

    /// The failure `error` describes; `describing` words any other error. Module errors are not
    /// passed here: callers let their own through first.
    package init(_ error: any Error, describing: (any Error) -> String = { String(describing: $0) }) {
        switch error {
        case let error as DatabaseError:
            reason = error.message ?? "SQLite error \(error.resultCode.rawValue)"
            systemCode = nil
            libraryCode = error.extendedResultCode.rawValue
            isRetryable = error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED
        case is DatabaseTooNew:
            (reason, systemCode, libraryCode, isRetryable) = ("written by a newer version of Memora; update Memora to open it", nil, nil, false)
        case let error as SystemError:
            (reason, systemCode, libraryCode, isRetryable) = (error.reason, error.systemCode, nil, error.isTransient)
        default:
            (reason, systemCode, libraryCode, isRetryable) = (describing(error), nil, nil, false)
        }
    }
}
