/// A pins file that cannot be used (`--pins FILE`).
public struct PinningError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure it is.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code's kebab-case name.
        public var rawValue: String
        /// A code with this name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The kebab-case name.
        public var description: String { rawValue }
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

    /// The message.
    public var description: String { message }
}
