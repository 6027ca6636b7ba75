/// The shape of the errors of the modules that read and write files: ImageKit's `ImageError`,
/// MetadataKit's `MetadataError` and PhotoIndex's `PhotoIndexError` are each this struct with a
/// code type of their own, so every module still throws a type of its own (`throws(ImageError)`)
/// while the fields, their meaning and the way a message names the file are written once.
///
/// A module declares `public typealias ImageError = FileError<ImageErrorCode>` and builds its
/// errors with static functions in an `extension ImageError`, named like its codes.
public struct FileError<Kind: ErrorCode>: CodedError, Hashable {
    /// The module's code type (`ImageErrorCode`, `MetadataErrorCode`, `PhotoIndexErrorCode`).
    public typealias Code = Kind

    /// What kind of failure it is.
    public var code: Code
    /// The file or folder concerned (or the `source` name a caller gave for bytes in memory); nil
    /// when no file is (a bad argument, an encoder's failure).
    public var path: String?
    /// The cause in words, without the path ("the image is damaged (…)"), to put after a caller's own
    /// mention of the file.
    public var reason: String
    /// What happened and what to do, in words; names ``path`` once when there is one.
    public var message: String
    /// The `errno` of the failed system call, when one failed.
    public var systemCode: Int32?
    /// The C library's own error code (libexiv2's, libheif's `heif_error_code`, SQLite's extended
    /// result code), when it gave one.
    public var libraryCode: Int32?
    /// Whether the same call may succeed if tried again (the file changed meanwhile, a busy database,
    /// a transient system error); false for damaged or unsupported files.
    public var isRetryable: Bool

    /// An error with every field given; without a `message`, the path (when there is one), a colon
    /// and the reason.
    public init(_ code: Code, path: String?, reason: String, message: String? = nil, systemCode: Int32? = nil,
                libraryCode: Int32? = nil, isRetryable: Bool = false) {
        self.code = code
        self.path = path
        self.reason = reason
        self.message = message ?? path.map { "\($0): \(reason)" } ?? reason
        self.systemCode = systemCode
        self.libraryCode = libraryCode
        self.isRetryable = isRetryable
    }
}
