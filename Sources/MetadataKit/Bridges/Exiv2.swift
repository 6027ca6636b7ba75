// The one file that imports CExiv2: it turns the bridge's tag lists and error
// structs into Swift values.
internal import CExiv2


/// One edit of an XMP packet, applied by libexiv2's XMP toolkit.
enum XMPEdit: Sendable, Hashable {
    /// Sets one language item of a language alternative, keeping the others.
    case setLanguageItem(key: String, language: String, value: String)
    /// Removes one language item (the property when it was the last).
    case removeLanguageItem(key: String, language: String)
    /// Sets a simple text property.
    case setText(key: String, value: String)
    /// Removes a property and its children; a key ending in `*` removes every key with that prefix.
    case remove(key: String)
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
        try bytes.withUnsafeBytes { buffer in Result { () throws(MetadataError) in try readTags(memory: buffer, source: source) } }.get()
    }

    /// Every EXIF, IPTC and XMP tag in an image held in memory that libexiv2 reads in place (a
    /// large TIFF's metadata in sparse memory: libexiv2 follows the offsets and never copies it).
    static func readTags(memory: UnsafeRawBufferPointer, source: String) throws(MetadataError) -> (mimeType: String, tags: [MetadataTag]) {
        var error = cexiv2_error()
        let list = cexiv2_read_memory(memory.baseAddress?.assumingMemoryBound(to: UInt8.self), memory.count, &error)
        return try collect(list, error: error, source: source)
    }

    /// The tags of a bare EXIF TIFF block and XMP packet (from a HEIF or AVIF file, whose
    /// container MetadataKit parses itself), reported with `mimeType`.
    static func readTags(tiff: [UInt8]?, xmp: [UInt8]?, mimeType: String, source: String) throws(MetadataError) -> (mimeType: String, tags: [MetadataTag]) {
        var error = cexiv2_error()
        let tiff = tiff ?? []
        let xmp = xmp ?? []
        let list = tiff.withUnsafeBufferPointer { tiffBuffer in
            xmp.withUnsafeBufferPointer { xmpBuffer in
                xmpBuffer.withMemoryRebound(to: CChar.self) {
                    cexiv2_read_blocks(tiffBuffer.baseAddress, tiffBuffer.count, $0.baseAddress, $0.count, mimeType, &error)
                }
            }
        }
        return try collect(list, error: error, source: source)
    }

    /// The properties of an XMP packet.
    static func readXMP(_ packet: [UInt8], source: String) throws(MetadataError) -> [MetadataTag] {
        var error = cexiv2_error()
        let list = packet.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { cexiv2_xmp_read($0.baseAddress, $0.count, &error) }
        }
        return try collect(list, error: error, source: source).tags
    }

    /// `packet` (empty for a new one) with `edits` applied, serialised by the XMP toolkit.
    static func applyXMP(_ packet: [UInt8], edits: [XMPEdit], source: String) throws(MetadataError) -> [UInt8] {
        var error = cexiv2_error()
        // Keep every C string alive for the duration of the call.
        let strings: [(key: [CChar], language: [CChar], value: [CChar], operation: cexiv2_xmp_operation)] = edits.map { edit in
            switch edit {
            case .setLanguageItem(let key, let language, let value):
                (Array(key.utf8CString), Array(language.utf8CString), Array(value.utf8CString), CEXIV2_XMP_SET_LANGUAGE_ITEM)
            case .removeLanguageItem(let key, let language):
                (Array(key.utf8CString), Array(language.utf8CString), [0], CEXIV2_XMP_REMOVE_LANGUAGE_ITEM)
            case .setText(let key, let value):
                (Array(key.utf8CString), [0], Array(value.utf8CString), CEXIV2_XMP_SET_TEXT)
            case .remove(let key):
                (Array(key.utf8CString), [0], [0], CEXIV2_XMP_REMOVE)
            }
        }
        let result: UnsafeMutablePointer<CChar>? = withCStringEdits(strings, index: 0, built: []) { cEdits in
            packet.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { chars in
                    cEdits.withUnsafeBufferPointer { cexiv2_xmp_apply(chars.baseAddress, chars.count, $0.baseAddress, $0.count, &error) }
                }
            }
        }
        guard let result else { throw .xmpRejected(source: source, reason: message(error), libraryCode: libraryCode(error)) }
        defer { cexiv2_free(result) }
        return Array(String(cString: result).utf8)
    }

    /// Builds the C edit structs with pointers that stay valid inside `body` (recursion keeps each array pinned).
    private static func withCStringEdits<Result>(
        _ strings: [(key: [CChar], language: [CChar], value: [CChar], operation: cexiv2_xmp_operation)], index: Int,
        built: [cexiv2_xmp_edit], _ body: ([cexiv2_xmp_edit]) -> Result
    ) -> Result {
        guard index < strings.count else { return body(built) }
        let entry = strings[index]
        return entry.key.withUnsafeBufferPointer { key in
            entry.language.withUnsafeBufferPointer { language in
                entry.value.withUnsafeBufferPointer { value in
                    let edit = cexiv2_xmp_edit(operation: entry.operation, key: key.baseAddress, language: language.baseAddress, value: value.baseAddress)
                    return withCStringEdits(strings, index: index + 1, built: built + [edit], body)
                }
            }
        }
    }

    /// libexiv2's own error code, when libexiv2 raised the error.
    private static func libraryCode(_ error: cexiv2_error) -> Int32? {
        error.status == CEXIV2_ERROR_EXIV2 ? Int32(error.exiv2_code) : nil
    }

    private static func message(_ error: cexiv2_error) -> String {
        let text = withUnsafeBytes(of: error.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if text.isEmpty { return "libexiv2 could not read the metadata" }
        // libexiv2 reads an EXIF block as TIFF data: in a PNG, WebP or JPEG this means the block is damaged.
        if text.contains("does not look like a TIFF image") { return "its EXIF data is damaged (libexiv2: \(text))" }
        return text
    }

    private static func collect(_ list: OpaquePointer?, error: cexiv2_error, source: String) throws(MetadataError) -> (mimeType: String, tags: [MetadataTag]) {
        guard let list else { throw .unreadable(source: source, reason: message(error), libraryCode: libraryCode(error)) }
        defer { cexiv2_tag_list_free(list) }
        var tags: [MetadataTag] = []
        let count = cexiv2_tag_count(list)
        tags.reserveCapacity(count)
        for index in 0..<count {
            let family: MetadataTag.Family
            switch cexiv2_tag_family(list, index) {
            case CEXIV2_FAMILY_IPTC: family = .iptc
            case CEXIV2_FAMILY_XMP: family = .xmp
            default: family = .exif
            }
            var length = 0
            let raw = cexiv2_tag_bytes(list, index, &length)
            tags.append(MetadataTag(
                family: family,
                key: String(cString: cexiv2_tag_key(list, index)),
                typeName: String(cString: cexiv2_tag_type(list, index)),
                value: String(cString: cexiv2_tag_value(list, index)),
                language: String(cString: cexiv2_tag_language(list, index)),
                rawBytes: raw.map { Array(UnsafeBufferPointer(start: $0, count: length)) } ?? []))
        }
        return (String(cString: cexiv2_tag_list_mime_type(list)), tags)
    }
}
