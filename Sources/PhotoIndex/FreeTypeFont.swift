import CFreeType
import ImageKit

/// A font file opened through FreeType at one pixel size, drawing a line of text into an RGBA
/// image (coverage as alpha). The only file that imports `CFreeType`. Not shared between
/// tasks: each title opens its own.
final class FreeTypeFont {
    private let library: FT_Library
    private let face: FT_Face
    /// The font file.
    let path: String
    /// The size asked for, in pixels.
    let pixelSize: Int

    /// Opens the font at `path` at `pixelSize` pixels; a missing or unreadable font is an
    /// `invalidRequest` naming the Debian package that provides the default one.
    init(path: String, pixelSize: Int) throws(PhotoIndexError) {
        var library: FT_Library?
        guard FT_Init_FreeType(&library) == 0, let library else { throw .invalidRequest("FreeType could not be started") }
        var face: FT_Face?
        let opened = FT_New_Face(library, path, 0, &face)
        guard opened == 0, let face else {
            FT_Done_FreeType(library)
            throw .invalidRequest("\(path): the title's font cannot be opened (FreeType error \(opened)); "
                + "install it with `apt-get install fonts-dejavu-core`")
        }
        guard FT_Set_Pixel_Sizes(face, 0, FT_UInt(max(1, pixelSize))) == 0 else {
            FT_Done_Face(face)
            FT_Done_FreeType(library)
            throw .invalidRequest("\(path): the title's font has no \(pixelSize)-pixel size")
        }
        self.library = library
        self.face = face
        self.path = path
        self.pixelSize = pixelSize
    }

    deinit {
        FT_Done_Face(face)
        FT_Done_FreeType(library)
    }

    /// The line's height in pixels (ascender to descender).
    var lineHeight: Int {
        let metrics = face.pointee.size.pointee.metrics
        return Int((metrics.ascender - metrics.descender + 63) >> 6)
    }

    /// The width of `text` on one line, in pixels (advances and kerning).
    func width(of text: String) -> Int {
        var width = 0
        layout(text) { _, pen, _ in width = pen }
        return width
    }

    /// `text` drawn in `colour` on a transparent line ``lineHeight`` pixels high.
    func draw(_ text: String, colour: RGBAColor) throws(PhotoIndexError) -> Image {
        let width = max(1, self.width(of: text)), height = max(1, lineHeight)
        let ascender = Int(face.pointee.size.pointee.metrics.ascender >> 6)
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for index in stride(from: 0, to: pixels.count, by: 4) {
            (pixels[index], pixels[index + 1], pixels[index + 2]) = (colour.red, colour.green, colour.blue)
        }
        layout(text) { slot, _, origin in
            let bitmap = slot.pointee.bitmap
            guard let buffer = bitmap.buffer, bitmap.pixel_mode == UInt8(FT_PIXEL_MODE_GRAY.rawValue) else { return }
            let left = origin + Int(slot.pointee.bitmap_left), top = ascender - Int(slot.pointee.bitmap_top)
            for row in 0..<Int(bitmap.rows) {
                let y = top + row
                guard y >= 0 && y < height else { continue }
                for column in 0..<Int(bitmap.width) {
                    let x = left + column
                    guard x >= 0 && x < width else { continue }
                    let coverage = buffer[row * Int(bitmap.pitch) + column]
                    let alpha = (y * width + x) * 4 + 3
                    pixels[alpha] = max(pixels[alpha], coverage)
                }
            }
        }
        do {
            return try Image(width: width, height: height, pixelFormat: .rgba8, pixels: pixels)
        } catch {
            throw .invalidRequest("the title could not be drawn: \(error.reason)")
        }
    }

    /// Loads and renders each character of `text` in turn, calling `body` with the glyph slot, the pen
    /// position after it and the glyph's origin; glyphs the font lacks are drawn as its missing-glyph box.
    private func layout(_ text: String, _ body: (FT_GlyphSlot, Int, Int) -> Void) {
        var pen = 0
        var previous: FT_UInt = 0
        let kerning = memora_ft_has_kerning(face) != 0
        for scalar in text.unicodeScalars {
            let index = FT_Get_Char_Index(face, FT_ULong(scalar.value))
            if kerning && previous != 0 && index != 0 {
                var delta = FT_Vector()
                if FT_Get_Kerning(face, previous, index, FT_UInt(FT_KERNING_DEFAULT.rawValue), &delta) == 0 { pen += Int(delta.x >> 6) }
            }
            guard memora_ft_load_rendered_char(face, FT_ULong(scalar.value)) == 0, let slot = face.pointee.glyph else { continue }
            let origin = pen
            pen += Int((slot.pointee.advance.x + 32) >> 6)
            body(slot, pen, origin)
            previous = index
        }
    }
}
