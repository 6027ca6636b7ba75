public import MemoraSystem

/// Everything that can go wrong in MetadataKit: a code a program can switch on (an extensible
/// set, not a frozen enum), the file, a message a person can act on that names the file once
/// and, for writes, says the original was left untouched, the underlying `errno` or libexiv2
/// code when there is one, and whether trying again can help. Its fields are MemoraSystem's
/// `FileError`'s, with MetadataKit's own codes; `path` is always set.
public typealias MetadataError = FileError<MetadataErrorCode>

/// What kind of failure a `MetadataError` is. New codes may be added in later versions, so a `switch`
/// over codes needs a `default` branch.
public struct MetadataErrorCode: ErrorCode {
    /// The code's stable kebab-case name ("not-writable").
    public var rawValue: String
    /// A code with this name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The metadata of the file could not be read.
    public static let unreadable = MetadataErrorCode(rawValue: "unreadable")
    /// The file is not in a format MetadataKit can handle for this operation.
    public static let unsupportedFormat = MetadataErrorCode(rawValue: "unsupported-format")
    /// The file's structure is damaged where the write would have to change it.
    public static let corrupt = MetadataErrorCode(rawValue: "corrupt")
    /// The file's XMP packet is not valid XMP; it is never dropped or rewritten blindly.
    public static let xmpRejected = MetadataErrorCode(rawValue: "xmp-rejected")
    /// The new metadata does not fit (a JPEG segment holds at most 64 KB).
    public static let tooLarge = MetadataErrorCode(rawValue: "too-large")
    /// After writing, something other than the intended fields differed; the file was not replaced.
    public static let verificationFailed = MetadataErrorCode(rawValue: "verification-failed")
    /// The file does not exist.
    public static let notFound = MetadataErrorCode(rawValue: "not-found")
    /// The file, or its folder, may not be written (read-only, permission denied).
    public static let notWritable = MetadataErrorCode(rawValue: "not-writable")
    /// The file changed while it was being written; trying again works on the new version.
    public static let changed = MetadataErrorCode(rawValue: "changed")
    /// Another file-system operation failed; the original is intact and no temporary file is left.
    public static let io = MetadataErrorCode(rawValue: "io")
    /// The task was cancelled; the photo was left as it was.
    public static let cancelled = MetadataErrorCode(rawValue: "cancelled")
    /// A dry run stopped where the photo would have been replaced (internal to ``CaptionWriter/check(_:in:)``).
    static let checkedOnly = MetadataErrorCode(rawValue: "checked-only")
}

extension MetadataError {
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
