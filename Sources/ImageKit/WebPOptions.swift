/// How ImageKit encodes a WebP. No EXIF, XMP or ICC chunk is written.
public struct WebPEncodingOptions: Sendable, Hashable {
    /// 0...1 for lossy encoding (libwebp's quality is `quality * 100`); ignored when lossless.
    public var quality: Double
    /// Lossless (VP8L) instead of lossy (VP8) encoding.
    public var lossless: Bool

    /// Creates WebP options; the default is lossy at quality 0.8.
    public init(quality: Double = 0.8, lossless: Bool = false) {
        self.quality = quality
        self.lossless = lossless
    }

    /// libwebp's quality factor, 0...100 (values outside 0...1 are clamped; not finite: 0.8).
    var libwebpQuality: Float {
        Float((quality.isFinite ? min(max(quality, 0), 1) : 0.8) * 100)
    }
}
