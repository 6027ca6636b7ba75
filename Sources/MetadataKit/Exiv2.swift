// The one file that imports CExiv2: it turns the bridge's tag lists and error
// structs into Swift values.
internal import CExiv2

/// One metadata property as libexiv2 reads it.
public struct MetadataTag: Sendable, Hashable, Codable {
    /// Which metadata family the tag comes from.
    public enum Family: String, Sendable, Hashable, Codable, CaseIterable {
        case exif, iptc, xmp
    }

    /// The family: EXIF, IPTC or XMP.
    public var family: Family
    /// libexiv2's key, for example `Exif.Image.ImageDescription` or `Xmp.dc.description`.
    public var key: String
    /// libexiv2's type name, for example `Ascii` or `LangAlt`.
    public var typeName: String
    /// The value rendered as text by libexiv2.
    public var value: String
}

/// Thin Swift wrapper over the CExiv2 bridge.
enum Exiv2 {
    /// The libexiv2 version in use, for example "0.27.6".
    static var version: String { String(cString: cexiv2_version()) }

    /// Every EXIF, IPTC and XMP tag in the file at `path`, and the detected MIME type.
    static func readTags(path: String) throws(MetadataError) -> (mimeType: String, tags: [MetadataTag]) {
        var error = cexiv2_error()
        let list = cexiv2_read_file(path, &error)
        return try collect(list, error: error, source: path)
    }

    /// Every EXIF, IPTC and XMP tag in an image held in memory.
    static func readTags(bytes: [UInt8], source: String) throws(MetadataError) -> (mimeType: String, tags: [MetadataTag]) {
        var error = cexiv2_error()
        let list = bytes.withUnsafeBufferPointer { cexiv2_read_memory($0.baseAddress, $0.count, &error) }
        return try collect(list, error: error, source: source)
    }

    private static func collect(_ list: OpaquePointer?, error: cexiv2_error, source: String) throws(MetadataError) -> (mimeType: String, tags: [MetadataTag]) {
        guard let list else {
            let message = withUnsafeBytes(of: error.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            throw .unreadable(source: source, reason: message.isEmpty ? "libexiv2 could not read the file" : message)
        }
        defer { cexiv2_tag_list_free(list) }
        var tags: [MetadataTag] = []
        for index in 0..<cexiv2_tag_count(list) {
            let family: MetadataTag.Family
            switch cexiv2_tag_family(list, index) {
            case CEXIV2_FAMILY_IPTC: family = .iptc
            case CEXIV2_FAMILY_XMP: family = .xmp
            default: family = .exif
            }
            tags.append(MetadataTag(
                family: family,
                key: String(cString: cexiv2_tag_key(list, index)),
                typeName: String(cString: cexiv2_tag_type(list, index)),
                value: String(cString: cexiv2_tag_value(list, index))))
        }
        return (String(cString: cexiv2_tag_list_mime_type(list)), tags)
    }
}
