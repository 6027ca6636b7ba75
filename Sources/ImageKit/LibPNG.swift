// The one file that imports CPNG. It uses libpng's "simplified API"
// (png_image_*), which reports errors in the png_image structure instead of
// longjmp-ing, so no C trampoline is needed.
internal import CPNG
import Foundation

/// Thin Swift wrapper over libpng's simplified read and write API.
enum LibPNG {
    /// Reads the size and whether the file carries alpha, without decoding pixels.
    static func readHeader(_ bytes: UnsafeRawBufferPointer, source: String) throws(ImageError) -> (width: Int, height: Int, hasAlpha: Bool) {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        defer { png_image_free(&image) }
        guard png_image_begin_read_from_memory(&image, bytes.baseAddress, bytes.count) != 0 else {
            throw readError(image, source: source)
        }
        return (Int(image.width), Int(image.height), image.format & PNG_FORMAT_FLAG_ALPHA != 0)
    }

    /// Decodes any PNG (1 to 16 bits, gray, palette, truecolour, with or without alpha)
    /// to 8-bit sRGB: RGBA when the file has alpha or a transparency chunk, RGB otherwise.
    static func decode(_ bytes: UnsafeRawBufferPointer, source: String, maxPixelCount: Int) throws(ImageError) -> Image {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        defer { png_image_free(&image) }
        guard png_image_begin_read_from_memory(&image, bytes.baseAddress, bytes.count) != 0 else {
            throw readError(image, source: source)
        }
        let width = Int(image.width), height = Int(image.height)
        guard width * height <= maxPixelCount else {
            throw .tooLarge(source: source, width: width, height: height, limit: maxPixelCount)
        }
        let hasAlpha = image.format & PNG_FORMAT_FLAG_ALPHA != 0
        let pixelFormat: PixelFormat = hasAlpha ? .rgba8 : .rgb8
        image.format = PNG_FORMAT_FLAG_COLOR | (hasAlpha ? PNG_FORMAT_FLAG_ALPHA : 0)
        // A 16-bit file without gAMA/sRGB is almost always sRGB-encoded (that is
        // what image editors write); libpng would otherwise assume linear light.
        image.flags |= UInt32(PNG_IMAGE_FLAG_16BIT_sRGB)
        var succeeded = false
        let pixels = [UInt8](unsafeUninitializedCapacity: width * height * pixelFormat.bytesPerPixel) { buffer, count in
            succeeded = png_image_finish_read(&image, nil, buffer.baseAddress, Int32(width * pixelFormat.bytesPerPixel), nil) != 0
            count = succeeded ? buffer.count : 0
        }
        guard succeeded else { throw readError(image, source: source) }
        return Image(uncheckedWidth: width, height: height, pixelFormat: pixelFormat, pixels: pixels)
    }

    /// Encodes `image` as a PNG.
    static func encode(_ image: Image, options: PNGEncodingOptions) throws(ImageError) -> [UInt8] {
        var descriptor = png_image()
        descriptor.version = UInt32(PNG_IMAGE_VERSION)
        descriptor.width = UInt32(image.width)
        descriptor.height = UInt32(image.height)
        let alphaFlag = image.pixelFormat.hasAlpha ? PNG_FORMAT_FLAG_ALPHA : 0
        switch options.storage {
        case .truecolor8:
            descriptor.format = PNG_FORMAT_FLAG_COLOR | alphaFlag
            return try write(&descriptor, samples: image.pixels, stride: image.bytesPerRow, colormap: nil)
        case .truecolor16:
            descriptor.format = PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_LINEAR | alphaFlag
            return try write(&descriptor, samples: linear16(image), stride: image.width * image.pixelFormat.bytesPerPixel, colormap: nil)
        case .palette:
            let (indices, colormap) = try paletteIndices(image)
            descriptor.format = PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_COLORMAP | alphaFlag
            descriptor.colormap_entries = UInt32(colormap.count / image.pixelFormat.bytesPerPixel)
            return try write(&descriptor, samples: indices, stride: image.width, colormap: colormap)
        }
    }

