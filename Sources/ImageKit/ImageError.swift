/// Everything that can go wrong in ImageKit. Each message names the file (or
/// the `source` name a caller gave for in-memory data) and says what to do.
public enum ImageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file does not exist.
    case fileNotFound(path: String)
    /// The file exists but cannot be read (permissions, a directory, an I/O error).
    case unreadable(path: String, reason: String)
    /// The file or buffer holds zero bytes.
    case empty(source: String)
    /// The bytes are not an image format ImageKit recognises.
    case unrecognizedFormat(source: String)
    /// The format is recognised but ImageKit cannot decode it (yet).
    case unsupportedFormat(source: String, format: ImageFormat)
    /// The format is decodable, but this file uses a feature of it ImageKit cannot decode (an animated WebP, a raw DNG).
    case unsupportedFeature(source: String, detail: String)
    /// The data ends before the image does.
    case truncated(source: String, detail: String)
    /// The data is damaged or not valid for its format.
    case corrupt(source: String, detail: String)
    /// The image is larger than the decoder's pixel limit (decompression-bomb guard).
    case tooLarge(source: String, width: Int, height: Int, limit: Int)
    /// Encoding failed inside the codec.
    case encodingFailed(format: ImageFormat, detail: String)
    /// Writing the output file failed; nothing was left behind.
    case writeFailed(path: String, reason: String)
    /// A caller passed a value ImageKit cannot use (an empty crop, a zero size...).
    case invalidArgument(String)

    public var description: String {
        switch self {
        case .fileNotFound(let path):
            "\(path): no such file"
        case .unreadable(let path, let reason):
            "\(path): cannot be read (\(reason))"
        case .empty(let source):
            "\(source): the file is empty (0 bytes)"
        case .unrecognizedFormat(let source):
            "\(source): not an image ImageKit can read (expected JPEG, PNG, WebP, TIFF, HEIC or AVIF)"
        case .unsupportedFormat(let source, let format):
            "\(source): \(format.displayName) images cannot be decoded yet; convert it to JPEG or PNG first"
        case .unsupportedFeature(let source, let detail):
            "\(source): \(detail)"
        case .truncated(let source, let detail):
            "\(source): the image is truncated (\(detail)); the file was probably cut off while copying"
        case .corrupt(let source, let detail):
            "\(source): the image is damaged (\(detail))"
        case .tooLarge(let source, let width, let height, let limit):
            // A damaged header can claim sides whose product does not fit in an Int.
            "\(source): \(width)x\(height) is \(width.multipliedReportingOverflow(by: height).overflow ? "more than \(Int.max)" : "\(width * height)") pixels, over the limit of \(limit); raise DecodingOptions.maxPixelCount if you trust this file"
        case .encodingFailed(let format, let detail):
            "encoding \(format.displayName) failed: \(detail)"
        case .writeFailed(let path, let reason):
            "\(path): could not be written (\(reason)); no partial file was left"
        case .invalidArgument(let message):
            message
        }
    }
}
