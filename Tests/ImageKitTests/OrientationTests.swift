import ImageKit
import Testing

@Suite("EXIF orientation")
struct OrientationTests {
    /// A 3x2 image whose pixels are numbered 0...5 in the red channel:
    ///     0 1 2
    ///     3 4 5
    func numbered() throws -> Image {
        try Image(width: 3, height: 2, pixelFormat: .rgb8, pixels: (0..<6).flatMap { [UInt8($0), 0, 0] })
    }

    func numbers(_ image: Image) -> [[Int]] {
        (0..<image.height).map { y in (0..<image.width).map { x in Int(image.pixel(x: x, y: y).red) } }
    }

    @Test("each of the eight orientations turns the stored pixels upright as EXIF defines")
    func allEight() throws {
        // What a viewer shows for each tag value (the EXIF 2.32 specification, tag 0x0112).
        let expected: [ImageOrientation: [[Int]]] = [
            .up: [[0, 1, 2], [3, 4, 5]],
            .upMirrored: [[2, 1, 0], [5, 4, 3]],
            .down: [[5, 4, 3], [2, 1, 0]],
            .downMirrored: [[3, 4, 5], [0, 1, 2]],
            .leftMirrored: [[0, 3], [1, 4], [2, 5]],
            .right: [[3, 0], [4, 1], [5, 2]],
            .rightMirrored: [[5, 2], [4, 1], [3, 0]],
            .left: [[2, 5], [1, 4], [0, 3]],
        ]
        let image = try numbered()
        for orientation in ImageOrientation.allCases {
            let upright = image.applying(orientation)
            #expect(numbers(upright) == expected[orientation], "orientation \(orientation.rawValue)")
            #expect((upright.width, upright.height) == orientation.uprightSize(width: 3, height: 2))
        }
    }

    @Test("the decoder reads the EXIF orientation of a JPEG and applies it only when asked", arguments: ImageOrientation.allCases)
    func jpegOrientation(orientation: ImageOrientation) throws {
        let stored = try Fixtures.quadrants(width: 64, height: 32)
        let jpeg = Fixtures.jpeg(try ImageEncoder.encode(stored, as: .jpeg(JPEGEncodingOptions(quality: 0.95))), withOrientation: orientation.rawValue)
        let info = try ImageDecoder.info(of: jpeg)
        #expect(info.orientation == orientation)
        #expect((info.uprightWidth, info.uprightHeight) == orientation.uprightSize(width: 64, height: 32))

        let asStored = try ImageDecoder.decode(jpeg)
        #expect(asStored.width == 64 && asStored.height == 32)
        let upright = try ImageDecoder.decode(jpeg, options: DecodingOptions(applyOrientation: true))
        let expected = try ImageDecoder.decode(jpeg).applying(orientation)
        #expect(upright == expected)
    }

    @Test("a portrait phone photo (orientation 6) becomes a portrait thumbnail")
    func portraitThumbnail() throws {
        let jpeg = Fixtures.jpeg(try ImageEncoder.encode(try Fixtures.quadrants(width: 400, height: 300), as: .jpeg()), withOrientation: 6)
        let thumbnail = try ImageDecoder.thumbnail(jpeg, maxPixelSize: 100, options: DecodingOptions(applyOrientation: true))
        #expect(thumbnail.width == 75 && thumbnail.height == 100)
        // Stored top-left is red; after a quarter turn clockwise it sits at the top right.
        expectClose(thumbnail.pixel(x: 70, y: 5), Fixtures.quadrantColors[0], tolerance: 12)
    }

    @Test("malformed EXIF is ignored, not fatal")
    func malformedEXIF() throws {
        let jpeg = try ImageEncoder.encode(try Fixtures.quadrants(), as: .jpeg())
        var segment = Fixtures.exifOrientationSegment(6)
        segment[16] = 0xFF  // IFD0 offset now points far outside the block
        let damaged = Array(jpeg[0..<2]) + segment + Array(jpeg[2...])
        #expect(try ImageDecoder.info(of: damaged).orientation == .up)
        #expect(try ImageDecoder.decode(damaged, options: DecodingOptions(applyOrientation: true)).width == 64)
    }
}
