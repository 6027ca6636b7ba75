/// A fast scan of EXIF IFD0 through libexif, for indexing many files and the benchmark
/// (package-scoped: a front end reads photos with ``MetadataReader``).
package enum EXIFQuickScan {
    /// IFD0 entries of the EXIF block in a JPEG held in memory, by libexif tag name
    /// (for example `ImageDescription`, `Orientation`, `Make`); empty when there is no EXIF.
    package static func ifd0(in bytes: [UInt8]) -> [String: String] {
        LibExif.ifd0Entries(in: bytes)
    }
}
