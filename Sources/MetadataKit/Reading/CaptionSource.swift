/// Where a caption was found.
public enum CaptionSource: String, Sendable, Hashable, Codable, CaseIterable {
    /// XMP `dc:description`.
    case xmp
    /// EXIF IFD0 `ImageDescription`.
    case exif
    /// IPTC-IIM `Caption-Abstract` (2:120).
    case iptc
}
