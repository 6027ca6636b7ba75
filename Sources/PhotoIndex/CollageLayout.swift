public import ImageKit

/// The collage layouts of the Throwbacks design.
public enum CollageLayout: String, Sendable, Hashable, Codable, CaseIterable {
    /// The original design: 6 photos in 2 columns by 3 rows on a 1200x1500 (4:5) canvas,
    /// with minimal spacing (6 px). Its cells are 6:5 (597x496 at 1x): photos are cropped
    /// to the cell, not to 4:5.
    case grid2x3
    /// The v1 design: a square 1200x1200 canvas, 2 columns for 1–4 photos and 3 for 5 or
    /// more, as many rows as needed (cells stretch to fill the height), 6-point spacing,
    /// 8-point rounded corners.
    case dynamic

    /// The canvas size at `scale` (1 or 2).
    public func canvasSize(scale: Int) -> (width: Int, height: Int) {
        switch self {
        case .grid2x3: (1200 * scale, 1500 * scale)
        case .dynamic: (1200 * scale, 1200 * scale)
        }
    }

    /// The corner radius at `scale`.
    public func cornerRadius(scale: Int) -> Double {
        switch self {
        case .grid2x3: 0
        case .dynamic: 8 * Double(scale)
        }
    }

    /// The cells for `count` photos at `scale`, row by row.
    public func cells(count: Int, scale: Int) throws(ImageError) -> [PixelRect] {
        let (width, height) = canvasSize(scale: scale)
        let spacing = 6 * scale
        switch self {
        case .grid2x3:
            return Array(try Canvas.gridCells(width: width, height: height, columns: 2, rows: 3, spacing: spacing).prefix(max(0, count)))
        case .dynamic:
            let columns = count <= 4 ? 2 : 3
            let rows = max(1, (count + columns - 1) / columns)
            return Array(try Canvas.gridCells(width: width, height: height, columns: columns, rows: rows, spacing: spacing).prefix(max(0, count)))
        }
    }
}
