import Foundation
import TestSupport
import ImageKit
import Testing
@testable import PhotoVision
@testable import PhotoVisionCore

/// Reading text with PP-OCRv6 on ONNX Runtime (the models and the demo photos installed by
/// `scripts/install-models.sh`), and the geometry and decoding it rests on.
@Suite("Text in photos (PP-OCRv6 on ONNX Runtime)")
struct TextReaderTests {
    static let models = VisionModels.installed

    @Test("a printed page: its lines read in order, with boxes inside the photo and confidences; the same photo the same result")
    func page() throws {
        let reader = try PaddleTextReader(models: Self.models)
        let page = try ImageDecoder.decode(contentsOf: Self.models.folder + "/photos/page.png")
        let lines = try reader.readText(in: page)
        let text = lines.map(\.text).joined(separator: " ")
        for word in ["segmentation", "markers", "background", "histogram"] { #expect(text.contains(word), "\(word) in \(text)") }
        #expect(lines.count >= 4)
        #expect(lines.map(\.y) == lines.map(\.y).sorted(), "top to bottom")
        for line in lines {
            #expect(line.x >= 0 && line.y >= 0 && line.x + line.width <= 1.0001 && line.y + line.height <= 1.0001 && line.width > 0 && line.height > 0)
            #expect(line.confidence >= reader.options.minConfidence && line.confidence <= 1)
        }
        #expect(try reader.readText(in: page) == lines, "deterministic")
    }

    @Test("text drawn upside down is turned by the direction classifier; a blank picture has no text; a missing model is a typed error")
    func orientationAndEmpty() throws {
        let reader = try PaddleTextReader(models: Self.models)
        let page = try ImageDecoder.decode(contentsOf: Self.models.folder + "/photos/page.png")
        let upright = try reader.readText(in: page).map(\.text)
        let turned = try reader.readText(in: page.applying(.down)).map(\.text)
        // Every line read on the page turned upside down is one of the upright page's lines (spaces
        // aside), read the right way up, not the garble an upside-down line gives.
        func squeezed(_ text: String) -> String { text.filter { !$0.isWhitespace } }
        #expect(turned.count >= 3 && turned.allSatisfy { line in upright.map(squeezed).contains(squeezed(line)) }, "upright \(upright), turned \(turned)")
        #expect(try reader.readText(in: try Image(width: 300, height: 200, fill: .white)).isEmpty)
        let empty = try temporaryModelsFolder()
        #expect { _ = try PaddleTextReader(models: VisionModels(folder: empty)) } throws: { ($0 as? VisionError)?.code == .modelMissing }
    }

    @Test("the smallest rotated rectangle around a tilted bar; corners ordered top-left, top-right, bottom-right, bottom-left")
    func rotatedBox() throws {
        // A 40 x 8 bar tilted by 30 degrees, as pixel centres.
        let angle = Double.pi / 6, u = SIMD2(cos(angle), sin(angle)), v = SIMD2(-sin(angle), cos(angle))
        var points: [SIMD2<Double>] = []
        for a in stride(from: 0.0, through: 40, by: 0.5) { for b in stride(from: 0.0, through: 8, by: 0.5) { points.append(SIMD2(50, 50) + u * a + v * b) } }
        let box = try #require(RotatedBox(enclosing: points))
        #expect(abs(max(box.length, box.breadth) - 40) < 0.01 && abs(box.shortSide - 8) < 0.01)
        let corners = box.orderedCorners
        #expect(corners[0].x < corners[1].x && corners[3].x < corners[2].x && corners[0].y < corners[3].y)
        #expect(abs(box.expanded(by: 2).shortSide - 12) < 0.01)
    }

    @Test("DB post-processing: two blobs on a probability map become two boxes in reading order; a faint blob is dropped")
    func regions() throws {
        let width = 200, height = 100
        var map = [Float](repeating: 0, count: width * height)
        func fill(_ xs: Range<Int>, _ ys: Range<Int>, _ value: Float) { for y in ys { for x in xs { map[y * width + x] = value } } }
        fill(120..<180, 20..<30, 0.9)  // right, upper
        fill(10..<80, 22..<32, 0.8)    // left, about the same line: read first
        fill(10..<80, 60..<70, 0.35)   // above the threshold but not sure enough on average
        let quads = TextRegionFinder().regions(in: map, width: width, height: height)
        #expect(quads.count == 2)
        #expect(quads.first.map { $0.corners[0].x < 60 } == true, "left box first")
        let bounds = try #require(quads.last?.bounds)
        #expect(bounds.minX < 120 && bounds.maxX > 180 && bounds.minY < 20 && bounds.maxY > 30, "pushed out (unclipped)")
        // Asked for faint regions too (a handwritten page's lines), the third blob is a box as well.
        let faint = TextRegionFinder().regions(in: map, width: width, height: height, boxThreshold: 0.3)
        #expect(faint.count == 3 && faint.last.map { $0.bounds.minY > 50 } == true, "\(faint.map(\.bounds))")
    }

    @Test("CTC: the best class each step, repeats merged, blanks dropped; the confidence the mean of the characters, each at its surest step, and the least sure character kept apart")
    func ctc() {
        let characters = ["", "a", "b", " "]
        // Steps: a a blank a b b blank -> "aab"; the b is held over two steps, 0.6 then 0.7.
        let best = [1, 1, 0, 1, 2, 2, 0]
        let sure: [Float] = [0.9, 0.95, 0.9, 0.8, 0.6, 0.7, 0.9]
        var probabilities: [Float] = []
        for (step, index) in best.enumerated() {
            var row = [Float](repeating: 0.05, count: 4)
            row[index] = sure[step]
            probabilities += row
        }
        let read = CTCDecoder.decode(probabilities, offset: 0, steps: best.count, characters: characters)
        #expect(read.text == "aab")
        #expect(abs(read.confidence - (0.95 + 0.8 + 0.7) / 3) < 1e-6)
        #expect(abs(read.weakest - 0.7) < 1e-6, "one unsure character shows though the mean is high")
        #expect(read.probabilities.count == 3 && zip(read.probabilities, [0.95, 0.8, 0.7] as [Float]).allSatisfy { abs($0 - $1) < 1e-6 },
                "each character keeps its own probability, a held one its surest step")
        let empty = CTCDecoder.decode([0.9, 0.1, 0, 0], offset: 0, steps: 1, characters: characters)
        #expect(empty.text == "" && empty.confidence == 0 && empty.weakest == 0)
        // The better of two readings is the one whose least sure character is surer.
        #expect(Reading(text: "Stewart", confidence: 0.9, weakest: 0.85).isBetter(than: Reading(text: "Stewant", confidence: 0.95, weakest: 0.4)))
        #expect(!Reading(text: "Stewant", confidence: 0.95, weakest: 0.4).isBetter(than: Reading(text: "Stewart", confidence: 0.9, weakest: 0.85)))
    }

