import Foundation
public import ImageKit

/// A 64-bit perceptual hash (the DCT "pHash"): the photo in 32x32 grey, its 2-D DCT-II,
/// the 8x8 lowest frequencies without the DC term compared with their median, one bit
/// each (row-major, most significant bit first). Near-duplicates (a re-encode, a resize,
/// a small exposure change) differ in few bits; ``distance(_:_:)`` counts them.
public enum PerceptualHash {
    /// Hashes at or below this Hamming distance count as near-duplicates (about 16% of the bits).
    public static let nearDuplicateDistance = 10

    /// The number of differing bits.
    public static func distance(_ first: UInt64, _ second: UInt64) -> Int { (first ^ second).nonzeroBitCount }

    /// The hash of an (upright) image.
    public static func hash(_ image: Image) -> UInt64 {
        let size = 32
        // Grey 32x32 by area averaging (the input is already a small thumbnail).
        var grey = [Double](repeating: 0, count: size * size)
        for y in 0..<size {
            let y0 = y * image.height / size, y1 = max(y0 + 1, (y + 1) * image.height / size)
            for x in 0..<size {
                let x0 = x * image.width / size, x1 = max(x0 + 1, (x + 1) * image.width / size)
                var sum = 0.0
                for sy in y0..<min(y1, image.height) {
                    for sx in x0..<min(x1, image.width) {
                        let p = image.pixel(x: sx, y: sy)
                        sum += 0.299 * Double(p.red) + 0.587 * Double(p.green) + 0.114 * Double(p.blue)
                    }
                }
                grey[y * size + x] = sum / Double(max(1, (min(y1, image.height) - y0) * (min(x1, image.width) - x0)))
            }
        }
        // The 8x8 low-frequency block of the separable DCT-II.
        var cosines = [Double](repeating: 0, count: 8 * size)
        for u in 0..<8 {
            for x in 0..<size { cosines[u * size + x] = cos(Double((2 * x + 1) * u) * Double.pi / Double(2 * size)) }
        }
        var rows = [Double](repeating: 0, count: size * 8)  // DCT along x for each row
        for y in 0..<size {
            for u in 0..<8 {
                var sum = 0.0
                for x in 0..<size { sum += grey[y * size + x] * cosines[u * size + x] }
                rows[y * 8 + u] = sum
            }
        }
        var coefficients = [Double](repeating: 0, count: 64)
        for v in 0..<8 {
            for u in 0..<8 {
                var sum = 0.0
                for y in 0..<size { sum += rows[y * 8 + u] * cosines[v * size + y] }
                coefficients[v * 8 + u] = sum
            }
        }
        let ac = Array(coefficients.dropFirst())
        let median = ac.sorted()[ac.count / 2]
        var hash: UInt64 = 0
        for (index, value) in coefficients.enumerated() where index > 0 && value > median {
            hash |= 1 << UInt64(63 - index)
        }
        return hash
    }
}
