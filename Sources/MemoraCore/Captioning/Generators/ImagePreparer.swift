import Foundation
public import ImageKit

/// How large the photo sent to a model is.
public enum PreparationProfile: Sendable, Hashable, Codable {
    /// Small on-device models: the upright photo scaled to fit inside 384x384 (aspect kept).
    case onDevice
    /// Cloud models: at most 1024 pixels on the long side.
    case cloud
    /// A custom long side, in pixels.
    case longSide(Int)

    /// The long side limit in pixels.
    public var longSide: Int {
        switch self {
        case .onDevice: 384
        case .cloud: 1024
        case .longSide(let pixels): pixels
        }
    }
}

/// A photo ready to send to a model: upright, resized, re-encoded as a JPEG that
/// carries no metadata at all (no EXIF, XMP, IPTC, GPS or camera data).
public struct PreparedImage: Sendable, Hashable {
    /// The JPEG bytes.
    public var jpeg: [UInt8]
    /// Its width in pixels.
    public var width: Int
    /// Its height in pixels.
    public var height: Int

    /// The JPEG as base64, as the providers expect it.
    public var base64: String { Data(jpeg).base64EncodedString() }
    /// The JPEG as a `data:` URI (OpenAI's `image_url`).
    public var dataURI: String { "data:image/jpeg;base64," + base64 }
}

/// Loads, orients, resizes and re-encodes photos for the models (the seed's pre-processing).
public enum ImagePreparer {
    /// The JPEG quality of prepared images.
    public static let quality = 0.85

    /// Prepares the photo at `path` for `profile`.
    public static func prepare(path: String, profile: PreparationProfile) throws(MemoraError) -> PreparedImage {
        do {
            let image = try ImageDecoder.thumbnail(
                contentsOf: path, maxPixelSize: profile.longSide, options: DecodingOptions(applyOrientation: true))
            return try prepare(image)
        } catch {
            throw .imageUnreadable(path: path, reason: error.reason)
        }
    }

    /// Encodes an already decoded, upright and resized image.
    public static func prepare(_ image: Image) throws(ImageError) -> PreparedImage {
        let bytes = try ImageEncoder.encode(image, as: .jpeg(JPEGEncodingOptions(quality: quality)))
        return PreparedImage(jpeg: bytes, width: image.width, height: image.height)
    }
}
