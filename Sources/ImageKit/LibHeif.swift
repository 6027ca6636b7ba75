// The one file that imports CHeif: libheif contexts, handles and images become
// `Image` values and `ImageError`s here.
internal import CHeif

/// Thin Swift wrapper over libheif's read, decode and encode calls.
enum LibHeif {
    /// `heif_init` loads libheif's codec plugins; it must run once before use.
    /// Holds libheif's message when it failed.
    private static let initialisationFailure: String? = {
        let error = heif_init(nil)
        return error.code == heif_error_Ok ? nil : message(error)
    }()

    /// Reads the primary image's size and alpha without decoding it.
    static func readHeader(_ bytes: UnsafeRawBufferPointer, source: String) throws(ImageError) -> (width: Int, height: Int, hasAlpha: Bool) {
        try withPrimaryImage(bytes, source: source) { handle throws(ImageError) in
            (Int(heif_image_handle_get_width(handle)), Int(heif_image_handle_get_height(handle)),
             heif_image_handle_has_alpha_channel(handle) != 0)
        }
    }

    /// Decodes the primary image to 8-bit RGB(A). libheif applies the container's
    /// own rotation and mirroring (`irot`, `imir`), so the result is already upright.
    static func decode(_ bytes: UnsafeRawBufferPointer, source: String, maxPixelCount: Int) throws(ImageError) -> Image {
        try withPrimaryImage(bytes, source: source) { handle throws(ImageError) in
            let width = Int(heif_image_handle_get_width(handle))
            let height = Int(heif_image_handle_get_height(handle))
            guard width > 0, height > 0 else {
                throw .corrupt(source: source, detail: "the primary image has no size")
            }
            guard width * height <= maxPixelCount else {
                throw .tooLarge(source: source, width: width, height: height, limit: maxPixelCount)
            }
            let hasAlpha = heif_image_handle_has_alpha_channel(handle) != 0
            var decoded: OpaquePointer?
            let error = heif_decode_image(
                handle, &decoded, heif_colorspace_RGB,
                hasAlpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, nil)
            guard error.code == heif_error_Ok, let decoded else { throw imageError(error, source: source) }
            defer { heif_image_release(decoded) }
            let outWidth = Int(heif_image_get_width(decoded, heif_channel_interleaved))
            let outHeight = Int(heif_image_get_height(decoded, heif_channel_interleaved))
            var stride: Int32 = 0
            guard outWidth > 0, outHeight > 0,
                  let plane = heif_image_get_plane_readonly(decoded, heif_channel_interleaved, &stride) else {
                throw .corrupt(source: source, detail: "libheif returned no pixels")
            }
            let format: PixelFormat = hasAlpha ? .rgba8 : .rgb8
            let rowBytes = outWidth * format.bytesPerPixel
            let pixels = [UInt8](unsafeUninitializedCapacity: rowBytes * outHeight) { buffer, count in
                for row in 0..<outHeight {
                    (buffer.baseAddress! + row * rowBytes).initialize(from: plane + row * Int(stride), count: rowBytes)
                }
                count = rowBytes * outHeight
            }
            return Image(uncheckedWidth: outWidth, height: outHeight, pixelFormat: format, pixels: pixels)
        }
    }

    /// Whether this libheif build can encode `codec` (Debian's can encode HEVC with x265 and AV1 with aom).
    static func canEncode(_ codec: HEIFEncodingOptions.Codec) -> Bool {
        guard initialisationFailure == nil else { return false }
        return heif_have_encoder_for_format(codec == .hevc ? heif_compression_HEVC : heif_compression_AV1) != 0
    }

