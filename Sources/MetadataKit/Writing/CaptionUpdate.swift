import Foundation
internal import MemoraSystem

/// What to write.
public struct CaptionUpdate: Sendable, Hashable {
    /// The caption (a description of the photo) for XMP `dc:description`, EXIF `ImageDescription`
    /// and IPTC `Caption-Abstract`.
    public var caption: String
    /// Short alternative text for `Iptc4xmpCore:AltTextAccessibility`, when given.
    public var altText: String?
    /// The longer description for `Iptc4xmpCore:ExtDescrAccessibility` (what the alt text leaves
    /// out), when given; when nil an existing one is removed (it described another caption).
    public var extendedDescription: String?
    /// Where the caption came from, for `memora:CaptionSource` (for example "ollama:llava 2026-11-27T10:00:00Z"
    /// or Memora's on-device models), so that any reader can tell a description a model wrote from
    /// one a person wrote; when nil an older source is removed (it described another caption).
    public var source: String?
    /// Whether the caption is Memora's basic description (measured, not written by a model or a
    /// person). It is marked in the file's XMP (`memora:BasicDescription`, holding the same text,
    /// see Docs/Metadata.md) so that any reader can tell, and a later real caption replaces it;
    /// any other caption write removes the mark.
    public var isBasicDescription: Bool

    /// Creates an update.
    public init(caption: String, altText: String? = nil, extendedDescription: String? = nil, source: String? = nil, isBasicDescription: Bool = false) {
        self.caption = caption
        self.altText = altText
        self.extendedDescription = extendedDescription
        self.source = source
        self.isBasicDescription = isBasicDescription
    }
}
