import Testing
@testable import ImageKit
import TestSupport

@Suite("WebP decoding and encoding")
struct WebPCodecTests {
    /// `webp` (a simple VP8 or VP8L file) rewrapped in an extended (VP8X) container with
    /// `flags` and, when given, an `EXIF` chunk holding `tiff` (after an `Exif\0\0` prefix when `prefixed`).
    static func extended(_ webp: [UInt8], width: Int, height: Int, flags: UInt8, tiff: [UInt8]? = nil, prefixed: Bool = false) -> [UInt8] {
        func le24(_ value: Int) -> [UInt8] { (0..<3).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        var body = Array("WEBP".utf8)
        body += Array("VP8X".utf8) + le32(10) + [flags, 0, 0, 0] + le24(width - 1) + le24(height - 1)
        body += webp[12...]  // the image chunk
        if let tiff {
            let payload = (prefixed ? Array("Exif".utf8) + [0, 0] : []) + tiff
            body += Array("EXIF".utf8) + le32(UInt32(payload.count)) + payload + (payload.count % 2 == 1 ? [0] : [])
        }
        return Array("RIFF".utf8) + le32(UInt32(body.count)) + body
    }

    /// The TIFF part of the EXIF fixture (after the APP1 marker, length and `Exif\0\0`).
    static func orientationTIFF(_ orientation: Int) -> [UInt8] {
        Array(Fixtures.exifOrientationSegment(orientation).dropFirst(10))
    }

    @Test("lossless WebP round-trips RGB and RGBA exactly; lossy keeps the colours")
    func roundTrip() throws {
        let rgb = try Fixtures.quadrants(width: 64, height: 48)
        let rgba = try Fixtures.quadrants(width: 64, height: 48, alpha: 100)
        for image in [rgb, rgba] {
            let lossless = try ImageEncoder.encode(image, as: .webp(WebPEncodingOptions(lossless: true)))
            #expect(ImageFormat.detect(lossless) == .webp)
            #expect(try ImageDecoder.decode(lossless, source: "l.webp") == image)
            let info = try ImageDecoder.info(of: lossless)
            #expect(info.format == .webp && info.width == 64 && info.height == 48 && info.hasAlpha == (image.pixelFormat == .rgba8))
        }
        let lossy = try ImageDecoder.decode(try ImageEncoder.encode(rgb, as: .webp(WebPEncodingOptions(quality: 0.9))))
        #expect(lossy.pixelFormat == .rgb8 && lossy.width == 64)
        for probe in Fixtures.quadrantProbes(width: 64, height: 48) { expectClose(lossy.pixel(x: probe.x, y: probe.y), probe.color, tolerance: 12) }
    }

    @Test("the EXIF orientation in an extended WebP is read and applied when asked (with or without the Exif prefix)", arguments: [false, true])
    func orientation(prefixed: Bool) throws {
        let stored = try Fixtures.quadrants(width: 64, height: 32)
        let simple = try ImageEncoder.encode(stored, as: .webp(WebPEncodingOptions(lossless: true)))
        let webp = Self.extended(simple, width: 64, height: 32, flags: 0x08, tiff: Self.orientationTIFF(6), prefixed: prefixed)
        #expect(try ImageDecoder.info(of: webp).orientation == .right)
        #expect(try ImageDecoder.decode(webp) == stored)
        let upright = try ImageDecoder.decode(webp, options: DecodingOptions(applyOrientation: true))
        #expect(upright == stored.applying(.right))
        let thumbnail = try ImageDecoder.thumbnail(webp, maxPixelSize: 16, options: DecodingOptions(applyOrientation: true))
        #expect(thumbnail.width == 8 && thumbnail.height == 16)
        let cell = try ImageDecoder.decode(webp, region: PixelRect(x: 0, y: 0, width: 32, height: 64), width: 16, height: 32,
                                           options: DecodingOptions(applyOrientation: true))
        #expect(cell == (try upright.resized(width: 16, height: 32)))
    }

    @Test("cut, damaged, animated and oversized WebPs give typed errors")
    func badInput() throws {
        let webp = try ImageEncoder.encode(try SyntheticPhoto.landscape(width: 320, height: 240), as: .webp())
        for fraction in [0.3, 0.6, 0.95] {
            #expect(throws: ImageError.truncated(source: "cut.webp", detail: "the WebP image data ends early")) {
                try ImageDecoder.decode(Array(webp.prefix(Int(Double(webp.count) * fraction))), source: "cut.webp")
            }
        }
        var damaged = webp
        for index in stride(from: 40, to: webp.count, by: 13) { damaged[index] ^= 0xA5 }
        if let image = try? ImageDecoder.decode(damaged) { #expect(image.width == 320 && image.height == 240) }
        let animated = Self.extended(webp, width: 320, height: 240, flags: 0x02)
        #expect(throws: ImageError.unsupportedFeature(source: "a.webp", detail: "an animated WebP cannot be decoded yet; export one frame as JPEG or PNG first")) {
            try ImageDecoder.decode(animated, source: "a.webp")
        }
        #expect(throws: ImageError.tooLarge(source: "big.webp", width: 320, height: 240, limit: 1000)) {
            try ImageDecoder.decode(webp, source: "big.webp", options: DecodingOptions(maxPixelCount: 1000))
        }
        let header = Array("RIFF".utf8) + [0x24, 0, 0, 0] + Array("WEBPVP8 ".utf8) + [UInt8](repeating: 0, count: 32)
        #expect(throws: ImageError.self) { try ImageDecoder.decode(header, source: "zero.webp") }
    }
}
