import Foundation
public import ImageKit

/// A rendered collage.
public struct RenderedCollage: Sendable {
    /// The encoded file, in ``format`` (no metadata).
    public var encoded: [UInt8]
    /// The format of ``encoded``.
    public var format: CollageFileFormat
    /// The collage as a JPEG at quality 0.9: ``encoded`` when the format is JPEG (the
    /// default), else the canvas encoded again.
    public var jpeg: [UInt8] {
        if format == .jpeg { return encoded }
        return (try? ImageEncoder.encode(image, as: CollageFileFormat.jpeg.encoding)) ?? []
    }
    /// The canvas.
    public var image: Image
    /// Each cell and the photo drawn in it, in cell order.
    public var cells: [(cell: PixelRect, path: String)]
    /// Photos that could not be loaded (each replaced by its near-duplicate twin, else by the next backup).
    public var failed: [RejectedPhoto]
    /// Where the photos' face boxes landed on the canvas (clipped to their cells).
    public var faces: [PixelRect] = []
    /// The title's panel, when the collage has a title (``CollageTitle``): it overlaps none of ``faces``.
    public var title: PixelRect?
}

/// Draws a ``CollageSelection`` into a ``CollageLayout``. Each photo is cropped around its
/// faces (``FaceAwareCrop``) to the cell's aspect ratio and decoded only as far as its cell
/// needs: a JPEG at the 1/2, 1/4 or 1/8 DCT scale at which the crop still covers the cell,
/// row by row straight into the resampler, only the crop's rows and columns, then turned
/// upright (ImageKit's `ImageDecoder.decode(_:source:region:width:height:options:fast:)`). Tiles are
/// drawn with the layout's rounded corners. Photos are decoded in parallel; one that cannot
/// be read gives its cell to its near-duplicate twin, else to the next backup; when neither
/// is left, the photos that could be read are laid out again for their own count, so no
/// cell stays blank.
public enum CollageRenderer {
    /// The JPEG quality of collages (the seed's 0.9).
    public static let quality = 0.9
    /// The canvas colour around and between the photos.
    public static let background = RGBAColor.white

    /// Renders `selection` in `layout` at `scale` (1 or 2), with `title` where it covers no face, encoded as `format`.
    public static func render(_ selection: CollageSelection, layout: CollageLayout, scale: Int = 1, title: CollageTitle? = nil,
                              format: CollageFileFormat = .jpeg) async throws(PhotoIndexError) -> RenderedCollage {
        guard scale == 1 || scale == 2 else { throw .invalidRequest("the scale is 1 or 2, not \(scale)") }
        guard !selection.photos.isEmpty else { throw .invalidRequest("there are no photos to put in a collage") }
        let cells: [PixelRect]
        let (width, height) = layout.canvasSize(scale: scale)
        do {
            cells = try layout.cells(count: selection.photos.count, scale: scale)
        } catch {
            throw .invalidRequest("\(error)")
        }
        let radius = layout.cornerRadius(scale: scale)
        // Decode the chosen photos in parallel; meanwhile this task makes the canvas, then draws
        // each photo as soon as it is ready (the cells do not overlap), so little is left for the end.
        var placed = [ChosenPhoto?](repeating: nil, count: cells.count)
        var failed: [RejectedPhoto] = []
        var faces: [PixelRect] = []
        let made: Result<Canvas, ImageError> = await withTaskGroup(of: (Int, Result<Tile, PhotoIndexError>).self) { group in
            for (index, cell) in cells.enumerated() {
                let photo = selection.photos[index]
                group.addTask { (index, Result { () throws(PhotoIndexError) -> Tile in try tile(for: photo, cell: cell) }) }
            }
            var canvas: Canvas
            do throws(ImageError) {
                canvas = try Canvas(width: width, height: height, background: background)
            } catch {
                group.cancelAll()
                return .failure(error)
            }
            for await (index, result) in group {
                switch result {
                case .success(let tile):
                    canvas.draw(tile.image, x: cells[index].x, y: cells[index].y, cornerRadius: radius)
                    faces += tile.faces
                    placed[index] = selection.photos[index]
                case .failure(let error):
                    failed.append(RejectedPhoto(path: selection.photos[index].path, reason: error.reason))
                }
            }
            return .success(canvas)
        }
        var canvas: Canvas
        switch made {
        case .success(let made): canvas = made
        case .failure(let error): throw .invalidRequest("\(error)")
        }
        // A photo that could not be read gives its cell to its near-duplicate twin, else to a backup.
        var backups = selection.extras.makeIterator()
        for index in cells.indices where placed[index] == nil {
            var twins = (selection.twins[selection.photos[index].id] ?? []).makeIterator()
            while let standIn = twins.next() ?? backups.next() {
                do {
                    let tile = try tile(for: standIn, cell: cells[index])
                    canvas.draw(tile.image, x: cells[index].x, y: cells[index].y, cornerRadius: radius)
                    faces += tile.faces
                    placed[index] = standIn
                    break
                } catch {
                    failed.append(RejectedPhoto(path: standIn.path, reason: error.reason))
                }
            }
        }
        let drawn = placed.compactMap { $0 }
        guard !drawn.isEmpty else { throw .invalidRequest("none of the photos could be read: " + failed.map { "\($0.path): \($0.reason)" }.joined(separator: "; ")) }
        if drawn.count < cells.count {
            // Cells left blank: the photos that were read, laid out again for their own count.
            var again = try await render(CollageSelection(photos: drawn, qualityThreshold: selection.qualityThreshold), layout: layout, scale: scale,
                                         title: title, format: format)
            again.failed = failed + again.failed
            return again
        }
        let titled = try title.map { title throws(PhotoIndexError) in try title.draw(on: &canvas, avoiding: faces, scale: scale) }
        do {
            let encoded = try ImageEncoder.encode(canvas.image, as: format.encoding)
            return RenderedCollage(encoded: encoded, format: format, image: canvas.image,
                                   cells: cells.indices.map { (cell: cells[$0], path: drawn[$0].path) }, failed: failed, faces: faces, title: titled)
        } catch {
            throw .invalidRequest("the collage could not be encoded as \(format.rawValue.uppercased()): \(error.reason)")
        }
    }

