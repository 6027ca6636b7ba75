/// A rectangle in pixel coordinates, origin at the top-left.
public struct PixelRect: Sendable, Hashable, Codable {
    /// Left edge.
    public var x: Int
    /// Top edge.
    public var y: Int
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// Creates a rectangle.
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The largest rectangle with `aspectRatio` (width / height) centred in a `width` x `height` area.
    public static func centered(aspectRatio: Double, inWidth width: Int, height: Int) -> PixelRect {
        let areaRatio = Double(width) / Double(height)
        if areaRatio > aspectRatio {
            let cropWidth = max(1, Int((Double(height) * aspectRatio).rounded()))
            return PixelRect(x: (width - cropWidth) / 2, y: 0, width: min(cropWidth, width), height: height)
        }
        let cropHeight = max(1, Int((Double(width) / aspectRatio).rounded()))
        return PixelRect(x: 0, y: (height - cropHeight) / 2, width: width, height: min(cropHeight, height))
    }
}

extension Image {
    /// The part of the image inside `rect`.
    /// - Throws: `ImageError.invalidArgument(_:)` when `rect` is empty or reaches outside the image.
    public func cropped(to rect: PixelRect) throws(ImageError) -> Image {
        guard rect.width > 0, rect.height > 0, rect.x >= 0, rect.y >= 0,
              rect.x + rect.width <= width, rect.y + rect.height <= height else {
            throw .invalidArgument("crop \(rect.width)x\(rect.height) at (\(rect.x), \(rect.y)) does not fit inside the \(width)x\(height) image")
        }
        if rect == PixelRect(x: 0, y: 0, width: width, height: height) { return self }
        let channels = pixelFormat.bytesPerPixel
        let rowBytes = rect.width * channels
        var output = [UInt8](repeating: 0, count: rowBytes * rect.height)
        pixels.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                for row in 0..<rect.height {
                    let from = source.baseAddress! + (rect.y + row) * bytesPerRow + rect.x * channels
                    (target.baseAddress! + row * rowBytes).update(from: from, count: rowBytes)
                }
            }
        }
        return Image(uncheckedWidth: rect.width, height: rect.height, pixelFormat: pixelFormat, pixels: output)
    }

    /// The image cropped to `aspectRatio` around its centre and resized to exactly `width` x `height`.
    public func filling(width: Int, height: Int, filter: ResamplingFilter = .automatic) throws(ImageError) -> Image {
        guard width > 0, height > 0 else { throw .invalidArgument("cannot fill \(width)x\(height): both sides must be positive") }
        let crop = PixelRect.centered(aspectRatio: Double(width) / Double(height), inWidth: self.width, height: self.height)
        return try resized(from: crop, width: width, height: height, filter: filter)
    }
}
