import Foundation
internal import PhotoVisionCore

/// What kind of picture a photo is, when its pixels and the layout of its text show it (a page
/// of print, a handwritten page, a black-and-white picture) or the device that made it says so (a
/// screenshot). The description says it plainly ("A printed page. Text in the photo reads …", "A
/// handwritten page.", "A screenshot. Text reads …") instead of a subject the scene model is not
/// sure of; nil is a picture of no kind Memora recognises (most photos).
public enum PictureKind: String, Sendable, Hashable, Codable {
    /// A picture of a screen taken by the device itself, as its metadata or its file name says.
    case screenshot
    /// Printed text on paper or a screen filling the picture, most of it legible.
    case printedPage
    /// Lines of writing on a light page, little of it legible to the text reader: handwriting.
    case handwrittenPage
    /// No colour at all.
    case blackAndWhite

    /// The kind's words, as the description's lead ("A printed page").
    public var words: String {
        switch self {
        case .screenshot: "a screenshot"
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
    /// coloured ones, whose text reader found `lines`, of which `legible` may be quoted;
    /// `isScreenshot` when its metadata or name says it is one (``isScreenshot(userComment:fileName:)``).
    static func recognise(paperShare: Double, colouredShare: Double, lines: [TextLine], legible: Int, isScreenshot: Bool = false) -> PictureKind? {
        if isScreenshot { return .screenshot }
        if paperShare >= minPaperShare, lines.count >= minPageLines {
            let top = lines.map(\.y).min() ?? 0, bottom = lines.map { $0.y + $0.height }.max() ?? 0
            if bottom - top >= minPageSpan {
                if legible * 2 >= lines.count { return .printedPage }
                if legible * 4 < lines.count, colouredShare < 0.1 { return .handwrittenPage }
            }
        }
        return colouredShare < maxColouredShare ? .blackAndWhite : nil
    }

    /// Whether a picture says it is a screenshot: the EXIF or XMP `UserComment` "Screenshot" that
    /// iOS and macOS write, or a file name as the screenshot tools name their files, "Screenshot" or
    /// "Screen Shot" and then the date ("Screenshot_20240131-101010.png" on Android and KDE,
    /// "Screenshot 2024-01-31 101010.png" on Windows, "Screenshot from 2024-01-31 10-10-10.png" on
    /// GNOME, "Screen Shot 2019-01-31 at 10.10.10.png" on older macOS). A file merely called
    /// "screenshot.png" is not taken for one: the date is what the tools add.
    public static func isScreenshot(userComment: String?, fileName: String) -> Bool {
        if let userComment, userComment.trimmingCharacters(in: .whitespacesAndNewlines).caseInsensitiveCompare("Screenshot") == .orderedSame {
            return true
        }
        return fileName.range(of: #"^(screenshot|screen shot)[ _-]*(from[ _-]+)?(19|20)\d\d"#, options: [.regularExpression, .caseInsensitive]) != nil
    }
}
