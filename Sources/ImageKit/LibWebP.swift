// The one file that imports CWebP: libwebp's simple decoding and encoding calls, turned
// into `Image` values and `ImageError`s.
internal import CWebP

/// What a WebP header says before any pixel is decoded.
struct WebPHeader: Sendable, Hashable {
    var width: Int
    var height: Int
    var hasAlpha: Bool
    var isAnimated: Bool
}

/// Thin Swift wrapper over libwebp (still images; the first frame of an animation is not decoded).
enum LibWebP {
    /// Reads the size and features from the bitstream headers.
    static func readHeader(_ raw: UnsafeRawBufferPointer, source: String) throws(ImageError) -> WebPHeader {
        var features = WebPBitstreamFeatures()
        let status = memora_webp_features(raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count, &features)
        guard status == VP8_STATUS_OK else { throw error(status, source: source) }
        guard features.width > 0, features.height > 0 else { throw .corrupt(source: source, detail: "the WebP image has a zero size") }
        return WebPHeader(width: Int(features.width), height: Int(features.height),
                          hasAlpha: features.has_alpha != 0, isAnimated: features.has_animation != 0)
    }

    /// Decodes to `.rgb8`, or `.rgba8` when the image has alpha, refusing images over `maxPixelCount`.
    static func decode(_ raw: UnsafeRawBufferPointer, source: String, maxPixelCount: Int) throws(ImageError) -> Image {
        let header = try readHeader(raw, source: source)
        guard !header.isAnimated else {
            throw .unsupportedFeature(source: source, detail: "an animated WebP cannot be decoded yet; export one frame as JPEG or PNG first")
        }
        guard header.width * header.height <= maxPixelCount else {
            throw .tooLarge(source: source, width: header.width, height: header.height, limit: maxPixelCount)
        }
        let channels = header.hasAlpha ? 4 : 3
        let stride = header.width * channels
        let data = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
        var decodedOK = false
        let pixels = [UInt8](unsafeUninitializedCapacity: stride * header.height) { buffer, count in
            let result = header.hasAlpha
                ? WebPDecodeRGBAInto(data, raw.count, buffer.baseAddress, buffer.count, Int32(stride))
                : WebPDecodeRGBInto(data, raw.count, buffer.baseAddress, buffer.count, Int32(stride))
            decodedOK = result != nil
            count = decodedOK ? buffer.count : 0
        }
        guard decodedOK else {
            // The header was fine: the image data is cut short (the RIFF header promises more
            // bytes than there are) or damaged.
            let declared = raw.count >= 8 ? Int(raw.loadUnaligned(fromByteOffset: 4, as: UInt32.self).littleEndian) + 8 : 0
            throw declared > raw.count
                ? .truncated(source: source, detail: "the WebP image data ends early")
                : .corrupt(source: source, detail: "libwebp could not decode the image data")
        }
        return Image(uncheckedWidth: header.width, height: header.height, pixelFormat: header.hasAlpha ? .rgba8 : .rgb8, pixels: pixels)
    }

    /// Encodes `image` as a still WebP with no metadata chunks.
    static func encode(_ image: Image, options: WebPEncodingOptions) throws(ImageError) -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>?
        let size: Int = image.pixels.withUnsafeBufferPointer { pixels in
            let width = Int32(image.width), height = Int32(image.height), stride = Int32(image.bytesPerRow)
            switch (image.pixelFormat, options.lossless) {
            case (.rgb8, false): return WebPEncodeRGB(pixels.baseAddress, width, height, stride, options.libwebpQuality, &output)
            case (.rgba8, false): return WebPEncodeRGBA(pixels.baseAddress, width, height, stride, options.libwebpQuality, &output)
            case (.rgb8, true): return WebPEncodeLosslessRGB(pixels.baseAddress, width, height, stride, &output)
            case (.rgba8, true): return WebPEncodeLosslessRGBA(pixels.baseAddress, width, height, stride, &output)
            }
        }
        defer { if let output { WebPFree(output) } }
        guard size > 0, let output else {
            throw .encodingFailed(format: .webp, detail: "libwebp could not encode the \(image.width)x\(image.height) image (at most 16383 pixels a side)")
        }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }

    /// The `ImageError` for a libwebp status.
    private static func error(_ status: VP8StatusCode, source: String) -> ImageError {
        let code = Int32(truncatingIfNeeded: status.rawValue)
        return switch status {
        case VP8_STATUS_NOT_ENOUGH_DATA: .truncated(source: source, detail: "the WebP headers end early", libraryCode: code)
        case VP8_STATUS_UNSUPPORTED_FEATURE:
            .unsupportedFeature(source: source, detail: "it uses a WebP feature libwebp does not support; convert it to JPEG or PNG first", libraryCode: code)
        case VP8_STATUS_BITSTREAM_ERROR: .corrupt(source: source, detail: "its WebP headers are invalid", libraryCode: code)
        default: .corrupt(source: source, detail: "libwebp could not read its headers (VP8StatusCode \(status.rawValue))", libraryCode: code)
        }
    }
}
