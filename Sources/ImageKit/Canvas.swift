/// A drawing surface for collages: a background colour, images placed in
/// rectangles, optional rounded corners with anti-aliased edges.
public struct Canvas: Sendable {
    /// The pixels drawn so far: RGB when the background is opaque, RGBA otherwise.
    public private(set) var image: Image

    /// Creates a canvas filled with `background`.
    public init(width: Int, height: Int, background: RGBAColor = .white) throws(ImageError) {
        image = try Image(width: width, height: height, pixelFormat: background.alpha == 255 ? .rgb8 : .rgba8, fill: background)
    }

    /// Draws `picture` with its top-left corner at (`x`, `y`), clipped to the canvas,
    /// blending its alpha and rounding its corners by `cornerRadius` pixels.
    public mutating func draw(_ picture: Image, x: Int, y: Int, cornerRadius: Double = 0) {
        let radius = max(0, min(cornerRadius, Double(min(picture.width, picture.height)) / 2))
        let targetChannels = image.pixelFormat.bytesPerPixel
        let sourceChannels = picture.pixelFormat.bytesPerPixel
        let canvasWidth = image.width, canvasHeight = image.height
        // The part of the picture that lands on the canvas (empty when it misses entirely).
        let firstColumn = max(0, -x), endColumn = min(picture.width, canvasWidth - x)
        let firstRow = max(0, -y), endRow = min(picture.height, canvasHeight - y)
        guard firstColumn < endColumn, firstRow < endRow else { return }
        let columns = firstColumn..<endColumn
        let rows = firstRow..<endRow
        let targetHasAlpha = image.pixelFormat.hasAlpha
        picture.pixels.withUnsafeBufferPointer { source in
            image.pixels.withUnsafeMutableBufferPointer { target in
                let opaqueCopy = sourceChannels == 3 && targetChannels == 3
                let band = Int(radius.rounded(.up))
                for row in rows {
                    // An opaque RGB picture onto an RGB canvas: the fully covered middle of the row is
                    // copied in one go; only the columns of a rounded corner are blended pixel by pixel.
                    var blended = columns
                    if opaqueCopy {
                        let inCornerRows = row < band || row >= picture.height - band
                        let edge = inCornerRows ? band : 0
                        let middle = max(columns.lowerBound, edge)..<min(columns.upperBound, picture.width - edge)
                        if !middle.isEmpty {
                            let from = (row * picture.width + middle.lowerBound) * 3
                            let to = ((row + y) * canvasWidth + middle.lowerBound + x) * 3
                            (target.baseAddress! + to).update(from: source.baseAddress! + from, count: middle.count * 3)
                            blended = columns.lowerBound..<middle.lowerBound
                            for column in middle.upperBound..<columns.upperBound {
                                Canvas.blendOpaque(source, from: (row * picture.width + column) * 3, into: target,
                                                   to: ((row + y) * canvasWidth + column + x) * 3, coverage: radius > 0
                                                       ? Canvas.cornerCoverage(x: column, y: row, width: picture.width, height: picture.height, radius: radius) : 1)
                            }
                        }
                    }
                    for column in blended {
                        let from = (row * picture.width + column) * sourceChannels
                        var coverage = sourceChannels == 4 ? Double(source[from + 3]) / 255 : 1
                        if radius > 0 {
                            coverage *= Canvas.cornerCoverage(x: column, y: row, width: picture.width, height: picture.height, radius: radius)
                        }
                        if coverage <= 0 { continue }
                        let to = ((row + y) * canvasWidth + column + x) * targetChannels
                        if !targetHasAlpha {
                            for channel in 0..<3 {
                                let blended = Double(source[from + channel]) * coverage + Double(target[to + channel]) * (1 - coverage)
                                target[to + channel] = UInt8(min(255, max(0, blended.rounded())))
                            }
                        } else {
                            // Porter-Duff "source over" with straight alpha.
                            let destinationAlpha = Double(target[to + 3]) / 255
                            let outAlpha = coverage + destinationAlpha * (1 - coverage)
                            for channel in 0..<3 {
                                let premultiplied = Double(source[from + channel]) * coverage
                                    + Double(target[to + channel]) * destinationAlpha * (1 - coverage)
                                target[to + channel] = outAlpha > 0 ? UInt8(min(255, max(0, (premultiplied / outAlpha).rounded()))) : 0
                            }
                            target[to + 3] = UInt8(min(255, max(0, (outAlpha * 255).rounded())))
                        }
                    }
                }
            }
        }
    }

