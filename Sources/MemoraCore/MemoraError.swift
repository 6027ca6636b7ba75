public import MemoraSystem
public import MetadataKit
public import VaultCrypto
public import MemoraHTTP
internal import MemoraSync
import Foundation

/// Everything that can go wrong in MemoraCore (captioning, the job, the caption database, vault imports,
/// edits and rollbacks, secrets): a code a program can switch on (an extensible set of static
/// values, not a frozen enum), the photo or file concerned, a message a person can act on that
/// names it once, the provider and endpoint of a generator's failure, the HTTP status, the
/// `errno` or SQLite/libexiv2 code underneath, and whether trying again can help (with the
/// delay a server asked for).
///
/// Match on ``code`` (`error.code == .rateLimited`); build errors with the static functions,
/// named like the codes (`throw .unavailable(provider: name, reason: "…")`).
public struct MemoraError: CodedError, Hashable {
    /// What kind of failure it is. New codes may be added in later versions, so a `switch`
    /// over codes needs a `default` branch. A model server that gave no answer keeps the
    /// transport's code (MemoraHTTP's `HTTPFailureCode`: `connectionFailed`, `timedOut`, `cancelled`,
    /// `malformedResponse`, `untrustedCertificate`…); `cancelled` is also work cancelled before a
    /// caption was produced.
    public struct Code: HTTPFailureCode {
        /// The code's stable kebab-case name ("rate-limited").
        public var rawValue: String

        /// A code with this name.
        public init(rawValue: String) { self.rawValue = rawValue }

        // Generating a caption

        /// The photo could not be read or prepared for captioning.
        public static let imageUnreadable = Code(rawValue: "image-unreadable")
        /// Too many requests (HTTP 429); retryable, after ``MemoraError/retryAfter`` when the server said.
        public static let rateLimited = Code(rawValue: "rate-limited")
        /// The server failed (HTTP 5xx or 408); retryable, after ``MemoraError/retryAfter`` when the server said.
        public static let serverError = Code(rawValue: "server-error")
        /// The key is missing, wrong or lacks permission (HTTP 401/403).
        public static let unauthorized = Code(rawValue: "unauthorized")
        /// The account's quota is used up (for the day or for good): retrying today does not help.
        public static let quotaExhausted = Code(rawValue: "quota-exhausted")
        /// The provider refused the request as malformed or unsupported (HTTP 4xx), or the model is missing.
        public static let rejected = Code(rawValue: "rejected")
        /// The provider blocked the photo or the answer for safety reasons.
        public static let safetyBlocked = Code(rawValue: "safety-blocked")
        /// The caption is empty: the model answered with nothing usable, or a person's edit was blank.
        public static let emptyCaption = Code(rawValue: "empty-caption")
        /// The generator cannot be used now (not configured, model not pulled, no key).
        public static let unavailable = Code(rawValue: "unavailable")
        /// Every generator allowed by the mode failed; the message lists the last error of each.
        public static let allGeneratorsFailed = Code(rawValue: "all-generators-failed")

        // Starting a job

        /// No caption model can run (none is reachable, pulled or has a key) and the basic
        /// description was not allowed: nothing was written.
        public static let noModel = Code(rawValue: "no-model")
        /// A setting is not valid (a malformed endpoint, an unknown mode).
        public static let invalidConfiguration = Code(rawValue: "invalid-configuration")
        /// A photo, folder or file the user named does not exist.
        public static let notFound = Code(rawValue: "not-found")

        // The caption database

        /// The caption database (or its worker lock) could not be opened or migrated.
        public static let openFailed = Code(rawValue: "open-failed")
        /// A query of the caption database failed.
        public static let queryFailed = Code(rawValue: "query-failed")
        /// Another process is working the queue (another `memora caption`); retryable once it is done.
        public static let locked = Code(rawValue: "locked")
        /// A preference key or value is not valid.
        public static let invalidPreference = Code(rawValue: "invalid-preference")
        /// The photo has no history entry with that number.
        public static let noSuchHistoryEntry = Code(rawValue: "no-such-history-entry")

        // Edits and rollbacks

        /// Reading or writing the photo's metadata failed (MetadataKit's error); the photo is unchanged.
        public static let metadataFailed = Code(rawValue: "metadata-failed")
        /// Memora never wrote to the photo: there is nothing to roll back to.
        public static let nothingToRollBack = Code(rawValue: "nothing-to-roll-back")
        /// No operation of that number wrote to the photos given.
        public static let noSuchOperation = Code(rawValue: "no-such-operation")
        /// The metadata of that level was not kept (entries recorded before Memora kept a snapshot per entry).
        public static let levelNotKept = Code(rawValue: "level-not-kept")

        // The vault

        /// The vault refused the photo or could not store it (VaultCrypto's error).
        public static let vaultFailed = Code(rawValue: "vault-failed")

