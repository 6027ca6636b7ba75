import Foundation

/// Everything MetadataKit reads from a photo.
public struct PhotoMetadata: Sendable, Hashable, Codable {
    /// The file's MIME type as libexiv2 detected it.
    public var mimeType: String
    /// The captions.
    public var captions: CaptionReading
    /// XMP `dc:title` or IPTC `ObjectName`, or Windows `XPTitle`.
    public var title: String?
    /// XMP `dc:subject` or IPTC `Keywords`, or Windows `XPKeywords`.
    public var keywords: [String]
    /// When the photo was taken.
    public var dateTaken: CaptureDate?
    /// Where it was taken.
    public var gps: GPSPosition?
    /// EXIF orientation, 1...8.
    public var orientation: Int?
    /// Pixel width as the file's structure declares it (JPEG frame header, PNG `IHDR`, WebP
    /// canvas, HEIF `ispe`, TIFF IFD0), else EXIF's `PixelXDimension`; as stored, before rotation.
    public var pixelWidth: Int?
    /// Pixel height, from the same place as ``pixelWidth``.
    public var pixelHeight: Int?
    /// Camera make.
    public var make: String?
    /// Camera model.
    public var model: String?
    /// XMP rating, -1...5.
    public var rating: Int?
    /// Windows `XPComment` (UCS-2LE).
    public var windowsComment: String?
    /// Windows `XPTitle` (UCS-2LE).
    public var windowsTitle: String?
    /// `Iptc4xmpExt:PersonInImage` and the names of MWG regions, without duplicates.
    public var people: [String]
    /// MWG regions (faces and others).
    public var regions: [FaceRegion]
    /// The place names the photo carries (IPTC Core location fields), when any.
    public var place: PlaceName? = nil
    /// EXIF `UserComment`, else XMP `exif:UserComment`: free text, which iOS and macOS set to
    /// "Screenshot" on the screenshots they take. Nil when empty.
    public var userComment: String? = nil
}
