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
    /// The value rendered as text by libexiv2 (one entry per language or array item for XMP).
    public var value: String
    /// The language of an XMP language-alternative item (`x-default`, `de`...), else empty.
    public var language: String
    /// The stored bytes (EXIF and IPTC: raw, so their character set can be decoded; XMP: UTF-8).
    public var rawBytes: [UInt8]
}
