internal import Foundation
internal import ImageKit
internal import MemoraSystem
internal import MemoraSync
internal import MemoraHTTP

/// The hub's files: each memory's media kept by SHA-256 (`media/ab/abcdef…`), a JPEG thumbnail of each
/// photo (`thumbnails/ab/abcdef….jpg`), uploads on their way in (`incoming/SERVER/`, one folder per
/// running server, cleared once that server's lease has ended) and the files of resumable upload
/// sessions (`sessions/ID`, kept until used or expired).
struct HubMedia: Sendable {
    let folder: String
    /// The running server whose uploads this stages (``Fleet`` holds its lease).
    var server: String
    /// Where this server stages the uploads it receives.
    var incoming: String { folder + "/incoming/" + server }

    /// The hub's files in `folder` (created if missing). Nothing is cleared here: another server may
    /// be receiving uploads into the same folder (``sweepIncoming(live:before:)`` clears what is abandoned).
    init(folder: String) throws(ServerError) {
        self.folder = folder
        server = UUID().uuidString.lowercased()
        do {
            for sub in ["", "/media", "/thumbnails", "/incoming", "/sessions", "/avatars"] { try FileSystem.makeFolder(folder + sub, permissions: 0o700) }
        } catch {
            throw .storage("cannot prepare \(folder): \(error)")
        }
    }

    /// The same files, staged by a server running as `server`, whose `incoming/` folder is made now.
    func running(as server: String) throws(ServerError) -> HubMedia {
        var media = self
        media.server = server
        do {
            try FileSystem.makeFolder(media.incoming, permissions: 0o700)
        } catch {
            throw .storage("cannot prepare \(media.incoming): \(error)")
        }
        return media
    }

    /// Removes what servers that stopped left in `incoming/`: the folders of servers not in `live`
    /// (those whose lease runs) and not this one, and loose files (an earlier release's) older than
    /// `before` (seconds since 1970). Returns how many entries went.
    func sweepIncoming(live: Set<String>, before: Int64) -> Int {
        guard let entries = try? FileSystem.entries(of: folder + "/incoming") else { return 0 }
        var removed = 0
        for entry in entries where entry.name != server && !live.contains(entry.name) {
            let path = folder + "/incoming/" + entry.name
            guard let status = FileSystem.statusIfPresent(of: path, followingLinks: false) else { continue }
            if status.kind == .directory {
                if (try? FileSystem.removeTree(path)) != nil { removed += 1 }
            } else if status.modified.seconds < before, (try? FileSystem.remove(path)) != nil {
                removed += 1
            }
        }
        return removed
    }

    /// Where the media with this SHA-256 lives. A value that is not 64 hex digits (a damaged database)
    /// names a file that cannot exist, never a path outside the folder.
    func path(_ sha256: String) -> String { folder + "/media/" + Self.safe(sha256).prefix(2) + "/" + Self.safe(sha256) }
    /// Where its thumbnail lives.
    func thumbnailPath(_ sha256: String) -> String { folder + "/thumbnails/" + Self.safe(sha256).prefix(2) + "/" + Self.safe(sha256) + ".jpg" }

    private static func safe(_ sha256: String) -> String {
        SyncValueCheck.isSHA256(sha256) ? sha256 : "invalid"
    }

    /// Removes the media, thumbnails and avatars no row refers to (`media`, `avatars`: the SHA-256 values
    /// that are referred to) whose file is older than `before` (seconds since 1970): what a crash left
    /// between moving a file into place and writing its row. A younger file may be a request's in
    /// flight. Returns how many files went.
    func sweep(media kept: Set<String>, avatars keptAvatars: Set<String>, before: Int64) -> Int {
        var removed = 0
        func sweepFolder(_ folder: String, hash: (String) -> String?, keep: Set<String>) {
            guard let entries = try? FileSystem.entries(of: folder) else { return }
            for entry in entries {
                let path = folder + "/" + entry.name
                if entry.kind == .directory || (entry.kind == nil && FileSystem.statusIfPresent(of: path)?.kind == .directory) {
                    sweepFolder(path, hash: hash, keep: keep)
                    continue
                }
                guard let sha = hash(entry.name), SyncValueCheck.isSHA256(sha), !keep.contains(sha),
                      let status = FileSystem.statusIfPresent(of: path), status.kind == .regular, status.modified.seconds < before else { continue }
                if (try? FileSystem.remove(path)) != nil { removed += 1 }
            }
        }
        let jpeg: (String) -> String? = { $0.hasSuffix(".jpg") ? String($0.dropLast(4)) : nil }
        sweepFolder(folder + "/media", hash: { $0 }, keep: kept)
        sweepFolder(folder + "/thumbnails", hash: jpeg, keep: kept)
        sweepFolder(folder + "/avatars", hash: jpeg, keep: keptAvatars)
        return removed
    }

