internal import Foundation
internal import MemoraSync
internal import MemoraSystem
internal import NIOCore
internal import MemoraHTTP

/// Receives `POST /api/memories`' multipart body as it streams in (``MultipartStream``): the `metadata`
/// part (JSON, kept in memory up to a bound) and the `media` part, written to a staging file while it
/// is hashed. Nothing but the staging file grows with the upload; a body that ends early, a part other
/// than these two, or either part twice is refused with a `400`, and the staging file is removed.
final class MultipartReceiver {
    /// What the body held.
    struct Received {
        var metadata: Data
        /// The staging file, its SHA-256, size and declared type, when a media part came.
        var media: (path: String, sha256: String, size: Int64, contentType: String?, fileName: String?)?
    }

    private var parser: MultipartStream
    private let staging: String
    private let maxMetadataBytes: Int
    private let maxMediaBytes: Int64
    private var part: String?
    private var metadata = Data()
    private var sawMetadata = false
    private var media: (writer: AtomicFileWriter, digest: StreamingSHA256, path: String, contentType: String?, fileName: String?)?
    private var mediaSize: Int64 = 0
    private var sawMedia = false

    /// A receiver for a body with `boundary`, staging media in `stagingFolder`.
    init(boundary: String, stagingFolder: String, maxMetadataBytes: Int, maxMediaBytes: Int64) {
        parser = MultipartStream(boundary: boundary)
        staging = stagingFolder + "/" + UUID().uuidString.lowercased()
        self.maxMetadataBytes = maxMetadataBytes
        self.maxMediaBytes = maxMediaBytes
    }

    /// The boundary of a `multipart/form-data` content type, nil for any other type.
    static func boundary(of contentType: String) -> String? {
        let pieces = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard pieces.first?.lowercased() == "multipart/form-data" else { return nil }
        for piece in pieces.dropFirst() where piece.lowercased().hasPrefix("boundary=") {
            let value = piece.dropFirst("boundary=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            return (1...70).contains(value.count) ? value : nil
        }
        return nil
    }

    /// Feeds the next chunk of the body.
    func feed(_ chunk: ByteBuffer) throws {
        do {
            try chunk.withUnsafeReadableBytes { bytes in
                try parser.feed(bytes) { event in try handle(event) }
            }
        } catch let failure as MultipartStream.Failure {
            throw Self.refusal(failure)
        }
    }

    private static func refusal(_ failure: MultipartStream.Failure) -> ServerError {
        switch failure {
        case .malformed(let reason):
            .invalidRequest("the body is not valid multipart/form-data", [FieldProblem(field: "body", message: reason)])
        case .truncated:
            .invalidRequest("the body ended before its last part did", [FieldProblem(field: "body", message: "the multipart body is cut short; send it again")])
        }
    }

    /// The parts, once the whole body was fed.
    func finish() throws -> Received {
        do { try parser.finish() } catch let failure as MultipartStream.Failure { throw Self.refusal(failure) }
        guard sawMetadata else {
            throw ServerError.invalidRequest("the upload has no metadata", [FieldProblem(field: "metadata", message: "required: a JSON part named metadata (kind, title…)")])
        }
        var received = Received(metadata: metadata)
        if let media {
            do { try media.writer.commit() } catch { throw ServerError.storage("cannot store the upload: \(error)") }
            received.media = (media.path, media.digest.finalizeHex(), mediaSize, media.contentType, media.fileName)
            self.media = nil
        }
        return received
    }

    /// Removes what was staged and not taken by ``finish()`` (call when the upload is refused or fails).
    func discard() {
        media?.writer.discard()
        media = nil
    }

    private func handle(_ event: MultipartStream.Event) throws {
        switch event {
        case .part(let headers):
            part = try start(headers)
        case .body(let bytes):
            if part == "metadata" {
                metadata.append(contentsOf: bytes)
                if metadata.count > maxMetadataBytes { throw ServerError.tooLarge(limit: maxMetadataBytes) }
            } else if let media {
                mediaSize += Int64(bytes.count)
                if mediaSize > maxMediaBytes { throw ServerError.tooLarge(limit: Int(maxMediaBytes)) }
                media.digest.update(bytes)
                do { try media.writer.write(bytes) } catch { throw ServerError.storage("cannot store the upload: \(error)") }
            }
        case .partEnd:
            part = nil
        }
    }

    /// Reads the headers of the part that starts: its name decides where its bytes go.
    private func start(_ headers: [(name: String, value: String)]) throws -> String? {
        var name: String?, fileName: String?, contentType: String?
        for (header, value) in headers {
            if header == "content-type" { contentType = value.lowercased() }
            guard header == "content-disposition" else { continue }
            for piece in value.split(separator: ";").map({ $0.trimmingCharacters(in: .whitespaces) }) {
                if piece.hasPrefix("name=") { name = piece.dropFirst(5).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
                if piece.hasPrefix("filename=") { fileName = piece.dropFirst(9).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
            }
        }
        switch name {
        case "metadata":
            if sawMetadata { throw ServerError.invalidRequest("the upload has two metadata parts", [FieldProblem(field: "metadata", message: "send it once")]) }
            sawMetadata = true
        case "media":
            if sawMedia { throw ServerError.invalidRequest("the upload has two media parts", [FieldProblem(field: "media", message: "one memory is one file")]) }
            sawMedia = true
            do {
                let writer = try AtomicFileWriter(path: staging, options: AtomicFileWriter.Options(
                    permissions: .exactly(0o600), replacesExisting: false, followsSymbolicLinks: false))
                media = (writer, StreamingSHA256(), staging, contentType, fileName)
            } catch {
                throw ServerError.storage("cannot stage the upload: \(error)")
            }
        default:
            throw ServerError.invalidRequest("the upload has a part the hub does not take", [FieldProblem(field: name ?? "(unnamed part)", message: "send only metadata and media")])
        }
        return name
    }
}
