import Foundation

/// Prints `value` as pretty, key-sorted JSON on standard output, in the one style every command
/// uses: snake_case keys (as `memora prefs set` takes them and the seed's columns are named),
/// instants in ISO 8601 (UTC), and a photo's date taken in ISO 8601 with the photo's own offset
/// (``CaptureDate`` encodes itself so).
func printJSON<Value: Encodable>(_ value: Value) throws {
    Swift.print(try JSONStyle.encode(value))
}

/// The JSON style of the command line.
enum JSONStyle {
    /// `value` as JSON text.
    static func encode<Value: Encodable>(_ value: Value) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        encoder.keyEncodingStrategy = .custom { path in SnakeCaseKey(path.last.map { snakeCase($0.stringValue) } ?? "") }
        // Control characters inside strings are escaped by the encoder: the JSON is printed as it is.
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// A property name in snake_case (`aiMode` → `ai_mode`). Only names that look like Swift
    /// properties (a lowercase letter, then letters and digits) are changed, so keys that are
    /// data (file names, model identifiers, people's names) are printed as they are.
    static func snakeCase(_ key: String) -> String {
        guard let first = key.unicodeScalars.first, ("a"..."z").contains(first),
              key.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) }),
              key.unicodeScalars.contains(where: { ("A"..."Z").contains($0) }) else { return key }
        var result = ""
        for scalar in key.unicodeScalars {
            if ("A"..."Z").contains(scalar) {
                result += "_" + String(scalar).lowercased()
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    struct SnakeCaseKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