    /// Stages `bytes` (a text memory's text) as an upload would be.
    func stage(_ bytes: [UInt8]) throws -> (path: String, sha256: String, size: Int64, contentType: String?, fileName: String?) {
        let path = incoming + "/" + UUID().uuidString.lowercased()
        try AtomicFileWriter.write(bytes, to: path, options: AtomicFileWriter.Options(permissions: .exactly(0o600), replacesExisting: false))
        return (path, Hex.string(SHA256Digest.hash(bytes)), Int64(bytes.count), "text/plain", nil)
    }

    /// Moves a staged upload to its place (the same bytes there already stay as they are).
    func keep(_ staged: String, sha256: String) throws {
        let destination = path(sha256)
        do {
            try FileSystem.makeFolder(SystemPath.folder(of: destination), permissions: 0o700)
            try FileSystem.rename(staged, to: destination)
            FileSystem.syncFolder(SystemPath.folder(of: destination))
        } catch {
            throw ServerError.storage("cannot keep the upload: \(error)")
        }
    }

    /// Makes the photo's thumbnail (at most 512 pixels on its long side); false when the photo cannot be decoded.
    /// The decode and the encode run on a thread of their own (`BlockingWork`), not on the threads every request shares.
    func makeThumbnail(sha256: String) async -> Bool {
        let source = path(sha256), destination = thumbnailPath(sha256)
        return await BlockingWork.computing.run {
            do {
                try FileSystem.makeFolder(SystemPath.folder(of: destination), permissions: 0o700)
                let image = try ImageDecoder.thumbnail(contentsOf: source, maxPixelSize: 512)
                try ImageEncoder.write(image, to: destination, as: .jpeg(JPEGEncodingOptions(quality: 0.82)))
                return true
            } catch {
                return false
            }
        }
    }

    /// The file of upload session `id` (an id the server made: letters, digits, `-`, `_`).
    func sessionPath(_ id: String) -> String {
        let safe = !id.isEmpty && id.count <= 64 && id.utf8.allSatisfy { (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) || $0 == 45 || $0 == 95 }
        return folder + "/sessions/" + (safe ? id : "invalid")
    }

    /// Where an avatar lives (by the SHA-256 of its JPEG).
    func avatarPath(_ sha256: String) -> String { folder + "/avatars/" + Self.safe(sha256) + ".jpg" }

    /// The most pixels an avatar that is not a JPEG may have (64 MB decoded). A JPEG is decoded at a
    /// reduced scale, so it may have up to ImageKit's 100 megapixels.
    static let avatarMaxPixels = 16_000_000

    /// Makes an avatar from an image's bytes: at most 256 pixels on its long side, as JPEG; returns its SHA-256.
    /// The size its header declares is checked before anything is decoded (``avatarMaxPixels``): a small
    /// PNG may declare 100 megapixels. The work runs on a thread of its own (`BlockingWork`).
    func makeAvatar(_ bytes: [UInt8]) async throws -> String {
        try await BlockingWork.computing.run { () throws -> String in try avatar(from: bytes) }
    }

    private func avatar(from bytes: [UInt8]) throws -> String {
        let info = try ImageDecoder.info(of: bytes, source: "avatar")
        if info.format != .jpeg && info.width * info.height > Self.avatarMaxPixels {
            throw ServerError.invalidRequest("the avatar is too large", [FieldProblem(
                field: "body", message: "the image is \(info.width)x\(info.height) pixels; an avatar that is not a JPEG has at most 16 megapixels")])
        }
        let image = try ImageDecoder.thumbnail(bytes, source: "avatar", maxPixelSize: 256, options: DecodingOptions(applyOrientation: true))
        let staging = incoming + "/" + UUID().uuidString.lowercased() + ".jpg"
        defer { try? FileSystem.remove(staging) }
        try ImageEncoder.write(image, to: staging, as: .jpeg(JPEGEncodingOptions(quality: 0.85)))
        let encoded = try SystemFile(staging).readAll()
        let hash = Hex.string(SHA256Digest.hash(encoded))
        try FileSystem.rename(staging, to: avatarPath(hash))
        return hash
    }

    /// Makes a video's thumbnail from its frame one second in (FFmpeg); false when no frame can be decoded.
    /// FFmpeg runs on a thread of its own (`BlockingWork`).
    func makePoster(sha256: String) async -> Bool {
        let source = path(sha256), destination = thumbnailPath(sha256)
        return await BlockingWork.computing.run {
            guard let frame = MediaProbe.poster(source, maxSide: 512) else { return false }
            do {
                try FileSystem.makeFolder(SystemPath.folder(of: destination), permissions: 0o700)
                try ImageEncoder.write(frame, to: destination, as: .jpeg(JPEGEncodingOptions(quality: 0.82)))
                return true
            } catch {
                return false
            }
        }
    }

    /// Removes a memory's files.
    func remove(sha256: String) {
        try? FileSystem.remove(path(sha256))
        try? FileSystem.remove(thumbnailPath(sha256))
    }
}