    @Test("a reading respaced keeps each character's probability; a space put in counts 1, spaces trimmed at the ends go with theirs")
    func respaced() {
        var read = Reading(text: " printer500", confidence: 0.8, weakest: 0.3, probabilities: [0.2, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.95, 0.96, 0.97])
        read.respaced(WordSpacing.spaced(" printer500".trimmingSpaces))
        #expect(read.text == "printer 500")
        #expect(read.probabilities == [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 1, 0.95, 0.96, 0.97])
        var unknown = Reading(text: "ab", confidence: 0.8, weakest: 0.3)
        unknown.respaced("a b")
        #expect(unknown.text == "a b" && unknown.probabilities.isEmpty, "no probabilities are made up where none were known")
        let joined = PaddleTextReader.joiningWords([((minX: 0.0, minY: 0.0, maxX: 50.0, maxY: 20.0), Reading(text: "AB", confidence: 0.95, weakest: 0.9, probabilities: [0.9, 0.99])),
                                                    ((minX: 55.0, minY: 0.0, maxX: 100.0, maxY: 20.0), Reading(text: "C", confidence: 0.95, weakest: 0.95, probabilities: [0.95]))])
        #expect(joined.count == 1 && joined[0].read.text == "AB C" && joined[0].read.probabilities == [0.9, 0.99, 1, 0.95])
        let line = TextLine(text: "AB C", confidence: 0.9, characterProbabilities: [0.9, 0.99], x: 0, y: 0, width: 1, height: 1)
        #expect(line.characterProbabilities.isEmpty, "a TextLine refuses probabilities that are not one for each character")
    }

