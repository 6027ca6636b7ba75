public import Foundation

/// A date taken, as precise as the file says.
public struct CaptureDate: Sendable, Hashable, Codable {
    /// The instant, interpreted in `utcOffsetSeconds` when known, else in UTC.
    public var date: Date
    /// The offset from UTC the photo was taken in, when the file records it.
    public var utcOffsetSeconds: Int?
    /// The field it came from, for example `Exif.Photo.DateTimeOriginal`.
    public var source: String

    /// A date taken.
    public init(date: Date, utcOffsetSeconds: Int? = nil, source: String) {
        self.date = date
        self.utcOffsetSeconds = utcOffsetSeconds
        self.source = source
    }

    /// The date in ISO 8601 as the photo's clock showed it, with its offset when the file records
    /// one ("2019-07-14T18:00:00+02:00"), else as UTC ("2019-07-14T16:00:00Z").
    /// Fractions of a second (from `SubSecTimeOriginal`) are kept, to the millisecond.
    public var iso8601: String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = utcOffsetSeconds.flatMap { TimeZone(secondsFromGMT: $0) } ?? TimeZone(identifier: "UTC")
        if date.timeIntervalSinceReferenceDate.truncatingRemainder(dividingBy: 1) != 0 {
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        }
        return formatter.string(from: date)
    }

    private enum CodingKeys: String, CodingKey {
        case date, utcOffsetSeconds, source
    }

    /// Encodes `date` as ``iso8601`` (the photo's own offset), with the offset and the source.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(iso8601, forKey: .date)
        try container.encodeIfPresent(utcOffsetSeconds, forKey: .utcOffsetSeconds)
        try container.encode(source, forKey: .source)
    }

    /// Decodes what ``encode(to:)`` writes, and the form of earlier releases (the instant as the
    /// decoder's date strategy wrote it).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let text = try? container.decode(String.self, forKey: .date),
           let parsed = ISO8601DateFormatter().date(from: text) ?? fractional.date(from: text) {
            date = parsed
        } else {
            date = try container.decode(Date.self, forKey: .date)
        }
        utcOffsetSeconds = try container.decodeIfPresent(Int.self, forKey: .utcOffsetSeconds)
        source = try container.decode(String.self, forKey: .source)
    }
}
