#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed system call: what was being done, to which path, and the `errno` it returned.
///
/// Modules turn it into their own error type (``reason`` is the phrase they show); the
/// code is kept so that a program can tell "no such file" from "the disk is full" and
/// whether trying again can help.
package struct SystemError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was being done, in a user's words ("open", "read", "replace").
    package var operation: String
    /// The path it was done to, when there is one.
    package var path: String?
    /// The `errno` value.
    package var code: Int32

    package init(_ operation: String, path: String? = nil, code: Int32) {
        self.operation = operation
        self.path = path
        self.code = code
    }

    /// The error of the last system call (`errno` now).
    package static func last(_ operation: String, path: String? = nil) -> SystemError {
        SystemError(operation, path: path, code: errno)
    }

    /// A short phrase a person understands, without the path ("no such file", "the disk is full").
    package var reason: String {
        switch code {
        case ENOENT: return "no such file"
        case EACCES, EPERM: return "permission denied"
        case ENOSPC: return "the disk is full"
        case EDQUOT: return "the disk quota is used up"
        case EROFS: return "the file system is read-only"
        case EISDIR: return "it is a directory"
        case ENOTDIR: return "a part of the path is not a folder"
        case EEXIST: return "it already exists"
        case ENAMETOOLONG: return "the name is too long"
        case EMFILE, ENFILE: return "too many files are open"
        case EXDEV: return "it is on another file system"
        case ELOOP: return "too many symbolic links"
        case EIO: return "an input/output error (the disk or the connection to it failed)"
        case EWOULDBLOCK: return "it is locked by another process"
        case SystemErrorCode.notRegularFile: return "not a regular file"
        case SystemErrorCode.changedWhileRead: return "it changed while it was being read"
        case SystemErrorCode.endOfFile: return "the file ended early (it became shorter while it was being read)"
        default: return String(cString: strerror(code))
        }
    }

    /// The `errno` to keep in a module's error (its `systemCode`): nil for the system layer's own
    /// negative codes (not a regular file, changed or ended while read), which are no `errno` values.
    package var systemCode: Int32? { code > 0 ? code : nil }

    /// Whether the same call may succeed later without the user changing anything.
    package var isTransient: Bool {
        [EINTR, EAGAIN, EWOULDBLOCK, EBUSY, ETIMEDOUT, EMFILE, ENFILE, ENOMEM].contains(code)
    }

    /// Whether the failure means the file (or a folder on its path) does not exist.
    package var isNotFound: Bool { code == ENOENT || code == ENOTDIR }

    /// Whether the failure means the process may not do this to the file.
    package var isPermissionDenied: Bool { code == EACCES || code == EPERM || code == EROFS }

    package var description: String {
        if let path { return "\(path): cannot \(operation) (\(reason))" }
        return "cannot \(operation) (\(reason))"
    }
}

/// `errno` values a module may need to compare with, without importing a platform module.
package enum SystemErrorCode {
    package static let notFound = ENOENT
    package static let exists = EEXIST
    package static let invalidArgument = EINVAL
    package static let io = EIO
    package static let permissionDenied = EACCES
    package static let noSpace = ENOSPC
    package static let wouldBlock = EWOULDBLOCK
    package static let notRegularFile: Int32 = -1001
    package static let changedWhileRead: Int32 = -1002
    package static let endOfFile: Int32 = -1003
}
