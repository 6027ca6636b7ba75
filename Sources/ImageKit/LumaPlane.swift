/// An image's brightness: one Rec. 601 luma value a pixel (0...255), row by row. What measures of
/// sharpness and detail work on (PhotoIndex's `QualityScore`, MemoraCore's `PictureDetail`).
public struct LumaPlane: Sendable, Hashable {
    /// Pixels a row.
    public let width: Int
    /// Rows.
    public let height: Int
    /// `width * height` values, 0...255, the top row first.
    public let values: [Double]

    /// The luma of `image`'s pixels (alpha ignored).
    public init(_ image: Image) {
        width = image.width
        height = image.height
        var values = [Double](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let pixel = image.pixel(x: x, y: y)
                values[y * width + x] = 0.299 * Double(pixel.red) + 0.587 * Double(pixel.green) + 0.114 * Double(pixel.blue)
            }
        }
        self.values = values
    }

    /// The 4-neighbour Laplacian (four times a pixel's value less its neighbours') of every pixel
    /// off the border, row by row; empty when the plane is under 3 pixels on a side.
    public func laplacian() -> [Double] {
        guard width >= 3, height >= 3 else { return [] }
        var responses: [Double] = []
        responses.reserveCapacity((width - 2) * (height - 2))
        for y in 1..<(height - 1) {
            for x in 1..<(width - 1) {
                let centre = y * width + x
                responses.append(4 * values[centre] - values[centre - 1] - values[centre + 1] - values[centre - width] - values[centre + width])
            }
        }
        return responses
    }
}
