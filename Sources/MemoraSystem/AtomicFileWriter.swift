#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a file so that readers see the old file or the complete new one, never a part: the
/// bytes go to a temporary file beside the target (`.NAME.memora-XXXXXX`), which is flushed to
/// the disk and then renamed over the target (or linked to a new name that must not exist), and
/// the folder is flushed. Until ``commit()`` nothing at the target changes; without it (an error,
/// a thrown write, the object going away) the temporary file is removed, overwritten with zeros
/// first when the options say so. This is the package's one implementation of an atomic write;
/// its policies are ``Options``.
///
/// Large files can be written past the page cache (``Options/uncached``): on the virtual machines
/// we measure on, copying a photo into fresh cache pages and flushing it cost 12 ms of kernel time
/// per 5 MB against 0.5 ms written directly from an aligned buffer. Files expected to reach
/// ``threadedMinimumSize`` are written by a second thread while the caller prepares the next block.
package final class AtomicFileWriter {
    /// How the new file is written and what it keeps from the one it replaces.
    package struct Options: Sendable {
        /// The permission bits of the new file.
        package enum Permissions: Sendable, Hashable {
            /// Exactly these bits (0600 for anything secret).
            case exactly(UInt32)
            /// The replaced file's bits, or these for a new file.
            case keepExisting(otherwise: UInt32)
        }

        package var permissions: Permissions
        /// Keep the replaced file's owner and group (best effort: giving a file away needs privileges).
        package var keepsOwner: Bool
        /// Keep the replaced file's access and modification times.
        package var keepsModificationTime: Bool
        /// Replace an existing file (rename); when false the target must not exist and is created (link),
        /// failing with `EEXIST` if it appeared meanwhile.
        package var replacesExisting: Bool
        /// Write through a symbolic link at the target: its final target is replaced, the link kept.
        package var followsSymbolicLinks: Bool
        /// Write large files past the page cache where the file system allows it.
        package var uncached: Bool
        /// Overwrite what was written with zeros before removing an abandoned temporary file
        /// (best effort on SSDs and copy-on-write file systems).
        package var wipesOnFailure: Bool
        /// Remove temporary files beside the target that a killed writer left (older than ``staleTemporaryAge``).
        package var removesStaleTemporaryFiles: Bool

        package init(permissions: Permissions = .keepExisting(otherwise: 0o644), keepsOwner: Bool = false,
                     keepsModificationTime: Bool = false, replacesExisting: Bool = true, followsSymbolicLinks: Bool = true,
                     uncached: Bool = false, wipesOnFailure: Bool = false, removesStaleTemporaryFiles: Bool = false) {
            self.permissions = permissions
            self.keepsOwner = keepsOwner
            self.keepsModificationTime = keepsModificationTime
            self.replacesExisting = replacesExisting
            self.followsSymbolicLinks = followsSymbolicLinks
            self.uncached = uncached
            self.wipesOnFailure = wipesOnFailure
            self.removesStaleTemporaryFiles = removesStaleTemporaryFiles
        }

        /// A file only its owner may read (keys, secrets, encrypted photos), wiped if abandoned.
        package static func secret(uncached: Bool = false) -> Options {
            Options(permissions: .exactly(0o600), followsSymbolicLinks: false, uncached: uncached, wipesOnFailure: true)
        }
    }

    /// Files expected to be smaller than this go through the page cache even when ``Options/uncached``:
    /// the copy is cheap and direct I/O's fixed cost (a synchronous device write) is not.
    package static let uncachedMinimumSize: Int64 = 1 << 20
    /// Files expected to reach this are written by a second thread, in ``threadedBlockSize`` blocks.
    package static let threadedMinimumSize: Int64 = 8 << 20
    /// The block size of the threaded writer (1 MiB was slower and 4 MiB no faster on the development machine).
    package static let threadedBlockSize = 2 << 20
    /// The largest single synchronous write (a 5 MB photo goes in one write).
    package static let blockSize = 8 << 20
    /// How old a temporary file must be before a later write treats it as left by a killed writer.
    package static let staleTemporaryAge: Double = 15 * 60

    /// The file that is replaced or created (a symbolic link's target when links are followed).
    package let path: String
    private let temporaryPath: String
    private let file: SystemFile
    private let options: Options
    private let replaced: FileStatus?
    private var written: Int64 = 0
    private var committed = false
    private var discarded = false
    // Uncached writing: the block being filled, how far, its offset; the thread, if any.
    private let pool: AlignedBufferPool?
    private var direct: Bool
    private var block: UnsafeMutableRawBufferPointer?
    private var blockFill = 0
    private var blockOffset: Int64 = 0
    private let thread: BlockWriter?

    /// Opens a temporary file beside `path`. `expectedSize` chooses how it is written when
    /// ``Options/uncached``; `pool` lends the aligned buffers (a batch's, reused across files).
    package init(path requestedPath: String, options: Options = Options(), expectedSize: Int64 = 0,
                 pool: AlignedBufferPool? = nil) throws(SystemError) {
        self.options = options
        let path = options.followsSymbolicLinks ? FileSystem.resolvingSymbolicLink(requestedPath) : requestedPath
        self.path = path
        let existing = FileSystem.statusIfPresent(of: path)
        replaced = existing
        if !options.replacesExisting, existing != nil { throw SystemError("create", path: path, code: EEXIST) }
        if options.removesStaleTemporaryFiles { Self.removeStaleTemporaryFiles(besides: path) }
        let prefix = Self.temporaryPrefix(for: path)
        var template = (SystemPath.bytes(prefix) + Array("XXXXXX".utf8)).map { CChar(bitPattern: $0) } + [0]
        var descriptor: Int32 = -1
        repeat {
            descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        } while descriptor < 0 && errno == EINTR
        guard descriptor >= 0 else { throw .last("create a temporary file beside", path: path) }
        temporaryPath = SystemPath.string(fromBytes: template.dropLast().map { UInt8(bitPattern: $0) })
        file = SystemFile(adopting: descriptor, path: path)
        let mode: UInt32
        switch options.permissions {
        case .exactly(let bits): mode = bits
        case .keepExisting(let otherwise): mode = existing?.permissions ?? otherwise
        }
        do {
            try file.setPermissions(mode)
        } catch {
            file.close()
            try? FileSystem.remove(temporaryPath)
            throw error
        }
        if options.uncached, expectedSize >= Self.uncachedMinimumSize, file.setUncached(true) {
            direct = true
            let threaded = expectedSize >= Self.threadedMinimumSize
            let chosen = pool ?? AlignedBufferPool(
                bufferSize: threaded ? Self.threadedBlockSize : Int(min(Int64(Self.blockSize), expectedSize)), wipes: options.wipesOnFailure)
            self.pool = chosen
            thread = threaded ? BlockWriter(file: file, pool: chosen) : nil
        } else {
            direct = false
            self.pool = nil
            thread = nil
        }
    }

    deinit { discard() }

    /// The temporary file's name prefix for `path` (`.NAME.memora-`).
    package static func temporaryPrefix(for path: String) -> String {
        SystemPath.join(SystemPath.folder(of: path), "." + SystemPath.fileName(of: path) + ".memora-")
    }

    /// Appends `bytes`.
    package func write(_ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        precondition(!committed && !discarded, "write after commit or discard")
        guard let pool else {
            try file.write(bytes, at: written)
            written += Int64(bytes.count)
            return
        }
        var done = 0
        while done < bytes.count {
            let target: UnsafeMutableRawBufferPointer
            if let block { target = block } else {
                target = try thread?.takeBuffer() ?? pool.take()
                block = target
                blockFill = 0
                blockOffset = written
            }
            let count = min(bytes.count - done, target.count - blockFill)
            (target.baseAddress! + blockFill).copyMemory(from: bytes.baseAddress! + done, byteCount: count)
            blockFill += count
            done += count
            written += Int64(count)
            if blockFill == target.count { try flushBlock() }
        }
    }

    /// Appends `bytes`.
    package func write(_ bytes: [UInt8]) throws(SystemError) {
        let outcome: Result<Void, SystemError> = bytes.withUnsafeBytes { raw in
            do throws(SystemError) { try write(raw); return .success(()) } catch { return .failure(error) }
        }
        try outcome.get()
    }

    /// How many bytes have been written.
    package var count: Int64 { written }

    /// Hands the full block to the disk (through the thread, if any).
    private func flushBlock() throws(SystemError) {
        guard let block else { return }
        self.block = nil
        if let thread {
            thread.submit(block, offset: blockOffset, length: blockFill, direct: direct)
        } else {
            defer { pool?.give(block) }
            if let error = Self.writeBlock(file, UnsafeRawBufferPointer(rebasing: block[0..<blockFill]), at: blockOffset, direct: direct) {
                throw error
            }
        }
        blockFill = 0
    }

    /// Writes one block; with direct I/O, falls back to the page cache for the rest of the file when the
    /// file system refuses (`EINVAL`: a device with blocks larger than 4 KiB, or a file system that took the flag but not the write).
    static func writeBlock(_ file: SystemFile, _ bytes: UnsafeRawBufferPointer, at offset: Int64, direct: Bool) -> SystemError? {
        do {
            try file.write(bytes, at: offset)
            return nil
        } catch where direct && error.code == EINVAL {
            file.setUncached(false)
            do { try file.write(bytes, at: offset); return nil } catch { return error }
        } catch {
            return error
        }
    }

    /// Flushes the file, gives it its permissions, owner and times, and puts it in place.
    package func commit() throws(SystemError) {
        precondition(!committed && !discarded, "commit twice or after discard")
        if let block {
            // The aligned part of the last block goes directly; the rest (under 4 KiB) through the cache:
            // padding it and cutting the file back made the truncate read the block back from the disk (1.3 ms a photo).
            let aligned = blockFill / AlignedBufferPool.alignment * AlignedBufferPool.alignment
            let tail = Array(UnsafeRawBufferPointer(rebasing: block[aligned..<blockFill]))
            blockFill = aligned
            if aligned > 0 {
                try flushBlock()
            } else {
                self.block = nil
                pool?.give(block)
            }
            try thread?.finish()
            if !tail.isEmpty {
                file.setUncached(false)
                try file.write(tail, at: written - Int64(tail.count))
            }
        } else {
            try thread?.finish()
        }
        if direct { file.setUncached(false) }
        if let replaced {
            if options.keepsOwner { file.setOwner(replaced.owner, group: replaced.group) }
            if options.keepsModificationTime { try file.setTimes(accessed: replaced.accessed, modified: replaced.modified) }
        }
        try file.sync()
        // Put in place while the descriptor is still open: if that fails, `discard` can still wipe the file.
        if options.replacesExisting {
            try FileSystem.rename(temporaryPath, to: path)
        } else {
            try FileSystem.link(temporaryPath, to: path)
            try? FileSystem.remove(temporaryPath)
        }
        committed = true
        file.close()
        FileSystem.syncFolder(SystemPath.folder(of: path))
    }

    /// Abandons the file: the temporary file is removed (overwritten with zeros first when the
    /// options say so) and the target is untouched. Called by `deinit` when not committed.
    package func discard() {
        guard !committed, !discarded else { return }
        discarded = true
        try? thread?.finish()
        if let block { pool?.give(block); self.block = nil }
        if options.wipesOnFailure, file.descriptor >= 0 {
            file.setUncached(false)
            file.overwriteWithZeros(length: written)
        }
        file.close()
        try? FileSystem.remove(temporaryPath)
    }

    /// Writes `bytes` to `path` atomically.
    package static func write(_ bytes: [UInt8], to path: String, options: Options = Options(), pool: AlignedBufferPool? = nil) throws(SystemError) {
        let writer = try AtomicFileWriter(path: path, options: options, expectedSize: Int64(bytes.count), pool: pool)
        try writer.write(bytes)
        try writer.commit()
    }

    /// Removes `.NAME.memora-XXXXXX` files beside `path` that a writer killed mid-write (SIGKILL,
    /// power loss) could not remove; recent ones may belong to a running writer.
    package static func removeStaleTemporaryFiles(besides path: String, now: Double? = nil) {
        let folder = SystemPath.folder(of: path)
        let prefix = SystemPath.bytes("." + SystemPath.fileName(of: path) + ".memora-")
        // A byte comparison per entry, no String: a folder of thousands of photos stays cheap.
        guard let entries = try? FileSystem.entries(of: folder, where: { name in
            name.count == prefix.count + 6 && name.starts(with: prefix)
        }) else { return }
        let current = now ?? Double(time(nil))
        for entry in entries {
            let candidate = SystemPath.join(folder, entry.name)
            guard let status = FileSystem.statusIfPresent(of: candidate, followingLinks: false),
                  current - status.modified.timeIntervalSince1970 > staleTemporaryAge else { continue }
            try? FileSystem.remove(candidate)
        }
    }

    /// Removes every abandoned temporary file in `folder` (any `.NAME.memora-XXXXXX`) older than
    /// ``staleTemporaryAge``; returns how many were removed. For stores that own their folder (the vault).
    @discardableResult
    package static func removeStaleTemporaryFiles(inFolder folder: String, now: Double? = nil) -> Int {
        let marker = Array(".memora-".utf8)
        guard let entries = try? FileSystem.entries(of: folder, where: { name in
            name.first == 0x2E && name.count > marker.count + 6
                && name[(name.count - 6 - marker.count)..<(name.count - 6)].elementsEqual(marker)
        }) else { return 0 }
        let current = now ?? Double(time(nil))
        var removed = 0
        for entry in entries {
            let candidate = SystemPath.join(folder, entry.name)
            guard let status = FileSystem.statusIfPresent(of: candidate, followingLinks: false), status.kind == .regular,
                  current - status.modified.timeIntervalSince1970 > staleTemporaryAge else { continue }
            if (try? FileSystem.remove(candidate)) != nil { removed += 1 }
        }
        return removed
    }
}
