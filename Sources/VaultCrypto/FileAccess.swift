internal import MemoraSystem

/// A read-only file opened once, read at explicit offsets (the system layer's ``SystemFile``
/// with VaultCrypto's errors).
final class FileReader {
    let path: String
    let size: UInt64
    /// The permission bits and owner, from `fstat` on the open file.
    let mode: UInt32
    let owner: UInt32
    private let file: SystemFile

    init(path: String) throws(VaultCryptoError) {
        self.path = path
        do {
            file = try SystemFile(path)
            let status = try file.status()
            size = UInt64(status.size)
            mode = status.permissions
            owner = status.owner
        } catch {
            throw .readFailed(path: path, cause: error)
        }
    }

    /// Reads exactly `buffer.count` bytes at `offset`; fails if the file ends first.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws(VaultCryptoError) {
        do {
            try file.readExactly(into: buffer, at: Int64(offset))
        } catch {
            throw .readFailed(path: path, cause: error, reason: error.code == SystemErrorCode.endOfFile
                ? "the file became shorter while it was being read" : nil)
        }
    }
}

/// Writes a vault file atomically through the system layer's ``AtomicFileWriter``: a temporary
/// file beside it, fsync, rename, fsync of the folder; large files written past the page cache
/// on a second thread. Without ``commit()`` the temporary file is overwritten with zeros and removed.
final class VaultFileWriter {
    let path: String
    private let writer: AtomicFileWriter

    /// Opens a temporary file beside `path` with permission bits `mode` (0600 for anything secret).
    /// Without `replacingExisting`, an existing file is refused (`outputExists`), now and when the
    /// file is put in place (it is linked to a name that must not exist).
    init(path: String, mode: UInt32, expectedSize: UInt64 = 0, replacingExisting: Bool = true) throws(VaultCryptoError) {
        self.path = path
        var options = AtomicFileWriter.Options.secret(uncached: true)
        options.permissions = .exactly(mode)
        options.replacesExisting = replacingExisting
        do {
            writer = try AtomicFileWriter(path: path, options: options, expectedSize: Int64(clamping: expectedSize))
        } catch {
            throw error.code == SystemErrorCode.exists ? .outputExists(path: path) : .writeFailed(path: path, cause: error)
        }
    }

    /// Appends `bytes`.
    func write(_ bytes: UnsafeRawBufferPointer) throws(VaultCryptoError) {
        do { try writer.write(bytes) } catch { throw .writeFailed(path: path, cause: error) }
    }

    func write(_ bytes: [UInt8]) throws(VaultCryptoError) {
        do { try writer.write(bytes) } catch { throw .writeFailed(path: path, cause: error) }
    }

    /// Flushes and puts the file in place.
    func commit() throws(VaultCryptoError) {
        do { try writer.commit() } catch {
            throw error.code == SystemErrorCode.exists ? .outputExists(path: path) : .writeFailed(path: path, cause: error)
        }
    }
}

/// The vault's file operations, with VaultCrypto's errors.
enum VaultFiles {
    static func exists(_ path: String) -> Bool { FileSystem.exists(path) }

    /// Creates an empty file that must not exist yet, with mode 0600.
    static func createEmpty(_ path: String) throws(VaultCryptoError) {
        do { _ = try SystemFile(path, .creatingNew(permissions: 0o600), requireRegularFile: false) } catch {
            throw .writeFailed(path: path, cause: error)
        }
    }

    /// Creates `path` (and its parents) as a folder only the owner may enter (0700).
    static func makePrivateFolder(_ path: String) throws(VaultCryptoError) {
        do {
            try FileSystem.makeFolder(path, permissions: 0o700)
            try FileSystem.setPermissions(path, 0o700)
        } catch {
            throw .writeFailed(path: path, cause: error)
        }
    }

    /// The names in `folder` (none when it cannot be listed).
    static func names(in folder: String) -> [String] {
        ((try? FileSystem.entries(of: folder)) ?? []).map(\.name)
    }

    /// Regular files under `folder`, relative to it.
    static func files(under folder: String) -> [String] {
        ((try? FolderWalker(root: folder).files()) ?? []).map { String($0.path.dropFirst(folder.count + 1)) }
    }

    /// Removes abandoned temporary files (a killed add or export) older than the stale age from `folder`.
    @discardableResult
    static func removeStaleTemporaryFiles(in folder: String) -> Int {
        AtomicFileWriter.removeStaleTemporaryFiles(inFolder: folder)
    }

    /// Overwrites a file with zeros, flushes, then unlinks it. Best effort: on SSDs and
    /// copy-on-write file systems the old blocks may survive elsewhere (Docs/Vault.md).
    static func overwriteAndRemove(_ path: String) {
        if let file = try? SystemFile(path, .readingAndWriting(createWith: nil)), let size = try? file.size() {
            file.overwriteWithZeros(length: size)
        }
        try? FileSystem.remove(path)
    }

    /// Overwrites `buffer` with zeros in a way the optimiser keeps.
    static func wipe(_ buffer: UnsafeMutableRawBufferPointer) { SecureMemory.wipe(buffer) }
}

extension VaultCryptoError {
    /// `readFailed` for a failed system call: the error number kept in ``systemCode`` and
    /// ``isRetryable`` set when the failure is transient; `reason` replaces the system's phrase.
    static func readFailed(path: String, cause: SystemError, reason: String? = nil) -> VaultCryptoError {
        .readFailed(path: path, reason: reason ?? cause.reason, systemCode: cause.systemCode, isRetryable: cause.isTransient)
    }

    /// `writeFailed` for a failed system call: the error number kept in ``systemCode`` and
    /// ``isRetryable`` set when the failure is transient; `reason` replaces the system's phrase.
    static func writeFailed(path: String, cause: SystemError, reason: String? = nil) -> VaultCryptoError {
        .writeFailed(path: path, reason: reason ?? cause.reason, systemCode: cause.systemCode, isRetryable: cause.isTransient)
    }
}

/// `Array.withUnsafeBytes` with a typed-throwing body.
func withBytes<Result>(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(VaultCryptoError) -> Result) throws(VaultCryptoError) -> Result {
    let outcome: Swift.Result<Result, VaultCryptoError> = bytes.withUnsafeBytes { raw in
        do throws(VaultCryptoError) { return .success(try body(raw)) } catch { return .failure(error) }
    }
    return try outcome.get()
}

/// `Array.withUnsafeMutableBytes` with a typed-throwing body.
func withMutableBytes<Result>(_ bytes: inout [UInt8], _ body: (UnsafeMutableRawBufferPointer) throws(VaultCryptoError) -> Result) throws(VaultCryptoError) -> Result {
    let outcome: Swift.Result<Result, VaultCryptoError> = bytes.withUnsafeMutableBytes { raw in
        do throws(VaultCryptoError) { return .success(try body(raw)) } catch { return .failure(error) }
    }
    return try outcome.get()
}