    /// Encodes `image` as a HEIC or AVIF file.
    static func encode(_ image: Image, options: HEIFEncodingOptions) throws(ImageError) -> [UInt8] {
        let format: ImageFormat = options.codec == .hevc ? .heic : .avif
        if let failure = initialisationFailure {
            throw .encodingFailed(format: format, detail: "libheif failed to initialise: \(failure)")
        }
        guard let context = heif_context_alloc() else {
            throw .encodingFailed(format: format, detail: "libheif could not allocate a context")
        }
        defer { heif_context_free(context) }
        var picture: OpaquePointer?
        let chroma = image.pixelFormat.hasAlpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB
        var error = heif_image_create(Int32(image.width), Int32(image.height), heif_colorspace_RGB, chroma, &picture)
        guard error.code == heif_error_Ok, let picture else { throw encodingError(error, format: format) }
        defer { heif_image_release(picture) }
        error = heif_image_add_plane(picture, heif_channel_interleaved, Int32(image.width), Int32(image.height), 8)
        guard error.code == heif_error_Ok else { throw encodingError(error, format: format) }
        var stride: Int32 = 0
        guard let plane = heif_image_get_plane(picture, heif_channel_interleaved, &stride) else {
            throw .encodingFailed(format: format, detail: "libheif gave no pixel plane")
        }
        image.pixels.withUnsafeBufferPointer { source in
            for row in 0..<image.height {
                (plane + row * Int(stride)).update(from: source.baseAddress! + row * image.bytesPerRow, count: image.bytesPerRow)
            }
        }
        var encoder: OpaquePointer?
        error = heif_context_get_encoder_for_format(context, options.codec == .hevc ? heif_compression_HEVC : heif_compression_AV1, &encoder)
        guard error.code == heif_error_Ok, let encoder else { throw encodingError(error, format: format) }
        defer { heif_encoder_release(encoder) }
        let quality = options.quality.isFinite ? min(max(options.quality, 0), 1) : 0.8
        _ = heif_encoder_set_lossy_quality(encoder, Int32((quality * 100).rounded()))
        error = heif_context_encode_image(context, picture, encoder, nil, nil)
        guard error.code == heif_error_Ok else { throw encodingError(error, format: format) }

        final class Sink { var bytes: [UInt8] = [] }
        let sink = Sink()
        var writer = heif_writer()
        writer.writer_api_version = 1
        writer.write = { _, data, size, userdata in
            let sink = Unmanaged<Sink>.fromOpaque(userdata!).takeUnretainedValue()
            if let data { sink.bytes.append(contentsOf: UnsafeRawBufferPointer(start: data, count: size)) }
            return heif_error(code: heif_error_Ok, subcode: heif_suberror_Unspecified, message: nil)
        }
        error = withExtendedLifetime(sink) {
            heif_context_write(context, &writer, Unmanaged.passUnretained(sink).toOpaque())
        }
        guard error.code == heif_error_Ok else { throw encodingError(error, format: format) }
        return sink.bytes
    }

    /// Opens a context over `bytes`, hands the primary image handle to `body`, and cleans up.
    private static func withPrimaryImage<Result>(
        _ bytes: UnsafeRawBufferPointer, source: String,
        _ body: (OpaquePointer) throws(ImageError) -> Result
    ) throws(ImageError) -> Result {
        if let failure = initialisationFailure {
            throw .corrupt(source: source, detail: "libheif failed to initialise (\(failure)); check the libheif installation")
        }
        guard let context = heif_context_alloc() else {
            throw .corrupt(source: source, detail: "libheif could not allocate a context")
        }
        defer { heif_context_free(context) }
        var error = heif_context_read_from_memory_without_copy(context, bytes.baseAddress, bytes.count, nil)
        guard error.code == heif_error_Ok else { throw imageError(error, source: source) }
        var handle: OpaquePointer?
        error = heif_context_get_primary_image_handle(context, &handle)
        guard error.code == heif_error_Ok, let handle else { throw imageError(error, source: source) }
        defer { heif_image_handle_release(handle) }
        return try body(handle)
    }

    private static func message(_ error: heif_error) -> String {
        error.message.map { String(cString: $0) } ?? "unknown libheif error"
    }

    /// libheif's failure in words for the person using the program: its own message is the
    /// decoder's ("Error parsing OBU data"), so only its code (`ImageError.libraryCode`) is kept.
    private static func imageError(_ error: heif_error, source: String) -> ImageError {
        let code = libraryCode(error)
        if error.subcode == heif_suberror_End_of_data {
            return .truncated(source: source, detail: "its image data ends early", libraryCode: code)
        }
        switch error.code {
        case heif_error_Unsupported_filetype, heif_error_Unsupported_feature:
            return .corrupt(source: source, detail: "it uses a HEIF/AVIF feature that cannot be read here", libraryCode: code)
        case heif_error_Decoder_plugin_error:
            return .corrupt(source: source, detail: "its compressed image data cannot be decoded", libraryCode: code)
        case heif_error_Memory_allocation_error:
            return .corrupt(source: source, detail: "decoding it needs more memory than is available", libraryCode: code)
        default:
            return .corrupt(source: source, detail: "its HEIF/AVIF structure is damaged", libraryCode: code)
        }
    }

    private static func encodingError(_ error: heif_error, format: ImageFormat) -> ImageError {
        .encodingFailed(format: format, detail: message(error), libraryCode: libraryCode(error))
    }

    /// libheif's `heif_error_code`, for `ImageError.libraryCode`.
    private static func libraryCode(_ error: heif_error) -> Int32 {
        Int32(truncatingIfNeeded: error.code.rawValue)
    }
}
