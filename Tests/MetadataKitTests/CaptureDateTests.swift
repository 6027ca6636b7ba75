import Foundation
import Testing
@testable import MetadataKit

/// A photo's date taken is encoded in ISO 8601 with the photo's own offset, and decodes from
/// that and from the form of earlier releases.
@Suite("Dates taken in JSON")
struct CaptureDateTests {
    @Test("ISO 8601 with the photo's offset (or Z), milliseconds kept; the old numeric form still decodes")
    func roundTrip() throws {
        let date = Date(timeIntervalSince1970: 1_563_091_200.25)  // 2019-07-14T08:00:00.25Z
        let withOffset = CaptureDate(date: date, utcOffsetSeconds: 7200, source: "Exif.Photo.DateTimeOriginal")
        #expect(withOffset.iso8601 == "2019-07-14T10:00:00.250+02:00")
        #expect(CaptureDate(date: Date(timeIntervalSince1970: 1_563_091_200), source: "x").iso8601 == "2019-07-14T08:00:00Z")
        let encoded = try JSONEncoder().encode(withOffset)
        let object = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        #expect(object["date"] as? String == "2019-07-14T10:00:00.250+02:00" && object["utcOffsetSeconds"] as? Int == 7200)
        #expect(try JSONDecoder().decode(CaptureDate.self, from: encoded) == withOffset)
        let old = Data(#"{"date": 584784000, "utcOffsetSeconds": 7200, "source": "x"}"#.utf8)
        #expect(try JSONDecoder().decode(CaptureDate.self, from: old).date == Date(timeIntervalSinceReferenceDate: 584_784_000))
    }
}
