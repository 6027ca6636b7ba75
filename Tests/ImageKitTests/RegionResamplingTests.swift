import Testing
@testable import ImageKit

/// The streamed resampler (a ring of filtered rows, `SIMD4` pixels, a region read in place)
/// against a plain two-pass reference in `Double` built on the same taps.
@Suite("Resampling a region")
struct RegionResamplingTests {
    /// A deterministic noisy image; RGBA with varying alpha when `alpha`.
    static func noise(width: Int, height: Int, alpha: Bool) throws -> Image {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        let channels = alpha ? 4 : 3
        let pixels = (0..<(width * height * channels)).map { _ -> UInt8 in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state >> 24)
        }
        return try Image(width: width, height: height, pixelFormat: alpha ? .rgba8 : .rgb8, pixels: pixels)
    }

    /// Horizontal then vertical, in Double, premultiplied when there is alpha, rounded once at the end.
    static func reference(_ image: Image, region: PixelRect, width: Int, height: Int, filter: ResamplingFilter) -> [Double] {
        let channels = image.pixelFormat.bytesPerPixel
        let horizontal = ResamplingTaps(sourceLength: region.width, targetLength: width, filter: filter)
        let vertical = ResamplingTaps(sourceLength: region.height, targetLength: height, filter: filter)
        func source(_ x: Int, _ y: Int) -> [Double] {
            let offset = (region.y + y) * image.bytesPerRow + (region.x + x) * channels
            let values = (0..<channels).map { Double(image.pixels[offset + $0]) }
            guard channels == 4 else { return values }
            return [values[0] * values[3] / 255, values[1] * values[3] / 255, values[2] * values[3] / 255, values[3]]
        }
        var middle = [[Double]](repeating: [], count: region.height * width)
        for y in 0..<region.height {
            for x in 0..<width {
                var sum = [Double](repeating: 0, count: channels)
                for tap in 0..<horizontal.counts[x] {
                    let weight = Double(horizontal.weights[x * horizontal.tapsPerOutput + tap])
                    for (channel, value) in source(horizontal.starts[x] + tap, y).enumerated() { sum[channel] += weight * value }
                }
                middle[y * width + x] = sum
            }
        }
        var output: [Double] = []
        for y in 0..<height {
            for x in 0..<width {
                var sum = [Double](repeating: 0, count: channels)
                for tap in 0..<vertical.counts[y] {
                    let weight = Double(vertical.weights[y * vertical.tapsPerOutput + tap])
                    for channel in 0..<channels { sum[channel] += weight * middle[(vertical.starts[y] + tap) * width + x][channel] }
                }
                if channels == 4 {
                    let alpha = min(max(sum[3], 0), 255)
                    let unscale = alpha > 0 ? 255 / alpha : 0
                    sum = [sum[0] * unscale, sum[1] * unscale, sum[2] * unscale, alpha]
                }
                output += sum.map { min(max($0, 0), 255) }
            }
        }
        return output
    }

    @Test("every pixel is within one level of the reference: shrinking, growing, mixed, from an offset region, RGB and RGBA",
          arguments: [ResamplingFilter.lanczos3, .area, .bicubic, .automatic], [false, true])
    func matchesReference(filter: ResamplingFilter, alpha: Bool) throws {
        let image = try Self.noise(width: 61, height: 47, alpha: alpha)
        let region = PixelRect(x: 7, y: 5, width: 45, height: 38)
        for (width, height) in [(15, 12), (30, 25), (44, 37), (90, 20), (17, 80)] {
            let resized = try image.resized(from: region, width: width, height: height, filter: filter)
            #expect(resized.width == width && resized.height == height && resized.pixelFormat == image.pixelFormat)
            let expected = Self.reference(image, region: region, width: width, height: height, filter: filter)
            let worst = zip(resized.pixels, expected).map { abs(Double($0) - $1) }.max() ?? 0
            // Float against Double, and one rounding: never more than one level apart.
            #expect(worst <= 1, "\(filter) \(width)x\(height): off by \(worst)")
        }
    }

    @Test("both pass orders are used where each is cheaper, and both match the reference above")
    func passOrder() {
        func verticalFirst(_ width: Int, _ height: Int) -> Bool {
            ResamplingTaps.verticalFirst(horizontal: ResamplingTaps(sourceLength: 45, targetLength: width, filter: .automatic),
                                         vertical: ResamplingTaps(sourceLength: 38, targetLength: height, filter: .automatic), channels: 3)
        }
        // The shapes of `matchesReference`: shrinking both sides or only the height goes
        // vertically first; a narrow, tall result goes horizontally first.
        #expect(verticalFirst(15, 12) && verticalFirst(30, 25) && verticalFirst(90, 20))
        #expect(!verticalFirst(17, 80))
        // A collage cell from a quarter-scale 12 MP decode: vertically first.
        #expect(ResamplingTaps.verticalFirst(horizontal: ResamplingTaps(sourceLength: 903, targetLength: 597, filter: .automatic),
                                             vertical: ResamplingTaps(sourceLength: 750, targetLength: 496, filter: .automatic), channels: 3))
    }

    @Test("a region resize equals cropping then resizing; a region outside the image is refused")
    func regionEqualsCrop() throws {
        let image = try Self.noise(width: 40, height: 30, alpha: false)
        let region = PixelRect(x: 10, y: 4, width: 24, height: 20)
        #expect(try image.resized(from: region, width: 13, height: 11) == image.cropped(to: region).resized(width: 13, height: 11))
        #expect(try image.resized(from: region, width: 24, height: 20) == image.cropped(to: region))
        #expect(throws: ImageError.self) { try image.resized(from: PixelRect(x: 30, y: 0, width: 20, height: 10), width: 5, height: 5) }
        #expect(throws: ImageError.self) { try image.resized(from: PixelRect(x: 0, y: 0, width: 0, height: 10), width: 5, height: 5) }
        #expect(throws: ImageError.self) { try image.resized(from: region, width: 5, height: 0) }
    }
}
