import Foundation
internal import MemoraSystem

/// What to write.
public struct CaptionUpdate: Sendable, Hashable {
    /// The caption (a description of the photo) for XMP `dc:description`, EXIF `ImageDescription`
    /// and IPTC `Caption-Abstract`.
    public var caption: String
    /// Short alternative text for `Iptc4xmpCore:AltTextAccessibility`, when given.
    public var altText: String?

    /// Creates an update.
    public init(caption: String, altText: String? = nil) {
        self.caption = caption
        self.altText = altText
    }
}
