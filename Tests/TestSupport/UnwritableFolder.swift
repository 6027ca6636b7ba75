internal import Foundation

/// A folder nobody running the tests can add a file to, root included: mode 0555, and for root the
/// file system's immutable attribute as well (`chattr +i`, which binds root too; CI runs as root).
/// The files already in it stay writable in place, as in a read-only folder of a user's.
public enum UnwritableFolder {
    /// Whether this process can make such a folder: always for a user; for root, when the temporary
    /// folder's file system takes the immutable attribute (ext4, XFS, Btrfs; not tmpfs) and the process
    /// may set it (`CAP_LINUX_IMMUTABLE`). Tried once on a folder of its own.
    public static let possible: Bool = {
        guard getuid() == 0 else { return true }
        guard let folder = try? temporaryFolder("unwritable-probe") else { return false }
        defer {
            _ = chattr("-i", folder)
            try? FileManager.default.removeItem(atPath: folder)
        }
        guard chattr("+i", folder) else { return false }
        return !FileManager.default.createFile(atPath: folder + "/probe", contents: Data())
    }()

    /// Makes `folder` unwritable; false when it could not be (see ``possible``).
    @discardableResult
    public static func make(_ folder: String) -> Bool {
        guard (try? FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder)) != nil else { return false }
        return getuid() != 0 || chattr("+i", folder)
    }

    /// Makes `folder` writable again (mode 0755, the immutable attribute off), so it can be removed.
    public static func undo(_ folder: String) {
        if getuid() == 0 { _ = chattr("-i", folder) }
        try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder)
    }

    /// Runs e2fsprogs' `chattr` (Debian's essential packages hold it) with one change on `folder`.
    private static func chattr(_ change: String, _ folder: String) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/chattr")
        process.arguments = [change, folder]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}
