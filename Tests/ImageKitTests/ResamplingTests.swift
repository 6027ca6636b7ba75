import ImageKit
import Testing

@Suite("Resampling and cropping")
struct ResamplingTests {
    @Test("a filled image holds exactly its colour in every pixel: one byte repeated, or a pattern copied", arguments: [
        (PixelFormat.rgb8, RGBAColor.white), (.rgb8, RGBAColor(red: 12, green: 200, blue: 99)),
        (.rgba8, RGBAColor(red: 1, green: 2, blue: 3, alpha: 4)), (.rgba8, RGBAColor(red: 0, green: 0, blue: 0, alpha: 0)),
    ])
    func filled(format: PixelFormat, color: RGBAColor) throws {
        let expected = format == .rgba8 ? [color.red, color.green, color.blue, color.alpha] : [color.red, color.green, color.blue]
        for (width, height) in [(1, 1), (7, 5), (33, 17), (1200, 1500)] {
            let image = try Image(width: width, height: height, pixelFormat: format, fill: color)
            #expect(image.pixels.count == width * height * expected.count)
            #expect(image.pixels.indices.allSatisfy { image.pixels[$0] == expected[$0 % expected.count] }, "\(width)x\(height)")
        }
        #expect(throws: ImageError.self) { try Image(width: 0, height: 5, pixelFormat: format, fill: color) }
        #expect(throws: ImageError.self) { try Image(width: Int.max / 2, height: 3, pixelFormat: format, fill: color) }
        #expect(throws: ImageError.self) { try Image(width: Int.max / 2, height: 3, pixelFormat: format, pixels: []) }
    }

    @Test("a flat colour stays exactly that colour with every filter, shrinking or growing", arguments: ResamplingFilter.allCases)
    func flatColour(filter: ResamplingFilter) throws {
        let color = RGBAColor(red: 12, green: 200, blue: 99)
        let image = try Image(width: 37, height: 23, fill: color)
        for (width, height) in [(5, 3), (18, 11), (36, 22), (80, 51)] {
            let resized = try image.resized(width: width, height: height, filter: filter)
            #expect(resized.width == width && resized.height == height)
            #expect(Set(stride(from: 0, to: resized.pixels.count, by: 3).map { resized.pixels[$0] }) == [12])
            #expect(Set(stride(from: 1, to: resized.pixels.count, by: 3).map { resized.pixels[$0] }) == [200])
        }
    }

    @Test("area averaging a 1-pixel checkerboard by 2 gives mid-grey everywhere")
    func areaAverage() throws {
        let pixels: [UInt8] = (0..<(64 * 64)).flatMap { index -> [UInt8] in
            let value: UInt8 = (index % 64 + index / 64) % 2 == 0 ? 0 : 255
            return [value, value, value]
        }
        let board = try Image(width: 64, height: 64, pixelFormat: .rgb8, pixels: pixels)
        let half = try board.resized(width: 32, height: 32, filter: .area)
        #expect(Set(half.pixels).isSubset(of: [127, 128]))
        let automatic = try board.resized(width: 16, height: 16)
        #expect(Set(automatic.pixels).isSubset(of: [127, 128]), "automatic uses area averaging for large reductions")
    }

    @Test("Lanczos keeps an edge sharper than area averaging when shrinking slightly")
    func lanczosSharpness() throws {
        let edge = try Image(width: 100, height: 10, pixelFormat: .rgb8, pixels: (0..<1000).flatMap { index -> [UInt8] in
            let value: UInt8 = index % 100 < 50 ? 0 : 255
            return [value, value, value]
        })
        let lanczos = try edge.resized(width: 77, height: 10, filter: .lanczos3)
        let bicubic = try edge.resized(width: 77, height: 10, filter: .bicubic)
        let area = try edge.resized(width: 77, height: 10, filter: .area)
        func transitionWidth(_ image: Image) -> Int {
            (0..<image.width).filter { (20...235).contains(image.pixel(x: $0, y: 5).red) }.count
        }
        #expect(transitionWidth(lanczos) <= transitionWidth(area) + 1)
        #expect(transitionWidth(bicubic) <= 3)
        // The dark and bright sides keep their values away from the edge.
        #expect(lanczos.pixel(x: 5, y: 5).red == 0 && lanczos.pixel(x: 70, y: 5).red == 255)
    }

