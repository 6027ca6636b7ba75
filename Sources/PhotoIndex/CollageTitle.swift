import Foundation
import ImageKit

/// A title line on a collage (the seed's text overlays: a date range, a person's name), drawn
/// with FreeType in DejaVu Sans Bold (Debian's `fonts-dejavu-core`) on a white, slightly
/// translucent rounded panel.
///
/// **It never covers a face.** The panel goes at the bottom of the canvas, else at the top,
/// else at the first height in between (8-pixel steps, centred, then at the left, then at the
/// right) where it overlaps no face box as drawn (``RenderedCollage/faces``, widened by 4
/// pixels). Why: a title over a face spoils the photo that the collage is about. When every
/// position would cover a face, the canvas grows by a white band at the bottom and the title
/// goes there: the collage is then taller than its layout, which ``RenderedCollage/image`` shows.
///
/// A long title is set smaller (down to half size), then cut with "…" to fit the width.
public struct CollageTitle: Sendable, Hashable {
    /// The text, one line.
    public var text: String
    /// The TrueType or OpenType font file.
    public var fontPath: String

    /// DejaVu Sans Bold, from Debian's `fonts-dejavu-core`.
    public static let defaultFontPath = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
    /// The text's colour.
    static let colour = RGBAColor(red: 34, green: 34, blue: 34)
    /// The panel behind the text: white at 88% opacity.
    static let panel = RGBAColor(red: 255, green: 255, blue: 255, alpha: 224)

    /// A title of `text` in the font at `fontPath`.
    public init(_ text: String, fontPath: String = CollageTitle.defaultFontPath) {
        self.text = text
        self.fontPath = fontPath
    }

    /// The text without surrounding spaces, once it is known to be one line of text and the font
    /// opens: what a collage checks before it reads any photo.
    func checked() throws(PhotoIndexError) -> String {
        let text = text.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { throw .invalidRequest("the title is empty") }
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalidRequest("a title is one line of text, without control characters")
        }
        _ = try FreeTypeFont(path: fontPath, pixelSize: 40)
        return text
    }

    /// Draws the title on `canvas` (at `scale`, 1 or 2) where it covers none of `faces`, growing the
    /// canvas when it must; returns the panel's rectangle.
    func draw(on canvas: inout Canvas, avoiding faces: [PixelRect], scale: Int) throws(PhotoIndexError) -> PixelRect {
        let text = try checked()
        let (width, height) = (canvas.image.width, canvas.image.height)
        let margin = 24 * scale, padding = 16 * scale, verticalPadding = 8 * scale
        let widest = width - 2 * margin - 2 * padding
        var size = 40 * scale
        var font = try FreeTypeFont(path: fontPath, pixelSize: size)
        while font.width(of: text) > widest && size > 20 * scale {
            size -= 4 * scale
            font = try FreeTypeFont(path: fontPath, pixelSize: size)
        }
        var shown = text
        while font.width(of: shown) > widest && shown.count > 1 {
            shown = String(shown.dropLast(2)).trimmingCharacters(in: .whitespaces) + "…"
        }
        let line = try font.draw(shown, colour: Self.colour)
        let panelWidth = line.width + 2 * padding, panelHeight = line.height + 2 * verticalPadding
        let widened = faces.map { PixelRect(x: $0.x - 4 * scale, y: $0.y - 4 * scale, width: $0.width + 8 * scale, height: $0.height + 8 * scale) }
        func free(_ rect: PixelRect) -> Bool {
            !widened.contains { $0.x < rect.x + rect.width && rect.x < $0.x + $0.width && $0.y < rect.y + rect.height && rect.y < $0.y + $0.height }
        }
        let bottom = height - margin - panelHeight
        let step = 8 * scale
        let heights = [bottom, margin] + Array(stride(from: bottom - step, to: margin, by: -step))
        let lefts = [(width - panelWidth) / 2, margin, width - margin - panelWidth]
        var place = heights.lazy.flatMap { y in lefts.lazy.map { x in PixelRect(x: x, y: y, width: panelWidth, height: panelHeight) } }.first(where: free)
        if place == nil {
            // Every position covers a face: a white band below the photos holds the title.
            do {
                var grown = try Canvas(width: width, height: height + panelHeight + margin, background: CollageRenderer.background)
                grown.draw(canvas.image, x: 0, y: 0)
                canvas = grown
            } catch {
                throw .invalidRequest("the title could not be drawn: \(error.reason)")
            }
            place = PixelRect(x: (width - panelWidth) / 2, y: height + margin / 2, width: panelWidth, height: panelHeight)
        }
        guard let place else { throw .invalidRequest("the title could not be placed") }
        do {
            canvas.draw(try Image(width: panelWidth, height: panelHeight, pixelFormat: .rgba8, fill: Self.panel), x: place.x, y: place.y,
                        cornerRadius: Double(8 * scale))
        } catch {
            throw .invalidRequest("the title could not be drawn: \(error.reason)")
        }
        canvas.draw(line, x: place.x + padding, y: place.y + verticalPadding)
        return place
    }
}
