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
}
