internal import MemoraSystem
internal import MemoraSync
internal import MemoraHTTP

/// The uploaded objects (photos a place references), content-addressed: `FOLDER/ab/abcdef…` by
/// SHA-256. An upload streams to a temporary file beside its place while it is hashed, and appears
/// only once complete and verified.
public struct ObjectStore: Sendable {
    /// The folder.
    public let folder: String

    /// Objects kept in `folder` (created if missing).
    public init(folder: String) throws(ServerError) {
        self.folder = folder
        do {
            try FileSystem.makeFolder(folder, permissions: 0o700)
        } catch {
            throw .storage("cannot create \(folder): \(error)")
        }
        _ = AtomicFileWriter.removeStaleTemporaryFiles(inFolder: folder)
    }

    /// Where the object with this hash lives (the hash is checked by the caller: 64 hex digits).
    func path(of sha256: String) -> String {
        folder + "/" + String(sha256.prefix(2)) + "/" + sha256
    }

    /// Whether the object's file exists.
    func contains(_ sha256: String) -> Bool { FileSystem.exists(path(of: sha256)) }

    /// Receives an upload: writes `chunks` while hashing them, refuses more than `limit` bytes or a
    /// hash other than `sha256`, and keeps nothing unless both hold. Returns the size.
    func receive<Chunks: AsyncSequence>(_ chunks: Chunks, sha256: String, limit: Int64) async throws -> Int64
    where Chunks.Element == [UInt8] {
        let destination = path(of: sha256)
        try FileSystem.makeFolder(SystemPath.folder(of: destination), permissions: 0o700)
        let sink = try UploadSink(path: destination)
        var size: Int64 = 0
        do {
            for try await chunk in chunks {
                size += Int64(chunk.count)
                if size > limit { throw ServerError.tooLarge(limit: Int(limit)) }
                try sink.append(chunk)
            }
        } catch {
            sink.writer.discard()
            throw error
        }
        let hex = sink.finish()
        guard hex == sha256 else {
            sink.writer.discard()
            throw ServerError.invalidRequest("the upload's SHA-256 is not the one in its address", [FieldProblem(field: "body", message: "its SHA-256 is \(hex)")])
        }
        let writer = sink.writer
        do {
            try writer.commit()
        } catch {
            // Another upload of the same bytes may have finished first: then the object is there.
            if !FileSystem.exists(destination) { throw ServerError.storage("cannot store the upload: \(error)") }
        }
        return size
    }

    /// Removes an object's file.
    func remove(_ sha256: String) {
        try? FileSystem.remove(path(of: sha256))
    }
}

/// An upload on its way to disk: the temporary file and the running SHA-256 of what went in.
private final class UploadSink {
    let writer: AtomicFileWriter
    private let digest = StreamingSHA256()

    init(path: String) throws {
        writer = try AtomicFileWriter(path: path, options: AtomicFileWriter.Options(
            permissions: .exactly(0o600), replacesExisting: false, followsSymbolicLinks: false))
    }

    func append(_ chunk: [UInt8]) throws {
        digest.update(chunk)
        try writer.write(chunk)
    }

    /// The hex SHA-256 of everything appended.
    func finish() -> String {
        digest.finalizeHex()
    }
}
