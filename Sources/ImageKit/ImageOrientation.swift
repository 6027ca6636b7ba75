/// The eight EXIF orientations (TIFF tag 0x0112): how the stored pixels must be
/// turned to show the picture upright.
public enum ImageOrientation: Int, Sendable, Hashable, CaseIterable, Codable {
    /// 1: stored upright.
    case up = 1
    /// 2: mirrored left to right.
    case upMirrored = 2
    /// 3: rotated 180°.
    case down = 3
    /// 4: mirrored top to bottom.
    case downMirrored = 4
    /// 5: mirrored along the top-left/bottom-right diagonal (transposed).
    case leftMirrored = 5
    /// 6: must be rotated 90° clockwise to be upright (a portrait photo from most phones).
    case right = 6
    /// 7: mirrored along the top-right/bottom-left diagonal (transversed).
    case rightMirrored = 7
    /// 8: must be rotated 90° counter-clockwise to be upright.
    case left = 8

    /// Whether showing the image upright swaps its width and height.
    public var swapsDimensions: Bool { rawValue >= 5 }

    /// The upright size of a stored `width` x `height` image.
    public func uprightSize(width: Int, height: Int) -> (width: Int, height: Int) {
        swapsDimensions ? (height, width) : (width, height)
    }

    /// The stored pixels under `rect`, a rectangle of the upright picture of a stored
    /// `storedWidth` x `storedHeight` image: cropping there and then turning upright gives
    /// the upright picture cropped to `rect`.
    public func storedRect(ofUpright rect: PixelRect, storedWidth: Int, storedHeight: Int) -> PixelRect {
        let (x, y, w, h) = (rect.x, rect.y, rect.width, rect.height)
        switch self {
        case .up: return rect
        case .upMirrored: return PixelRect(x: storedWidth - x - w, y: y, width: w, height: h)
        case .down: return PixelRect(x: storedWidth - x - w, y: storedHeight - y - h, width: w, height: h)
        case .downMirrored: return PixelRect(x: x, y: storedHeight - y - h, width: w, height: h)
        case .leftMirrored: return PixelRect(x: y, y: x, width: h, height: w)
        case .right: return PixelRect(x: y, y: storedHeight - x - w, width: h, height: w)
        case .rightMirrored: return PixelRect(x: storedWidth - y - h, y: storedHeight - x - w, width: h, height: w)
        case .left: return PixelRect(x: storedWidth - y - h, y: x, width: h, height: w)
        }
    }
}

extension Image {
    /// The image turned upright according to `orientation` (all eight EXIF values).
    public func applying(_ orientation: ImageOrientation) -> Image {
        if orientation == .up { return self }
        let (outWidth, outHeight) = orientation.uprightSize(width: width, height: height)
        let channels = pixelFormat.bytesPerPixel
        var output = [UInt8](repeating: 0, count: pixels.count)
        let sourceWidth = width
        let sourceHeight = height
        pixels.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                for y in 0..<outHeight {
                    for x in 0..<outWidth {
                        // (sx, sy): the stored pixel that lands at upright (x, y).
                        let (sx, sy): (Int, Int)
                        switch orientation {
                        case .up: (sx, sy) = (x, y)
                        case .upMirrored: (sx, sy) = (sourceWidth - 1 - x, y)
                        case .down: (sx, sy) = (sourceWidth - 1 - x, sourceHeight - 1 - y)
                        case .downMirrored: (sx, sy) = (x, sourceHeight - 1 - y)
                        case .leftMirrored: (sx, sy) = (y, x)
                        case .right: (sx, sy) = (y, sourceHeight - 1 - x)
                        case .rightMirrored: (sx, sy) = (sourceWidth - 1 - y, sourceHeight - 1 - x)
                        case .left: (sx, sy) = (sourceWidth - 1 - y, x)
                        }
                        let from = (sy * sourceWidth + sx) * channels
                        let to = (y * outWidth + x) * channels
                        for channel in 0..<channels { target[to + channel] = source[from + channel] }
                    }
                }
            }
        }
        return Image(uncheckedWidth: outWidth, height: outHeight, pixelFormat: pixelFormat, pixels: output)
    }
}
