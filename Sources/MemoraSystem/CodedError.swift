/// The code of a module's error: a stable kebab-case name ("connection-failed") in an extensible set
/// of static values, not a frozen enum, so a later version can add codes without breaking a
/// `switch` that has a `default` branch. Every Memora error's `Code` is one.
public protocol ErrorCode: RawRepresentable<String>, Sendable, Hashable, CustomStringConvertible {
    /// A code with this name.
    init(rawValue: String)
}

extension ErrorCode {
    /// The kebab-case name.
    public var description: String { rawValue }
}

/// The one shape of Memora's errors: each module throws one struct with a ``ErrorCode`` a program
/// can switch on, a message a person can act on, and whether trying again can help.
///
/// ```swift
/// do { try await client.sync(server: url) } catch where error.isRetryable {
///     try await Task.sleep(for: error.retryAfter ?? .seconds(30))
/// }
/// ```
public protocol CodedError: Error, Sendable, CustomStringConvertible {
    /// The kind of code this error has.
    associatedtype Code: ErrorCode
    /// What kind of failure it is.
    var code: Code { get }
    /// What happened and what to do, in words.
    var message: String { get }
    /// Whether doing the same thing again later, without changing anything, may succeed.
    var isRetryable: Bool { get }
    /// How long to wait before trying again, when the other side said (an HTTP `Retry-After`).
    var retryAfter: Duration? { get }
}

extension CodedError {
    /// Nothing is known to help: not retryable unless the error says so.
    public var isRetryable: Bool { false }
    /// No wait was asked for.
    public var retryAfter: Duration? { nil }
}

extension CodedError {
    /// The message.
    public var description: String { message }
}
