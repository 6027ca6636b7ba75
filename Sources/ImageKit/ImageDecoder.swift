import Foundation

/// Decodes JPEG, PNG, WebP, TIFF, HEIC and AVIF files into ``Image`` values.
///
/// Every failure is an ``ImageError`` naming the file; no input crashes the decoder.
/// All functions are thread-safe: each call uses its own codec state.
public enum ImageDecoder {
    /// Reads format, size and orientation without decoding pixels.
    /// Of a JPEG only the header is read (up to its first scan), so a large file costs no more than a small one.
    public static func info(contentsOf path: String) throws(ImageError) -> ImageInfo {
        let read = try ImageFileReader.header(path)
        var info = try info(of: read.bytes, source: path)
        info.byteCount = Int(read.fileSize)
        return info
    }

    /// The bytes of the image file at `path`, read once, for ``info(of:source:)`` followed by a
    /// decode that depends on it (``decode(_:source:scale:options:fast:)``) without reading the file twice.
    /// A JPEG larger than 32 MiB is read up to its end-of-image marker only (not a trailer after it).
    public static func bytes(contentsOf path: String) throws(ImageError) -> [UInt8] {
        try ImageFileReader.image(path).bytes
    }

    /// Reads format, size and orientation of an image held in memory; `source` names it in errors.
    public static func info(of bytes: [UInt8], source: String = "image") throws(ImageError) -> ImageInfo {
        try withRawBytes(bytes) { raw throws(ImageError) in
            let format = try detectDecodable(raw, source: source)
            let orientation = EXIFOrientationReader.orientation(in: raw, format: format) ?? .up
            switch format {
            case .jpeg:
                let header = try TurboJPEG.readHeader(raw, source: source)
                return ImageInfo(
                    format: format, width: header.width, height: header.height, orientation: orientation,
                    hasAlpha: false, isProgressive: header.progressive, isCMYK: header.isCMYK,
                    isGrayscale: header.isGrayscale, byteCount: raw.count)
            case .png:
                let header = try LibPNG.readHeader(raw, source: source)
                return ImageInfo(
                    format: format, width: header.width, height: header.height, orientation: orientation,
                    hasAlpha: header.hasAlpha, isProgressive: false, isCMYK: false, isGrayscale: false, byteCount: raw.count)
            case .tiff:
                let header = try LibTIFF.readHeader(raw, source: source)
                return ImageInfo(
                    format: format, width: header.width, height: header.height, orientation: orientation,
                    hasAlpha: header.hasAlpha, isProgressive: false, isCMYK: false, isGrayscale: false, byteCount: raw.count)
            case .webp:
                let header = try LibWebP.readHeader(raw, source: source)
                return ImageInfo(
                    format: format, width: header.width, height: header.height, orientation: orientation,
                    hasAlpha: header.hasAlpha, isProgressive: false, isCMYK: false, isGrayscale: false, byteCount: raw.count)
            default:
                let header = try LibHeif.readHeader(raw, source: source)
                return ImageInfo(
                    format: format, width: header.width, height: header.height, orientation: .up,
                    hasAlpha: header.hasAlpha, isProgressive: false, isCMYK: false, isGrayscale: false, byteCount: raw.count)
            }
        }
    }

    /// Decodes the image file at `path`.
    public static func decode(contentsOf path: String, options: DecodingOptions = DecodingOptions()) throws(ImageError) -> Image {
        try decode(imageBytes(path, maxPixelCount: options.maxPixelCount), source: path, options: options)
    }

    /// Decodes an image held in memory; `source` names it in errors.
    public static func decode(_ bytes: [UInt8], source: String = "image", options: DecodingOptions = DecodingOptions()) throws(ImageError) -> Image {
        try decode(bytes, source: source, options: options, jpegScale: .full, fast: false)
    }

    /// Decodes a JPEG at a DCT scale (1/2, 1/4, 1/8), much faster than a full decode and resize.
    /// Other formats are decoded at full size and then reduced by the same factor. With `fast`,
    /// libjpeg-turbo's fast integer DCT and upsampling are used: slightly less exact pixels,
    /// invisible once the image is reduced further (thumbnails, collage cells).
    public static func decode(_ bytes: [UInt8], source: String = "image", scale: JPEGScale, options: DecodingOptions = DecodingOptions(),
                              fast: Bool = false) throws(ImageError) -> Image {
        let image = try decode(bytes, source: source, options: options, jpegScale: scale, fast: fast)
        guard scale != .full, ImageFormat.detect(bytes) != .jpeg else { return image }
        return try image.resized(width: scale.scaled(image.width), height: scale.scaled(image.height))
    }

