/// A target format with its encoding options.
public enum EncodingFormat: Sendable, Hashable {
    /// JPEG through libturbojpeg.
    case jpeg(JPEGEncodingOptions = JPEGEncodingOptions())
    /// PNG through libpng.
    case png(PNGEncodingOptions = PNGEncodingOptions())
    /// HEIC or AVIF through libheif.
    case heif(HEIFEncodingOptions = HEIFEncodingOptions())
    /// WebP (lossy or lossless, still) through libwebp.
    case webp(WebPEncodingOptions = WebPEncodingOptions())
}

/// Encodes ``Image`` values; the output never carries metadata (no EXIF, XMP or GPS).
public enum ImageEncoder {
    /// The encoded bytes of `image`.
    public static func encode(_ image: Image, as format: EncodingFormat) throws(ImageError) -> [UInt8] {
        switch format {
        case .jpeg(let options): try TurboJPEG.encode(image, options: options)
        case .png(let options): try LibPNG.encode(image, options: options)
        case .heif(let options): try LibHeif.encode(image, options: options)
        case .webp(let options): try LibWebP.encode(image, options: options)
        }
    }

    /// Encodes `image` and writes it to `path` atomically: a reader sees the old
    /// file or the complete new one, never a partial file. Without `replacingExisting`, an existing
    /// file at `path` is left as it is and `outputExists` is thrown (the check is made again when
    /// the file is put in place, so a file that appears meanwhile is not replaced either).
    public static func write(_ image: Image, to path: String, as format: EncodingFormat, replacingExisting: Bool = true) throws(ImageError) {
        try FileIO.writeAtomically(encode(image, as: format), to: path, replacingExisting: replacingExisting)
    }

    /// Whether this machine's libheif can encode `codec` (HEVC needs x265, AV1 needs aom or rav1e).
    public static func canEncodeHEIF(_ codec: HEIFEncodingOptions.Codec) -> Bool {
        LibHeif.canEncode(codec)
    }
}
