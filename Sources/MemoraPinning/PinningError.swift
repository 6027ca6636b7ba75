public import MemoraSystem

/// A pins file that cannot be used (`--pins FILE`).
public struct PinningError: CodedError, Hashable {
    /// What kind of failure it is.
    public struct Code: ErrorCode {
        /// The code's kebab-case name.
        public var rawValue: String
        /// A code with this name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The file cannot be read or holds no valid PEM certificate.
        public static let unreadablePins = Code(rawValue: "unreadable-pins")
    }

    /// What kind of failure it is.
    public var code: Code
    /// What happened and what to do.
    public var message: String

    /// An error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}
