/// Everything that can go wrong in MetadataKit; each message names the file and,
/// for writes, says that the original was left untouched.
public enum MetadataError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The metadata of the file could not be read.
    case unreadable(source: String, reason: String)
    /// The file is not in a format MetadataKit can handle for this operation.
    case unsupportedFormat(source: String, reason: String)
    /// The file's structure is damaged where the write would have to change it.
    case corrupt(source: String, reason: String)
    /// The file's XMP packet is not valid XMP; it is never dropped or rewritten blindly.
    case xmpRejected(source: String, reason: String)
    /// The new metadata does not fit (a JPEG segment holds at most 64 KB).
    case tooLarge(source: String, reason: String)
    /// After writing, something other than the intended fields differed; the file was not replaced.
    case verificationFailed(source: String, differences: [String])
    /// A file-system operation failed; the original is intact and no temporary file is left.
    case io(path: String, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let source, let reason):
            "\(source): metadata cannot be read (\(reason))"
        case .unsupportedFormat(let source, let reason):
            "\(source): \(reason); the file was not changed"
        case .corrupt(let source, let reason):
            "\(source): \(reason); the file was not changed"
        case .xmpRejected(let source, let reason):
            "\(source): its XMP packet cannot be parsed (\(reason)); the file was not changed rather than lose that XMP"
        case .tooLarge(let source, let reason):
            "\(source): \(reason); the file was not changed"
        case .verificationFailed(let source, let differences):
            "\(source): the write would also have changed \(differences.prefix(5).joined(separator: ", "))\(differences.count > 5 ? " and \(differences.count - 5) more" : ""); the file was not changed"
        case .io(let path, let reason):
            "\(path): \(reason); the original is intact"
        }
    }
}
