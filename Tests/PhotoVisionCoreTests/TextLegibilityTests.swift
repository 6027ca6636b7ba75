import Foundation
import Testing
@testable import PhotoVisionCore

/// Which lines read from a photo may be quoted to a listener (Docs/Vision.md, "Quoting text").
@Suite("Legible text: what may be quoted")
struct TextLegibilityTests {
    /// A small list, so that each rule is seen on its own.
    static let words = WordList(words: ["post", "office", "grey", "values", "region", "based", "segmentation", "of", "kodak", "share", "easy",
                                         "printer", "photo", "best", "bread", "message", "Zürich", "boo", "oz", "pic", "tures", "the", "and",
                                         "copies", "scans", "iPod", "cop", "les", "photocopies", "tu", "invitación"])
    static let judge = TextLegibility(words: words)

    static func line(_ text: String, _ confidence: Float = 0.98, weakest: Float = 0.97) -> TextLine {
        TextLine(text: text, confidence: confidence, weakestCharacter: weakest, x: 0, y: 0, width: 0.5, height: 0.1)
    }

    @Test("words of the list, in any case and with or without accents, are quoted", arguments: ["POST OFFICE", "Post office", "ZURICH", "Zürich", "Kodak Easy Share"])
    func listedWords(text: String) {
        #expect(Self.judge.judge(Self.line(text)) == .legible(text))
    }

    @Test("misreads are not quoted: mixed case, unknown lower-case words, names read with an unsure character", arguments: [
        ("PIc TURESf", Float(0.99)), ("houto", 0.99), ("NCECVLBDEMWLES", 0.6), ("Stewant S", 0.7), ("BUDWEISD", 0.8), ("OZ Boo K", 0.7),
    ])
    func misreads(text: String, weakest: Float) {
        #expect(Self.judge.judge(Self.line(text, 0.9, weakest: weakest)) != .legible(text))
    }

    @Test("a line of list words is quoted with a less sure character than one holding a name or a number, which the list cannot check")
    func thresholds() {
        let judge = Self.judge
        #expect(judge.judge(Self.line("BEST BREAD MESSAGE", 0.96, weakest: 0.65)) == .legible("BEST BREAD MESSAGE"))
        #expect(judge.judge(Self.line("BEST BREAD MESSAGE", 0.96, weakest: 0.55)) == .partlyLegible("BEST BREAD MESSAGE"))
        #expect(judge.judge(Self.line("Annecy", 0.97, weakest: 0.96)) == .legible("Annecy"))
        #expect(judge.judge(Self.line("Annecy", 0.96, weakest: 0.9)) == .illegible, "a name read with an unsure letter")
        #expect(judge.judge(Self.line("609", 0.9, weakest: 0.66)) == .illegible, "a number read with an unsure digit")
        #expect(judge.judge(Self.line("4.00pm", 0.99, weakest: 0.98)) == .legible("4.00pm"))
        #expect(judge.sureCharacter == 0.6 && judge.sureName == 0.95, "the gates chosen on PP-OCRv6's curve (Docs/Vision.md)")
    }

    @Test("each word is held to its own standard: list words to sureCharacter, a number or a name beside them to sureName")
    func perWordThresholds() {
        // "Easy Share photo printer 500": the unsure 0.6 is in "photo", a list word; the digits are sure.
        var probabilities = [Float](repeating: 0.97, count: 28)
        probabilities[12] = 0.6
        let line = TextLine(text: "Easy Share photo printer 500", confidence: 0.95, weakestCharacter: 0.6, characterProbabilities: probabilities,
                            x: 0, y: 0, width: 0.5, height: 0.1)
        #expect(Self.judge.judge(line) == .legible("Easy Share photo printer 500"))
        // The same unsure character in the number: a misread digit reads like a digit.
        var unsureNumber = line
        unsureNumber.characterProbabilities = probabilities.indices.map { $0 == 26 ? 0.6 : 0.97 }
        #expect(Self.judge.judge(unsureNumber) == .partlyLegible("Easy Share photo printer 500"))
        // Without a probability for each character, the line's least sure one stands for every word's.
        #expect(Self.judge.judge(Self.line("Easy Share photo printer 500", 0.95, weakest: 0.6)) == .partlyLegible("Easy Share photo printer 500"))
        #expect(TextLegibility.words(of: line).map(\.weakest) == [0.97, 0.97, 0.6, 0.97, 0.97])
    }

    @Test("numbers, prices, times, dates, quantities and codes read as text", arguments: ["4.00pm", "$12.99", "500ml", "1999", "2019-07-14", "100%", "3rd", "MP3", "4K60", "RX-100", "Copies=17c"])
    func numbersAndCodes(text: String) {
        #expect(Self.judge.judge(Self.line(text)) == .legible(text))
    }

