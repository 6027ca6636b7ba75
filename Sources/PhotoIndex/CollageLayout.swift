public import ImageKit

/// The collage layouts of the Throwbacks design. Both adapt to the number of photos: every
/// cell holds a photo, so a collage of fewer photos than the layout's full grid has no blank
/// cell (the seed's dynamic grid); a row with fewer photos than the others shares its width
/// among them.
public enum CollageLayout: String, Sendable, Hashable, Codable, CaseIterable {
    /// The original design: 6 photos in 2 columns by 3 rows on a 1200x1500 (4:5) canvas,
    /// with minimal spacing (6 px). Its cells are 6:5 (597x496 at 1x): photos are cropped
    /// to the cell, not to 4:5. Fewer photos fill the same canvas in fewer, larger cells
    /// (``rows(count:)``).
    case grid2x3
    /// The v1 design: a square 1200x1200 canvas, 2 columns for 1–4 photos and 3 for 5 or
    /// more, as many rows as needed (cells stretch to fill the height), 6-point spacing,
    /// 8-point rounded corners. The photos are spread evenly over the rows (7 photos: 3, 2, 2).
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

    /// How many photos each row holds, top to bottom, for `count` photos (1...10); the
    /// counts add up to `count`, so no cell is left blank.
    ///
    /// - `grid2x3`: 1 photo fills the canvas; 2 are stacked (landscape cells, not two
    ///   1:2.5 strips); 3: 2 + 1; 4: 2 + 2; 5: 2 + 2 + 1; 6: the 2x3 grid.
    /// - `dynamic`: 1 fills the square; 2 are stacked; otherwise the seed's columns (2 up to
    ///   4 photos, 3 from 5) and as many rows as needed, the photos spread evenly over them,
    ///   the fuller rows first (5: 3 + 2; 7: 3 + 2 + 2; 10: 3 + 3 + 2 + 2).
    public func rows(count: Int) -> [Int] {
        guard count > 2 else { return Array(repeating: 1, count: max(0, count)) }
        let columns: Int
        switch self {
        case .grid2x3: columns = 2
        case .dynamic: columns = count <= 4 ? 2 : 3
        }
        let rows = (count + columns - 1) / columns
        return (0..<rows).map { row in count / rows + (row < count % rows ? 1 : 0) }
    }

    /// The cells for `count` photos at `scale`, row by row, left to right (``rows(count:)``):
    /// they cover the canvas but for the spacing, with no blank cell.
    public func cells(count: Int, scale: Int) throws(ImageError) -> [PixelRect] {
        let (width, height) = canvasSize(scale: scale)
        let spacing = 6 * scale
        let rows = rows(count: count)
        guard !rows.isEmpty else { return [] }
        let bands = try Canvas.gridCells(width: width, height: height, columns: 1, rows: rows.count, spacing: spacing)
        var cells: [PixelRect] = []
        for (band, columns) in zip(bands, rows) {
            for cell in try Canvas.gridCells(width: width, height: band.height, columns: columns, rows: 1, spacing: spacing) {
                cells.append(PixelRect(x: cell.x, y: band.y + cell.y, width: cell.width, height: cell.height))
            }
        }
        return cells
    }
}
