internal import CFFmpeg
internal import ImageKit

/// A video's or audio file's duration and a video's poster frame, read by FFmpeg's libraries in this
/// process (``CFFmpeg``): only files, and only the containers phones and cameras record (MP4/QuickTime,
/// Matroska/WebM, WAV, MP3, Ogg, AAC, FLAC, AVI).
enum MediaProbe {
    /// What a media file holds.
    struct Info: Sendable {
        var durationMilliseconds: Int64?
        var width: Int?
        var height: Int?
        var hasVideo: Bool
        var hasAudio: Bool
        var format: String
    }

    /// The file's streams, or why it cannot be read.
    static func info(_ path: String) -> Result<Info, MediaError> {
        var info = memora_media_info()
        var error = [CChar](repeating: 0, count: 256)
        let status = memora_media_probe(path, &info, &error, error.count)
        guard status == 0 else { return .failure(MediaError(message: text(error))) }
        let format = withUnsafeBytes(of: info.format) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
        return .success(Info(durationMilliseconds: info.duration_ms >= 0 ? info.duration_ms : nil, width: info.has_video != 0 ? Int(info.width) : nil,
                             height: info.has_video != 0 ? Int(info.height) : nil, hasVideo: info.has_video != 0, hasAudio: info.has_audio != 0, format: format))
    }

    /// A video's frame one second in (or its first), at most `maxSide` pixels on its long side.
    static func poster(_ path: String, maxSide: Int, atMilliseconds: Int64 = 1000) -> Image? {
        var pixels: UnsafeMutablePointer<UInt8>?
        var width: Int32 = 0, height: Int32 = 0
        var error = [CChar](repeating: 0, count: 256)
        guard memora_media_poster(path, Int32(maxSide), atMilliseconds, &pixels, &width, &height, &error, error.count) == 0, let pixels else { return nil }
        defer { memora_media_free(pixels) }
        let bytes = Array(UnsafeBufferPointer(start: pixels, count: Int(width) * Int(height) * 3))
        return try? Image(width: Int(width), height: Int(height), pixelFormat: .rgb8, pixels: bytes)
    }

    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Why a media file cannot be read.
    struct MediaError: Error, Sendable { var message: String }
}
