internal import MemoraSystem

/// The container formats MetadataKit reads and writes itself, detected once from the file's
/// first bytes by the system layer's one sniffer (``FileFormat``); other formats go to libexiv2 whole.
enum MetadataContainer: Sendable, Hashable {
    case jpeg, png, tiff, webp, heif

    /// The container of the file starting with `bytes`, or nil when MetadataKit does not write that format.
    init?(_ bytes: some Collection<UInt8>) {
        switch FileFormat.detect(bytes) {
        case .jpeg: self = .jpeg
        case .png: self = .png
        case .tiff: self = .tiff
        case .webp: self = .webp
        case .heic, .avif, .heif: self = .heif
        case .gif, .bigTIFF: return nil
        case nil:
            // An ISO-BMFF file with brands the sniffer does not list is still tried as HEIF: its boxes decide.
            guard HEIFFile.looksLikeBMFF(Array(bytes.prefix(FileFormat.headLength))) else { return nil }
            self = .heif
        }
    }

    /// Its editor.
    var editor: any MetadataEditor.Type {
        switch self {
        case .jpeg: JPEGCaptionEditor.self
        case .png: PNGCaptionEditor.self
        case .tiff: TIFFCaptionEditor.self
        case .webp: WebPCaptionEditor.self
        case .heif: HEIFCaptionEditor.self
        }
    }

    /// How a snapshot of it is kept: JPEG segments, PNG chunks, or the whole file.
    var snapshotContainer: MetadataSnapshot.Container {
        switch self {
        case .jpeg: .jpeg
        case .png: .png
        case .tiff, .webp, .heif: .other
        }
    }

    /// The format's name in a message ("TIFF/DNG"), for any file.
    static func name(of bytes: some Collection<UInt8>) -> String {
        switch FileFormat.detect(bytes) {
        case .jpeg: "JPEG"
        case .png: "PNG"
        case .webp: "WebP"
        case .tiff: "TIFF/DNG"
        case .bigTIFF: "BigTIFF"
        case .gif: "GIF"
        case .heic, .avif, .heif: "HEIF/AVIF"
        case nil: "this kind of"
        }
    }
}
