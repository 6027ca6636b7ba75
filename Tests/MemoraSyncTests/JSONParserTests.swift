import Foundation
import MemoraSync
import Testing

/// The server's JSON reader (issue 31, items 1 and 2): one pass with a budget of depth and values,
/// and the same values as Foundation's `JSONDecoder` on what both read.
@Suite("JSONParser")
struct JSONParserTests {
    @Test("a million empty objects stop at the value budget, long before the end of the body")
    func valueBudget() throws {
        // One pass, and a value budget: 1.4 million {} stop at the budget (200,000 values).
        let flood = "{\"k\":[" + Array(repeating: "{}", count: 1_400_000).joined(separator: ",") + "]}"
        let failure = try #require(catching { try JSONParser.parse(Array(flood.utf8)) })
        #expect(failure.overLimit)
        #expect(failure.message.contains("\(JSONParser.Limits.request.maxValues)"), "\(failure.message)")
        #expect(failure.offset < flood.utf8.count / 4, "stopped at byte \(failure.offset) of \(flood.utf8.count)")
        // A smaller budget is kept exactly: three values are read, the fourth is over.
        #expect(catching { try JSONParser.parse(Array("[1,2]".utf8), limits: JSONParser.Limits(maxDepth: 32, maxValues: 3)) } == nil)
        #expect(catching { try JSONParser.parse(Array("[1,2,3]".utf8), limits: JSONParser.Limits(maxDepth: 32, maxValues: 3)) }?.overLimit == true)
    }

    @Test("nesting deeper than 32 levels is refused as over the limit; 32 levels are read")
    func depth() {
        let deep = String(repeating: "[", count: 40) + String(repeating: "]", count: 40)
        #expect(catching { try JSONParser.parse(Array(deep.utf8)) }?.overLimit == true)
        #expect(catching { try JSONParser.parse(Array((String(repeating: "[", count: 32) + String(repeating: "]", count: 32)).utf8)) } == nil)
        #expect(catching { try JSONParser.parse(Array((String(repeating: "[", count: 33) + String(repeating: "]", count: 33)).utf8)) }?.overLimit == true)
    }

    @Test("the parser reads what JSONDecoder reads, as the same values", arguments: [
        #"{"a":1,"b":-2.5,"c":"x\u00e9\ud83d\ude00\n","d":[true,false,null],"e":{"f":9223372036854775807}}"#,
        #"[1e3, 0.1, -0, 12345678901234567890, "\"\\\/"]"#, #""plain""#, "  42  ",
    ])
    func sameAsJSONDecoder(sample: String) throws {
        let ours = try JSONParser.parse(Array(sample.utf8))
        let theirs = try JSONDecoder().decode(JSONValue.self, from: Data(sample.utf8))
        #expect(ours == theirs, "\(sample)")
    }

    @Test("malformed JSON is refused, and not as over the limit", arguments: [
        "", "{", "[1,]", "{\"a\" 1}", "01", "1.", "\"\\ud800\"", "\"a\u{01}\"", "tru", "[1] x", "{\"a\":1,}", "\"\\q\"",
    ])
    func malformed(bad: String) {
        #expect(catching { try JSONParser.parse(Array(bad.utf8)) }?.overLimit == false, "\(bad.debugDescription) is refused")
    }
}

/// The parser's failure `body` throws, nil when it succeeds.
private func catching(_ body: () throws -> JSONValue) -> JSONParser.Failure? {
    do {
        _ = try body()
        return nil
    } catch {
        return error as? JSONParser.Failure ?? JSONParser.Failure(offset: -1, message: "\(error)", overLimit: false)
    }
}