    private static func write<Sample>(
        _ descriptor: inout png_image, samples: [Sample], stride: Int, colormap: [UInt8]?
    ) throws(ImageError) -> [UInt8] {
        defer { png_image_free(&descriptor) }
        var size = 0
        let measured = samples.withUnsafeBytes { raw in
            colormap.withOptionalBytes { map in
                png_image_write_to_memory(&descriptor, nil, &size, 0, raw.baseAddress, Int32(stride), map)
            }
        }
        guard measured != 0, size > 0 else { throw writeError(descriptor) }
        var written = size
        var succeeded: Int32 = 0
        let output = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            succeeded = samples.withUnsafeBytes { raw in
                colormap.withOptionalBytes { map in
                    png_image_write_to_memory(&descriptor, buffer.baseAddress, &written, 0, raw.baseAddress, Int32(stride), map)
                }
            }
            count = succeeded != 0 ? written : 0
        }
        guard succeeded != 0 else { throw writeError(descriptor) }
        return output
    }

    /// 16-bit linear-light samples from 8-bit sRGB ones. libpng's simplified API
    /// takes linear data with alpha as premultiplied, so colour is multiplied by alpha.
    private static func linear16(_ image: Image) -> [UInt16] {
        let table: [Double] = (0...255).map { value in
            let encoded = Double(value) / 255
            return encoded <= 0.04045 ? encoded / 12.92 : pow((encoded + 0.055) / 1.055, 2.4)
        }
        let channels = image.pixelFormat.bytesPerPixel
        var samples = [UInt16](repeating: 0, count: image.pixels.count)
        for pixel in 0..<image.pixelCount {
            let base = pixel * channels
            let alpha = channels == 4 ? Double(image.pixels[base + 3]) / 255 : 1
            for channel in 0..<3 {
                samples[base + channel] = UInt16((table[Int(image.pixels[base + channel])] * alpha * 65535).rounded())
            }
            if channels == 4 { samples[base + 3] = UInt16(image.pixels[base + 3]) * 257 }
        }
        return samples
    }

    /// Palette indices and the packed colormap, in first-seen order.
    private static func paletteIndices(_ image: Image) throws(ImageError) -> ([UInt8], [UInt8]) {
        let channels = image.pixelFormat.bytesPerPixel
        var slots: [UInt32: UInt8] = [:]
        var colormap: [UInt8] = []
        var indices = [UInt8](repeating: 0, count: image.pixelCount)
        for pixel in 0..<image.pixelCount {
            var key: UInt32 = 0
            for channel in 0..<channels { key = key << 8 | UInt32(image.pixels[pixel * channels + channel]) }
            if let slot = slots[key] {
                indices[pixel] = slot
                continue
            }
            guard slots.count < 256 else {
                throw .encodingFailed(format: .png, detail: "the image has more than 256 colours; a palette PNG cannot hold it")
            }
            let slot = UInt8(slots.count)
            slots[key] = slot
            colormap.append(contentsOf: image.pixels[(pixel * channels)..<(pixel * channels + channels)])
            indices[pixel] = slot
        }
        return (indices, colormap)
    }

    private static func message(_ image: png_image) -> String {
        withUnsafeBytes(of: image.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    private static func readError(_ image: png_image, source: String) -> ImageError {
        let text = message(image)
        let lowered = text.lowercased()
        if lowered.contains("end of") || lowered.contains("truncat") || lowered.contains("not enough") {
            return .truncated(source: source, detail: text)
        }
        if lowered.contains("image too large") || lowered.contains("width exceeds") || lowered.contains("height exceeds") {
            return .corrupt(source: source, detail: "\(text) (libpng refuses sizes over its own limit of 1,000,000 pixels per side)")
        }
        return .corrupt(source: source, detail: text.isEmpty ? "libpng could not read the file" : text)
    }

    private static func writeError(_ image: png_image) -> ImageError {
        .encodingFailed(format: .png, detail: message(image).isEmpty ? "libpng could not write the image" : message(image))
    }
}

private extension Optional where Wrapped == [UInt8] {
    /// Calls `body` with the array's bytes, or with nil when there is no array.
    func withOptionalBytes<Result>(_ body: (UnsafeRawPointer?) -> Result) -> Result {
        switch self {
        case .some(let bytes): bytes.withUnsafeBytes { body($0.baseAddress) }
        case .none: body(nil)
        }
    }
}
