/// The captions of one photo, with the one Memora uses and the one MWG would use.
public struct CaptionReading: Sendable, Hashable, Codable {
    /// The caption Memora uses: XMP, then EXIF, then IPTC (the seed's priority), camera boilerplate skipped.
    public var caption: String?
    /// Where `caption` came from.
    public var source: CaptionSource?
    /// Whether there is a real caption.
    public var hasCaption: Bool { caption != nil }
    /// XMP `dc:description` (`x-default`, else the first language).
    public var xmp: String?
    /// EXIF `ImageDescription`.
    public var exif: String?
    /// IPTC `Caption-Abstract`.
    public var iptc: String?
    /// Values that were ignored as camera boilerplate, by source.
    public var boilerplate: [CaptionSource: String]
    /// The source the Metadata Working Group's reconciliation would choose (see Docs/Metadata.md).
    public var mwgSource: CaptionSource?
    /// Whether the copies that are present (boilerplate aside) say different things.
    public var copiesDisagree: Bool
    /// IPTC `Iptc4xmpCore:AltTextAccessibility` (`x-default`, else the first language).
    public var altText: String?
    /// IPTC `Iptc4xmpCore:ExtDescrAccessibility`.
    public var extendedDescription: String?
    /// Memora's mark of a basic description (`memora:BasicDescription`): the caption it was written with.
    public var basicDescription: String?
    /// Where the caption came from (`memora:CaptionSource`), when Memora wrote it: the model, or
    /// Memora's on-device models, and when.
    public var captionSource: String? = nil

    /// Whether the caption is Memora's basic description (measured, not written by a model or a
    /// person): the mark is there and still holds the caption, so a caption another program wrote
    /// over it (keeping the mark) is not taken for one.
    public var isBasicDescription: Bool {
        guard let caption, let basicDescription else { return false }
        return basicDescription.trimmingCharacters(in: .whitespacesAndNewlines) == caption
    }
}
