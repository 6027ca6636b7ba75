import MemoraSync
import Testing

/// Typed reading of what ``JSONParser`` read: numbers kept to their type's range, and errors that
/// name the field at fault, as `JSONDecoder`'s do.
@Suite("JSONValueDecoder")
struct JSONValueDecoderTests {
    @Test("a whole number past Int64 is refused, not rounded to its edge; the edges themselves are read")
    func int64Edges() {
        // schemathesis: a baseVersion of -9223372036854775809 was read as Int64.min.
        func number(_ literal: String) -> Int64? {
            do {
                let parsed = try JSONParser.parse(Array(#"{"value":\#(literal)}"#.utf8))
                return try JSONValueDecoder.decode(OneNumber.self, from: parsed).value
            } catch {
                return nil
            }
        }
        #expect(number("-9223372036854775808") == .min && number("9223372036854775807") == .max && number("1e3") == 1000)
        for outside in ["-9223372036854775809", "9223372036854775808", "-9223372036854775808.5", "1e19", "-1e19", "18446744073709551615", "1.5"] {
            #expect(number(outside) == nil, "\(outside) was read as \(String(describing: number(outside)))")
        }
    }

    @Test("a typed request is read from the parsed value; a wrong type names its field's path")
    func fieldPaths() throws {
        let push = try JSONValueDecoder.decode(PushRequest.self, from: try JSONParser.parse(Array(#"{"mutations":[{"id":3,"collection":"places","op":"delete","fields":{"id":"x"}}]}"#.utf8)))
        #expect(push.mutations.first?.id == 3 && push.mutations.first?.fields["id"] == .string("x"))
        do {
            _ = try JSONValueDecoder.decode(PushRequest.self, from: try JSONParser.parse(Array(#"{"mutations":[{"id":"three"}]}"#.utf8)))
            Issue.record("a string id was read")
        } catch let DecodingError.typeMismatch(_, context) {
            #expect(context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue } == ["mutations", "0", "id"])
        }
    }
}

/// A body of one 64-bit integer, as a route's fields are read.
private struct OneNumber: Decodable {
    var value: Int64
}
