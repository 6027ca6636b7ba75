#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What `stat` says about a file, as a portable value (Linux's `st_mtim` is Darwin's `st_mtimespec`).
package struct FileStatus: Sendable, Hashable {
    /// The kinds of file the package tells apart.
    package enum Kind: Sendable, Hashable {
        case regular, directory, symbolicLink, other
    }

    /// A time to the nanosecond.
    package struct Time: Sendable, Hashable, Comparable {
        package var seconds: Int64
        package var nanoseconds: Int64

        package init(seconds: Int64, nanoseconds: Int64) {
            self.seconds = seconds
            self.nanoseconds = nanoseconds
        }

        init(_ value: timespec) {
            seconds = Int64(value.tv_sec)
            nanoseconds = Int64(value.tv_nsec)
        }

        var timespecValue: timespec { timespec(tv_sec: time_t(seconds), tv_nsec: Int(nanoseconds)) }

        /// Seconds since 1970 as a floating-point number.
        package var timeIntervalSince1970: Double { Double(seconds) + Double(nanoseconds) / 1e9 }

        package static func < (lhs: Time, rhs: Time) -> Bool {
            (lhs.seconds, lhs.nanoseconds) < (rhs.seconds, rhs.nanoseconds)
        }
    }

    package var kind: Kind
    package var size: Int64
    /// The permission bits (`0o7777` mask: setuid, setgid, sticky and rwx).
    package var permissions: UInt32
    package var owner: UInt32
    package var group: UInt32
    package var device: UInt64
    package var inode: UInt64
    package var accessed: Time
    package var modified: Time
    /// When the inode last changed (set by the kernel on every write, rename or chmod; no program can set it).
    package var changed: Time

    init(_ status: stat) {
        switch status.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        case S_IFLNK: kind = .symbolicLink
        default: kind = .other
        }
        size = Int64(status.st_size)
        permissions = UInt32(status.st_mode & 0o7777)
        owner = UInt32(status.st_uid)
        group = UInt32(status.st_gid)
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
        #if canImport(Darwin)
        accessed = Time(status.st_atimespec)
        modified = Time(status.st_mtimespec)
        changed = Time(status.st_ctimespec)
        #else
        accessed = Time(status.st_atim)
        modified = Time(status.st_mtim)
        changed = Time(status.st_ctim)
        #endif
    }

    /// What identifies one version of a file: device, inode, size, and the modification and
    /// status-change times. Any write to the file, or a replacement of it, changes one of them.
    package var identity: Identity {
        Identity(device: device, inode: inode, size: size, modified: modified, changed: changed)
    }

    /// See ``FileStatus/identity``.
    package struct Identity: Sendable, Hashable {
        package var device: UInt64
        package var inode: UInt64
        package var size: Int64
        package var modified: Time
        package var changed: Time
    }
}
