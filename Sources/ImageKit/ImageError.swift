public import MemoraSystem

/// Everything that can go wrong in ImageKit: a code a program can switch on (an extensible set
/// of static values, not a frozen enum), the file (or the `source` name a caller gave for
/// in-memory data), a message a person can act on that names the file once, the `errno` of a
/// failed system call or the codec's own error code when there is one, and whether trying
/// again can help.
///
/// Match on ``code`` (`error.code == .truncated`); build errors with the static functions, named
/// like the codes (`throw .corrupt(source: path, detail: "…")`).
public struct ImageError: CodedError, Hashable {
    /// What kind of failure it is. New codes may be added in later versions, so a `switch`
    /// over codes needs a `default` branch.
    public struct Code: ErrorCode {
        /// The code's stable kebab-case name ("file-not-found").
        public var rawValue: String

        /// A code with this name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The file does not exist.
        public static let fileNotFound = Code(rawValue: "file-not-found")
        /// The file exists but cannot be read (permissions, a directory, an I/O error).
        public static let unreadable = Code(rawValue: "unreadable")
        /// The file or buffer holds zero bytes.
        public static let empty = Code(rawValue: "empty")
        /// The bytes are not an image format ImageKit recognises.
        public static let unrecognizedFormat = Code(rawValue: "unrecognized-format")
        /// The format is recognised but ImageKit cannot decode it (yet).
        public static let unsupportedFormat = Code(rawValue: "unsupported-format")
        /// The format is decodable, but this file uses a feature of it ImageKit cannot decode (an animated WebP, a raw DNG).
        public static let unsupportedFeature = Code(rawValue: "unsupported-feature")
        /// The data ends before the image does.
        public static let truncated = Code(rawValue: "truncated")
        /// The data is damaged or not valid for its format.
        public static let corrupt = Code(rawValue: "corrupt")
        /// The image is larger than the decoder's pixel limit (decompression-bomb guard).
        public static let tooLarge = Code(rawValue: "too-large")
        /// Encoding failed inside the codec.
        public static let encodingFailed = Code(rawValue: "encoding-failed")
        /// Writing the output file failed; nothing was left behind.
        public static let writeFailed = Code(rawValue: "write-failed")
        /// A caller passed a value ImageKit cannot use (an empty crop, a zero size...).
        public static let invalidArgument = Code(rawValue: "invalid-argument")
        /// The output file already exists and replacing it was not asked for; nothing was written.
        public static let outputExists = Code(rawValue: "output-exists")
    }

    /// What kind of failure it is.
    public var code: Code
    /// The file, or the `source` name of in-memory data; nil when no file is concerned (encoding, a bad argument).
    public var path: String?
    /// The cause in words, without the path ("the image is damaged (…)"), to put after a caller's own mention of the file.
    public var reason: String
    /// What happened and what to do, in words; names ``path`` once when there is one.
    public var message: String
    /// The `errno` of the failed system call, when one failed.
    public var systemCode: Int32?
    /// The codec's own error code (libheif's `heif_error_code`, libwebp's `VP8StatusCode`), when it gave one.
    public var libraryCode: Int32?
    /// Whether the same call may succeed if tried again (a transient system error); false for damaged or unsupported images.
    public var isRetryable: Bool

    /// An error with every field given; the message is the path, if any, followed by the reason.
    public init(_ code: Code, path: String?, reason: String, systemCode: Int32? = nil, libraryCode: Int32? = nil, isRetryable: Bool = false) {
        self.code = code
        self.path = path
        self.reason = reason
        self.message = path.map { "\($0): \(reason)" } ?? reason
        self.systemCode = systemCode
        self.libraryCode = libraryCode
        self.isRetryable = isRetryable
    }

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
