/// The one JSON shape of every failure the server answers: `{"error": {"code", "message", "fields"}}`.
public struct APIError: Sendable, Hashable, Codable, Error, CustomStringConvertible {
    /// A stable code: `invalid_request`, `unauthorized`, `rate_limited`, `mutation_gap`, `not_found`…
    /// (the list is in Docs/Sync.md).
    public var code: String
    /// What went wrong, in words a person can act on.
    public var message: String
    /// The fields at fault, for `invalid_request`.
    public var fields: [FieldProblem]?

    /// Creates an error.
    public init(code: String, message: String, fields: [FieldProblem]? = nil) {
        self.code = code
        self.message = message
        self.fields = fields
    }

    public var description: String {
        let details = (fields ?? []).prefix(5).map(\.description).joined(separator: "; ")
        return details.isEmpty ? message : "\(message) (\(details))"
    }
}

/// The envelope of an ``APIError`` on the wire.
public struct APIErrorBody: Sendable, Hashable, Codable {
    /// The error.
    public var error: APIError

    /// Wraps an error.
    public init(error: APIError) { self.error = error }
}
