public import MemoraSystem

/// Everything that can go wrong in ImageKit: a code a program can switch on (an extensible set
/// of static values, not a frozen enum), the file (or the `source` name a caller gave for
/// in-memory data), a message a person can act on that names the file once, the `errno` of a
/// failed system call or the codec's own error code when there is one, and whether trying
/// again can help. Its fields are MemoraSystem's `FileError`'s, with ImageKit's own codes.
///
/// Match on `code` (`error.code == .truncated`); build errors with the static functions, named
/// like the codes (`throw .corrupt(source: path, detail: "…")`).
public typealias ImageError = FileError<ImageErrorCode>

/// What kind of failure an ``ImageError`` is. New codes may be added in later versions, so a
/// `switch` over codes needs a `default` branch.
public struct ImageErrorCode: ErrorCode {
    /// The code's stable kebab-case name ("file-not-found").
    public var rawValue: String

    /// A code with this name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The file does not exist.
    public static let fileNotFound = ImageErrorCode(rawValue: "file-not-found")
    /// The file exists but cannot be read (permissions, a directory, an I/O error).
    public static let unreadable = ImageErrorCode(rawValue: "unreadable")
    /// The file or buffer holds zero bytes.
    public static let empty = ImageErrorCode(rawValue: "empty")
    /// The bytes are not an image format ImageKit recognises.
    public static let unrecognizedFormat = ImageErrorCode(rawValue: "unrecognized-format")
    /// The format is recognised but ImageKit cannot decode it (yet).
    public static let unsupportedFormat = ImageErrorCode(rawValue: "unsupported-format")
    /// The format is decodable, but this file uses a feature of it ImageKit cannot decode (an animated WebP, a raw DNG).
    public static let unsupportedFeature = ImageErrorCode(rawValue: "unsupported-feature")
    /// The data ends before the image does.
    public static let truncated = ImageErrorCode(rawValue: "truncated")
    /// The data is damaged or not valid for its format.
    public static let corrupt = ImageErrorCode(rawValue: "corrupt")
    /// The image is larger than the decoder's pixel limit (decompression-bomb guard).
    public static let tooLarge = ImageErrorCode(rawValue: "too-large")
    /// Encoding failed inside the codec.
    public static let encodingFailed = ImageErrorCode(rawValue: "encoding-failed")
    /// Writing the output file failed; nothing was left behind.
    public static let writeFailed = ImageErrorCode(rawValue: "write-failed")
    /// A caller passed a value ImageKit cannot use (an empty crop, a zero size...).
    public static let invalidArgument = ImageErrorCode(rawValue: "invalid-argument")
    /// The output file already exists and replacing it was not asked for; nothing was written.
    public static let outputExists = ImageErrorCode(rawValue: "output-exists")
}

extension ImageError {
    // MARK: The errors ImageKit throws

    /// The file does not exist.
    public static func fileNotFound(path: String) -> ImageError {
        ImageError(.fileNotFound, path: path, reason: "no such file")
    }

    /// The file exists but cannot be read; `systemCode` is the failed call's `errno`, `isRetryable` whether it is transient.
    public static func unreadable(path: String, reason: String, systemCode: Int32? = nil, isRetryable: Bool = false) -> ImageError {
        ImageError(.unreadable, path: path, reason: "cannot be read (\(reason))", systemCode: systemCode, isRetryable: isRetryable)
    }

    /// The file or buffer holds zero bytes.
    public static func empty(source: String) -> ImageError {
        ImageError(.empty, path: source, reason: "the file is empty (0 bytes)")
    }

    /// The bytes are not an image format ImageKit recognises.
    public static func unrecognizedFormat(source: String) -> ImageError {
        ImageError(.unrecognizedFormat, path: source, reason: "not an image ImageKit can read (expected JPEG, PNG, WebP, TIFF, HEIC or AVIF)")
    }

    /// The format is recognised but ImageKit cannot decode it (yet).
    public static func unsupportedFormat(source: String, format: ImageFormat) -> ImageError {
        ImageError(.unsupportedFormat, path: source, reason: "\(format.displayName) images cannot be decoded yet; convert it to JPEG or PNG first")
    }

    /// The format is decodable, but this file uses a feature of it ImageKit cannot decode.
    public static func unsupportedFeature(source: String, detail: String, libraryCode: Int32? = nil) -> ImageError {
        ImageError(.unsupportedFeature, path: source, reason: detail, libraryCode: libraryCode)
    }

    /// The data ends before the image does.
    public static func truncated(source: String, detail: String, libraryCode: Int32? = nil) -> ImageError {
        ImageError(.truncated, path: source, reason: "the image is truncated (\(detail)); the file was probably cut off while copying",
                   libraryCode: libraryCode)
    }

    /// The data is damaged or not valid for its format.
    public static func corrupt(source: String, detail: String, libraryCode: Int32? = nil) -> ImageError {
        ImageError(.corrupt, path: source, reason: "the image is damaged (\(detail))", libraryCode: libraryCode)
    }

    /// The image is larger than the decoder's pixel limit (decompression-bomb guard). The message
    /// is for the person using the program, so it names no API; a program that trusts the file
    /// can raise ``DecodingOptions/maxPixelCount``.
    public static func tooLarge(source: String, width: Int, height: Int, limit: Int) -> ImageError {
        // A damaged header can claim sides whose product does not fit in an Int.
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        return ImageError(
            .tooLarge, path: source,
            reason: "\(width)x\(height) is \(overflow ? "more than \(Int.max)" : "\(pixels)") pixels, more than the \(limit) Memora decodes to stay safe from images built to exhaust memory")
    }

    /// Encoding failed inside the codec.
    public static func encodingFailed(format: ImageFormat, detail: String, libraryCode: Int32? = nil) -> ImageError {
        ImageError(.encodingFailed, path: nil, reason: "encoding \(format.displayName) failed: \(detail)", libraryCode: libraryCode)
    }

    /// Writing the output file failed and no partial file was left; `systemCode` is the failed call's `errno`.
    public static func writeFailed(path: String, reason: String, systemCode: Int32? = nil, isRetryable: Bool = false) -> ImageError {
        ImageError(.writeFailed, path: path, reason: "could not be written (\(reason)); no partial file was left", systemCode: systemCode,
                   isRetryable: isRetryable)
    }

    /// The output file `path` already exists and replacing it was not asked for; nothing was written.
    public static func outputExists(path: String) -> ImageError {
        ImageError(.outputExists, path: path, reason: "already exists; nothing was written (pass --force to replace it)")
    }

    /// A caller passed a value ImageKit cannot use; `message` says which and why.
    public static func invalidArgument(_ message: String) -> ImageError {
        ImageError(.invalidArgument, path: nil, reason: message)
    }
}
