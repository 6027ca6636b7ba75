import Foundation
import Testing
@testable import MetadataKit
import TestSupport

/// Issue 31, item 11: a strip removes every location field exiftool's Location and GPS groups show,
/// beyond EXIF GPS and the IPTC and XMP core fields: a Panasonic maker note's place names (cleared in
/// place), GIMP's top-level XMP location fields, and a Ricoh RMETA block with a Location (removed whole).
@Suite("Strip-location: the fields beyond GPS")
struct StripLocationFieldsTests {
    static let builder = TIFFBuilder(.little)

    /// A Panasonic-style EXIF block: Make, and an EXIF IFD whose maker note (`Panasonic\0\0\0` + an IFD
    /// whose offsets count from the TIFF header) holds Country and City, and a quality setting that must stay.
    static func panasonicEXIF() -> [UInt8] {
        let b = builder
        func text(_ tag: UInt16, _ value: String) -> TIFFBuilder.Entry {
            TIFFBuilder.Entry(tag: tag, type: 7, count: 72, data: Array(value.utf8) + [UInt8](repeating: 0, count: 72 - value.utf8.count))
        }
        func ifd0(_ exif: UInt32) -> [UInt8] { b.ifd([b.ascii(0x010F, "Panasonic"), b.ascii(0x0110, "DMC-TZ7"), b.long(0x8769, exif)], at: 8) }
        let exifOffset = 8 + ifd0(0).count
        // The EXIF IFD has one entry, the maker note: its data starts right after the IFD.
        let noteStart = exifOffset + 2 + 12 + 4
        let noteIFD = b.ifd([b.short(0x0001, 2), text(0x0069, "GERMANY"), text(0x006D, "OLDENBURG (OLDB.)")], at: noteStart + 12)
        let note = Array("Panasonic".utf8) + [0, 0, 0] + noteIFD
        let exifIFD = b.ifd([TIFFBuilder.Entry(tag: 0x927C, type: 7, count: UInt32(note.count), data: note)], at: exifOffset)
        return b.header() + ifd0(UInt32(exifOffset)) + exifIFD
    }