        // Saved places

        /// No saved place has that name or id (`memora places list`).
        public static let placeNotFound = Code(rawValue: "place-not-found")
        /// Several saved places have that name: give the place's id.
        public static let placeAmbiguous = Code(rawValue: "place-ambiguous")
        /// A place to save is not valid (its name, coordinates or radius).
        public static let invalidPlace = Code(rawValue: "invalid-place")

        // Secrets

        /// The secrets file can be read by other users.
        public static let insecurePermissions = Code(rawValue: "insecure-permissions")
        /// A file (the secrets file, a photo to import) could not be read or written.
        public static let io = Code(rawValue: "io")
        /// A line of the secrets file is not `NAME=value`.
        public static let malformedLine = Code(rawValue: "malformed-line")
    }

    /// What kind of failure it is.
    public var code: Code
    /// The photo, database or file concerned, when there is one.
    public var path: String?
    /// What happened and what to do, in words; names ``path`` once when there is one.
    public var message: String
    /// The generator's provider as a person knows it ("Gemini gemini-2.5-flash"), for a generator's failure.
    public var provider: String?
    /// The server's address (scheme, host and path; never a query), when it could not be reached.
    public var endpoint: String?
    /// The HTTP status of the server's reply, when it gave one that says the kind of failure.
    public var status: Int?
    /// How long the server asked to wait before trying again, when it said.
    public var retryAfter: Duration?
    /// The `errno` of the failed system call, when one failed.
    public var systemCode: Int32?
    /// SQLite's (extended) result code for a database failure, or libexiv2's code for a metadata failure.
    public var libraryCode: Int32?
    /// Whether the same operation may succeed if tried again later (429, 5xx, timeouts, dropped
    /// connections, a busy database, a photo that changed meanwhile); false for bad keys,
    /// exhausted quotas, safety blocks, refused requests and anything that does not exist.
    public var isRetryable: Bool

    /// An error with every field given.
    public init(_ code: Code, _ message: String, path: String? = nil, provider: String? = nil, endpoint: String? = nil,
                status: Int? = nil, retryAfter: Duration? = nil, systemCode: Int32? = nil, libraryCode: Int32? = nil,
                isRetryable: Bool = false) {
        self.code = code
        self.message = message
        self.path = path
        self.provider = provider
        self.endpoint = endpoint
        self.status = status
        self.retryAfter = retryAfter
        self.systemCode = systemCode
        self.libraryCode = libraryCode
        self.isRetryable = isRetryable
    }

    // MARK: Generating a caption

    /// The photo could not be read or prepared; `reason` must not repeat the path (use ImageKit's `ImageError.reason`).
    public static func imageUnreadable(path: String, reason: String) -> MemoraError {
        MemoraError(.imageUnreadable, "\(path): the photo could not be prepared for captioning: \(reason)", path: path)
    }

    /// MemoraHTTP's error: no answer came from a model server. The code is the transport's
    /// (``Code/connectionFailed``, ``Code/timedOut``, ``Code/cancelled``; an answer too large or not
    /// HTTP is ``Code/malformedResponse``), the endpoint redacted, retryable as the transport says;
    /// `timeout` is the request's, for the message.
    public static func http(_ error: HTTPError, timeout: Duration?) -> MemoraError {
        let endpoint = error.endpoint
        switch error.code {
        case .timedOut:
            let seconds = (timeout ?? .seconds(60)) / .seconds(1)
            let said = seconds == seconds.rounded() ? String(Int(seconds)) : String(format: "%.1f", seconds)
            return MemoraError(.timedOut, "\(endpoint) did not answer within \(said) s", endpoint: endpoint, isRetryable: true)
        case .cancelled:
            return MemoraError(.cancelled, "the request to \(endpoint) was cancelled before a caption was produced", endpoint: endpoint)
        case .malformedResponse, .responseTooLarge:
            return MemoraError(.malformedResponse, "\(endpoint) sent a reply Memora cannot read: \(error.reason)", endpoint: endpoint)
        case .connectionFailed:
            return MemoraError(.connectionFailed, "\(endpoint) could not be reached: \(error.reason)", endpoint: endpoint,
                               isRetryable: error.isRetryable)
        default:
            return MemoraError(Code(error.code), error.message, endpoint: endpoint, status: error.status, isRetryable: error.isRetryable)
        }
    }

    /// Too many requests (HTTP 429): retry after `retryAfter` when the server said.
    public static func rateLimited(provider: String, retryAfter: Duration?, message: String) -> MemoraError {
        MemoraError(.rateLimited, "\(provider) is rate limiting requests (HTTP 429)\(retryAfter.map { ", retry after \($0.wholeSecondsRoundedUp) s" } ?? ""): \(message)",
                    provider: provider, status: 429, retryAfter: retryAfter, isRetryable: true)
    }

