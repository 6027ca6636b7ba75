/// Why a caption job could not start: a code a program can switch on (an extensible set of
/// static values, not a frozen enum), the path when there is one, and a message a person can act on.
public struct CaptionJobError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure it is.
    public struct Code: RawRepresentable, Sendable, Hashable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A setting is not valid (a malformed endpoint, an unknown mode).
        public static let invalidConfiguration = Code(rawValue: "invalid-configuration")
        /// A photo or folder the user named does not exist.
        public static let notFound = Code(rawValue: "not-found")
    }

    public var code: Code
    /// The path concerned, if any.
    public var path: String?
    /// What happened and what to do, in words.
    public var message: String

    public init(_ code: Code, _ message: String, path: String? = nil) {
        self.code = code
        self.message = message
        self.path = path
    }

    public var description: String { message }
}
