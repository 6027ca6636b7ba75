/// How ImageKit encodes a HEIF file (HEIC with HEVC, or AVIF with AV1) through libheif.
/// No EXIF or XMP is written.
public struct HEIFEncodingOptions: Sendable, Hashable {
    /// The codec inside the HEIF container.
    public enum Codec: String, Sendable, Hashable, CaseIterable {
        /// HEVC (H.265): a `.heic` file, what iPhones write.
        case hevc
        /// AV1: an `.avif` file.
        case av1
    }

    /// The codec inside the HEIF container.
    public var codec: Codec
    /// Quality in 0...1 (mapped to libheif's 0...100).
    public var quality: Double

    /// Creates HEIF options; HEVC at quality 0.8 by default.
    public init(codec: Codec = .hevc, quality: Double = 0.8) {
        self.codec = codec
        self.quality = quality
    }
}
