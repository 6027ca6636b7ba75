import Foundation
import ImageKit
import Testing
@testable import MetadataKit
import TestSupport

@Suite("Captions written by us, read by exiftool", .tags(.exiftool))
struct CaptionWriteTests {
    static let captions = [
        "Zoë’s café — 東京 🌸",
        "A dog runs on the beach.\nThe sea is calm.",
        String(repeating: "Ünïcødé 🐕 ", count: 182),  // about 2,000 characters
    ]

    @Test("the caption lands in XMP, EXIF and IPTC exactly, and the pixels do not change", arguments: captions)
    func roundTrip(caption: String) throws {
        let path = try makeJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let pixelsBefore = try ImageDecoder.decode(contentsOf: path)
        try CaptionWriter.write(CaptionUpdate(caption: caption, altText: "A short alt text"), to: path)
        #expect(try exiftoolValue("XMP-dc:Description", path) == caption)
        #expect(try exiftoolValue("IFD0:ImageDescription", path) == caption)
        #expect(try exiftoolValue("IPTC:Caption-Abstract", path) == caption)
        #expect(try exiftoolValue("IPTC:CodedCharacterSet", path) == "\u{1B}%G")
        #expect(try exiftoolValue("XMP-iptcCore:AltTextAccessibility", path) == "A short alt text")
        #expect(try exiftool(["-warning", "-s3", path]).isEmpty, "exiftool has no warning about the file")
        #expect(try ImageDecoder.decode(contentsOf: path) == pixelsBefore)
        let reading = try MetadataReader.read(contentsOf: path)
        #expect(reading.captions.caption == caption.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(reading.captions.source == .xmp && !reading.captions.copiesDisagree)
        #expect(reading.captions.altText == "A short alt text")
    }

    @Test("other XMP languages, existing tags and Latin-1 IPTC text keep their meaning")
    func preservesEverythingElse() throws {
        let path = try makeJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        // exiftool writes Latin-1 IPTC (no CodedCharacterSet), a German description and EXIF.
        try exiftool(["-q", "-overwrite_original", "-charset", "iptc=latin",
                      "-IPTC:Keywords=Café", "-IPTC:By-line=Jürgen Müller", "-IPTC:Caption-Abstract=Alte Beschreibung",
                      "-XMP-dc:Description-de=Ein Hund am Strand", "-XMP-dc:Description=A dog on the beach",
                      "-EXIF:Make=Memora", "-EXIF:Artist=Zoë", path])
        let before = try MetadataReader.read(contentsOf: path)
        #expect(before.captions.iptc == "Alte Beschreibung" && before.captions.xmp == "A dog on the beach")
        #expect(before.keywords == ["Café"])
        try CaptionWriter.write(CaptionUpdate(caption: "Ein Hund rennt"), to: path)
        #expect(try exiftoolValue("XMP-dc:Description-de", path) == "Ein Hund am Strand")
        #expect(try exiftoolValue("IPTC:Keywords", path) == "Café")
        #expect(try exiftoolValue("IPTC:By-line", path) == "Jürgen Müller")
        #expect(try exiftoolValue("IFD0:Make", path) == "Memora")
        #expect(try exiftoolValue("IPTC:Caption-Abstract", path) == "Ein Hund rennt")
    }

    @Test("a snapshot restores the original file byte for byte, including 'no caption'")
    func restore() throws {
        let path = try makeJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        let snapshot = try CaptionWriter.write(CaptionUpdate(caption: "Temporary"), to: path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) != original)
        try CaptionWriter.restore(snapshot, to: path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original)
        #expect(try MetadataReader.read(contentsOf: path).captions.hasCaption == false)
    }

    @Test("permissions are kept and the modification time on request; no file is left beside the photo")
    func fileHygiene() throws {
        let path = try makeJPEG()
        let folder = (path as NSString).deletingLastPathComponent
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.setAttributes([.posixPermissions: 0o640, .modificationDate: Date(timeIntervalSince1970: 1_000_000_000)], ofItemAtPath: path)
        try CaptionWriter.write(CaptionUpdate(caption: "Kept"), to: path, options: CaptionWriteOptions(keepModificationTime: true))
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect(attributes[.posixPermissions] as? Int == 0o640)
        #expect((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 == 1_000_000_000)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["photo.jpg"])
    }
}
