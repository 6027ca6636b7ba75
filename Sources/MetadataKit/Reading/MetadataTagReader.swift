/// Lists every EXIF, IPTC and XMP property of an image, through libexiv2.
///
/// This is the raw layer under the caption reader; it reports what is stored,
/// without interpreting it.
public enum MetadataTagReader {
    /// The libexiv2 version MetadataKit runs on.
    public static var libraryVersion: String { Exiv2.version }

    /// Every tag in the file at `path`.
    public static func tags(contentsOf path: String) throws(MetadataError) -> [MetadataTag] {
        try read(FileAccess.read(path), source: path).tags
    }

    /// Every tag in an image held in memory; `source` names it in errors.
    public static func tags(in bytes: [UInt8], source: String = "image") throws(MetadataError) -> [MetadataTag] {
        try read(bytes, source: source).tags
    }

    /// Every tag and the MIME type. HEIF and AVIF items are found by MetadataKit's own box
    /// parser (libexiv2 0.27.6 misreads item locations that use base offsets with
    /// `iloc` version 1, as libheif writes them) and only their contents go to libexiv2;
    /// everything else, and any HEIF-like file the parser (or a block's parser) declines, goes
    /// to libexiv2 whole.
    static func read(_ bytes: [UInt8], source: String) throws(MetadataError) -> (mimeType: String, tags: [MetadataTag]) {
        if MetadataContainer(bytes) == .heif, let heif = try? HEIFFile(bytes, source: source),
           let (tiff, xmp) = try? (heif.exifTIFF(), heif.metadataItem(.xmp)?.data),
           let tags = try? Exiv2.readTags(tiff: tiff, xmp: xmp, mimeType: heif.mimeType, source: source) {
            return tags
        }
        guard !bytes.isEmpty else { throw .unreadable(source: source, reason: "the file is empty") }
        return try Exiv2.readTags(bytes: bytes, source: source)
    }
}
