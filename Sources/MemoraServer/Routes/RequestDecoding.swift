internal import MemoraSync

/// A JSON decoding error as the field at fault and what was expected.
enum RequestDecoding {
    static func problem(_ error: DecodingError) -> FieldProblem {
        func path(_ keys: [any CodingKey]) -> String {
            var text = ""
            for key in keys {
                if let index = key.intValue { text += "[\(index)]" } else { text += (text.isEmpty ? "" : ".") + key.stringValue }
            }
            return text.isEmpty ? "body" : text
        }
        switch error {
        case .keyNotFound(let key, let context): return FieldProblem(field: path(context.codingPath + [key]), message: "required")
        case .typeMismatch(let type, let context): return FieldProblem(field: path(context.codingPath), message: "expected \(describe(type))")
        case .valueNotFound(let type, let context): return FieldProblem(field: path(context.codingPath), message: "expected \(describe(type)), got null")
        case .dataCorrupted(let context): return FieldProblem(field: path(context.codingPath), message: context.codingPath.isEmpty ? "not valid JSON" : "not a valid value")
        @unknown default: return FieldProblem(field: "body", message: "not valid")
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "text"
        case is Int64.Type, is Int.Type: "an integer"
        case is Bool.Type: "true or false"
        default: "\(type)".hasPrefix("Array") ? "an array" : "an object"
        }
    }
}
