import Testing
@testable import ImageKit

@Suite("TIFF decoding")
struct TIFFCodecTests {
    /// A baseline TIFF (or BigTIFF) written by hand (little-endian, one strip, uncompressed):
    /// `image`'s pixels at 8 or 16 bits per sample (16-bit samples are the byte repeated),
    /// with unassociated alpha for RGBA, an orientation tag, and a DNGVersion tag when `dng`.
    static func tiff(_ image: Image, bits: Int = 8, orientation: Int = 1, dng: Bool = false, big: Bool = false) -> [UInt8] {
        let channels = image.pixelFormat.bytesPerPixel
        let samples: [UInt8] = bits == 8 ? image.pixels : image.pixels.flatMap { [$0, $0] }
        func short(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
        func long(_ value: Int) -> [UInt8] { short(value & 0xFFFF) + short(value >> 16) }
        func offset(_ value: Int) -> [UInt8] { big ? long(value) + long(0) : long(value) }  // 8 bytes in a BigTIFF
        let inline = big ? 8 : 4, entrySize = big ? 20 : 12, headerSize = big ? 16 : 8
        var entries: [(tag: Int, type: Int, count: Int, value: [UInt8])] = []  // value: inline or out of line
        entries.append((256, 4, 1, long(image.width)))
        entries.append((257, 4, 1, long(image.height)))
        entries.append((258, 3, channels, (0..<channels).flatMap { _ in short(bits) }))
        entries.append((259, 3, 1, short(1)))  // no compression
        entries.append((262, 3, 1, short(2)))  // RGB
        entries.append((273, 4, 1, long(0)))  // strip offset, patched below
        entries.append((274, 3, 1, short(orientation)))
        entries.append((277, 3, 1, short(channels)))
        entries.append((278, 4, 1, long(image.height)))
        entries.append((279, 4, 1, long(samples.count)))
        entries.append((284, 3, 1, short(1)))  // chunky
        if channels == 4 { entries.append((338, 3, 1, short(2))) }  // unassociated alpha
        if dng { entries.append((50706, 1, 4, [1, 4, 0, 0])) }
        let directorySize = (big ? 8 : 2) + entries.count * entrySize + inline
        var extra: [UInt8] = []  // out-of-line values after the directory
        var directory = big ? offset(entries.count) : short(entries.count)
        var stripOffsetPosition = 0
        for entry in entries {
            directory += short(entry.tag) + short(entry.type) + (big ? offset(entry.count) : long(entry.count))
            if entry.tag == 273 { stripOffsetPosition = headerSize + directory.count }
            if entry.value.count <= inline {
                directory += entry.value + [UInt8](repeating: 0, count: inline - entry.value.count)
            } else {
                directory += offset(headerSize + directorySize + extra.count)
                extra += entry.value
            }
        }
        directory += offset(0)
        let header: [UInt8] = big ? [0x49, 0x49, 43, 0, 8, 0, 0, 0] + offset(16) : [0x49, 0x49, 42, 0] + long(8)
        var bytes = header + directory + extra
        bytes.replaceSubrange(stripOffsetPosition..<(stripOffsetPosition + 4), with: long(bytes.count))
        return bytes + samples
    }

    @Test("8- and 16-bit RGB and RGBA TIFFs decode to their pixels; the header gives size, alpha and orientation")
    func decodes() throws {
        let rgb = try Fixtures.quadrants(width: 40, height: 30)
        let rgba = try Fixtures.quadrants(width: 40, height: 30, alpha: 77)
        for image in [rgb, rgba] {
            for bits in [8, 16] {
                let file = Self.tiff(image, bits: bits)
                #expect(ImageFormat.detect(file) == .tiff)
                let decoded = try ImageDecoder.decode(file, source: "t.tif")
                #expect(decoded.width == 40 && decoded.height == 30 && decoded.pixelFormat == image.pixelFormat)
                // RGB exactly; RGBA within the rounding of libtiff's premultiplied alpha (77 of 255: 255 / 77 levels).
                let worst = zip(decoded.pixels, image.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 0
                #expect(worst <= (image.pixelFormat == .rgba8 ? 3 : 0), "\(image.pixelFormat) \(bits)-bit: off by \(worst)")
                let info = try ImageDecoder.info(of: file)
                #expect(info.format == .tiff && info.width == 40 && info.height == 30 && info.hasAlpha == (image.pixelFormat == .rgba8))
            }
        }
    }

    @Test("the orientation tag is read and applied only when asked, in a TIFF and a BigTIFF", arguments: [3, 6, 8], [false, true])
    func orientation(value: Int, big: Bool) throws {
        let stored = try Fixtures.quadrants(width: 40, height: 30)
        let file = Self.tiff(stored, orientation: value, big: big)
        let orientation = try #require(ImageOrientation(rawValue: value))
        #expect(try ImageDecoder.info(of: file).orientation == orientation)
        #expect(try ImageDecoder.decode(file) == stored)
        #expect(try ImageDecoder.decode(file, options: DecodingOptions(applyOrientation: true)) == stored.applying(orientation))
        let thumbnail = try ImageDecoder.thumbnail(file, maxPixelSize: 20, options: DecodingOptions(applyOrientation: true))
        #expect(max(thumbnail.width, thumbnail.height) == 20 && (thumbnail.width < thumbnail.height) == orientation.swapsDimensions)
    }

    @Test("a raw DNG, a cut file, damage and a size over the limit give typed errors")
    func badInput() throws {
        let image = try Fixtures.quadrants(width: 40, height: 30)
        #expect(throws: ImageError.unsupportedFeature(source: "raw.dng", detail: "raw DNG images cannot be decoded yet; export the photo as JPEG first")) {
            try ImageDecoder.decode(Self.tiff(image, dng: true), source: "raw.dng")
        }
        let file = Self.tiff(image)
        #expect(throws: ImageError.tooLarge(source: "big.tif", width: 40, height: 30, limit: 100)) {
            try ImageDecoder.decode(file, source: "big.tif", options: DecodingOptions(maxPixelCount: 100))
        }
        // Sides of 4,000,000,000 pixels each: refused (libtiff finds the strips do not match), no overflow.
        var huge = file
        for tag in [256, 257] {
            let entry = stride(from: 10, to: 10 + 12 * 12, by: 12).first { Int(huge[$0]) | Int(huge[$0 + 1]) << 8 == tag }!
            huge.replaceSubrange((entry + 8)..<(entry + 12), with: [0x00, 0x28, 0x6B, 0xEE])
        }
        #expect(throws: ImageError.self) { try ImageDecoder.decode(huge, source: "huge.tif") }
        #expect(ImageError.tooLarge(source: "huge.tif", width: 4_000_000_000, height: 4_000_000_000, limit: 100).description.contains("more than"))
        for cut in [12, 60, file.count - 500] {
            #expect(throws: ImageError.self) { try ImageDecoder.decode(Array(file.prefix(cut)), source: "cut.tif") }
        }
        // Random damage anywhere: an error or a picture of the declared size, never a crash.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<200 {
            var damaged = file
            for _ in 0..<4 {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                damaged[Int(state >> 33) % damaged.count] = UInt8(truncatingIfNeeded: state >> 17)
            }
            if let decoded = try? ImageDecoder.decode(damaged) { #expect(decoded.width > 0 && decoded.height > 0) }
        }
    }
}
