public import Foundation

/// A date taken, as precise as the file says.
public struct CaptureDate: Sendable, Hashable, Codable {
    /// The instant, interpreted in `utcOffsetSeconds` when known, else in UTC.
    public var date: Date
    /// The offset from UTC the photo was taken in, when the file records it.
    public var utcOffsetSeconds: Int?
    /// The field it came from, for example `Exif.Photo.DateTimeOriginal`.
    public var source: String
}
