import Testing
import PhotoVisionCore
@testable import MemoraCore

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
}