    /// The server failed with HTTP `status` (5xx, 408); retry after `retryAfter` when the server said.
    public static func serverError(provider: String, status: Int, retryAfter: Duration?, message: String) -> MemoraError {
        MemoraError(.serverError, "\(provider) failed with HTTP \(status): \(message)", provider: provider, status: status,
                    retryAfter: retryAfter, isRetryable: true)
    }

    /// The key is missing, wrong or lacks permission.
    public static func unauthorized(provider: String, message: String) -> MemoraError {
        MemoraError(.unauthorized, "\(provider) refused the API key: \(message) (check the key in the environment or the secrets file)",
                    provider: provider)
    }

    /// The account's quota is used up: retrying today does not help.
    public static func quotaExhausted(provider: String, message: String) -> MemoraError {
        MemoraError(.quotaExhausted, "\(provider) quota is exhausted: \(message)", provider: provider)
    }

    /// The provider refused the request with HTTP `status` as malformed or unsupported, or the model is missing.
    public static func rejected(provider: String, status: Int, message: String) -> MemoraError {
        MemoraError(.rejected, "\(provider) rejected the request (HTTP \(status)): \(message)", provider: provider, status: status)
    }

    /// The provider blocked the photo or the answer for safety reasons.
    public static func safetyBlocked(provider: String, reason: String) -> MemoraError {
        MemoraError(.safetyBlocked, "\(provider) blocked the photo for safety reasons (\(reason)); no caption was produced", provider: provider)
    }

    /// The reply was not in the provider's format.
    public static func malformedResponse(provider: String, reason: String) -> MemoraError {
        MemoraError(.malformedResponse, "\(provider) sent a reply Memora cannot read: \(reason)", provider: provider)
    }

    /// The model answered with nothing usable.
    public static func emptyCaption(provider: String) -> MemoraError {
        MemoraError(.emptyCaption, "\(provider) answered with an empty caption", provider: provider)
    }

    /// The generator cannot be used now (not configured, model not pulled, no key).
    public static func unavailable(provider: String, reason: String) -> MemoraError {
        MemoraError(.unavailable, "\(provider) is not available: \(reason)", provider: provider)
    }

    /// Every generator allowed by the mode failed (`errors`: the last error of each); `isRetryable`
    /// when one of them may succeed later (it was unavailable, or its failure was retryable).
    public static func allGeneratorsFailed(_ errors: [String], isRetryable: Bool = false) -> MemoraError {
        MemoraError(.allGeneratorsFailed, "no caption generator succeeded: " + errors.joined(separator: "; "), isRetryable: isRetryable)
    }

    /// The work was cancelled before a caption was produced.
    public static var cancelled: MemoraError {
        MemoraError(.cancelled, "cancelled before a caption was produced")
    }

    // MARK: Starting a job

    /// No caption model can run; `reasons` says why for each (with the command that fixes it).
    public static func noModel(_ reasons: [String]) -> MemoraError {
        MemoraError(.noModel, "no caption model can run, so nothing was written: " + reasons.joined(separator: "; ")
                    + ". Fix one of these, or allow Memora's on-device description instead (composed on this device from what its face, scene and text models find; labelled in each photo as written automatically) with the fallback option: `--fallback on-device` on the command line, its default")
    }

    /// A setting is not valid; `message` says which and what is expected.
    public static func invalidConfiguration(_ message: String) -> MemoraError {
        MemoraError(.invalidConfiguration, message)
    }

    /// A photo or folder the user named does not exist.
    public static func notFound(path: String) -> MemoraError {
        MemoraError(.notFound, "\(path): no such file or folder", path: path)
    }

    // MARK: The caption database

    /// The caption database (or its worker lock) could not be opened or migrated.
    public static func openFailed(path: String, reason: String, systemCode: Int32? = nil, libraryCode: Int32? = nil,
                                  isRetryable: Bool = false) -> MemoraError {
        MemoraError(.openFailed, "the caption database \(path) could not be opened: \(reason)", path: path, systemCode: systemCode,
                    libraryCode: libraryCode, isRetryable: isRetryable)
    }

    /// A query failed; `libraryCode` is SQLite's result code, `isRetryable` whether the database was busy or locked.
    public static func queryFailed(reason: String, systemCode: Int32? = nil, libraryCode: Int32? = nil, isRetryable: Bool = false) -> MemoraError {
        MemoraError(.queryFailed, "the caption database failed: \(reason)", systemCode: systemCode, libraryCode: libraryCode, isRetryable: isRetryable)
    }

    /// Another `memora caption` is working the queue of the database at `path`.
    public static func locked(path: String) -> MemoraError {
        MemoraError(.locked, "another `memora caption` is working on \(path); wait for it to finish", path: path, isRetryable: true)
    }

