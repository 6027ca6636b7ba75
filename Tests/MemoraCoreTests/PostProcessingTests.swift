import Foundation
import MemoraTesting
import Testing
import TestSupport
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
              ("Sure! Here is a description of the image:\n\n**A red bicycle** leans against a *blue* door.", "A red bicycle leans against a blue door."),
              ("## Description\n- A dog on a beach\n- The sea behind it", "A dog on a beach. The sea behind it."),
              ("Here is a description: `A cat` asleep.", "A cat asleep."),
              ("Sure! Here's a description of the photo: A dog.", "A dog."),
              ("Here is a description of this photo: a dog", "A dog."),
              ("#1 fan at the game", "#1 fan at the game."),
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

    @Test("the alt text keeps whole sentences within 125 characters and the full description is kept")
    func altText() throws {
        let first = "A family of four walks along a wide sandy beach at sunset, the children running ahead."
        let second = "Their long shadows stretch across the wet sand."
        let result = try #require(CaptionPostProcessor.process(first + " " + second))
        #expect(result.description == first + " " + second)
        #expect(result.altText == first)
        #expect(result.altText.count <= CaptionPostProcessor.altTextLimit)
    }

    @Test("a single sentence longer than 125 characters is cut at a word boundary, never on a dangling word")
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

/// Every generator's output meets the same rules (issue 30): whatever a model sends, the caption
/// has no medium opening, no Markdown, no line break, ends with punctuation; the alt text is within
/// 125 characters and the rest goes to the extended description.
@Suite("The rules every description meets")
struct DescriptionRuleTests {
    static let replies = [
        "Sure! Here is a description of the image:\n\n**A golden retriever** runs across a _wet_ beach at low tide, carrying a red ball in its mouth, while two children in yellow raincoats chase it.\n\n- The sky is grey.\n- Waves break behind them.",
        "This image shows a street sign that reads \"Rua Augusta\" above a shop.",
        "# Photo\nA photo of a birthday cake with seven candles",
    ]

    @Test("every reply, through the one post-processor every provider uses", arguments: replies)
    func rules(reply: String) throws {
        let caption = try ProviderReply.caption(from: reply, model: ModelInfo(provider: .ollama, name: "llava", pixelsLeaveDevice: false))
        for text in [caption.description, caption.altText, caption.extendedDescription ?? caption.description] {
            let lower = text.lowercased()
            for opening in ["image of", "photo of", "here is a description", "this image shows", "sure!"] { #expect(!lower.hasPrefix(opening) && !lower.contains(" " + opening), "\(text)") }
            for mark in ["**", "\n", "# ", "`", "_wet_"] { #expect(!text.contains(mark), "\(text)") }
            #expect(text.last.map { ".!?\"".contains($0) } == true, "\(text)")
        }
        #expect(caption.altText.count <= CaptionPostProcessor.altTextLimit && CaptionPostProcessor.altTextLimit <= 125)
        #expect(caption.altText == caption.description ? caption.extendedDescription == nil : caption.extendedDescription == caption.description)
        if reply.contains("Rua Augusta") { #expect(caption.altText.contains("\"Rua Augusta\""), "legible text stays quoted") }
    }
}

/// The same rules over each provider's real wire format (loopback servers speaking Ollama's, the
/// OpenAI-compatible and Gemini's APIs), so no generator can skip them.
@Suite("The rules over every provider")
struct ProviderRuleTests {
    @Test("Ollama, an OpenAI-compatible server (llama.cpp, LM Studio, vLLM, OpenAI) and Gemini: the same chatty Markdown reply becomes the same clean caption")
    func everyProvider() async throws {
        let reply = DescriptionRuleTests.replies[0]
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let photo = try makeCameraJPEG(in: folder)
        let ollama = LoopbackModelServer(flavor: .ollama), openAI = LoopbackModelServer(flavor: .openAI, apiKey: "o")
        let gemini = LoopbackModelServer(flavor: .gemini, apiKey: "g")
        let generators: [any CaptionGenerator] = [
            OllamaCaptionGenerator(endpoint: try await ollama.start(), model: "llava"),
            OpenAICaptionGenerator(endpoint: try await openAI.start(), model: "gpt-test", apiKey: APIKey("o")),
            GeminiCaptionGenerator(endpoint: try await gemini.start(), apiKey: APIKey("g")),
        ]
        for server in [ollama, openAI, gemini] { await server.enqueue(.caption(reply)) }
        var captions: [GeneratedCaption] = []
        for generator in generators { captions.append(try await generator.generateCaption(for: CaptionRequest(path: photo))) }
        for server in [ollama, openAI, gemini] { await server.stop() }
        #expect(Set(captions.map(\.description)).count == 1, "\(captions.map(\.description))")
        for caption in captions {
            #expect(caption.description.hasPrefix("A golden retriever runs across a wet beach"))
            #expect(!caption.description.contains("**") && !caption.description.contains("\n") && caption.altText.count <= 125)
            #expect(caption.extendedDescription == caption.description)
        }
    }
}