    @Test("words run together are split with the list, into words of four letters or short common ones only")
    func runTogether() {
        #expect(Self.judge.judge(Self.line("Region-basedsegmentation")) == .legible("Region-based segmentation"))
        #expect(Self.judge.judge(Self.line("ofgreyvalues")) == .legible("of grey values"))
        #expect(Self.words.split("photocoples") == nil, "not 'photo cop les'")
        #expect(Self.words.split("photocopies") == nil, "a word itself is not split")
        #expect(Self.words.split("greyvalues") == ["grey", "values"])
        #expect(Self.judge.judge(Self.line("tuinvitacion")) == .legible("tu invitacion"), "the other languages' short words split too")
    }

    @Test("partly legible: most words checked and a fair mean, but not sure enough to quote; too short is nothing")
    func partlyLegible() {
        #expect(Self.judge.judge(Self.line("Easy Share photo printer 5O0", 0.9, weakest: 0.6)) == .partlyLegible("Easy Share photo printer 5O0"))
        #expect(Self.judge.judge(Self.line("xq")) == .illegible)
        #expect(Self.judge.judge(Self.line("houto", 0.9, weakest: 0.5)) == .illegible)
    }

    @Test("another script is judged by its characters alone")
    func otherScript() {
        #expect(Self.judge.judge(Self.line("焼き物です", 0.95, weakest: 0.93)) == .legible("焼き物です"))
        #expect(Self.judge.judge(Self.line("码·碗物", 0.62, weakest: 0.13)) == .illegible)
    }

    @Test("the installed word lists (Debian's wamerican and the others install-deps.sh installs) load, folded, with possessives")
    func installedLists() throws {
        let list = WordList.installed
        try #require(!list.isEmpty, "no word list in /usr/share/dict: run scripts/install-deps.sh")
        #expect(list.count > 100_000)
        for word in ["segmentation", "Kodak", "KODAK", "Remington", "grey", "gray", "values"] { #expect(list.contains(word), "\(word)") }
        #expect(!list.contains("houto") && !list.contains("Stewant") && !list.contains("BUDWEISD"))
    }

    @Test("words fold byte by byte as Foundation folds them: ASCII and Latin-1's letters, the rest through Foundation")
    func latinFolding() throws {
        let scalars = Array(0x41...0x5A) + Array(0x61...0x7A) + Array(0xC0...0xFF)
        for value in scalars {
            let letter = String(Character(try #require(Unicode.Scalar(value))))
            #expect(WordList.fold(letter) == letter.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil), "U+\(String(value, radix: 16))")
        }
        var folded: [UInt8] = []
        #expect(WordList.foldLatin("ZÜRICH".utf8, into: &folded) && folded == Array("zurich".utf8))
        #expect(WordList.foldLatin("Niño".utf8, into: &folded) && folded == Array("nino".utf8))
        for word in ["Straße", "œuvre", "Ωmega", "ĉapelo", "焼き物"] { #expect(!WordList.foldLatin(word.utf8, into: &folded), "\(word)") }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("memora-words-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("Zürich\r\nStraße\ncafé's\n\nÉCOLE\n".utf8).write(to: folder.appendingPathComponent("words"))
        let list = try WordList(files: [folder.path + "/words"])
        for word in ["ZURICH", "zürich", "Straße", "café's", "cafe", "école", "Ecole"] { #expect(list.contains(word), "\(word)") }
        #expect(!list.contains("zurichs") && !list.contains("caf"))
    }

    @Test("the installed lists are read once each: a path that links to another list is passed over, as is a dictionary without its rules")
    func readableLists() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("memora-words-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let list = folder.path + "/american-english", link = folder.path + "/words", dictionary = folder.path + "/xx_XX.dic"
        try Data("grey\n".utf8).write(to: URL(fileURLWithPath: list))
        try Data("1\ngrey\n".utf8).write(to: URL(fileURLWithPath: dictionary))
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: list)
        #expect(WordList.readable([list, link, folder.path + "/missing", dictionary]) == [list])
        #expect(WordList.readable([link, list]) == [link])
    }

    @Test("a word list that cannot be read is a typed error naming it")
    func unreadableList() {
        #expect { try WordList(files: ["/nonexistent/words"]) } throws: { ($0 as? VisionError)?.message.contains("/nonexistent/words") == true }
    }
}

/// Saying where a photo was taken from the scene model's place classes.
@Suite("Places from the scene model")
struct ScenePlacesTests {
    @Test("a place is said when its classes hold enough of the top labels together, and not when it is the subject itself")
    func places() {
        // seashore 0.2 + sandbar 0.15: "by the sea" at 0.35.
        #expect(ScenePlaces.place(of: [(208, 0.5), (978, 0.2), (977, 0.15)])?.phrase == "by the sea")
        #expect(ScenePlaces.place(of: [(208, 0.7), (978, 0.2)]) == nil, "below the measured minimum")
        #expect(ScenePlaces.place(of: [(454, 0.6)])?.phrase == "in a bookshop")
        let beach = SceneSubject(noun: "beach", probability: 0.8)
        #expect(ScenePlaces.place(of: [(978, 0.5), (977, 0.3)], subject: beach) == nil, "a beach is not 'a beach by the sea'")
        #expect(ScenePlaces.place(of: [(978, 0.5), (975, 0.4)], subject: beach)?.phrase == "by a lake")
    }
}