    @Test("boxes the detector split on one line of print are joined left to right; stacked lines, far words and other heights are not")
    func joiningWords() {
        func read(_ text: String, _ weakest: Float = 0.9) -> Reading { Reading(text: text, confidence: 0.95, weakest: weakest) }
        // "BECK" comes first in reading order (its top is higher), "HENRY" is to its left on the same line.
        let lines = [((minX: 285.0, minY: 115.0, maxX: 395.0, maxY: 150.0), read("BECK", 0.8)), ((minX: 140.0, minY: 105.0, maxX: 285.0, maxY: 145.0), read("HENRY")),
                     ((minX: 280.0, minY: 160.0, maxX: 405.0, maxY: 195.0), read("COLORADO")),   // the line below
                     ((minX: 460.0, minY: 110.0, maxX: 500.0, maxY: 150.0), read("ASPEN")),      // too far to the right
                     ((minX: 10.0, minY: 120.0, maxX: 40.0, maxY: 135.0), read("tiny")),         // another height
                     ((minX: 80.0, minY: 300.0, maxX: 130.0, maxY: 340.0), Reading(text: "SAO", confidence: 0.5, weakest: 0.2)),  // noise beside a word
                     ((minX: 135.0, minY: 300.0, maxX: 260.0, maxY: 340.0), read("ROLODEX"))]
        let joined = PaddleTextReader.joiningWords(lines)
        #expect(joined.map(\.read.text) == ["HENRY BECK", "COLORADO", "ASPEN", "tiny", "SAO", "ROLODEX"])
        #expect(joined[0].read.weakest == 0.8 && joined[0].bounds.minX == 140 && joined[0].bounds.maxX == 395)
    }

    @Test("a quad pushed out by a share of its thickness along its own sides")
    func expandedQuad() {
        let quad = TextQuad(corners: [SIMD2(10, 10), SIMD2(110, 10), SIMD2(110, 30), SIMD2(10, 30)])
        let wider = quad.expanded(by: 0.25)
        #expect(wider.corners == [SIMD2(5, 5), SIMD2(115, 5), SIMD2(115, 35), SIMD2(5, 35)])
    }

    private func temporaryModelsFolder() throws -> String {
        try temporaryFolder("memora-empty-models")
    }
}

/// Plain nouns for the scene model's classes, and the gate that names a subject.
@Suite("Spaces between read words")
struct WordSpacingTests {
    @Test("a space where the letters show a word's border or punctuation ends a word; brand spellings, short prefixes, model numbers, addresses, abbreviations and other scripts stay", arguments: [
        ("KodakEasyShare", "Kodak Easy Share"), ("BiothermCelluiLaser", "Biotherm Cellui Laser"), ("printer500", "printer 500"),
        ("EasySharephoto printer500", "Easy Sharephoto printer 500"), ("500ml", "500ml"), ("250grams", "250 grams"),
        ("iPod", "iPod"), ("McDonald", "McDonald"), ("eBay", "eBay"), ("MP3", "MP3"), ("A4", "A4"), ("4de mayo", "4de mayo"),
        ("POST OFFICE", "POST OFFICE"), ("焼き物Sashimi", "焼き物Sashimi"), ("4.00pm", "4.00pm"),
        ("background.These markers", "background. These markers"), ("background.Here,", "background. Here,"),
        ("Hello,world", "Hello, world"), ("Note:the end", "Note: the end"), ("www.example.com", "www.example.com"),
        ("e.g.", "e.g."), ("Node.js", "Node.js"), ("U.S.Army", "U.S.Army"), ("1,000,000", "1,000,000"), ("No.Seven", "No.Seven"),
    ])
    func spacing(read: String, spoken: String) {
        #expect(WordSpacing.spaced(read) == spoken)
    }
}

