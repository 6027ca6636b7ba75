/// A DCT scaling factor for JPEG decoding: libjpeg-turbo decodes straight to a
/// smaller size, which is several times faster than decoding and then shrinking.
public enum JPEGScale: Int, Sendable, Hashable, CaseIterable, Codable {
    /// Full size.
    case full = 1
    /// 1/2 of each side.
    case half = 2
    /// 1/4 of each side.
    case quarter = 4
    /// 1/8 of each side.
    case eighth = 8

    /// The size a side of `length` pixels decodes to (rounded up, as libjpeg does).
    public func scaled(_ length: Int) -> Int { (length + rawValue - 1) / rawValue }

    /// The smallest scale whose decoded long side is still at least `longSide` pixels.
    public static func fitting(width: Int, height: Int, longSide: Int) -> JPEGScale {
        let longest = max(width, height)
        return [.eighth, .quarter, .half].first { $0.scaled(longest) >= longSide } ?? .full
    }
}

/// How ImageKit encodes a JPEG. The encoder writes no metadata at all (no EXIF,
/// no XMP, no ICC profile), so nothing about the original photo leaks through it.
public struct JPEGEncodingOptions: Sendable, Hashable {
    /// The colour model stored in the file.
    public enum ColorModel: String, Sendable, Hashable, CaseIterable {
        /// YCbCr colour, the usual choice.
        case color
        /// One luminance channel.
        case grayscale
        /// Adobe-style (inverted) CMYK, as Photoshop writes it; mostly useful for tests and print.
        case cmyk
    }

    /// Chroma subsampling for colour JPEGs.
    public enum ChromaSubsampling: String, Sendable, Hashable, CaseIterable {
        /// No subsampling (best quality, larger files).
        case none444
        /// Half horizontal resolution.
        case half422
        /// Half horizontal and vertical resolution (what cameras write).
        case quarter420
    }

    /// Quality in 0...1, the Apple convention (`kCGImageDestinationLossyCompressionQuality`);
    /// libjpeg's quality is `quality * 100` rounded, at least 1 (values outside 0...1 are clamped).
    public var quality: Double
    /// Write a progressive JPEG instead of a baseline one.
    public var progressive: Bool
    /// The colour model stored in the file.
    public var colorModel: ColorModel
    /// Chroma subsampling (ignored for grayscale).
    public var chromaSubsampling: ChromaSubsampling
    /// The colour RGBA images are composited onto (JPEG has no alpha).
    public var background: RGBAColor

    /// Creates encoding options; the defaults suit photos (quality 0.85, baseline, 4:2:0).
    public init(
        quality: Double = 0.85, progressive: Bool = false, colorModel: ColorModel = .color,
        chromaSubsampling: ChromaSubsampling = .quarter420, background: RGBAColor = .white
    ) {
        self.quality = quality
        self.progressive = progressive
        self.colorModel = colorModel
        self.chromaSubsampling = chromaSubsampling
        self.background = background
    }

    /// The libjpeg quality, 1...100.
    var libjpegQuality: Int32 {
        let clamped = quality.isFinite ? min(max(quality, 0), 1) : 0.85
        return Int32(max(1, (clamped * 100).rounded()))
    }
}
