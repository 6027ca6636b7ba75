public import Foundation

/// Where a caption was found.
public enum CaptionSource: String, Sendable, Hashable, Codable, CaseIterable {
    /// XMP `dc:description`.
    case xmp
    /// EXIF IFD0 `ImageDescription`.
    case exif
    /// IPTC-IIM `Caption-Abstract` (2:120).
    case iptc
}

/// The captions of one photo, with the one Memora uses and the one MWG would use.
public struct CaptionReading: Sendable, Hashable, Codable {
    /// The caption Memora uses: XMP, then EXIF, then IPTC (the seed's priority), camera boilerplate skipped.
    public var caption: String?
    /// Where `caption` came from.
    public var source: CaptionSource?
    /// Whether there is a real caption.
    public var hasCaption: Bool { caption != nil }
    /// XMP `dc:description` (`x-default`, else the first language).
    public var xmp: String?
    /// EXIF `ImageDescription`.
    public var exif: String?
    /// IPTC `Caption-Abstract`.
    public var iptc: String?
    /// Values that were ignored as camera boilerplate, by source.
    public var boilerplate: [CaptionSource: String]
    /// The source the Metadata Working Group's reconciliation would choose (see Docs/Metadata.md).
    public var mwgSource: CaptionSource?
    /// Whether the copies that are present (boilerplate aside) say different things.
    public var copiesDisagree: Bool
    /// IPTC `Iptc4xmpCore:AltTextAccessibility` (`x-default`, else the first language).
    public var altText: String?
    /// IPTC `Iptc4xmpCore:ExtDescrAccessibility`.
    public var extendedDescription: String?
}

/// A date taken, as precise as the file says.
public struct CaptureDate: Sendable, Hashable, Codable {
    /// The instant, interpreted in `utcOffsetSeconds` when known, else in UTC.
    public var date: Date
    /// The offset from UTC the photo was taken in, when the file records it.
    public var utcOffsetSeconds: Int?
    /// The field it came from, for example `Exif.Photo.DateTimeOriginal`.
    public var source: String
}

/// A GPS position.
public struct GPSPosition: Sendable, Hashable, Codable {
    /// Degrees north (negative: south).
    public var latitude: Double
    /// Degrees east (negative: west).
    public var longitude: Double
    /// Metres above sea level, when recorded.
    public var altitude: Double?
}

/// A named region (MWG `mwg-rs:Regions`), normalised to 0...1 with the origin at the top left.
public struct FaceRegion: Sendable, Hashable, Codable {
    /// The person's name, when given.
    public var name: String?
    /// `Face`, `Pet`, `Focus`...
    public var type: String?
    /// Left edge (0...1).
    public var x: Double
    /// Top edge (0...1).
    public var y: Double
    /// Width (0...1).
    public var width: Double
    /// Height (0...1).
    public var height: Double
}

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
}

/// A place as the photo's IPTC location fields name it (XMP first, then IIM).
public struct PlaceName: Sendable, Hashable, Codable {
    /// `Iptc4xmpCore:Location` / IIM 2:92 Sub-location (a landmark or district).
    public var sublocation: String?
    /// `photoshop:City` / IIM 2:90.
    public var city: String?
    /// `photoshop:State` / IIM 2:95 Province-State.
    public var state: String?
    /// `photoshop:Country` / IIM 2:101.
    public var country: String?

    /// The most specific names joined for display, for example "Montmartre, Paris, France".
    public var displayName: String {
        var parts: [String] = []
        for part in [sublocation, city, state, country].compactMap({ $0 }) where !parts.contains(part) { parts.append(part) }
        return parts.joined(separator: ", ")
    }
}