    @Test("transparent pixels do not bleed their hidden colour (premultiplied alpha)")
    func premultipliedAlpha() throws {
        // Left half: fully transparent red; right half: opaque blue.
        let pixels: [UInt8] = (0..<(8 * 8)).flatMap { index -> [UInt8] in
            index % 8 < 4 ? [255, 0, 0, 0] : [0, 0, 255, 255]
        }
        let image = try Image(width: 8, height: 8, pixelFormat: .rgba8, pixels: pixels)
        let small = try image.resized(width: 3, height: 3, filter: .lanczos3)
        for x in 0..<3 {
            let pixel = small.pixel(x: x, y: 1)
            if pixel.alpha > 0 { #expect(pixel.red <= 2, "red leaked into \(pixel)") }
        }
        #expect(small.pixel(x: 2, y: 1).alpha > 200)
    }

    @Test("fitting a long side keeps the aspect ratio and never enlarges")
    func fitLongSide() throws {
        let image = try Image(width: 400, height: 100, fill: .white)
        let fitted = try image.resized(fittingLongSide: 100)
        #expect(fitted.width == 100 && fitted.height == 25)
        #expect(try image.resized(fittingLongSide: 1000) == image)
        #expect(throws: ImageError.self) { try image.resized(fittingLongSide: 0) }
        #expect(throws: ImageError.self) { try image.resized(width: 0, height: 10) }
    }

    @Test("a crop returns exactly the pixels inside the rectangle")
    func crop() throws {
        let image = try Fixtures.quadrants(width: 40, height: 20)
        let blue = try image.cropped(to: PixelRect(x: 0, y: 10, width: 20, height: 10))
        #expect(blue == (try Image(width: 20, height: 10, fill: Fixtures.quadrantColors[2])))
        #expect(throws: ImageError.self) { try image.cropped(to: PixelRect(x: 30, y: 0, width: 20, height: 5)) }
        #expect(throws: ImageError.self) { try image.cropped(to: PixelRect(x: -1, y: 0, width: 5, height: 5)) }
        #expect(throws: ImageError.self) { try image.cropped(to: PixelRect(x: 0, y: 0, width: 0, height: 5)) }
    }

    @Test("a centred crop has the requested aspect ratio")
    func centeredCrop() {
        #expect(PixelRect.centered(aspectRatio: 1, inWidth: 400, height: 300) == PixelRect(x: 50, y: 0, width: 300, height: 300))
        #expect(PixelRect.centered(aspectRatio: 6.0 / 5.0, inWidth: 300, height: 400) == PixelRect(x: 0, y: 75, width: 300, height: 250))
    }
}

@Suite("Canvas compositing")
struct CanvasTests {
    @Test("grid cells tile the canvas with the given padding and spacing")
    func grid() throws {
        let cells = try Canvas.gridCells(width: 1200, height: 1500, columns: 2, rows: 3, spacing: 20, padding: 30)
        #expect(cells.count == 6)
        #expect(cells[0] == PixelRect(x: 30, y: 30, width: 560, height: 466))
        #expect(cells[1].x == 30 + 560 + 20)
        #expect(cells[5].x + cells[5].width == 1170 && cells[5].y + cells[5].height == 1470)
        #expect(throws: ImageError.self) { try Canvas.gridCells(width: 10, height: 10, columns: 5, rows: 5, spacing: 5) }
    }

