/// Lists every EXIF, IPTC and XMP property of an image, through libexiv2.
///
/// This is the raw layer under the caption reader; it reports what is stored,
/// without interpreting it.
public enum MetadataTagReader {
    /// The libexiv2 version MetadataKit runs on.
    public static var libraryVersion: String { Exiv2.version }

    /// Every tag in the file at `path`.
    public static func tags(contentsOf path: String) throws(MetadataError) -> [MetadataTag] {
        try Exiv2.readTags(path: path).tags
    }

    /// Every tag in an image held in memory; `source` names it in errors.
    public static func tags(in bytes: [UInt8], source: String = "image") throws(MetadataError) -> [MetadataTag] {
        try Exiv2.readTags(bytes: bytes, source: source).tags
    }
}

/// A fast scan of EXIF IFD0 through libexif, for indexing many files.
public enum EXIFQuickScan {
    /// IFD0 entries of the EXIF block in a JPEG held in memory, by libexif tag name
    /// (for example `ImageDescription`, `Orientation`, `Make`); empty when there is no EXIF.
    public static func ifd0(in bytes: [UInt8]) -> [String: String] {
        LibExif.ifd0Entries(in: bytes)
    }
}
