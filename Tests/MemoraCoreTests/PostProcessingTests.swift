import Testing
@testable import MemoraCore

@Suite("Caption post-processing")
struct PostProcessingTests {
    @Test("artefacts, medium openings and repeated words are removed; the caption is capitalised and ends with a full stop",
          arguments: [
              ("arafed man riding a horse on a beach", "Man riding a horse on a beach."),
              ("there is a dog sitting on the the grass", "A dog sitting on the grass."),
              ("An image of a red car parked by a wall", "A red car parked by a wall."),
              ("a photo of two children playing in snow", "Two children playing in snow."),
              ("  \"a cat asleep on a sofa\"  ", "A cat asleep on a sofa."),
              ("This image shows a bridge at night.", "A bridge at night."),
              ("A woman holds a sign that reads \"OPEN\". She smiles at the", "A woman holds a sign that reads \"OPEN\"."),
              ("a train train leaving the station!", "A train leaving the station!"),
          ])
    func cleans(raw: String, expected: String) {
        #expect(CaptionPostProcessor.process(raw)?.description == expected)
    }

    @Test("nothing usable gives no caption")
    func empty() {
        #expect(CaptionPostProcessor.process("   ") == nil)
        #expect(CaptionPostProcessor.process("arafed") == nil)
        #expect(CaptionPostProcessor.process("\"\"") == nil)
    }

    @Test("the alt text keeps whole sentences within 150 characters and the full description is kept")
    func altText() throws {
        let first = "A family of four walks along a wide sandy beach at sunset, the children running ahead toward the waves."
        let second = "Their long shadows stretch across the wet sand."
        let result = try #require(CaptionPostProcessor.process(first + " " + second))
        #expect(result.description == first + " " + second)
        #expect(result.altText == first)
        #expect(result.altText.count <= CaptionPostProcessor.altTextLimit)
    }

    @Test("a single sentence longer than 150 characters is cut at a word boundary, never on a dangling word")
    func longSentence() throws {
        let words = Array(repeating: "a tall green tree beside the old stone wall and", count: 6).joined(separator: " ")
        let result = try #require(CaptionPostProcessor.process(words))
        #expect(result.altText.count <= CaptionPostProcessor.altTextLimit)
        #expect(result.altText.hasSuffix("."))
        let lastWord = result.altText.dropLast().split(separator: " ").last.map(String.init) ?? ""
        #expect(!CaptionPostProcessor.danglingWords.contains(lastWord))
        #expect(result.description.count > 150)
    }
}
