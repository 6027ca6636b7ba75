import Testing
@testable import PhotoVisionCore

/// Which lines read from a photo are one sign's or label's block (``TextLayout``).
@Suite("Text layout: lines stacked as one block")
struct TextLayoutTests {
    static func line(_ text: String, x: Double, y: Double, width: Double, height: Double) -> TextLine {
        TextLine(text: text, confidence: 0.99, x: x, y: y, width: width, height: height)
    }

    @Test("centred and left-aligned lines under one another are one block, at most four lines")
    func stacked() {
        // Boxes as the reader gave them on the caption samples: a truck's door, a poster's invitation.
        let truck = [Self.line("TRUCK", x: 0.543, y: 0.242, width: 0.123, height: 0.030), Self.line("SCHOOL", x: 0.530, y: 0.270, width: 0.147, height: 0.032)]
        #expect(TextLayout.blocks(truck) == [[0, 1]])
        let poster = [Self.line("recogeaqui", x: 0.088, y: 0.347, width: 0.154, height: 0.037), Self.line("tuinvitacion", x: 0.086, y: 0.384, width: 0.162, height: 0.043)]
        #expect(TextLayout.blocks(poster) == [[0, 1]])
        let tall = (0..<6).map { Self.line("line \($0)", x: 0.1, y: 0.1 + Double($0) * 0.06, width: 0.3, height: 0.05) }
        #expect(TextLayout.blocks(tall) == [[0, 1, 2, 3], [4, 5]])
    }

    @Test("not a block: another style, another height, too far below, aligned only on the right, a box starting inside the one above, or a line between")
    func notStacked() {
        let upper = Self.line("HENRY BECK", x: 0.276, y: 0.215, width: 0.513, height: 0.080)
        // The jug: "COLORADO" starts inside "HENRY BECK"'s box and lines up only on the right ("ASPEN" was not read).
        #expect(TextLayout.blocks([upper, Self.line("COLORADO", x: 0.561, y: 0.257, width: 0.249, height: 0.070)]) == [[0], [1]])
        #expect(!TextLayout.isStacked(Self.line("SMALL", x: 0.276, y: 0.3, width: 0.2, height: 0.04), under: upper), "another height")
        #expect(!TextLayout.isStacked(Self.line("FAR", x: 0.276, y: 0.4, width: 0.5, height: 0.08), under: upper), "far below")
        #expect(!TextLayout.isStacked(Self.line("RIGHT", x: 0.589, y: 0.3, width: 0.2, height: 0.08), under: upper), "right edges only")
        #expect(TextLayout.isStacked(Self.line("UNDER", x: 0.3, y: 0.3, width: 0.4, height: 0.08), under: upper))
        #expect(!TextLayout.isStacked(Self.line("under", x: 0.3, y: 0.3, width: 0.4, height: 0.08), under: upper), "another style: lower case under capitals")
        #expect(!TextLayout.isStacked(Self.line("LET US FIRST DETERMINE MARKERS", x: 0.276, y: 0.3, width: 0.5, height: 0.08), under: upper),
                "a sentence: a page's lines are quoted one by one")
        // A paragraph whose second line's box overlaps the first too much: the third is not joined to the first past it.
        let paragraph = [Self.line("one", x: 0.5, y: 0.000, width: 0.2, height: 0.022), Self.line("two", x: 0.5, y: 0.012, width: 0.2, height: 0.022),
                         Self.line("three", x: 0.5, y: 0.026, width: 0.2, height: 0.022)]
        #expect(TextLayout.blocks(paragraph).first == [0])
    }
}
