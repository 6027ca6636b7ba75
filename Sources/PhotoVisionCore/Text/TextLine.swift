public import ImageKit

/// A line of text read from a photo's pixels: what it says, how sure the reader is, and where it is.
public struct TextLine: Sendable, Hashable, Codable {
    /// The text, as read (spaces between words only where the reader saw them).
    public var text: String
    /// The recogniser's confidence, 0...1: the mean probability of the characters it kept.
    public var confidence: Float
    /// The line's bounding box in normalised coordinates of the upright photo: left edge, 0...1.
    public var x: Double
    /// The box's top edge, 0...1.
    public var y: Double
    /// The box's width, 0...1.
    public var width: Double
    /// The box's height, 0...1.
    public var height: Double

    /// A line.
    public init(text: String, confidence: Float, x: Double, y: Double, width: Double, height: Double) {
        self.text = text
        self.confidence = confidence
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}

/// Something that reads the text in a photo. `PaddleTextReader` (PhotoVision) runs PaddleOCR's PP-OCRv4 models
/// with ONNX Runtime; an Apple front end may plug in Vision's text recogniser instead.
public protocol TextReading: Sendable {
    /// The lines of text in `image` (upright RGB or RGBA pixels of any size), in reading order:
    /// top to bottom, left to right.
    func readText(in image: Image) throws(VisionError) -> [TextLine]
}