    /// Blends one RGB pixel over an RGB canvas pixel with `coverage` in 0...1.
    @inline(__always)
    static func blendOpaque(_ source: UnsafeBufferPointer<UInt8>, from: Int, into target: UnsafeMutableBufferPointer<UInt8>, to: Int, coverage: Double) {
        guard coverage > 0 else { return }
        for channel in 0..<3 {
            let blended = Double(source[from + channel]) * coverage + Double(target[to + channel]) * (1 - coverage)
            target[to + channel] = UInt8(min(255, max(0, blended.rounded())))
        }
    }

    /// Fills `rect` (clipped to the canvas) with `picture`, cropped around its
    /// centre to the rectangle's aspect ratio and resized to it.
    public mutating func draw(_ picture: Image, filling rect: PixelRect, cornerRadius: Double = 0) throws(ImageError) {
        let fitted = try picture.filling(width: rect.width, height: rect.height)
        draw(fitted, x: rect.x, y: rect.y, cornerRadius: cornerRadius)
    }

    /// How much of pixel (`x`, `y`) lies inside a `width` x `height` rectangle with
    /// corners rounded by `radius`: 1 inside, 0 outside, a fraction on the edge.
    static func cornerCoverage(x: Int, y: Int, width: Int, height: Int, radius: Double) -> Double {
        let px = Double(x) + 0.5, py = Double(y) + 0.5
        let cx = px < radius ? radius : (px > Double(width) - radius ? Double(width) - radius : px)
        let cy = py < radius ? radius : (py > Double(height) - radius ? Double(height) - radius : py)
        if cx == px || cy == py { return 1 }  // not in a corner square
        let distance = ((px - cx) * (px - cx) + (py - cy) * (py - cy)).squareRoot()
        return min(1, max(0, radius - distance + 0.5))
    }

    /// The cells of a `columns` x `rows` grid on a `width` x `height` canvas, with
    /// `padding` around the edge and `spacing` between cells, row by row. Leftover
    /// pixels from integer division go to the last column and row, so the grid
    /// fills the canvas exactly.
    public static func gridCells(width: Int, height: Int, columns: Int, rows: Int, spacing: Int = 0, padding: Int = 0) throws(ImageError) -> [PixelRect] {
        guard columns > 0, rows > 0 else { throw .invalidArgument("a grid needs at least one column and one row") }
        let usableWidth = width - 2 * padding - (columns - 1) * spacing
        let usableHeight = height - 2 * padding - (rows - 1) * spacing
        guard usableWidth >= columns, usableHeight >= rows, padding >= 0, spacing >= 0 else {
            throw .invalidArgument("a \(columns)x\(rows) grid with spacing \(spacing) and padding \(padding) does not fit in \(width)x\(height)")
        }
        let cellWidth = usableWidth / columns, cellHeight = usableHeight / rows
        var cells: [PixelRect] = []
        for row in 0..<rows {
            for column in 0..<columns {
                let x = padding + column * (cellWidth + spacing)
                let y = padding + row * (cellHeight + spacing)
                let w = column == columns - 1 ? width - padding - x : cellWidth
                let h = row == rows - 1 ? height - padding - y : cellHeight
                cells.append(PixelRect(x: x, y: y, width: w, height: h))
            }
        }
        return cells
    }
}
