import ImageKit
import Testing

@Suite("JPEG decoding and encoding")
struct JPEGCodecTests {
    @Test("a baseline JPEG decodes to the colours that were encoded")
    func baselineRoundTrip() throws {
        let original = try Fixtures.quadrants(width: 128, height: 96)
        let jpeg = try ImageEncoder.encode(original, as: .jpeg(JPEGEncodingOptions(quality: 0.95)))
        let decoded = try ImageDecoder.decode(jpeg, source: "quadrants.jpg")
        #expect(decoded.width == 128 && decoded.height == 96 && decoded.pixelFormat == .rgb8)
        for probe in Fixtures.quadrantProbes(width: 128, height: 96) {
            expectClose(decoded.pixel(x: probe.x, y: probe.y), probe.color, tolerance: 6)
        }
        let info = try ImageDecoder.info(of: jpeg)
        #expect(info.format == .jpeg && !info.isProgressive && !info.isCMYK && !info.isGrayscale)
    }

    @Test("a progressive JPEG is recognised and decodes like a baseline one")
    func progressive() throws {
        let original = try Fixtures.quadrants(width: 128, height: 96)
        let jpeg = try ImageEncoder.encode(original, as: .jpeg(JPEGEncodingOptions(quality: 0.95, progressive: true)))
        #expect(Fixtures.jpegMarkers(jpeg).contains(0xC2))
        #expect(try ImageDecoder.info(of: jpeg).isProgressive)
        let decoded = try ImageDecoder.decode(jpeg)
        for probe in Fixtures.quadrantProbes(width: 128, height: 96) {
            expectClose(decoded.pixel(x: probe.x, y: probe.y), probe.color, tolerance: 6)
        }
    }

    @Test("a grayscale JPEG decodes to RGB with equal channels at the right luminance")
    func grayscale() throws {
        let original = try Fixtures.quadrants(width: 64, height: 64)
        let jpeg = try ImageEncoder.encode(original, as: .jpeg(JPEGEncodingOptions(quality: 0.95, colorModel: .grayscale)))
        #expect(try ImageDecoder.info(of: jpeg).isGrayscale)
        let decoded = try ImageDecoder.decode(jpeg)
        for probe in Fixtures.quadrantProbes(width: 64, height: 64) {
            let pixel = decoded.pixel(x: probe.x, y: probe.y)
            #expect(pixel.red == pixel.green && pixel.green == pixel.blue)
            // ITU-R BT.601 luma, what libjpeg uses.
            let luma = 0.299 * Double(probe.color.red) + 0.587 * Double(probe.color.green) + 0.114 * Double(probe.color.blue)
            #expect(abs(Double(pixel.red) - luma) <= 4, "luma \(pixel.red) vs \(luma)")
        }
    }

    @Test("an Adobe CMYK JPEG decodes to the right RGB colours")
    func cmyk() throws {
        let original = try Fixtures.quadrants(width: 64, height: 64)
        let jpeg = try ImageEncoder.encode(original, as: .jpeg(JPEGEncodingOptions(quality: 0.95, colorModel: .cmyk)))
        #expect(Fixtures.jpegMarkers(jpeg).contains(0xEE), "libjpeg writes an Adobe APP14 marker for CMYK")
        let info = try ImageDecoder.info(of: jpeg)
        #expect(info.isCMYK)
        let decoded = try ImageDecoder.decode(jpeg)
        #expect(decoded.pixelFormat == .rgb8)
        for probe in Fixtures.quadrantProbes(width: 64, height: 64) {
            expectClose(decoded.pixel(x: probe.x, y: probe.y), probe.color, tolerance: 8)
        }
    }