    @Test("rounded corners leave the background in the corner, the picture inside, and a blend on the edge")
    func roundedCorners() throws {
        var canvas = try Canvas(width: 100, height: 100, background: .white)
        let black = try Image(width: 80, height: 80, fill: .black)
        canvas.draw(black, x: 10, y: 10, cornerRadius: 20)
        #expect(canvas.image.pixel(x: 10, y: 10) == .white)  // the very corner is cut away
        #expect(canvas.image.pixel(x: 50, y: 50) == .black)
        #expect(canvas.image.pixel(x: 50, y: 10) == .black)  // a straight edge is not rounded
        // Where row 12 crosses the corner arc, pixels are anti-aliased greys.
        let row = (10..<30).map { canvas.image.pixel(x: $0, y: 12) }
        #expect(row.contains { $0.red > 10 && $0.red < 245 })
        #expect(row.first == .white && row.last == .black)
        #expect(canvas.image.pixel(x: 5, y: 5) == .white)
    }

    @Test("drawing blends alpha and clips at the canvas edges")
    func blendAndClip() throws {
        var canvas = try Canvas(width: 10, height: 10, background: .white)
        let halfBlack = try Image(width: 20, height: 20, pixelFormat: .rgba8, fill: RGBAColor(red: 0, green: 0, blue: 0, alpha: 128))
        canvas.draw(halfBlack, x: 5, y: -5)
        expectClose(canvas.image.pixel(x: 7, y: 2), RGBAColor(red: 127, green: 127, blue: 127), tolerance: 1)
        #expect(canvas.image.pixel(x: 2, y: 2) == .white)
        canvas.draw(halfBlack, x: 50, y: 50)  // entirely outside: nothing happens, no crash
    }

    @Test("a transparent canvas composites with source-over")
    func transparentCanvas() throws {
        var canvas = try Canvas(width: 4, height: 4, background: .clear)
        #expect(canvas.image.pixelFormat == .rgba8)
        canvas.draw(try Image(width: 4, height: 4, pixelFormat: .rgba8, fill: RGBAColor(red: 255, green: 0, blue: 0, alpha: 128)), x: 0, y: 0)
        expectClose(canvas.image.pixel(x: 1, y: 1), RGBAColor(red: 255, green: 0, blue: 0, alpha: 128), tolerance: 1)
    }

    @Test("filling a cell crops the picture to the cell's aspect ratio")
    func fillCell() throws {
        var canvas = try Canvas(width: 60, height: 50, background: .white)
        // A 2:1 image: left half red, right half blue; the 1:1 cell keeps its middle.
        let pixels: [UInt8] = (0..<(40 * 20)).flatMap { index -> [UInt8] in index % 40 < 20 ? [255, 0, 0] : [0, 0, 255] }
        let picture = try Image(width: 40, height: 20, pixelFormat: .rgb8, pixels: pixels)
        try canvas.draw(picture, filling: PixelRect(x: 10, y: 10, width: 30, height: 30))
        expectClose(canvas.image.pixel(x: 12, y: 25), RGBAColor(red: 255, green: 0, blue: 0), tolerance: 3)
        expectClose(canvas.image.pixel(x: 37, y: 25), RGBAColor(red: 0, green: 0, blue: 255), tolerance: 3)
        #expect(canvas.image.pixel(x: 5, y: 5) == .white)
    }
}

@Suite("Canvas edge cases")
struct CanvasEdgeTests {
    @Test("a picture placed far off any side of the canvas draws nothing and does not crash")
    func farOutside() throws {
        var canvas = try Canvas(width: 20, height: 20, background: .white)
        let picture = try Image(width: 10, height: 10, fill: .black)
        for (x, y) in [(-500, 0), (0, -500), (500, 0), (0, 500), (-500, -500), (-10, 5), (20, 5)] {
            canvas.draw(picture, x: x, y: y, cornerRadius: 3)
        }
        #expect(Set(canvas.image.pixels) == [255])
    }
}
