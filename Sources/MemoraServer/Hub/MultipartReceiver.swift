internal import Foundation
internal import MemoraSync
internal import MemoraSystem
internal import MultipartKit
internal import NIOCore

/// Receives `POST /api/memories`' multipart body as it streams in: the `metadata` part (JSON, kept in
/// memory up to a bound) and the `media` part, written to a staging file while it is hashed. Nothing
/// but the staging file grows with the upload; a body that ends early, a part other than these two, or
/// either part twice is refused with a `400`, and the staging file is removed.
final class MultipartReceiver {
    /// What the body held.
    struct Received {
        var metadata: Data
        /// The staging file, its SHA-256, size and declared type, when a media part came.
        var media: (path: String, sha256: String, size: Int64, contentType: String?, fileName: String?)?
    }

    private let parser: MultipartParser
    private let staging: String
    private let maxMetadataBytes: Int
    private let maxMediaBytes: Int64
    private var failure: ServerError?
    private var headers: [(String, String)] = []
    private var part: String?
    private var metadata = Data()
    private var sawMetadata = false
    private var media: (writer: AtomicFileWriter, digest: StreamingSHA256, path: String, contentType: String?, fileName: String?)?
    private var mediaSize: Int64 = 0
    private var mediaDone = false
    private var finishedParts = 0
    private var openPart = false

    /// A receiver for a body with `boundary`, staging media in `stagingFolder`.
    init(boundary: String, stagingFolder: String, maxMetadataBytes: Int = 64 * 1024, maxMediaBytes: Int64) {
        parser = MultipartParser(boundary: boundary)
        staging = stagingFolder + "/" + UUID().uuidString.lowercased()
        self.maxMetadataBytes = maxMetadataBytes
        self.maxMediaBytes = maxMediaBytes
        parser.onHeader = { [unowned self] name, value in self.headers.append((name.lowercased(), value)) }
        parser.onBody = { [unowned self] buffer in self.body(&buffer) }
        parser.onPartComplete = { [unowned self] in self.complete() }
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
        if let failure { throw failure }
        do {
            try parser.execute(chunk)
        } catch {
            throw ServerError.invalidRequest("the body is not valid multipart/form-data", [FieldProblem(field: "body", message: "a boundary or a part's headers are malformed")])
        }
        if let failure { throw failure }
    }

    /// The parts, once the whole body was fed.
    func finish() throws -> Received {
        if let failure { throw failure }
        guard !openPart, finishedParts > 0 else {
            throw ServerError.invalidRequest("the body ended before its last part did", [FieldProblem(field: "body", message: "the multipart body is cut short; send it again")])
        }
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

    private func body(_ buffer: inout ByteBuffer) {
        guard failure == nil else { return }
        if part == nil {
            openPart = true
            part = startPart()
            guard failure == nil else { return }
        }
        switch part {
        case "metadata":
            metadata.append(contentsOf: buffer.readableBytesView)
            if metadata.count > maxMetadataBytes { fail(.tooLarge(limit: maxMetadataBytes)) }
        case "media":
            guard let media else { return }
            mediaSize += Int64(buffer.readableBytes)
            if mediaSize > maxMediaBytes { fail(.tooLarge(limit: Int(maxMediaBytes))); return }
            let bytes = Array(buffer.readableBytesView)
            media.digest.update(bytes)
            do { try media.writer.write(bytes) } catch { fail(.storage("cannot store the upload: \(error)")) }
        default:
            break
        }
    }

    /// Reads the headers of the part that starts: its name decides where its bytes go.
    private func startPart() -> String? {
        var name: String?, fileName: String?, contentType: String?
        for (header, value) in headers {
            if header == "content-type" { contentType = value.lowercased() }
            guard header == "content-disposition" else { continue }
            for piece in value.split(separator: ";").map({ $0.trimmingCharacters(in: .whitespaces) }) {
                if piece.hasPrefix("name=") { name = piece.dropFirst(5).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
                if piece.hasPrefix("filename=") { fileName = piece.dropFirst(9).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
            }
        }
        headers = []
        switch name {
        case "metadata":
            if sawMetadata { fail(.invalidRequest("the upload has two metadata parts", [FieldProblem(field: "metadata", message: "send it once")])) }
            sawMetadata = true
        case "media":
            if media != nil || mediaDone { fail(.invalidRequest("the upload has two media parts", [FieldProblem(field: "media", message: "one memory is one file")])) }
            do {
                let writer = try AtomicFileWriter(path: staging, options: AtomicFileWriter.Options(
                    permissions: .exactly(0o600), replacesExisting: false, followsSymbolicLinks: false))
                media = (writer, StreamingSHA256(), staging, contentType, fileName)
            } catch {
                fail(.storage("cannot stage the upload: \(error)"))
            }
        default:
            fail(.invalidRequest("the upload has a part the hub does not take", [FieldProblem(field: name ?? "(unnamed part)", message: "send only metadata and media")]))
        }
        return name
    }

    private func complete() {
        // A part with an empty body never called `body`: start it now.
        if part == nil, failure == nil { part = startPart() }
        if part == "media" { mediaDone = true }
        part = nil
        openPart = false
        finishedParts += 1
    }

    private func fail(_ error: ServerError) {
        if failure == nil { failure = error }
    }
}