    @Test("DCT scaling decodes straight to 1/2, 1/4 and 1/8 size, rounding up", arguments: JPEGScale.allCases)
    func scaledDecode(scale: JPEGScale) throws {
        let original = try Fixtures.quadrants(width: 203, height: 101)
        let jpeg = try ImageEncoder.encode(original, as: .jpeg(JPEGEncodingOptions(quality: 0.95)))
        let decoded = try ImageDecoder.decode(jpeg, scale: scale)
        let expectedWidth = (203 + scale.rawValue - 1) / scale.rawValue
        let expectedHeight = (101 + scale.rawValue - 1) / scale.rawValue
        #expect(decoded.width == expectedWidth && decoded.height == expectedHeight)
        for probe in Fixtures.quadrantProbes(width: decoded.width, height: decoded.height) {
            expectClose(decoded.pixel(x: probe.x, y: probe.y), probe.color, tolerance: 12)
        }
    }

    @Test("the scale for a thumbnail is the smallest that still covers it")
    func scaleChoice() {
        #expect(JPEGScale.fitting(width: 4000, height: 3000, longSide: 384) == .eighth)  // 500 >= 384
        #expect(JPEGScale.fitting(width: 3000, height: 4000, longSide: 600) == .quarter)  // 500 < 600 <= 1000
        #expect(JPEGScale.fitting(width: 1000, height: 800, longSide: 600) == .full)  // 500 < 600
        #expect(JPEGScale.fitting(width: 100, height: 100, longSide: 13) == .eighth)  // ceil(100/8) = 13
    }

    @Test("a thumbnail of a large JPEG has the requested long side and the right colours")
    func thumbnail() throws {
        let original = try Fixtures.quadrants(width: 1600, height: 1200)
        let jpeg = try ImageEncoder.encode(original, as: .jpeg(JPEGEncodingOptions(quality: 0.9)))
        let thumbnail = try ImageDecoder.thumbnail(jpeg, maxPixelSize: 160)
        #expect(thumbnail.width == 160 && thumbnail.height == 120)
        for probe in Fixtures.quadrantProbes(width: 160, height: 120) {
            expectClose(thumbnail.pixel(x: probe.x, y: probe.y), probe.color, tolerance: 10)
        }
        // A thumbnail never enlarges.
        let small = try ImageDecoder.thumbnail(jpeg, maxPixelSize: 5000)
        #expect(small.width == 1600 && small.height == 1200)
    }

    @Test("the encoder writes no metadata: only JFIF, tables, frame and scan markers")
    func noMetadata() throws {
        let jpeg = try ImageEncoder.encode(try Fixtures.quadrants(), as: .jpeg())
        let markers = Fixtures.jpegMarkers(jpeg)
        let metadataMarkers = markers.filter { (0xE1...0xEF).contains($0) || $0 == 0xFE }
        #expect(metadataMarkers.isEmpty, "unexpected APPn/COM markers \(metadataMarkers)")
        #expect(markers.first == 0xE0)  // JFIF APP0 only
    }

    @Test("a higher quality gives a bigger file, and out-of-range qualities are clamped")
    func quality() throws {
        let photo = try SyntheticPhoto.landscape(width: 256, height: 192, seed: 3)
        let low = try ImageEncoder.encode(photo, as: .jpeg(JPEGEncodingOptions(quality: 0.2)))
        let high = try ImageEncoder.encode(photo, as: .jpeg(JPEGEncodingOptions(quality: 0.95)))
        #expect(low.count < high.count)
        let clampedLow = try ImageEncoder.encode(photo, as: .jpeg(JPEGEncodingOptions(quality: -3)))
        let minimum = try ImageEncoder.encode(photo, as: .jpeg(JPEGEncodingOptions(quality: 0)))
        #expect(clampedLow == minimum)
    }

    @Test("an RGBA image is composited onto the background colour when saved as JPEG")
    func alphaToJPEG() throws {
        let transparent = try Image(width: 32, height: 32, pixelFormat: .rgba8, fill: RGBAColor(red: 255, green: 0, blue: 0, alpha: 0))
        let jpeg = try ImageEncoder.encode(transparent, as: .jpeg(JPEGEncodingOptions(quality: 0.95, background: RGBAColor(red: 0, green: 0, blue: 255))))
        expectClose(try ImageDecoder.decode(jpeg).pixel(x: 16, y: 16), RGBAColor(red: 0, green: 0, blue: 255), tolerance: 4)
    }
}
