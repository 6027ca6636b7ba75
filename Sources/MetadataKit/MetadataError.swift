public import MemoraSystem

/// Everything that can go wrong in MetadataKit: a code a program can switch on (an extensible
/// set, not a frozen enum), the file, a message a person can act on that names the file once
/// and, for writes, says the original was left untouched, the underlying `errno` or libexiv2
/// code when there is one, and whether trying again can help.
public struct MetadataError: CodedError, Hashable {
    /// What kind of failure it is.
    public struct Code: ErrorCode {
        public var rawValue: String
        /// A code.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The metadata of the file could not be read.
        public static let unreadable = Code(rawValue: "unreadable")
        /// The file is not in a format MetadataKit can handle for this operation.
        public static let unsupportedFormat = Code(rawValue: "unsupported-format")
        /// The file's structure is damaged where the write would have to change it.
        public static let corrupt = Code(rawValue: "corrupt")
        /// The file's XMP packet is not valid XMP; it is never dropped or rewritten blindly.
        public static let xmpRejected = Code(rawValue: "xmp-rejected")
        /// The new metadata does not fit (a JPEG segment holds at most 64 KB).
        public static let tooLarge = Code(rawValue: "too-large")
        /// After writing, something other than the intended fields differed; the file was not replaced.
        public static let verificationFailed = Code(rawValue: "verification-failed")
        /// The file does not exist.
        public static let notFound = Code(rawValue: "not-found")
        /// The file, or its folder, may not be written (read-only, permission denied).
        public static let notWritable = Code(rawValue: "not-writable")
        /// The file changed while it was being written; trying again works on the new version.
        public static let changed = Code(rawValue: "changed")
        /// Another file-system operation failed; the original is intact and no temporary file is left.
        public static let io = Code(rawValue: "io")
        /// The task was cancelled; the photo was left as it was.
        public static let cancelled = Code(rawValue: "cancelled")
        /// A dry run stopped where the photo would have been replaced (internal to ``CaptionWriter/check(_:in:)``).
        static let checkedOnly = Code(rawValue: "checked-only")
    }

    /// What kind of failure it is.
    public var code: Code
    /// The file concerned (or a label such as "image" for bytes in memory).
    public var path: String
    /// The cause in words, without the path ("the file is read-only; …").
    public var reason: String
    /// What happened and what to do, in words; the path appears once.
    public var message: String
    /// The `errno` of the failed system call, when one failed.
    public var systemCode: Int32?
    /// libexiv2's error code, when libexiv2 refused the metadata.
    public var libraryCode: Int32?
    /// Whether the same operation may succeed if tried again (the file changed meanwhile, a transient system error).
    public var isRetryable: Bool

    /// An error with every field given.
    public init(_ code: Code, path: String, reason: String, message: String, systemCode: Int32? = nil, libraryCode: Int32? = nil,
                isRetryable: Bool = false) {
        self.code = code
        self.path = path
        self.reason = reason
        self.message = message
        self.systemCode = systemCode
        self.libraryCode = libraryCode
        self.isRetryable = isRetryable
    }

    /// The metadata of the file could not be read.
    public static func unreadable(source: String, reason: String, libraryCode: Int32? = nil) -> MetadataError {
        MetadataError(.unreadable, path: source, reason: reason, message: "\(source): metadata cannot be read (\(reason))", libraryCode: libraryCode)
    }

    /// The task was cancelled; the photo was left as it was.
    public static func cancelled(source: String) -> MetadataError {
        MetadataError(.cancelled, path: source, reason: "cancelled", message: "\(source): cancelled; the original is intact")
    }

    /// The file is not in a format MetadataKit can handle for this operation.
    public static func unsupportedFormat(source: String, reason: String) -> MetadataError {
        MetadataError(.unsupportedFormat, path: source, reason: reason, message: "\(source): \(reason); the file was not changed")
    }

    /// The file's structure is damaged where the write would have to change it.
    public static func corrupt(source: String, reason: String) -> MetadataError {
        MetadataError(.corrupt, path: source, reason: reason, message: "\(source): \(reason); the file was not changed")
    }

    /// The file's XMP packet is not valid XMP.
    public static func xmpRejected(source: String, reason: String, libraryCode: Int32? = nil) -> MetadataError {
        MetadataError(.xmpRejected, path: source, reason: reason,
                      message: "\(source): its XMP packet cannot be parsed (\(reason)); the file was not changed rather than lose that XMP",
                      libraryCode: libraryCode)
    }

    /// The new metadata does not fit.
    public static func tooLarge(source: String, reason: String) -> MetadataError {
        MetadataError(.tooLarge, path: source, reason: reason, message: "\(source): \(reason); the file was not changed")
    }

    /// The write would also have changed `differences`; the file was not replaced.
    public static func verificationFailed(source: String, differences: [String]) -> MetadataError {
        let listed = differences.prefix(5).joined(separator: ", ") + (differences.count > 5 ? " and \(differences.count - 5) more" : "")
        return MetadataError(.verificationFailed, path: source, reason: "the write would also have changed \(listed)", message: "\(source): the write would also have changed \(listed); the file was not changed")
    }

    /// A file-system operation failed (`code` says which kind); the original is intact.
    public static func io(path: String, reason: String, code: Code = .io, systemCode: Int32? = nil, isRetryable: Bool = false) -> MetadataError {
        MetadataError(code, path: path, reason: reason, message: "\(path): \(reason); the original is intact", systemCode: systemCode, isRetryable: isRetryable)
    }
}
