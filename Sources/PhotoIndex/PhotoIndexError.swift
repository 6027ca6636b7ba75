public import MemoraSystem
public import PhotoVisionCore

/// Everything that can go wrong in PhotoIndex: a code a program can switch on (an extensible set
/// of static values, not a frozen enum), the photo, library folder or index database concerned,
/// a message a person can act on that names it once, the `errno` of a failed system call or
/// SQLite's result code when there is one, and whether trying again can help. Its fields are
/// MemoraSystem's `FileError`'s, with PhotoIndex's own codes.
///
/// Match on `code` (`error.code == .invalidRequest`); build errors with the static functions,
/// named like the codes (`throw .invalidRequest("…")`).
public typealias PhotoIndexError = FileError<PhotoIndexErrorCode>

/// What kind of failure a `PhotoIndexError` is. New codes may be added in later versions, so a `switch`
/// over codes needs a `default` branch.
public struct PhotoIndexErrorCode: ErrorCode {
    /// The code's stable kebab-case name ("library-unavailable").
    public var rawValue: String

    /// A code with this name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The library's folder cannot be used.
    public static let libraryUnavailable = PhotoIndexErrorCode(rawValue: "library-unavailable")
    /// The index database could not be opened, migrated or queried.
    public static let database = PhotoIndexErrorCode(rawValue: "database")
    /// A photo could not be read (recorded in the index; indexing goes on).
    public static let unreadable = PhotoIndexErrorCode(rawValue: "unreadable")
    /// A request that cannot be met, with what to change.
    public static let invalidRequest = PhotoIndexErrorCode(rawValue: "invalid-request")
    /// There is no photo index yet (or it holds no photo): run `memora index PHOTOS` first.
    public static let noIndex = PhotoIndexErrorCode(rawValue: "no-index")
    /// The vision models are missing or failed (PhotoVision's `VisionError` says which and what to run).
    public static let vision = PhotoIndexErrorCode(rawValue: "vision")
}

extension PhotoIndexError {
    // MARK: The errors PhotoIndex throws

    /// The library's folder cannot be used; `systemCode` is the failed call's `errno`.
    public static func libraryUnavailable(path: String, reason: String, systemCode: Int32? = nil, isRetryable: Bool = false) -> PhotoIndexError {
        PhotoIndexError(.libraryUnavailable, path: path, reason: reason, message: "the photo library \(path) cannot be used: \(reason)",
                        systemCode: systemCode, isRetryable: isRetryable)
    }

    /// The index database could not be opened, migrated or queried; `libraryCode` is SQLite's result code,
    /// `isRetryable` whether it was busy or locked by another connection.
    public static func database(path: String, reason: String, systemCode: Int32? = nil, libraryCode: Int32? = nil,
                                isRetryable: Bool = false) -> PhotoIndexError {
        PhotoIndexError(.database, path: path, reason: reason, message: "the photo index \(path) failed: \(reason)",
                        systemCode: systemCode, libraryCode: libraryCode, isRetryable: isRetryable)
    }

    /// A photo could not be read; `reason` must not repeat the path.
    public static func unreadable(path: String, reason: String) -> PhotoIndexError {
        PhotoIndexError(.unreadable, path: path, reason: reason, message: "\(path) could not be indexed: \(reason)")
    }

    /// There is no photo index at `path` yet, or it holds no photo; the message says to index the photos first.
    public static func noIndex(path: String, isEmpty: Bool = false) -> PhotoIndexError {
        PhotoIndexError(.noIndex, path: path, reason: isEmpty ? "the photo index has no photos yet" : "there is no photo index yet",
                        message: (isEmpty ? "the photo index \(path) has no photos yet" : "there is no photo index at \(path) yet")
                            + ": run `memora index PHOTOS` first (PHOTOS: the folder of your photos)")
    }

    /// The vision models are missing or failed; the message is PhotoVision's.
    public static func vision(_ error: VisionError) -> PhotoIndexError {
        PhotoIndexError(.vision, path: error.path, reason: error.message, message: error.message)
    }

    /// No person has number `id` (see `memora people`).
    public static func noSuchPerson(_ id: Int64) -> PhotoIndexError {
        PhotoIndexError(.invalidRequest, path: nil, reason: "there is no person \(id)",
                        message: "there is no person \(id); `memora people` lists them with their numbers")
    }

    /// A request that cannot be met; `message` says what to change.
    public static func invalidRequest(_ message: String) -> PhotoIndexError {
        PhotoIndexError(.invalidRequest, path: nil, reason: message, message: message)
    }
}
