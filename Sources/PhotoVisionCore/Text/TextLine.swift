public import ImageKit

/// A line of text read from a photo's pixels: what it says, how sure the reader is, and where it is.
public struct TextLine: Sendable, Hashable, Codable {
    /// The text, as read (spaces between words only where the reader saw them); empty for a line a
    /// reader saw but did not read (`PaddleTextReader`'s faint lines), whose confidence is 0.
    public var text: String
    /// The recogniser's confidence, 0...1: the mean probability of the characters it kept.
    public var confidence: Float
    /// The probability of the character the recogniser was least sure of, 0...1. A line read with a
    /// high mean can still hold one guessed letter ("Stewant"): this is what tells.
    public var weakestCharacter: Float
    /// Each character's probability, 0...1, one for each `Character` of ``text`` (a space the
    /// reader put in between words counts 1); empty when the reader gives no more than the line's
    /// figures. A line's names and its words are judged each on their own characters
    /// (`TextLegibility`).
    public var characterProbabilities: [Float]
    /// The line's bounding box in normalised coordinates of the upright photo: left edge, 0...1.
    public var x: Double
    /// The box's top edge, 0...1.
    public var y: Double
    /// The box's width, 0...1.
    public var width: Double
    /// The box's height, 0...1.
    public var height: Double

    /// The height of the line's letters, 0...1, as near as its box tells: the box's height, or its
    /// width for a line that runs down the picture (a box more than twice as tall as wide), such as
    /// a date imprinted upright or a book's spine. A long line standing upright is not taller print.
    public var letterHeight: Double { height > width * 2 ? width : height }

    /// A line (`weakestCharacter` nil: the mean `confidence`, for a reader that gives no more;
    /// `characterProbabilities` empty, or not one for each character: not known).
    public init(text: String, confidence: Float, weakestCharacter: Float? = nil, characterProbabilities: [Float] = [],
                x: Double, y: Double, width: Double, height: Double) {
        self.text = text
        self.confidence = confidence
        self.weakestCharacter = weakestCharacter ?? confidence
        self.characterProbabilities = characterProbabilities.count == text.count ? characterProbabilities : []
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    private enum CodingKeys: String, CodingKey { case text, confidence, weakestCharacter, characterProbabilities, x, y, width, height }

    /// A line as encoded; one stored before ``weakestCharacter`` existed takes its mean confidence,
    /// one stored before ``characterProbabilities`` none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        text = try container.decode(String.self, forKey: .text)
        confidence = try container.decode(Float.self, forKey: .confidence)
        weakestCharacter = try container.decodeIfPresent(Float.self, forKey: .weakestCharacter) ?? confidence
        let probabilities = try container.decodeIfPresent([Float].self, forKey: .characterProbabilities) ?? []
        characterProbabilities = probabilities.count == text.count ? probabilities : []
        x = try container.decode(Double.self, forKey: .x)
        y = try container.decode(Double.self, forKey: .y)
        width = try container.decode(Double.self, forKey: .width)
        height = try container.decode(Double.self, forKey: .height)
    }
}

/// Something that reads the text in a photo. `PaddleTextReader` (PhotoVision) runs PaddleOCR's PP-OCRv6 models
/// with ONNX Runtime; an Apple front end may plug in Vision's text recogniser instead.
public protocol TextReading: Sendable {
    /// The lines of text in `image` (upright RGB or RGBA pixels of any size), in reading order:
    /// top to bottom, left to right. A line with empty text was seen and not read.
    func readText(in image: Image) throws(VisionError) -> [TextLine]
}
