public import MemoraSystem
public import PhotoVisionCore
/// Everything that can go wrong in PhotoIndex: a code a program can switch on (an extensible set
/// of static values, not a frozen enum), the photo, library folder or index database concerned,
/// a message a person can act on that names it once, the `errno` of a failed system call or
/// SQLite's result code when there is one, and whether trying again can help.
///
/// Match on ``code`` (`error.code == .invalidRequest`); build errors with the static functions,
/// named like the codes (`throw .invalidRequest("…")`).
public struct PhotoIndexError: CodedError, Hashable {
    /// What kind of failure it is. New codes may be added in later versions, so a `switch`
    /// over codes needs a `default` branch.
    public struct Code: ErrorCode {
        /// The code's stable kebab-case name ("library-unavailable").
        public var rawValue: String

        /// A code with this name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The library's folder cannot be used.
        public static let libraryUnavailable = Code(rawValue: "library-unavailable")
        /// The index database could not be opened, migrated or queried.
        public static let database = Code(rawValue: "database")
        /// A photo could not be read (recorded in the index; indexing goes on).
        public static let unreadable = Code(rawValue: "unreadable")
        /// A request that cannot be met, with what to change.
        public static let invalidRequest = Code(rawValue: "invalid-request")
        /// There is no photo index yet (or it holds no photo): run `memora index PHOTOS` first.
        public static let noIndex = Code(rawValue: "no-index")
        /// The vision models are missing or failed (PhotoVision's `VisionError` says which and what to run).
        public static let vision = Code(rawValue: "vision")
    }

    /// What kind of failure it is.
    public var code: Code
    /// The photo, library folder or index database concerned, when there is one.
    public var path: String?
    /// The cause in words, without the path.
    public var reason: String
    /// What happened and what to do, in words; names ``path`` once when there is one.
    public var message: String
    /// The `errno` of the failed system call, when one failed.
    public var systemCode: Int32?
    /// SQLite's (extended) result code, when the index database failed.
    public var libraryCode: Int32?
    /// Whether the same operation may succeed if tried again (a busy database, a transient system error).
    public var isRetryable: Bool

    /// An error with every field given.
    public init(_ code: Code, path: String?, reason: String, message: String, systemCode: Int32? = nil, libraryCode: Int32? = nil,
                isRetryable: Bool = false) {
        self.code = code
        self.path = path
        self.reason = reason
        self.message = message
        self.systemCode = systemCode
        self.libraryCode = libraryCode
        self.isRetryable = isRetryable
    }

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