    /// An XMP packet with a location structure's fields at the top level, as GIMP writes them.
    static let gimpXMP = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0] + Array("""
        <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:Iptc4xmpExt="http://iptc.org/std/Iptc4xmpExt/2008-02-29/" xmlns:dc="http://purl.org/dc/elements/1.1/"
         Iptc4xmpExt:City="Lyon" Iptc4xmpExt:CountryName="France"><dc:title><rdf:Alt><rdf:li xml:lang="x-default">Market day</rdf:li></rdf:Alt></dc:title></rdf:Description>
        </rdf:RDF></x:xmpmeta><?xpacket end="w"?>
        """.utf8)

    /// A Ricoh RMETA block (APP5 payload) laid out as Ricoh cameras write it and exiftool reads it:
    /// byte order, block number 0, the directory's offset (10), the entry count, "ASCII", then a
    /// section of tag names (type 1) and one of string values (type 2).
    static func ricohBlock(_ fields: [(name: String, value: String)]) -> [UInt8] {
        func section(_ type: UInt16, _ data: [UInt8]) -> [UInt8] {
            let size = UInt16(data.count + 2)
            return [UInt8(type >> 8), UInt8(type & 0xFF), UInt8(size >> 8), UInt8(size & 0xFF)] + data
        }
        let names: [UInt8] = fields.flatMap { field -> [UInt8] in Array(field.name.utf8) + [0] }
        let values: [UInt8] = fields.flatMap { field -> [UInt8] in Array(field.value.utf8) + [0] }
        let header: [UInt8] = Array("RMETA".utf8) + [0] + Array("MM".utf8) + [0x01, 0x00, 0, 0, 0, 0, 0x00, 0x0A, 0x00, UInt8(fields.count)]
        return header + Array("ASCII".utf8) + [0, 0, 0] + section(1, names) + section(2, values)
    }

    /// Location fields exiftool still shows with a value (the check of the closing note, for one file).
    static func locationLeft(_ path: String) throws -> [String] {
        try exiftool(["-q", "-q", "-a", "-u", "-e", "-s", "-G0:1", "-n", "-Location:all", "-XMP-iptcExt:City", "-XMP-iptcExt:CountryName", "-RMETA:Location", path])
            .split(separator: "\n").map(String.init).filter { !$0.hasSuffix(": ") && !$0.hasSuffix(":") }
    }

    @Test("a Panasonic maker note's place names are cleared in place and GIMP's top-level XMP City and CountryName removed; everything else stays; a restore brings them back")
    func makerNoteAndXMP() throws {
        let plain = try makeJPEG("panasonic.jpg")
        let folder = (plain as NSString).deletingLastPathComponent
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: plain)))
        bytes = JPEGBuilder.inserting(JPEGBuilder.segment(0xE1, Self.gimpXMP), into: bytes)
        bytes = JPEGBuilder.inserting(JPEGBuilder.exifSegment(Self.panasonicEXIF()), into: bytes)
        try Data(bytes).write(to: URL(fileURLWithPath: plain))
        let before = try Self.locationLeft(plain)
        #expect(before.contains { $0.contains("Panasonic") && $0.contains("City") } && before.contains { $0.contains("XMP-iptcExt") && $0.contains("City") }, "\(before)")

        let snapshot = try CaptionWriter.stripLocation(from: plain)
        let after = try Self.locationLeft(plain)
        #expect(after.isEmpty, "\(after)")
        #expect(snapshot.locationLeft.isEmpty)
        #expect(try exiftool(["-s3", "-Panasonic:ImageQuality", "-n", plain]) == "2\n", "the maker note's other fields stay")
        #expect(try exiftool(["-s3", "-XMP-dc:Title", plain]) == "Market day\n")
        #expect(try exiftool(["-s3", "-EXIF:Make", plain]) == "Panasonic\n")

        try CaptionWriter.restore(snapshot, to: plain)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: plain))) == bytes, "the restore puts every byte back")
    }

    @Test("a Ricoh RMETA block with a Location is removed whole, in the same verified write, named in the summary, and restored byte for byte; one without a Location is left")
    func ricohRMETA() throws {
        let path = try makeJPEG("ricoh.jpg")
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let rmeta = Self.ricohBlock([("Sign type", "Information"), ("Location", "Roundabout"), ("Lit", "No")])
        let withoutEXIF = JPEGBuilder.inserting(JPEGBuilder.segment(0xE5, rmeta), into: bytes)
        bytes = JPEGBuilder.inserting(JPEGBuilder.exifSegment(Self.builder.cameraBlock()), into: withoutEXIF)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(UneditableLocation.fields(inFileAt: path) == ["Ricoh RMETA Location (APP5)"])
        #expect(try Self.locationLeft(path).contains { $0.contains("Roundabout") }, "exiftool reads the block's Location")
        #expect(try CaptionWriter.checkStripLocation(in: path))

        let snapshot = try CaptionWriter.stripLocation(from: path)
        #expect(snapshot.locationLeft.isEmpty, "\(snapshot.locationLeft)")
        #expect(snapshot.locationRemoved == ["EXIF GPS", "Ricoh RMETA block (APP5)"], "\(snapshot.locationRemoved)")
        let stripped = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(!stripped.contains(segment: Array("RMETA".utf8)), "the block is gone")
        #expect(try MetadataReader.read(contentsOf: path).gps == nil)
        #expect(try Self.locationLeft(path).isEmpty, "exiftool finds no location left")

        // Undone exactly, through the snapshot's encoding as the history stores it.
        let stored = try MetadataSnapshot(decoding: snapshot.encoded(), source: path)
        try CaptionWriter.restore(stored, to: path)
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) == bytes, "the restore puts every byte back, the block where it was")

        // A batch does the same.
        let batch = CaptionWriter.stripLocation(fromEach: [path])
        #expect((try? batch[0].get())?.locationRemoved.contains("Ricoh RMETA block (APP5)") == true && (try? batch[0].get())?.locationLeft == [])

        // Without a Location, the Ricoh block holds no location: a file with nothing else is not touched.
        let signsOnly = Self.ricohBlock([("Sign type", "Information"), ("Lit", "No")])
        let source = try makeJPEG("signs.jpg")
        defer { try? FileManager.default.removeItem(atPath: (source as NSString).deletingLastPathComponent) }
        let plain = JPEGBuilder.inserting(JPEGBuilder.segment(0xE5, signsOnly), into: [UInt8](try Data(contentsOf: URL(fileURLWithPath: source))))
        let signs = (path as NSString).deletingLastPathComponent + "/signs-only.jpg"
        try Data(plain).write(to: URL(fileURLWithPath: signs))
        #expect(try !CaptionWriter.checkStripLocation(in: signs))
        _ = try CaptionWriter.stripLocation(from: signs)
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: signs))) == plain)
    }
}

private extension Array where Element == UInt8 {
    /// Whether `needle` occurs anywhere in the bytes.
    func contains(segment needle: [UInt8]) -> Bool {
        guard count >= needle.count else { return false }
        return (0...(count - needle.count)).contains { self[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
