import ImageKit
import Testing

@Suite("PNG decoding and encoding")
struct PNGCodecTests {
    @Test("8-bit RGB and RGBA round-trip exactly")
    func truecolorRoundTrip() throws {
        for alpha in [nil, UInt8(128)] {
            let original = try Fixtures.quadrants(width: 33, height: 17, alpha: alpha)
            let png = try ImageEncoder.encode(original, as: .png())
            let decoded = try ImageDecoder.decode(png, source: "round-trip.png")
            #expect(decoded == original)
            #expect(try ImageDecoder.info(of: png).hasAlpha == (alpha != nil))
        }
    }

    @Test("a 16-bit PNG (linear light, with gAMA) decodes to the original 8-bit sRGB values")
    func sixteenBit() throws {
        let original = try SyntheticPhoto.landscape(width: 40, height: 30, seed: 5)
        let png = try ImageEncoder.encode(original, as: .png(PNGEncodingOptions(storage: .truecolor16)))
        // IHDR: 8-byte signature, 4 length, 4 type, 4 width, 4 height, then bit depth.
        #expect(png[24] == 16, "the file must really hold 16-bit samples")
        let decoded = try ImageDecoder.decode(png)
        #expect(decoded.width == 40 && decoded.height == 30 && decoded.pixelFormat == .rgb8)
        // libpng converts linear light back with a pure 2.2 power curve, not the
        // piecewise sRGB curve, so deep shadows may move by a few levels.
        let differences = zip(decoded.pixels, original.pixels).map { abs(Int($0) - Int($1)) }
        let worst = differences.max() ?? 0
        let mean = Double(differences.reduce(0, +)) / Double(differences.count)
        #expect(worst <= 7 && mean <= 1.5, "16-bit linear to 8-bit sRGB drifted: worst \(worst), mean \(mean)")
    }

    @Test("a palette PNG with transparency decodes to RGBA with the palette's colours")
    func palette() throws {
        var original = try Fixtures.quadrants(width: 20, height: 20, alpha: 255)
        // Make one quadrant half transparent: the palette then needs tRNS.
        var pixels = original.pixels
        for y in 0..<10 { for x in 0..<10 { pixels[(y * 20 + x) * 4 + 3] = 100 } }
        original = try Image(width: 20, height: 20, pixelFormat: .rgba8, pixels: pixels)
        let png = try ImageEncoder.encode(original, as: .png(PNGEncodingOptions(storage: .palette)))
        #expect(png[25] == 3, "colour type 3 (palette)")
        let decoded = try ImageDecoder.decode(png)
        #expect(decoded == original)
    }

    @Test("a palette PNG cannot hold more than 256 colours")
    func paletteOverflow() throws {
        let photo = try SyntheticPhoto.landscape(width: 64, height: 64)
        #expect(throws: ImageError.self) {
            try ImageEncoder.encode(photo, as: .png(PNGEncodingOptions(storage: .palette)))
        }
    }
}

@Suite("HEIC and AVIF through libheif")
struct HEIFCodecTests {
    @Test("this machine's libheif can encode HEVC and AV1 (the tests below depend on it)")
    func encodersPresent() {
        #expect(ImageEncoder.canEncodeHEIF(.hevc), "install libheif1 with its x265 plugin (Debian: libheif-dev)")
        #expect(ImageEncoder.canEncodeHEIF(.av1), "install libheif1 with its aom plugin (Debian: libheif-dev)")
    }

    @Test("HEIC and AVIF made by libheif decode to the encoded size and colours", arguments: HEIFEncodingOptions.Codec.allCases)
    func roundTrip(codec: HEIFEncodingOptions.Codec) throws {
        let original = try Fixtures.quadrants(width: 128, height: 96)
        let bytes = try ImageEncoder.encode(original, as: .heif(HEIFEncodingOptions(codec: codec, quality: 0.9)))
        let info = try ImageDecoder.info(of: bytes)
        #expect(info.format == (codec == .hevc ? .heic : .avif))
        #expect(info.width == 128 && info.height == 96)
        let decoded = try ImageDecoder.decode(bytes, source: "photo.\(codec == .hevc ? "heic" : "avif")")
        #expect(decoded.width == 128 && decoded.height == 96)
        for probe in Fixtures.quadrantProbes(width: 128, height: 96) {
            expectClose(decoded.pixel(x: probe.x, y: probe.y), probe.color, tolerance: 14)
        }
        // A thumbnail of a HEIF goes through full decode and resampling.
        let thumbnail = try ImageDecoder.thumbnail(bytes, maxPixelSize: 64)
        #expect(thumbnail.width == 64 && thumbnail.height == 48)
    }

    @Test("an AVIF with alpha decodes to RGBA")
    func alpha() throws {
        let original = try Fixtures.quadrants(width: 64, height: 64, alpha: 255)
        var pixels = original.pixels
        for index in stride(from: 3, to: pixels.count / 2, by: 4) { pixels[index] = 0 }  // top half transparent
        let image = try Image(width: 64, height: 64, pixelFormat: .rgba8, pixels: pixels)
        let bytes = try ImageEncoder.encode(image, as: .heif(HEIFEncodingOptions(codec: .av1, quality: 0.9)))
        let decoded = try ImageDecoder.decode(bytes)
        #expect(decoded.pixelFormat == .rgba8)
        #expect(decoded.pixel(x: 10, y: 10).alpha < 20)
        #expect(decoded.pixel(x: 10, y: 50).alpha > 235)
    }
}

@Suite("Format detection by content")
struct FormatDetectionTests {
    @Test("each format is recognised from its first bytes, whatever the name")
    func detection() throws {
        let image = try Fixtures.quadrants()
        #expect(ImageFormat.detect(try ImageEncoder.encode(image, as: .jpeg())) == .jpeg)
        #expect(ImageFormat.detect(try ImageEncoder.encode(image, as: .png())) == .png)
        #expect(ImageFormat.detect(try ImageEncoder.encode(image, as: .heif())) == .heic)
        #expect(ImageFormat.detect(try ImageEncoder.encode(image, as: .heif(HEIFEncodingOptions(codec: .av1)))) == .avif)
        #expect(ImageFormat.detect(Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8)) == .webp)
        #expect(ImageFormat.detect([0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0]) == .tiff)
        #expect(ImageFormat.detect(Array("GIF89a".utf8)) == .gif)
        #expect(ImageFormat.detect(Array("hello".utf8)) == nil)
        #expect(ImageFormat.detect([UInt8]()) == nil)
        // An MP4 video is ISO-BMFF too, but not an image.
        #expect(ImageFormat.detect([0, 0, 0, 0x18] + Array("ftypisom".utf8) + [0, 0, 2, 0] + Array("isomiso2".utf8)) == nil)
    }
}

@Suite("16-bit PNG with alpha")
struct SixteenBitAlphaTests {
    @Test("semi-transparent pixels keep their colour and alpha through a 16-bit PNG")
    func straightAlphaSurvives() throws {
        let color = RGBAColor(red: 200, green: 120, blue: 40, alpha: 100)
        let image = try Image(width: 8, height: 8, pixelFormat: .rgba8, fill: color)
        let png = try ImageEncoder.encode(image, as: .png(PNGEncodingOptions(storage: .truecolor16)))
        #expect(png[24] == 16)
        // A few levels of drift come from libpng's gamma-2.2 approximation (see above);
        // wrong premultiplication would be off by tens of levels.
        expectClose(try ImageDecoder.decode(png).pixel(x: 3, y: 3), color, tolerance: 5)
    }
}
