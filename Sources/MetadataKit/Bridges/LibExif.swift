// The one file that imports CExif: libexif's ExifData becomes Swift values here.
// libexif parses EXIF faster than libexiv2 and is used for quick scans.
internal import CExif

/// Thin Swift wrapper over libexif's parser.
enum LibExif {
    /// The IFD0 entries of the EXIF block in a JPEG (or a bare `Exif\0\0` block),
    /// keyed by libexif's tag name, values rendered as libexif renders them.
    /// Returns an empty dictionary when there is no EXIF.
    static func ifd0Entries(in bytes: [UInt8]) -> [String: String] {
        guard !bytes.isEmpty else { return [:] }
        let data = bytes.withUnsafeBufferPointer { exif_data_new_from_data($0.baseAddress, UInt32(min($0.count, Int(UInt32.max)))) }
        guard let data else { return [:] }
        defer { exif_data_unref(data) }
        guard let content = data.pointee.ifd.0 else { return [:] }
        var entries: [String: String] = [:]
        var buffer = [CChar](repeating: 0, count: 1024)
        for index in 0..<Int(content.pointee.count) {
            guard let entry = content.pointee.entries[index] else { continue }
            guard let name = exif_tag_get_name_in_ifd(entry.pointee.tag, EXIF_IFD_0) else { continue }
            let value = buffer.withUnsafeMutableBufferPointer { raw -> String in
                guard let text = exif_entry_get_value(entry, raw.baseAddress, UInt32(raw.count)) else { return "" }
                return String(cString: text)
            }
            entries[String(cString: name)] = value
        }
        return entries
    }

    /// The EXIF fields `MetadataReader` interprets, parsed by libexif (several times faster than
    /// libexiv2 on camera EXIF, which decodes every MakerNote tag) and named and formatted as
    /// libexiv2 reports them, so the same interpretation applies. `block` is `Exif\0\0` and a
    /// TIFF block. libexif's spec fixes are off: nothing is added or changed while reading.
    static func interpretedTags(inEXIF block: [UInt8]) -> [MetadataTag] {
        guard block.count > 14, let data = exif_data_new() else { return [] }
        defer { exif_data_unref(data) }
        exif_data_unset_option(data, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION)
        exif_data_unset_option(data, EXIF_DATA_OPTION_IGNORE_UNKNOWN_TAGS)
        block.withUnsafeBufferPointer { exif_data_load_data(data, $0.baseAddress, UInt32(min($0.count, Int(UInt32.max)))) }
        let order = exif_data_get_byte_order(data)
        var tags: [MetadataTag] = []
        for (ifd, table) in [(EXIF_IFD_0, interpretedIFD0), (EXIF_IFD_EXIF, interpretedExifIFD), (EXIF_IFD_GPS, interpretedGPS)] {
            let contents = data.pointee.ifd  // a C array of EXIF_IFD_COUNT content pointers, a tuple in Swift
            let pointer = withUnsafeBytes(of: contents) { $0.load(fromByteOffset: Int(ifd.rawValue) * MemoryLayout<UnsafeMutablePointer<ExifContent>?>.stride,
                                                               as: UnsafeMutablePointer<ExifContent>?.self) }
            guard let content = pointer else { continue }
            for index in 0..<Int(content.pointee.count) {
                guard let entry = content.pointee.entries[index]?.pointee, let key = table[UInt16(entry.tag.rawValue)],
                      let pointer = entry.data else { continue }
                let raw = Array(UnsafeBufferPointer(start: pointer, count: Int(entry.size)))
                tags.append(MetadataTag(family: .exif, key: key, typeName: "", value: exiv2Text(raw, format: entry.format, order: order), language: "", rawBytes: raw))
            }
        }
        return tags
    }

    private static let interpretedIFD0: [UInt16: String] = [
        0x010E: "Exif.Image.ImageDescription", 0x010F: "Exif.Image.Make", 0x0110: "Exif.Image.Model", 0x0112: "Exif.Image.Orientation",
        0x9C9B: "Exif.Image.XPTitle", 0x9C9C: "Exif.Image.XPComment", 0x9C9E: "Exif.Image.XPKeywords",
    ]
    private static let interpretedExifIFD: [UInt16: String] = [
        0x9003: "Exif.Photo.DateTimeOriginal", 0x9011: "Exif.Photo.OffsetTimeOriginal", 0x9286: "Exif.Photo.UserComment",
        0xA002: "Exif.Photo.PixelXDimension", 0xA003: "Exif.Photo.PixelYDimension",
    ]
    private static let interpretedGPS: [UInt16: String] = [
        0x0001: "Exif.GPSInfo.GPSLatitudeRef", 0x0002: "Exif.GPSInfo.GPSLatitude", 0x0003: "Exif.GPSInfo.GPSLongitudeRef",
        0x0004: "Exif.GPSInfo.GPSLongitude", 0x0005: "Exif.GPSInfo.GPSAltitudeRef", 0x0006: "Exif.GPSInfo.GPSAltitude",
    ]

    /// A value as libexiv2's `toString` writes it: ASCII up to its NUL, integers in decimal,
    /// rationals as `n/d`, several values separated by spaces.
    private static func exiv2Text(_ raw: [UInt8], format: ExifFormat, order: ExifByteOrder) -> String {
        func numbers(_ width: Int, _ read: (UnsafePointer<UInt8>) -> String) -> String {
            raw.withUnsafeBufferPointer { buffer in
                stride(from: 0, to: buffer.count - width + 1, by: width).map { read(buffer.baseAddress! + $0) }.joined(separator: " ")
            }
        }
        switch format {
        case EXIF_FORMAT_ASCII:
            return String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        case EXIF_FORMAT_SHORT: return numbers(2) { String(exif_get_short($0, order)) }
        case EXIF_FORMAT_SSHORT: return numbers(2) { String(exif_get_sshort($0, order)) }
        case EXIF_FORMAT_LONG: return numbers(4) { String(exif_get_long($0, order)) }
        case EXIF_FORMAT_SLONG: return numbers(4) { String(exif_get_slong($0, order)) }
        case EXIF_FORMAT_RATIONAL:
            return numbers(8) { let value = exif_get_rational($0, order); return "\(value.numerator)/\(value.denominator)" }
        case EXIF_FORMAT_SRATIONAL:
            return numbers(8) { let value = exif_get_srational($0, order); return "\(value.numerator)/\(value.denominator)" }
        default:
            return raw.map { String($0) }.joined(separator: " ")
        }
    }
}