    /// A thumbnail whose long side is at most `maxPixelSize`, upright when
    /// `options.applyOrientation` is set. JPEGs are decoded at the smallest DCT
    /// scale that still covers the size, then resampled with high quality.
    public static func thumbnail(contentsOf path: String, maxPixelSize: Int, options: DecodingOptions = DecodingOptions()) throws(ImageError) -> Image {
        try thumbnail(imageBytes(path, maxPixelCount: options.maxPixelCount), source: path, maxPixelSize: maxPixelSize, options: options)
    }

    /// A thumbnail of an image held in memory; see ``thumbnail(contentsOf:maxPixelSize:options:)``.
    public static func thumbnail(_ bytes: [UInt8], source: String = "image", maxPixelSize: Int, options: DecodingOptions = DecodingOptions()) throws(ImageError) -> Image {
        guard maxPixelSize > 0 else { throw .invalidArgument("a thumbnail needs a positive size, got \(maxPixelSize)") }
        var scale = JPEGScale.full
        if ImageFormat.detect(bytes) == .jpeg {
            let header = try withRawBytes(bytes) { raw throws(ImageError) in try TurboJPEG.readHeader(raw, source: source) }
            scale = JPEGScale.fitting(width: header.width, height: header.height, longSide: maxPixelSize)
        }
        let decoded = try decode(bytes, source: source, options: options, jpegScale: scale, fast: scale != .full)
        return try decoded.resized(fittingLongSide: maxPixelSize)
    }

    /// A dry run of ``thumbnail(contentsOf:maxPixelSize:options:)``: the size the thumbnail would
    /// have, from the file's header (nothing is decoded).
    public static func thumbnailSize(contentsOf path: String, maxPixelSize: Int,
                                     options: DecodingOptions = DecodingOptions()) throws(ImageError) -> (width: Int, height: Int) {
        guard maxPixelSize > 0 else { throw .invalidArgument("a thumbnail needs a positive size, got \(maxPixelSize)") }
        let info = try info(contentsOf: path)
        if let refusal = tooLarge(info, path: path, maxPixelCount: options.maxPixelCount) { throw refusal }
        let scale = info.format == .jpeg ? JPEGScale.fitting(width: info.width, height: info.height, longSide: maxPixelSize) : .full
        let (width, height) = (options.applyOrientation ? info.orientation : .up)
            .uprightSize(width: scale.scaled(info.width), height: scale.scaled(info.height))
        return Image.fittedSize(width: width, height: height, longSide: maxPixelSize)
    }

