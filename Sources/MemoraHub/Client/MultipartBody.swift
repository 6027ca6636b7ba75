internal import Foundation
internal import MemoraSystem

/// The multipart body of `POST /api/memories`, written to a file: the `metadata` JSON part, then the
/// media copied in pieces (the memory never sits in memory).
enum MultipartBody {
    /// Writes the body to `path`.
    static func write(to path: String, boundary: String, metadata: MemoryUpload, file: String?, contentType: String) throws(HubError) {
        let json: Data
        do { json = try JSONEncoder().encode(metadata) } catch { throw .file(path: path, reason: "cannot encode the metadata: \(error)") }
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]),
              let output = FileHandle(forWritingAtPath: path) else {
            throw .file(path: path, reason: "cannot create the upload's temporary file")
        }
        defer { try? output.close() }
        do {
            output.write(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"metadata\"\r\nContent-Type: application/json\r\n\r\n".utf8))
            output.write(json)
            if let file {
                let name = SystemPath.fileName(of: file).replacingOccurrences(of: "\"", with: "_").replacingOccurrences(of: "\r", with: "_").replacingOccurrences(of: "\n", with: "_")
                output.write(Data("\r\n--\(boundary)\r\nContent-Disposition: form-data; name=\"media\"; filename=\"\(name)\"\r\nContent-Type: \(contentType)\r\n\r\n".utf8))
                guard let input = FileHandle(forReadingAtPath: file) else { throw HubError.file(path: file, reason: "cannot be read") }
                defer { try? input.close() }
                while let chunk = try input.read(upToCount: 4 << 20), !chunk.isEmpty { output.write(chunk) }
            }
            output.write(Data("\r\n--\(boundary)--\r\n".utf8))
        } catch let error as HubError {
            throw error
        } catch {
            throw .file(path: file ?? path, reason: "\(error)")
        }
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
        case "m4a", "aac": "audio/mp4"
        case "mp3": "audio/mpeg"
        case "ogg", "opus": "audio/ogg"
        case "wav": "audio/wav"
        case "txt", "md": "text/plain"
        default: "application/octet-stream"
        }
    }
}