    /// A photo ready for its cell, with where its faces are on the canvas.
    struct Tile: Sendable {
        var image: Image
        var faces: [PixelRect]
    }

    /// One photo decoded, cropped and resized for `cell`, and its face boxes mapped onto the canvas (clipped to the cell).
    static func tile(for photo: ChosenPhoto, cell: PixelRect) throws(PhotoIndexError) -> Tile {
        do {
            let bytes = try ImageDecoder.bytes(contentsOf: photo.path)
            let info = try ImageDecoder.info(of: bytes, source: photo.path)
            let faces = photo.faces.map { FaceAwareCrop.upright($0, orientation: info.orientation.rawValue) }
            let aspect = Double(cell.width) / Double(cell.height)
            let crop = FaceAwareCrop.crop(width: info.uprightWidth, height: info.uprightHeight, uprightFaces: faces, aspectRatio: aspect)
            let image = try ImageDecoder.decode(bytes, source: photo.path, region: crop, width: cell.width, height: cell.height,
                                                options: DecodingOptions(applyOrientation: true), fast: true)
            let (sx, sy) = (Double(cell.width) / Double(crop.width), Double(cell.height) / Double(crop.height))
            let placed = faces.compactMap { face -> PixelRect? in
                let left = max(0, (face.x * Double(info.uprightWidth) - Double(crop.x)) * sx)
                let top = max(0, (face.y * Double(info.uprightHeight) - Double(crop.y)) * sy)
                let right = min(Double(cell.width), ((face.x + face.width) * Double(info.uprightWidth) - Double(crop.x)) * sx)
                let bottom = min(Double(cell.height), ((face.y + face.height) * Double(info.uprightHeight) - Double(crop.y)) * sy)
                guard right > left, bottom > top else { return nil }
                return PixelRect(x: cell.x + Int(left.rounded(.down)), y: cell.y + Int(top.rounded(.down)),
                                 width: Int((right - left).rounded(.up)), height: Int((bottom - top).rounded(.up)))
            }
            return Tile(image: image, faces: placed)
        } catch {
            throw .unreadable(path: photo.path, reason: error.reason)
        }
    }
}
