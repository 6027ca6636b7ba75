import Testing
@testable import ImageKit

/// `ImageDecoder.decode(_:region:width:height:)`: a JPEG decoded row by row into the
/// resampler against the same DCT-scaled decode done whole, turned upright, then resampled.
@Suite("Decoding a region at a size")
struct RegionDecodingTests {
    /// A smooth photo-like picture (gradients and shapes), so DCT rounding stays small.
    static func picture(width: Int, height: Int) throws -> Image {
        try SyntheticPhoto.landscape(width: width, height: height, seed: 5)
    }

    /// The largest difference between two images of the same size.
    static func worstDifference(_ a: Image, _ b: Image) -> Int {
        zip(a.pixels, b.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 0
    }

    @Test("every orientation: the stored pixels under the region, at the scale that covers the size, resampled and turned upright", arguments: ImageOrientation.allCases)
    func orientations(orientation: ImageOrientation) throws {
        let jpeg = Fixtures.jpeg(try ImageEncoder.encode(try Self.picture(width: 640, height: 480), as: .jpeg(JPEGEncodingOptions(quality: 0.95))),
                                 withOrientation: orientation.rawValue)
        let (pictureWidth, pictureHeight) = orientation.uprightSize(width: 640, height: 480)
        // Off-centre regions (so mirrored mappings would be caught), large and small.
        let regions = [PixelRect(x: 40, y: 24, width: pictureWidth - 120, height: pictureHeight - 64),
                       PixelRect(x: pictureWidth / 2, y: pictureHeight / 3, width: pictureWidth / 3, height: pictureHeight / 4)]
        for region in regions {
            for (width, height) in [(region.width / 3, region.height / 3), (region.width / 2 + 7, region.height / 5), (100, 80)] {
                let streamed = try ImageDecoder.decode(jpeg, region: region, width: width, height: height,
                                                       options: DecodingOptions(applyOrientation: true), fast: true)
                #expect(streamed.width == width && streamed.height == height && streamed.pixelFormat == .rgb8)
                // The reference: the same scale decoded whole as stored, the same rectangle resampled, turned upright.
                let stored = orientation.storedRect(ofUpright: region, storedWidth: 640, storedHeight: 480)
                let (storedWidth, storedHeight) = orientation.swapsDimensions ? (height, width) : (width, height)
                let scale = [JPEGScale.eighth, .quarter, .half].first { stored.width / $0.rawValue >= storedWidth && stored.height / $0.rawValue >= storedHeight } ?? .full
                let whole = try ImageDecoder.decode(jpeg, scale: scale, fast: true)
                let ratioX = Double(whole.width) / 640, ratioY = Double(whole.height) / 480
                let scaled = PixelRect(x: Int((Double(stored.x) * ratioX).rounded()), y: Int((Double(stored.y) * ratioY).rounded()),
                                       width: Int((Double(stored.width) * ratioX).rounded()), height: Int((Double(stored.height) * ratioY).rounded()))
                let reference = try whole.resized(from: scaled, width: storedWidth, height: storedHeight).applying(orientation)
                let worst = Self.worstDifference(streamed, reference)
                #expect(worst <= 2, "\(orientation) \(region) -> \(width)x\(height) at 1/\(scale.rawValue): off by \(worst)")
            }
        }
        // And the picture is upright: the quadrants of an upright region land where they belong.
        let quadrants = try Fixtures.quadrants(width: pictureWidth, height: pictureHeight)
        let turned = try ImageEncoder.encode(quadrants.applying(Self.inverse(of: orientation)), as: .jpeg(JPEGEncodingOptions(quality: 0.95)))
        let tile = try ImageDecoder.decode(Fixtures.jpeg(turned, withOrientation: orientation.rawValue), region: PixelRect(x: 0, y: 0, width: pictureWidth, height: pictureHeight),
                                           width: 120, height: 90, options: DecodingOptions(applyOrientation: true), fast: true)
        for probe in Fixtures.quadrantProbes(width: 120, height: 90) { expectClose(tile.pixel(x: probe.x, y: probe.y), probe.color, tolerance: 12) }
    }

    /// The orientation that undoes `orientation` (stored pixels that `orientation` turns into the given picture).
    static func inverse(of orientation: ImageOrientation) -> ImageOrientation {
        switch orientation {
        case .right: .left
        case .left: .right
        default: orientation
        }
    }

    @Test("progressive, grayscale, 4:2:2 and 4:4:4 JPEGs decode row by row like baseline 4:2:0 ones")
    func jpegKinds() throws {
        let picture = try Self.picture(width: 400, height: 300)
        let region = PixelRect(x: 37, y: 150, width: 300, height: 140)  // the lower half: rows skipped above
        for options in [JPEGEncodingOptions(progressive: true), JPEGEncodingOptions(colorModel: .grayscale),
                        JPEGEncodingOptions(chromaSubsampling: .half422), JPEGEncodingOptions(chromaSubsampling: .none444)] {
            let jpeg = try ImageEncoder.encode(picture, as: .jpeg(options))
            for fast in [true, false] {  // fast: plain upsampling; exact: libjpeg's smooth upsampling across the cut
                let streamed = try ImageDecoder.decode(jpeg, region: region, width: 150, height: 70, fast: fast)
                let whole = try ImageDecoder.decode(jpeg, scale: .half, fast: fast)
                let reference = try whole.resized(from: PixelRect(x: 19, y: 75, width: 150, height: 70), width: 150, height: 70)
                #expect(Self.worstDifference(streamed, reference) <= 2, "\(options) fast \(fast)")
            }
        }
    }

    @Test("the stored rectangle under an upright one: cropping there then turning upright is the upright crop", arguments: ImageOrientation.allCases)
    func storedRect(orientation: ImageOrientation) throws {
        let stored = try Fixtures.quadrants(width: 30, height: 20)
        let upright = stored.applying(orientation)
        let rect = PixelRect(x: 3, y: 2, width: upright.width / 2, height: upright.height / 3)
        let under = orientation.storedRect(ofUpright: rect, storedWidth: stored.width, storedHeight: stored.height)
        #expect(try stored.cropped(to: under).applying(orientation) == upright.cropped(to: rect))
    }

    @Test("PNG and CMYK JPEG are decoded whole, then resampled: the same pixels as doing it by hand")
    func wholeDecodeFormats() throws {
        let picture = try Self.picture(width: 200, height: 150)
        let region = PixelRect(x: 20, y: 10, width: 120, height: 100)
        for options in [EncodingFormat.png(), .jpeg(JPEGEncodingOptions(colorModel: .cmyk))] {
            let bytes = try ImageEncoder.encode(picture, as: options)
            let decoded = try ImageDecoder.decode(bytes, region: region, width: 60, height: 50)
            #expect(decoded == (try ImageDecoder.decode(bytes).resized(from: region, width: 60, height: 50)))
        }
    }

    @Test("a region outside the picture, an empty size, a cut or damaged JPEG: typed errors, no crash")
    func badInput() throws {
        let jpeg = try ImageEncoder.encode(try Self.picture(width: 320, height: 240), as: .jpeg())
        #expect(throws: ImageError.self) { try ImageDecoder.decode(jpeg, region: PixelRect(x: 300, y: 0, width: 40, height: 40), width: 10, height: 10) }
        #expect(throws: ImageError.self) { try ImageDecoder.decode(jpeg, region: PixelRect(x: 0, y: 0, width: 40, height: 40), width: 0, height: 10) }
        let region = PixelRect(x: 0, y: 100, width: 320, height: 140)
        do {
            _ = try ImageDecoder.decode(Array(jpeg.prefix(jpeg.count / 2)), source: "cut.jpg", region: region, width: 80, height: 35)
            Issue.record("a JPEG cut in half decoded without an error")
        } catch {
            guard error.code == .truncated else { Issue.record("expected .truncated, got \(error)"); return }
            #expect(error.path == "cut.jpg")
        }
        // Damaged entropy-coded data: an error or a picture, never a crash; the header still decides the size.
        var damaged = jpeg
        for index in stride(from: jpeg.count / 3, to: jpeg.count - 2, by: 97) { damaged[index] ^= 0x5A }
        if let picture = try? ImageDecoder.decode(damaged, region: region, width: 80, height: 35) {
            #expect(picture.width == 80 && picture.height == 35)
        }
        #expect(throws: ImageError.self) {
            try ImageDecoder.decode(jpeg, region: region, width: 80, height: 35, options: DecodingOptions(maxPixelCount: 1000))
        }
    }
}
