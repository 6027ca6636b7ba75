import Foundation
public import ImageKit

/// A photo's quality in 0...1 from the pixels of a small upright thumbnail (about 256
/// pixels on the long side) and its size and faces. The heuristic, in the seed's spirit
/// ("best photos first"):
///
/// - sharpness (weight 0.35): the variance of the 4-neighbour Laplacian of the luma,
///   mapped by `v / (v + 150)`; a blurred or out-of-focus photo scores low;
/// - exposure (0.25): 1 minus twice the distance of the mean luma from 0.5, minus the
///   share of clipped pixels (luma below 0.02 or above 0.98);
/// - contrast (0.2): the luma's standard deviation, saturating at 0.25;
/// - resolution (0.1): megapixels of the original over 8, at most 1;
/// - faces (0.1): 1 when the photo has at least one face region, else 0.
public struct QualityScore: Sendable, Hashable, Codable {
    /// The weighted score.
    public var value: Double
    /// Each component in 0...1.
    public var sharpness: Double
    /// See the type's description.
    public var exposure: Double
    /// See the type's description.
    public var contrast: Double
    /// See the type's description.
    public var resolution: Double
    /// See the type's description.
    public var faces: Double

    /// Scores a thumbnail of a photo that is `pixelWidth` by `pixelHeight` and has `faceCount` faces.
    public init(thumbnail: Image, pixelWidth: Int, pixelHeight: Int, faceCount: Int) {
        let plane = LumaPlane(thumbnail)
        let luma = plane.values.map { $0 / 255 }
        let count = Double(max(1, luma.count))
        let mean = luma.reduce(0, +) / count
        let deviation = (luma.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / count).squareRoot()
        let clipped = Double(luma.filter { $0 < 0.02 || $0 > 0.98 }.count) / count
        let laplacians = plane.laplacian()
        let lapMean = laplacians.reduce(0, +) / Double(max(1, laplacians.count))
        let variance = laplacians.reduce(0) { $0 + ($1 - lapMean) * ($1 - lapMean) } / Double(max(1, laplacians.count))
        sharpness = variance / (variance + 150)
        exposure = max(0, 1 - 2 * abs(mean - 0.5) - clipped)
        contrast = min(1, deviation / 0.25)
        resolution = min(1, Double(pixelWidth * pixelHeight) / 8_000_000)
        faces = faceCount > 0 ? 1 : 0
        value = min(1, max(0, 0.35 * sharpness + 0.25 * exposure + 0.2 * contrast + 0.1 * resolution + 0.1 * faces))
    }
}
