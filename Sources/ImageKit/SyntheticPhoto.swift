import Foundation

/// Procedurally generated photo-like images (sky, sun, hills, grain) for tests,
/// demos and benchmarks: deterministic for a seed, with enough fine detail that
/// JPEG encoding and decoding cost what they cost on real camera photos.
public enum SyntheticPhoto {
    /// A `width` x `height` landscape; the same seed always gives the same pixels.
    public static func landscape(width: Int, height: Int, seed: UInt64 = 1) throws(ImageError) -> Image {
        guard width > 0, height > 0 else { throw .invalidArgument("a photo needs a positive size, got \(width)x\(height)") }
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        func random() -> Double {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Double(state >> 11) / Double(1 << 53)
        }
        let skyTop = (r: 40 + 60 * random(), g: 90 + 80 * random(), b: 170 + 80 * random())
        let horizon = (r: 200 + 55 * random(), g: 160 + 80 * random(), b: 120 + 100 * random())
        let ground = (r: 40 + 80 * random(), g: 90 + 80 * random(), b: 30 + 50 * random())
        let sun = (x: 0.15 + 0.7 * random(), y: 0.1 + 0.3 * random(), radius: 0.04 + 0.06 * random())
        let waves = (0..<4).map { _ in (amplitude: 0.02 + 0.06 * random(), frequency: 1 + 9 * random(), phase: 6.28 * random()) }
        let hillLine = 0.55 + 0.15 * random()

        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        let w = Double(width), h = Double(height)
        let sunRadius = sun.radius * min(w, h)
        var hill = [Double](repeating: 0, count: width)
        for x in 0..<width {
            let u = Double(x) / w
            var level = hillLine
            for wave in waves { level += wave.amplitude * sin(wave.frequency * u * 6.283 + wave.phase) }
            hill[x] = level * h
        }
        pixels.withUnsafeMutableBufferPointer { buffer in
            var noise = seed | 1
            for y in 0..<height {
                let v = Double(y) / h
                for x in 0..<width {
                    var colour: (r: Double, g: Double, b: Double)
                    if Double(y) > hill[x] {
                        let depth = (Double(y) - hill[x]) / max(1, h - hill[x])
                        let stripes = 12 * sin(Double(x) * 0.05 + Double(y) * 0.11)
                        colour = (ground.r * (1 - 0.5 * depth) + stripes, ground.g * (1 - 0.4 * depth) + stripes, ground.b * (1 - 0.5 * depth))
                    } else {
                        let t = min(1, v / hillLine)
                        colour = (skyTop.r + (horizon.r - skyTop.r) * t, skyTop.g + (horizon.g - skyTop.g) * t, skyTop.b + (horizon.b - skyTop.b) * t)
                        let dx = Double(x) - sun.x * w, dy = Double(y) - sun.y * h
                        let distance = (dx * dx + dy * dy).squareRoot()
                        let glow = max(0, 1 - distance / sunRadius)
                        if glow > 0 { colour = (colour.r + 200 * glow, colour.g + 180 * glow, colour.b + 100 * glow) }
                    }
                    noise ^= noise << 13
                    noise ^= noise >> 7
                    noise ^= noise << 17
                    let grain = Double(Int(noise & 15)) - 7.5
                    let offset = (y * width + x) * 3
                    buffer[offset] = UInt8(min(255, max(0, colour.r + grain)))
                    buffer[offset + 1] = UInt8(min(255, max(0, colour.g + grain)))
                    buffer[offset + 2] = UInt8(min(255, max(0, colour.b + grain)))
                }
            }
        }
        return Image(uncheckedWidth: width, height: height, pixelFormat: .rgb8, pixels: pixels)
    }
}
