/// A field that a request got wrong: where (a path such as `mutations[2].fields.latitude`) and what to fix.
public struct FieldProblem: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The field's path in the request.
    public var field: String
    /// What is wrong with it, in words a person can act on.
    public var message: String

    /// Creates a problem.
    public init(field: String, message: String) {
        self.field = field
        self.message = message
    }

    public var description: String { "\(field): \(message)" }
}