    /// The part `region` of an image, in pixels of its full-size picture (upright when
    /// `options.applyOrientation` is set), resampled to exactly `width` x `height`: a collage
    /// cell, a crop for a model.
    ///
    /// A JPEG is decoded at the smallest DCT scale at which the region still covers the size,
    /// row by row straight into the resampler: rows above the region are skipped without
    /// colour conversion, columns beside it without inverse DCT, decoding stops below it, and
    /// the decoded image is never in memory whole; the small result is then turned upright.
    /// Other formats (and CMYK JPEGs) are decoded whole, turned upright, then resampled.
    /// With `fast`, libjpeg's fast DCT and upsampling (see ``decode(_:source:scale:options:fast:)``).
    public static func decode(_ bytes: [UInt8], source: String = "image", region: PixelRect, width: Int, height: Int,
                              options: DecodingOptions = DecodingOptions(), fast: Bool = false) throws(ImageError) -> Image {
        guard width > 0, height > 0 else { throw .invalidArgument("cannot resize to \(width)x\(height): both sides must be positive") }
        let info = try info(of: bytes, source: source)
        let orientation = options.applyOrientation ? info.orientation : .up
        let (pictureWidth, pictureHeight) = orientation.uprightSize(width: info.width, height: info.height)
        guard region.width > 0, region.height > 0, region.x >= 0, region.y >= 0,
              region.x + region.width <= pictureWidth, region.y + region.height <= pictureHeight else {
            throw .invalidArgument("the region \(region.width)x\(region.height) at (\(region.x), \(region.y)) does not fit inside the \(pictureWidth)x\(pictureHeight) picture of \(source)")
        }
        guard info.format == .jpeg, !info.isCMYK else {
            let whole = try decode(bytes, source: source, options: options)
            return try whole.resized(from: region, width: width, height: height)
        }
        // In stored pixels: the region, the size it becomes before being turned upright, the scale.
        let stored = orientation.storedRect(ofUpright: region, storedWidth: info.width, storedHeight: info.height)
        let (storedWidth, storedHeight) = orientation.swapsDimensions ? (height, width) : (width, height)
        let scale = [JPEGScale.eighth, .quarter, .half].first {
            stored.width / $0.rawValue >= storedWidth && stored.height / $0.rawValue >= storedHeight
        } ?? .full
        let ratioX = Double(scale.scaled(info.width)) / Double(info.width), ratioY = Double(scale.scaled(info.height)) / Double(info.height)
        let x = min(scale.scaled(info.width) - 1, Int((Double(stored.x) * ratioX).rounded()))
        let y = min(scale.scaled(info.height) - 1, Int((Double(stored.y) * ratioY).rounded()))
        let columns = x..<(x + max(1, min(scale.scaled(info.width) - x, Int((Double(stored.width) * ratioX).rounded()))))
        let rows = y..<(y + max(1, min(scale.scaled(info.height) - y, Int((Double(stored.height) * ratioY).rounded()))))
        let resampler = RowResampler(sourceWidth: columns.count, sourceHeight: rows.count, targetWidth: storedWidth,
                                     targetHeight: storedHeight, pixelFormat: .rgb8, filter: .automatic)
        try withRawBytes(bytes) { raw throws(ImageError) in
            try LibJPEG.decodeRows(raw, source: source, scale: scale, fast: fast, maxPixelCount: options.maxPixelCount,
                                   columns: columns, rows: rows) { row in resampler.push(row) }
        }
        return resampler.image().applying(orientation)
    }

    private static func decode(_ bytes: [UInt8], source: String, options: DecodingOptions, jpegScale: JPEGScale, fast: Bool) throws(ImageError) -> Image {
        try withRawBytes(bytes) { raw throws(ImageError) in
            let format = try detectDecodable(raw, source: source)
            let image: Image
            switch format {
            case .jpeg:
                image = try TurboJPEG.decode(raw, source: source, scale: jpegScale, maxPixelCount: options.maxPixelCount, fast: fast)
            case .png:
                image = try LibPNG.decode(raw, source: source, maxPixelCount: options.maxPixelCount)
            case .webp:
                image = try LibWebP.decode(raw, source: source, maxPixelCount: options.maxPixelCount)
            case .tiff:
                image = try LibTIFF.decode(raw, source: source, maxPixelCount: options.maxPixelCount)
            default:
                return try LibHeif.decode(raw, source: source, maxPixelCount: options.maxPixelCount)
            }
            guard options.applyOrientation, let orientation = EXIFOrientationReader.orientation(in: raw, format: format) else {
                return image
            }
            return image.applying(orientation)
        }
    }

    /// The bytes to decode the image at `path`; a large file whose header already shows more than
    /// `maxPixelCount` pixels is refused before the rest of it is read.
    private static func imageBytes(_ path: String, maxPixelCount: Int) throws(ImageError) -> [UInt8] {
        let read = try ImageFileReader.image(path, refusing: { info in tooLarge(info, path: path, maxPixelCount: maxPixelCount) })
        return read.bytes
    }

    /// `tooLarge` when the image has more than `maxPixelCount` pixels.
    private static func tooLarge(_ info: ImageInfo, path: String, maxPixelCount: Int) -> ImageError? {
        let (count, overflow) = info.width.multipliedReportingOverflow(by: info.height)
        return overflow || count > maxPixelCount ? ImageError.tooLarge(source: path, width: info.width, height: info.height, limit: maxPixelCount) : nil
    }

    private static func detectDecodable(_ raw: UnsafeRawBufferPointer, source: String) throws(ImageError) -> ImageFormat {
        guard !raw.isEmpty else { throw .empty(source: source) }
        guard let format = ImageFormat.detect(raw) else { throw .unrecognizedFormat(source: source) }
        guard format.isDecodable else { throw .unsupportedFormat(source: source, format: format) }
        return format
    }
}
