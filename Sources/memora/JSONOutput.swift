import Foundation

/// Prints `value` as pretty, key-sorted JSON on standard output.
func printJSON<Value: Encodable>(_ value: Value) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    let data = try encoder.encode(value)
    // Control characters inside strings are escaped by the encoder: the JSON is printed as it is.
    Swift.print(String(decoding: data, as: UTF8.self))
}
