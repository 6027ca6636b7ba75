public import Foundation

/// What a write replaced, so ``CaptionWriter/restore(_:to:)`` can put it back exactly,
/// including "there was no caption". For JPEG it holds the original EXIF, XMP and
/// Photoshop (IPTC) segments byte for byte.
public struct MetadataSnapshot: Sendable, Hashable, Codable {
    /// The file the snapshot was taken from.
    public var path: String
    /// The original metadata segments, in file order: marker and payload.
    public var segments: [Segment]
    /// A fingerprint of the image data, so a restore never lands on another picture.
    public var imageDigest: Data
    /// When the write happened.
    public var date: Date

    /// The `marker` of a saved JPEG FotoStation trailer (0 is not a JPEG segment marker).
    public static let fotoStationMarker: UInt8 = 0
    /// The `marker` of a saved JPEG AFCP trailer (1, TEM, is a standalone marker, never a saved segment).
    public static let afcpMarker: UInt8 = 1

    /// One saved segment.
    public struct Segment: Sendable, Hashable, Codable {
        /// The JPEG marker (0xE1 for EXIF and XMP, 0xED for Photoshop; ``MetadataSnapshot/fotoStationMarker``
        /// for a FotoStation trailer, ``MetadataSnapshot/afcpMarker`` for an AFCP trailer), or 0xFF for a whole-file snapshot (TIFF, WebP, HEIF).
        public var marker: UInt8
        /// The payload, as it was.
        public var payload: Data
        /// Its index among the file's segments (JPEG) when it was saved, so a restore puts it back in place.
        public var position: Int?
    }
}
