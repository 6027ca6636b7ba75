// The one file that imports CTIFF: libtiff over a buffer in memory (the shim's callbacks),
// turned into `Image` values and `ImageError`s.
internal import CTIFF

/// What a TIFF's first image directory says.
struct TIFFHeader: Sendable, Hashable {
    var width: Int
    var height: Int
    var hasAlpha: Bool
    var isRawDNG: Bool
}

/// Thin Swift wrapper over libtiff's RGBA interface: the first image of a TIFF (strips or
/// tiles, any compression libtiff was built with, 1 to 16 bits, gray, palette, RGB, CMYK,
/// YCbCr), as 8-bit RGB(A) in its stored order.
enum LibTIFF {
    /// The most libtiff may allocate at once: enough for a 100 MP image's strips, never a bomb's.
    private static let largestAllocation = 1 << 30

    /// Reads the first image directory.
    static func readHeader(_ raw: UnsafeRawBufferPointer, source: String) throws(ImageError) -> TIFFHeader {
        try withTIFF(raw, source: source) { tiff, _ throws(ImageError) in try header(tiff, source: source) }
    }

    /// Decodes the first image to `.rgb8`, or `.rgba8` when it has an alpha channel (libtiff
    /// premultiplies it; the colour is divided back, so faint pixels lose some precision), as
    /// stored (its orientation tag is read like EXIF's, by `EXIFOrientationReader`, and applied by the caller).
    /// A raw DNG is refused: its first image is only a preview.
    static func decode(_ raw: UnsafeRawBufferPointer, source: String, maxPixelCount: Int) throws(ImageError) -> Image {
        try withTIFF(raw, source: source) { tiff, state throws(ImageError) in
            let header = try header(tiff, source: source)
            guard !header.isRawDNG else {
                throw .unsupportedFeature(source: source, detail: "raw DNG images cannot be decoded yet; export the photo as JPEG first")
            }
            // Both sides may be up to 2^32 - 1: the product is checked, not trusted.
            let (count, overflow) = header.width.multipliedReportingOverflow(by: header.height)
            guard !overflow, count <= maxPixelCount else {
                throw .tooLarge(source: source, width: header.width, height: header.height, limit: maxPixelCount)
            }
            var raster = [UInt32](repeating: 0, count: count)
            let decoded = raster.withUnsafeMutableBufferPointer { raster in
                memora_tiff_decode(tiff, state, raster.baseAddress, UInt32(header.width), UInt32(header.height))
            }
            guard decoded == 1 else {
                let message = lastMessage(state)
                if message.hasPrefix("Sorry, can not handle") {
                    throw .unsupportedFeature(source: source, detail: "libtiff cannot convert it: \(message)")
                }
                let lowered = message.lowercased()
                throw lowered.contains("read error") || lowered.contains("unexpected end") || lowered.contains("not enough data")
                    ? .truncated(source: source, detail: message)
                    : .corrupt(source: source, detail: message.isEmpty ? "libtiff could not decode it" : message)
            }
            let channels = header.hasAlpha ? 4 : 3
            let pixels = [UInt8](unsafeUninitializedCapacity: count * channels) { buffer, initialized in
                raster.withUnsafeBufferPointer { words in
                    for index in 0..<count {
                        let word = words[index]  // A B G R from the high byte down
                        let red = word & 0xFF, green = word >> 8 & 0xFF, blue = word >> 16 & 0xFF
                        if channels == 3 {
                            buffer[index * 3] = UInt8(red)
                            buffer[index * 3 + 1] = UInt8(green)
                            buffer[index * 3 + 2] = UInt8(blue)
                        } else {
                            // libtiff hands out premultiplied colour; `Image` holds straight alpha.
                            let alpha = word >> 24
                            func straight(_ value: UInt32) -> UInt8 { alpha == 0 ? 0 : UInt8(min(255, (value * 255 + alpha / 2) / alpha)) }
                            buffer[index * 4] = straight(red)
                            buffer[index * 4 + 1] = straight(green)
                            buffer[index * 4 + 2] = straight(blue)
                            buffer[index * 4 + 3] = UInt8(alpha)
                        }
                    }
                }
                initialized = count * channels
            }
            return Image(uncheckedWidth: header.width, height: header.height, pixelFormat: header.hasAlpha ? .rgba8 : .rgb8, pixels: pixels)
        }
    }

    private static func header(_ tiff: OpaquePointer, source: String) throws(ImageError) -> TIFFHeader {
        var width: UInt32 = 0, height: UInt32 = 0
        var alpha: Int32 = 0, dng: Int32 = 0
        memora_tiff_info(tiff, &width, &height, &alpha, &dng)
        guard width > 0, height > 0 else { throw .corrupt(source: source, detail: "the TIFF image has a zero size") }
        return TIFFHeader(width: Int(width), height: Int(height),
                          hasAlpha: alpha != 0, isRawDNG: dng != 0)
    }

    /// Opens the TIFF in `raw` for `body`, and closes it.
    private static func withTIFF<Result>(
        _ raw: UnsafeRawBufferPointer, source: String,
        _ body: (OpaquePointer, UnsafeMutablePointer<memora_tiff_source>) throws(ImageError) -> Result
    ) throws(ImageError) -> Result {
        let state = UnsafeMutablePointer<memora_tiff_source>.allocate(capacity: 1)
        state.initialize(to: memora_tiff_source())
        defer { state.deallocate() }
        state.pointee.data = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
        state.pointee.size = UInt64(raw.count)
        guard let tiff = memora_tiff_open(state, tmsize_t(largestAllocation)) else {
            let message = lastMessage(state)
            throw message.lowercased().contains("cannot read") || message.lowercased().contains("read error")
                ? .truncated(source: source, detail: message)
                : .corrupt(source: source, detail: message.isEmpty ? "libtiff could not open it" : message)
        }
        defer { TIFFClose(tiff) }
        return try body(tiff, state)
    }

    /// The last message libtiff reported.
    private static func lastMessage(_ state: UnsafeMutablePointer<memora_tiff_source>) -> String {
        withUnsafeBytes(of: &state.pointee.message) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
