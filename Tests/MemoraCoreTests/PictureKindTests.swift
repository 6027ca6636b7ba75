import Foundation
import ImageKit
import Testing
import PhotoVisionCore
@testable import MemoraCore
import TestSupport

/// What kind of picture a photo is, from its light, its colour and the layout of its text.
@Suite("The kind of picture")
struct PictureKindTests {
    static func lines(_ count: Int, from top: Double = 0.1, to bottom: Double = 0.8) -> [TextLine] {
        (0..<count).map { TextLine(text: "line \($0)", confidence: 0.9, x: 0.1, y: top + (bottom - top) * Double($0) / Double(max(1, count - 1)), width: 0.8, height: 0.04) }
    }

    @Test("a light page of lines is printed when most are legible, handwritten when few are; a colourless picture is black and white; a photo is none")
    func kinds() {
        #expect(PictureKind.recognise(paperShare: 0.7, colouredShare: 0.01, lines: Self.lines(6), legible: 5) == .printedPage)
        #expect(PictureKind.recognise(paperShare: 0.7, colouredShare: 0.01, lines: Self.lines(6), legible: 1) == .handwrittenPage)
        #expect(PictureKind.recognise(paperShare: 0.7, colouredShare: 0.3, lines: Self.lines(6), legible: 2) == nil, "in between: no kind said")
        #expect(PictureKind.recognise(paperShare: 0.2, colouredShare: 0.4, lines: Self.lines(6), legible: 6) == nil, "a dark, coloured poster is no page")
        #expect(PictureKind.recognise(paperShare: 0.7, colouredShare: 0.2, lines: Self.lines(6, from: 0.4, to: 0.5), legible: 6) == nil, "a label, not a page")
        #expect(PictureKind.recognise(paperShare: 0.3, colouredShare: 0.005, lines: [], legible: 0) == .blackAndWhite)
        #expect(PictureKind.recognise(paperShare: 0.3, colouredShare: 0.5, lines: [], legible: 0) == nil)
    }

    @Test("a screenshot is one when iOS's or macOS's user comment or a screenshot tool's file name says so, never from a name alone")
    func screenshotSigns() {
        #expect(PictureKind.isScreenshot(userComment: "Screenshot", fileName: "IMG_0001.PNG"))
        #expect(PictureKind.isScreenshot(userComment: " screenshot\n", fileName: "a.png"))
        for name in ["Screenshot_20240131-101010.png", "Screenshot_20240131-101010_Chrome.jpg", "Screenshot 2024-01-31 101010.png",
                     "Screenshot from 2024-01-31 10-10-10.png", "Screenshot From 2024-01-31 10-10-10.png", "Screenshot_20240131_101010.png",
                     "Screenshot 2024-01-31 at 10.10.10.png", "Screen Shot 2019-01-31 at 10.10.10.png"] {
            #expect(PictureKind.isScreenshot(userComment: nil, fileName: name), "\(name)")
        }
        for name in ["screenshot.png", "Screenshots of the trip.jpg", "my Screenshot 2024.png", "Screenshot ideas 2024.png", "IMG_2024.jpg"] {
            #expect(!PictureKind.isScreenshot(userComment: nil, fileName: name), "\(name)")
        }
        #expect(!PictureKind.isScreenshot(userComment: "Screenshot of the beach we liked", fileName: "IMG_0001.JPG"), "a person's comment")
        #expect(PictureKind.recognise(paperShare: 0.7, colouredShare: 0.01, lines: Self.lines(6), legible: 5, isScreenshot: true) == .screenshot,
                "a screenshot of a page is a screenshot")
    }

    @Test("a screenshot is said to be one, with what it shows and its text, and no setting")
    func screenshotDescription() throws {
        let legibility = TextLegibility(words: WordList(words: ["boarding", "pass", "gate"]))
        var facts = PhotoFacts(colors: ["white", "blue"], kind: .screenshot)
        facts.text = [TextLine(text: "Boarding pass", confidence: 0.98, x: 0.1, y: 0.1, width: 0.6, height: 0.08),
                      TextLine(text: "Gate 12", confidence: 0.97, x: 0.1, y: 0.3, width: 0.3, height: 0.06)]
        facts.setting = "in a library"
        let (caption, altText, extended) = DescriptionComposer.compose(facts, legibility: legibility)
        #expect(caption == "A screenshot. Text reads \"Boarding pass\" and \"Gate 12\".")
        #expect(altText == caption)
        #expect(extended == "Mostly white and blue.")
        facts = PhotoFacts(faceCount: 2, kind: .screenshot)
        #expect(DescriptionComposer.compose(facts, legibility: legibility).caption == "A screenshot of two people.")
        facts = PhotoFacts(subject: SceneSubject(noun: "web site", probability: 0.8), kind: .screenshot)
        #expect(DescriptionComposer.compose(facts, legibility: legibility).caption == "A screenshot of a web site.")
    }

    @Test("a real PNG named as a screenshot tool names it is described as a screenshot; the same picture under another name is not")
    func screenshotFile() throws {
        let folder = try temporaryFolder("picture-kind")
        let pixels = try ImageEncoder.encode(try SyntheticPhoto.landscape(width: 96, height: 64, seed: 3), as: .png())
        let shot = folder + "/Screenshot_20240131-101010.png", photo = folder + "/beach.png"
        try Data(pixels).write(to: URL(fileURLWithPath: shot))
        try Data(pixels).write(to: URL(fileURLWithPath: photo))
        let described = try PhotoFacts.describe(path: shot, vision: nil)
        #expect(described.facts.kind == .screenshot)
        #expect(described.caption.hasPrefix("A screenshot"), "\(described.caption)")
        #expect(try PhotoFacts.describe(path: photo, vision: nil).facts.kind != .screenshot)
    }
}
