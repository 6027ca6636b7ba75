/// A decoded image: 8-bit RGB or RGBA pixels in memory, rows top to bottom.
///
/// `Image` is a value type: copies share storage until one of them is mutated.
public struct Image: Sendable, Hashable {
    /// Width in pixels (always at least 1).
    public let width: Int
    /// Height in pixels (always at least 1).
    public let height: Int
    /// The layout of ``pixels``.
    public let pixelFormat: PixelFormat
    /// Packed pixel bytes, `width * height * pixelFormat.bytesPerPixel` of them.
    public internal(set) var pixels: [UInt8]

    /// Creates an image over existing pixel bytes.
    /// - Throws: `ImageError.invalidArgument(_:)` when the size is not positive
    ///   or the byte count does not match it.
    public init(width: Int, height: Int, pixelFormat: PixelFormat, pixels: [UInt8]) throws(ImageError) {
        guard width > 0, height > 0 else {
            throw .invalidArgument("an image needs a positive size, got \(width)x\(height)")
        }
        guard let count = Self.byteCount(width: width, height: height, pixelFormat: pixelFormat) else {
            throw .invalidArgument("\(width)x\(height) \(pixelFormat.rawValue) pixels do not fit in memory")
        }
        guard pixels.count == count else {
            throw .invalidArgument("\(width)x\(height) \(pixelFormat.rawValue) needs \(count) bytes, got \(pixels.count)")
        }
        self.init(uncheckedWidth: width, height: height, pixelFormat: pixelFormat, pixels: pixels)
    }

    /// Creates an image filled with one colour.
    /// - Throws: `ImageError.invalidArgument(_:)` when the size is not positive.
    public init(width: Int, height: Int, pixelFormat: PixelFormat = .rgb8, fill color: RGBAColor) throws(ImageError) {
        guard width > 0, height > 0 else {
            throw .invalidArgument("an image needs a positive size, got \(width)x\(height)")
        }
        let pixel = pixelFormat == .rgba8 ? [color.red, color.green, color.blue, color.alpha] : [color.red, color.green, color.blue]
        guard let count = Self.byteCount(width: width, height: height, pixelFormat: pixelFormat) else {
            throw .invalidArgument("\(width)x\(height) \(pixelFormat.rawValue) pixels do not fit in memory")
        }
        let pixels: [UInt8]
        if pixel.allSatisfy({ $0 == pixel[0] }) {
            pixels = [UInt8](repeating: pixel[0], count: count)  // one memset: white, black, grey
        } else {
            // One pixel, then the filled part copied after itself until the buffer is full.
            pixels = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                let base = buffer.baseAddress!
                for channel in 0..<pixel.count { base[channel] = pixel[channel] }
                var filled = pixel.count
                while filled < count {
                    let copied = min(filled, count - filled)
                    (base + filled).initialize(from: base, count: copied)
                    filled += copied
                }
                initialized = count
            }
        }
        self.init(uncheckedWidth: width, height: height, pixelFormat: pixelFormat, pixels: pixels)
    }

    /// The bytes a `width` x `height` image of `pixelFormat` takes, or nil when that overflows.
    static func byteCount(width: Int, height: Int, pixelFormat: PixelFormat) -> Int? {
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        let (bytes, tooMany) = pixels.multipliedReportingOverflow(by: pixelFormat.bytesPerPixel)
        return overflow || tooMany ? nil : bytes
    }

    /// The initialiser used inside ImageKit once sizes are known to be right.
    init(uncheckedWidth width: Int, height: Int, pixelFormat: PixelFormat, pixels: [UInt8]) {
        precondition(width > 0 && height > 0 && pixels.count == width * height * pixelFormat.bytesPerPixel)
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
        self.pixels = pixels
    }

    /// The number of pixels, `width * height`.
    public var pixelCount: Int { width * height }

    /// The number of bytes in one row.
    public var bytesPerRow: Int { width * pixelFormat.bytesPerPixel }

    /// The colour at (`x`, `y`); alpha is 255 for RGB images.
    public func pixel(x: Int, y: Int) -> RGBAColor {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) is outside \(width)x\(height)")
        let offset = y * bytesPerRow + x * pixelFormat.bytesPerPixel
        return RGBAColor(
            red: pixels[offset], green: pixels[offset + 1], blue: pixels[offset + 2],
            alpha: pixelFormat == .rgba8 ? pixels[offset + 3] : 255)
    }

    /// The same picture in another pixel format: dropping alpha composites over `background`.
    public func converted(to format: PixelFormat, background: RGBAColor = .white) -> Image {
        if format == pixelFormat { return self }
        var output = [UInt8](repeating: 255, count: pixelCount * format.bytesPerPixel)
        pixels.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                if format == .rgba8 {
                    for index in 0..<pixelCount {
                        target[index * 4] = source[index * 3]
                        target[index * 4 + 1] = source[index * 3 + 1]
                        target[index * 4 + 2] = source[index * 3 + 2]
                    }
                } else {
                    let back = [Int(background.red), Int(background.green), Int(background.blue)]
                    for index in 0..<pixelCount {
                        let alpha = Int(source[index * 4 + 3])
                        for channel in 0..<3 {
                            let value = Int(source[index * 4 + channel]) * alpha + back[channel] * (255 - alpha)
                            target[index * 3 + channel] = UInt8((value + 127) / 255)
                        }
                    }
                }
            }
        }
        return Image(uncheckedWidth: width, height: height, pixelFormat: format, pixels: output)
    }
}
