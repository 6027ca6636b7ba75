internal import Foundation
internal import MemoraSystem

/// The multipart body of `POST /api/memories`: the `metadata` JSON part, then the media. Only a file
/// of at most ``HubClient/singleRequestLimit`` is sent this way, so the body is made in memory.
enum MultipartBody {
    /// The body with `metadata` and the bytes of `file` (none for a text memory).
    static func make(boundary: String, metadata: MemoryUpload, file: String?, contentType: String) throws(HubError) -> Data {
        var body = Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"metadata\"\r\nContent-Type: application/json\r\n\r\n".utf8)
        do { body.append(try JSONEncoder().encode(metadata)) } catch { throw .invalidRequest("cannot encode the metadata: \(error)", []) }
        if let file {
            let name = SystemPath.fileName(of: file).replacingOccurrences(of: "\"", with: "_").replacingOccurrences(of: "\r", with: "_").replacingOccurrences(of: "\n", with: "_")
            body.append(Data("\r\n--\(boundary)\r\nContent-Disposition: form-data; name=\"media\"; filename=\"\(name)\"\r\nContent-Type: \(contentType)\r\n\r\n".utf8))
            do { body.append(contentsOf: try SystemFile(file).readAll()) } catch { throw .file(path: file, reason: "cannot be read: \(error)") }
        }
        body.append(Data("\r\n--\(boundary)--\r\n".utf8))
        return body
    }

    /// The media type of a file from its name, for the `media` part.
    static func contentType(of path: String) -> String {
        switch SystemPath.fileName(of: path).split(separator: ".").last?.lowercased() ?? "" {
        case "jpg", "jpeg": "image/jpeg"
        case "png": "image/png"
        case "heic": "image/heic"
        case "webp": "image/webp"
        case "avif": "image/avif"
        case "tif", "tiff": "image/tiff"
        case "mp4", "m4v": "video/mp4"
        case "mov": "video/quicktime"
        case "webm": "video/webm"
        case "mkv": "video/x-matroska"
        case "avi": "video/x-msvideo"
        case "3gp": "video/3gpp"
        case "m4a", "aac": "audio/mp4"
        case "mp3": "audio/mpeg"
        case "ogg", "opus": "audio/ogg"
        case "wav": "audio/wav"
        case "flac": "audio/flac"
        case "mka": "audio/x-matroska"
        case "txt", "md": "text/plain"
        default: "application/octet-stream"
        }
    }
}