    /// A preference key or value is not valid.
    public static func invalidPreference(key: String, reason: String) -> MemoraError {
        MemoraError(.invalidPreference, "preference \(key): \(reason)")
    }

    /// The photo `asset` has no history entry `number` (it has `available`).
    public static func noSuchHistoryEntry(asset: String, number: Int, available: Int) -> MemoraError {
        MemoraError(
            .noSuchHistoryEntry,
            "\(asset) has no history entry \(number) (it has \(available); 0 means the photo as it was before Memora wrote to it)", path: asset)
    }

    // MARK: Edits and rollbacks

    /// MetadataKit's error, kept whole in the message, path, codes and retryability; a missing photo is ``Code/notFound``.
    public static func metadata(_ error: MetadataError) -> MemoraError {
        MemoraError(error.code == .notFound ? .notFound : .metadataFailed, error.message, path: error.path, systemCode: error.systemCode,
                    libraryCode: error.libraryCode, isRetryable: error.isRetryable)
    }

    /// A person's caption is empty.
    public static var emptyCaption: MemoraError {
        MemoraError(.emptyCaption, "the caption is empty; to remove Memora's captions, use `memora rollback FILE --to 0`")
    }

    /// Memora never wrote to the photo at `path`: there is nothing to roll back to.
    public static func nothingToRollBack(path: String) -> MemoraError {
        MemoraError(.nothingToRollBack, "\(path) has no history: Memora never wrote to it", path: path)
    }

    /// Operation `operation` wrote to none of the photos given (`memora history` lists the operations).
    public static func noSuchOperation(_ operation: Int64) -> MemoraError {
        MemoraError(.noSuchOperation, "operation \(operation) wrote to none of these photos: `memora history` lists the operations and what they wrote to")
    }

    /// The metadata of `level` was recorded before Memora kept it for every entry.
    public static func levelNotKept(path: String, level: Int) -> MemoraError {
        MemoraError(
            .levelNotKept,
            "\(path): the metadata of level \(level) was recorded before Memora kept it for every entry; roll back to 0 (the original) or to an entry with a caption",
            path: path)
    }

    // MARK: The vault

    /// VaultCrypto's error, kept whole in the message, path, `errno` and retryability.
    public static func vault(_ error: VaultCryptoError) -> MemoraError {
        MemoraError(.vaultFailed, error.message, path: error.path, systemCode: error.systemCode, isRetryable: error.isRetryable)
    }

    // MARK: Saved places

    /// No saved place is called `name` (nor has it as its id).
    public static func placeNotFound(_ name: String) -> MemoraError {
        MemoraError(.placeNotFound, "no saved place is called \(name): `memora places list` shows them, `memora places add` saves one")
    }

    /// `count` saved places are called `name`.
    public static func placeAmbiguous(_ name: String, ids: [String]) -> MemoraError {
        MemoraError(.placeAmbiguous, "\(ids.count) saved places are called \(name): give one of their ids (\(ids.joined(separator: ", ")))")
    }

    /// The sync replica that keeps the saved places failed (MemoraSync's error, with its message).
    static func places(_ error: SyncError) -> MemoraError {
        MemoraError(.queryFailed, "the saved places could not be read or written: \(error.message)", isRetryable: error.isRetryable)
    }

    // MARK: Secrets

    /// The secrets file at `path` has mode `mode`, which lets other users read it.
    public static func insecurePermissions(path: String, mode: String) -> MemoraError {
        MemoraError(.insecurePermissions, "\(path) holds API keys but has mode \(mode): other users could read them. Run `chmod 600` on it.",
                    path: path)
    }

    /// A file (the secrets file, a photo to import) could not be read or written; `systemCode` is the failed call's `errno`.
    public static func io(path: String, reason: String, systemCode: Int32? = nil, isRetryable: Bool = false) -> MemoraError {
        MemoraError(.io, "\(path): \(reason)", path: path, systemCode: systemCode, isRetryable: isRetryable)
    }

    /// Line `line` of the secrets file is not `NAME=value`.
    public static func malformedLine(path: String, line: Int) -> MemoraError {
        MemoraError(.malformedLine, "\(path), line \(line): expected NAME=value", path: path)
    }

    // MARK: Reasons

    /// A caught error in words a person can read: a decoding error's explanation (never a Swift
    /// decoding dump), a Foundation error's localized description (never an `NSCocoaErrorDomain`
    /// dump), or the error's own description (our modules' errors are their message).
    static func reason(of error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context), DecodingError.keyNotFound(_, let context),
             DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            return context.debugDescription
        case is any CustomNSError:
            return error.localizedDescription
        default:
            // Every error bridges to NSError (`is NSError` always holds): the dynamic type tells a real one.
            return type(of: error) is NSError.Type ? error.localizedDescription : String(describing: error)
        }
    }
}
