// The one file that imports CJPEG: libjpeg's scanline API, for decoding a region of a
// JPEG row by row (the TurboJPEG API decodes whole images only, in the version Debian ships).
internal import CJPEG

/// Thin Swift wrapper over libjpeg's scanline decoding.
enum LibJPEG {
    /// Decodes rows `rows` and columns `columns` (pixels of the image at `scale`) of the JPEG in
    /// `raw` to RGB, handing each row, top to bottom, to `consume` (a pointer to its first pixel
    /// in `columns`). Rows above the region are skipped without colour conversion, columns
    /// outside it without inverse DCT; decoding stops after the last row of the region.
    /// With `fast`, the fast integer DCT and plain upsampling are used.
    static func decodeRows(
        _ raw: UnsafeRawBufferPointer, source: String, scale: JPEGScale, fast: Bool, maxPixelCount: Int,
        columns: Range<Int>, rows: Range<Int>, consume: (UnsafePointer<UInt8>) -> Void
    ) throws(ImageError) {
        let reader = UnsafeMutablePointer<memora_jpeg_reader>.allocate(capacity: 1)
        defer {
            memora_jpeg_destroy(reader)
            reader.deallocate()
        }
        guard memora_jpeg_open(reader, raw.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt(raw.count)) == 0 else {
            throw failure(reader, source: source)
        }
        let width = Int(reader.pointee.info.image_width), height = Int(reader.pointee.info.image_height)
        guard width * height <= maxPixelCount else {
            throw .tooLarge(source: source, width: width, height: height, limit: maxPixelCount)
        }
        let colorSpace = reader.pointee.info.jpeg_color_space
        guard colorSpace != JCS_CMYK && colorSpace != JCS_YCCK else {
            throw .invalidArgument("\(source): a CMYK JPEG cannot be decoded row by row")
        }
        guard !columns.isEmpty, !rows.isEmpty, columns.lowerBound >= 0, rows.lowerBound >= 0,
              columns.upperBound <= scale.scaled(width), rows.upperBound <= scale.scaled(height) else {
            throw .invalidArgument("\(source): the region \(columns) x \(rows) is outside the \(scale.scaled(width))x\(scale.scaled(height)) image")
        }
        // libjpeg widens the columns to whole blocks: `first` and `count` come back changed.
        var first = JDIMENSION(columns.lowerBound), count = JDIMENSION(columns.count)
        guard memora_jpeg_start(reader, UInt32(scale.rawValue), fast ? 1 : 0, &first, &count) == 0 else {
            throw failure(reader, source: source)
        }
        guard Int(reader.pointee.info.output_height) == scale.scaled(height), reader.pointee.info.output_components == 3 else {
            throw .corrupt(source: source, detail: "libjpeg decodes it to an unexpected size or colour layout")
        }
        let offset = (columns.lowerBound - Int(first)) * 3
        if rows.lowerBound > 0 {
            let skipped = memora_jpeg_skip(reader, JDIMENSION(rows.lowerBound))
            guard skipped >= 0 else { throw failure(reader, source: source) }
            guard skipped == rows.lowerBound else { throw .truncated(source: source, detail: "the image data ends before row \(rows.lowerBound)") }
        }
        // A few rows at a time: libjpeg works in bands of up to 16 rows.
        let band = 16, stride = Int(count) * 3
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: band * stride)
        defer { buffer.deallocate() }
        var pointers = (0..<band).map { Optional(buffer + $0 * stride) }
        var next = rows.lowerBound
        while next < rows.upperBound {
            let wanted = min(band, rows.upperBound - next)
            let got = pointers.withUnsafeMutableBufferPointer { memora_jpeg_read(reader, $0.baseAddress, JDIMENSION(wanted)) }
            guard got >= 0 else { throw failure(reader, source: source) }
            guard got > 0 else { throw .truncated(source: source, detail: "the image data ends before row \(next)") }
            for row in 0..<got { consume(buffer + row * stride + offset) }
            next += got
        }
        // Missing data is filled in by libjpeg with a warning; a photo cut short is an error.
        if reader.pointee.warnings > 0 {
            let message = lastMessage(reader)
            if message.lowercased().contains("premature end") { throw .truncated(source: source, detail: message) }
        }
    }

    /// The error libjpeg reported, as an `ImageError`.
    private static func failure(_ reader: UnsafeMutablePointer<memora_jpeg_reader>, source: String) -> ImageError {
        let message = lastMessage(reader)
        let lowered = message.lowercased()
        if lowered.contains("premature end") || lowered.contains("ran out of input") {
            return .truncated(source: source, detail: message)
        }
        return .corrupt(source: source, detail: message)
    }

    /// The last message libjpeg formatted (an error or a warning).
    private static func lastMessage(_ reader: UnsafeMutablePointer<memora_jpeg_reader>) -> String {
        withUnsafeBytes(of: &reader.pointee.message) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
