/// Why indexing or selection failed.
public enum PhotoIndexError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The library's folder cannot be used.
    case libraryUnavailable(path: String, reason: String)
    /// The index database could not be opened, migrated or queried.
    case database(path: String, reason: String)
    /// A photo could not be read (recorded in the index; indexing goes on).
    case unreadable(path: String, reason: String)
    /// A request that cannot be met, with what to change.
    case invalidRequest(String)

    public var description: String {
        switch self {
        case .libraryUnavailable(let path, let reason): "the photo library \(path) cannot be used: \(reason)"
        case .database(let path, let reason): "the photo index \(path) failed: \(reason)"
        case .unreadable(let path, let reason): "\(path) could not be indexed: \(reason)"
        case .invalidRequest(let message): message
        }
    }
}
