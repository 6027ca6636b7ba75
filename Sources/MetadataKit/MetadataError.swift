/// Everything that can go wrong in MetadataKit; each message names the file.
public enum MetadataError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The metadata of the file could not be read.
    case unreadable(source: String, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let source, let reason): "\(source): metadata cannot be read (\(reason))"
        }
    }
}
