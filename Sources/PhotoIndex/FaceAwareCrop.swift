public import ImageKit

/// Where to crop a photo for a collage cell: the largest rectangle with the cell's aspect
/// ratio that fits in the (upright) photo, centred on the union of the face boxes widened
/// by a margin, then moved back inside the photo. Without faces, the centre crop. When the
/// faces and their margin cannot all fit, the crop still centres on them.
///
/// Face boxes are given as stored (MWG regions describe the stored pixel grid, the size in
/// `AppliedToDimensions`); ``upright(_:orientation:)`` maps them through the EXIF orientation.
public enum FaceAwareCrop {
    /// The margin added around the faces on each side, as a share of their union's size.
    public static let margin = 0.25

    /// The crop, in pixels of the upright `width` x `height` image, for `aspectRatio` (width / height).
    public static func crop(width: Int, height: Int, uprightFaces faces: [FaceBox], aspectRatio: Double) -> PixelRect {
        guard width > 0, height > 0, aspectRatio > 0 else { return PixelRect(x: 0, y: 0, width: max(1, width), height: max(1, height)) }
        var cropWidth = Double(width), cropHeight = Double(width) / aspectRatio
        if cropHeight > Double(height) {
            cropHeight = Double(height)
            cropWidth = Double(height) * aspectRatio
        }
        let w = max(1, min(width, Int(cropWidth.rounded())))
        let h = max(1, min(height, Int(cropHeight.rounded())))
        let usable = faces.filter { $0.width > 0 && $0.height > 0 }
        guard !usable.isEmpty else { return PixelRect.centered(aspectRatio: aspectRatio, inWidth: width, height: height) }
        let left = usable.map(\.x).min()!, top = usable.map(\.y).min()!
        let right = usable.map { $0.x + $0.width }.max()!, bottom = usable.map { $0.y + $0.height }.max()!
        let marginX = (right - left) * margin, marginY = (bottom - top) * margin
        let centreX = (max(0, left - marginX) + min(1, right + marginX)) / 2 * Double(width)
        let centreY = (max(0, top - marginY) + min(1, bottom + marginY)) / 2 * Double(height)
        let x = min(max(0, Int((centreX - Double(w) / 2).rounded())), width - w)
        let y = min(max(0, Int((centreY - Double(h) / 2).rounded())), height - h)
        return PixelRect(x: x, y: y, width: w, height: h)
    }

    /// A face box of the stored image, in the upright image's coordinates (EXIF orientation 1...8).
    public static func upright(_ face: FaceBox, orientation: Int) -> FaceBox {
        let (x, y, w, h) = (face.x, face.y, face.width, face.height)
        var result = face
        switch orientation {
        case 2: result.x = 1 - x - w
        case 3: result.x = 1 - x - w; result.y = 1 - y - h
        case 4: result.y = 1 - y - h
        case 5: (result.x, result.y, result.width, result.height) = (y, x, h, w)
        case 6: (result.x, result.y, result.width, result.height) = (1 - y - h, x, h, w)
        case 7: (result.x, result.y, result.width, result.height) = (1 - y - h, 1 - x - w, h, w)
        case 8: (result.x, result.y, result.width, result.height) = (y, 1 - x - w, h, w)
        default: break
        }
        return result
    }
}