@Suite("Scene nouns")
struct SceneNounTests {
    @Test("1000 classes in the model's order: breeds become their animal, non-subjects are empty, articles follow sound")
    func table() throws {
        let labels = try String(contentsOfFile: VisionModels.installed.folder + "/scene/imagenet-labels.txt", encoding: .utf8)
            .split(separator: "\n").map(String.init)
        #expect(SceneNouns.table.count == 1000 && SceneNouns.groups.count == 1000 && SceneNouns.massNoun.count == 1000)
        func noun(_ label: String) -> String? { labels.firstIndex(of: label).flatMap(SceneNouns.noun(ofClass:)) }
        #expect(noun("sorrel") == "horse")
        #expect(noun("golden retriever") == "dog" && noun("basset") == "dog")
        #expect(noun("tabby") == "cat")
        #expect(noun("jack-o'-lantern") == "carved pumpkin")
        #expect(noun("Windsor tie") == "")
        #expect(noun("convertible") == "car" && noun("sports car") == "car")
        #expect(SceneSubject(noun: "owl", probability: 1).withArticle == "an owl")
        #expect(SceneSubject(noun: "hourglass", probability: 1).withArticle == "an hourglass")
        #expect(SceneSubject(noun: "unicycle", probability: 1).withArticle == "a unicycle")
        #expect(SceneSubject(noun: "hay", probability: 1, isMassNoun: true).withArticle == "hay")
    }

    @Test("classes that share a noun add up; below the measured gate nothing is named")
    func gate() throws {
        let dogs = SceneNouns.table.indices.filter { SceneNouns.table[$0] == "dog" }
        var probabilities = [Float](repeating: 0, count: 1000)
        for index in dogs.prefix(4) { probabilities[index] = 0.09 }  // four breeds at 9%: no breed is sure, a dog is
        probabilities[SceneNouns.table.firstIndex(of: "cat")!] = 0.2
        #expect(SceneNouns.subject(probabilities: probabilities)?.noun == "dog")
        #expect(abs((SceneNouns.subject(probabilities: probabilities)?.probability ?? 0) - 0.36) < 1e-5)
        probabilities = [Float](repeating: 0, count: 1000)
        probabilities[dogs[0]] = 0.11  // "basset 11%": not a dog photo
        #expect(SceneNouns.subject(probabilities: probabilities) == nil)
        probabilities[SceneNouns.table.firstIndex(of: "")!] = 0.9  // a non-subject class never wins
        #expect(SceneNouns.subject(probabilities: probabilities) == nil)
        #expect(SceneNouns.subject(probabilities: [0.5]) == nil)
        // Themes use the same gate: one breed at 11% makes no "dogs" theme.
        #expect(SceneAnalysis(features: [], labels: [.init(name: "basset", classIndex: dogs[0], probability: 0.11)]).theme == nil)
        #expect(SceneAnalysis(features: [], labels: [.init(name: "basset", classIndex: dogs[0], probability: 0.45)]).theme == "dogs")
    }

    @Test("real photos: the cat and the coffee are named; the astronaut portrait names no object")
    func photos() throws {
        let analyzer = try ONNXSceneAnalyzer(models: .installed)
        let folder = VisionModels.installed.folder
        #expect(try analyzer.analyze(ImageDecoder.decode(contentsOf: folder + "/photos/chelsea.png")).subject?.noun == "cat")
        #expect(try analyzer.analyze(ImageDecoder.decode(contentsOf: folder + "/photos/coffee.png")).subject?.noun == "coffee")
        #expect(try analyzer.analyze(ImageDecoder.decode(contentsOf: folder + "/fixtures/astronaut.png")).subject == nil)
    }
}
