import Foundation
import ImageKit
import Testing
@testable import MetadataKit
import TestSupport

@Suite("Stripping location", .tags(.exiftool))
struct StripLocationTests {
    @Test("GPS and location fields go from EXIF, XMP and IPTC; everything else stays; restore brings them back")
    func strip() throws {
        let path = try makeJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        try exiftool(["-q", "-overwrite_original", "-charset", "iptc=utf8", "-IPTC:CodedCharacterSet=UTF8",
                      "-GPSLatitude=48.8584", "-GPSLatitudeRef=N", "-GPSLongitude=2.2945", "-GPSLongitudeRef=E",
                      "-XMP-exif:GPSLatitude=48.8584 N", "-XMP-photoshop:City=Paris", "-XMP-iptcExt:LocationShownCity=Paris",
                      "-IPTC:City=Paris", "-IPTC:Country-PrimaryLocationName=France", "-IPTC:Keywords=tower",
                      "-EXIF:Make=Memora", "-XMP-dc:Description=The tower", path])
        #expect(try MetadataReader.read(contentsOf: path).gps != nil)
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        let snapshot = try CaptionWriter.stripLocation(from: path)
        let remaining = try exiftool(["-a", "-G1", "-s", "-gps:all", "-XMP-exif:GPS*", "-XMP-photoshop:City", "-XMP-iptcExt:all",
                                      "-IPTC:City", "-IPTC:Country-PrimaryLocationName", path])
        #expect(remaining.isEmpty, "left behind: \(remaining)")
        #expect(try MetadataReader.read(contentsOf: path).gps == nil)
        #expect(try exiftoolValue("EXIF:Make", path) == "Memora")
        #expect(try exiftoolValue("IPTC:Keywords", path) == "tower")
        #expect(try exiftoolValue("XMP-dc:Description", path) == "The tower")
        #expect(try exiftool(["-warning", "-s3", path]).isEmpty)
        try CaptionWriter.restore(snapshot, to: path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original)
    }

    @Test("in memory: the bytes come back without any location, the file and the pixels untouched; no location, same bytes")
    func inMemory() throws {
        let path = try makeJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let plain = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(try CaptionWriter.strippingLocation(from: plain, source: path) == plain)
        try exiftool(["-q", "-overwrite_original", "-GPSLatitude=48.8584", "-GPSLatitudeRef=N", "-GPSLongitude=2.2945",
                      "-GPSLongitudeRef=E", "-XMP-photoshop:City=Paris", "-EXIF:Make=Memora", path])
        let located = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let stripped = try CaptionWriter.strippingLocation(from: located, source: path)
        let metadata = try MetadataReader.read(stripped)
        #expect(metadata.gps == nil && metadata.place == nil && metadata.make == "Memora")
        #expect(try ImageDecoder.decode(stripped) == ImageDecoder.decode(located))
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) == located, "the file is not touched")
        #expect(throws: MetadataError.self) { try CaptionWriter.strippingLocation(from: Array("not a photo".utf8)) }
    }

    @Test("XMP that held only location is left as a valid empty packet, which exiftool validates without a warning")
    func xmpLeftEmpty() throws {
        let path = try makeJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        try exiftool(["-q", "-overwrite_original", "-XMP:City=Lyon", "-XMP:GPSLatitude=45.76", path])
        let snapshot = try CaptionWriter.stripLocation(from: path)
        #expect(try exiftool(["-a", "-s3", "-XMP:City", "-XMP:GPSLatitude", path]).isEmpty)
        #expect(try exiftool(["-validate", "-warning", "-a", "-s3", path]) == "OK\n", "no 'Invalid XMP' warning")
        let packet = try #require(try JPEGFile([UInt8](Data(contentsOf: URL(fileURLWithPath: path))), source: path).xmpPacket)
        #expect(try Exiv2.readXMP(packet, source: path).isEmpty)
        try CaptionWriter.restore(snapshot, to: path)
        #expect(try exiftoolValue("XMP:City", path) == "Lyon")
    }

    @Test("a photo without location is left byte for byte as it was")
    func nothingToStrip() throws {
        let path = try makeJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        try CaptionWriter.stripLocation(from: path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original)
    }
}
