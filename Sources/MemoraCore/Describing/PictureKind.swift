internal import PhotoVisionCore

/// What kind of picture a photo is, when its pixels and the layout of its text show it: a page
/// of print, a handwritten page, or a black-and-white picture. The description says it plainly
/// ("A printed page. Text reads …", "A handwritten page.") instead of a subject the scene model is
/// not sure of; nil is a picture of no kind Memora recognises (most photos).
public enum PictureKind: String, Sendable, Hashable, Codable {
    /// Printed text on paper or a screen filling the picture, most of it legible.
    case printedPage
    /// Lines of writing on a light page, little of it legible to the text reader: handwriting.
    case handwrittenPage
    /// No colour at all.
    case blackAndWhite

    /// The kind's words, as the description's lead ("A printed page").
    public var words: String {
        switch self {
        case .printedPage: "a printed page"
        case .handwrittenPage: "a handwritten page"
        case .blackAndWhite: "a black-and-white picture"
        }
    }

    /// A page is light: at least this share of the picture is paper-white or light grey.
    static let minPaperShare = 0.5
    /// A page holds at least this many lines of text.
    static let minPageLines = 3
    /// The lines of a page span at least this share of its height.
    static let minPageSpan = 0.4
    /// A black-and-white picture has fewer coloured pixels than this share.
    static let maxColouredShare = 0.02

    /// The kind of a picture with `paperShare` of light, unsaturated pixels and `colouredShare` of
    /// coloured ones, whose text reader found `lines`, of which `legible` may be quoted.
    static func recognise(paperShare: Double, colouredShare: Double, lines: [TextLine], legible: Int) -> PictureKind? {
        if paperShare >= minPaperShare, lines.count >= minPageLines {
            let top = lines.map(\.y).min() ?? 0, bottom = lines.map { $0.y + $0.height }.max() ?? 0
            if bottom - top >= minPageSpan {
                if legible * 2 >= lines.count { return .printedPage }
                if legible * 4 < lines.count, colouredShare < 0.1 { return .handwrittenPage }
            }
        }
        return colouredShare < maxColouredShare ? .blackAndWhite : nil
    }
}
