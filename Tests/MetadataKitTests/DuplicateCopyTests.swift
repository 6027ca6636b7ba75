import Foundation
import Testing
@testable import MetadataKit
import TestSupport

/// A caption written into a JPEG that holds a copy twice (two XMP segments, two IPTC caption
/// datasets) or Extended XMP must be what every reader sees: libexiv2 reads the first XMP
/// segment, exiftool and Pillow the last, and exiftool merges Extended XMP into them.
@Suite("Captions in every copy", .tags(.exiftool))
struct DuplicateCopyTests {
    static let xmpSignature = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
    static let extensionSignature = Array("http://ns.adobe.com/xmp/extension/".utf8) + [0]

    /// An XMP packet with `properties` (RDF elements) in one description.
    static func packet(_ properties: String, attributes: String = "") -> [UInt8] {
        Array("""
            <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
            <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:xmp="http://ns.adobe.com/xap/1.0/" \
            xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/" xmlns:exif="http://ns.adobe.com/exif/1.0/" \
            xmlns:xmpNote="http://ns.adobe.com/xmp/note/"\(attributes)>\(properties)</rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>
            """.utf8)
    }

    static func description(_ text: String) -> String {
        "<dc:description><rdf:Alt><rdf:li xml:lang=\"x-default\">\(text)</rdf:li></rdf:Alt></dc:description>"
    }

    /// A real JPEG with `segments` inserted after SOI, in order.
    static func jpeg(with segments: [[UInt8]]) throws -> String {
        let path = try makeJPEG()
        let encoded = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let bytes = Array(encoded[0..<2]) + segments.flatMap { $0 } + Array(encoded[2...])
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Extended XMP segments for `packet` under `guid`, in parts of at most `part` bytes.
    static func extendedSegments(_ packet: [UInt8], guid: String, part: Int = 200) -> [[UInt8]] {
        stride(from: 0, to: packet.count, by: part).map { offset in
            JPEGBuilder.segment(0xE1, extensionSignature + Array(guid.utf8) + be32(UInt32(packet.count)) + be32(UInt32(offset))
                                + packet[offset..<min(packet.count, offset + part)])
        }
    }

    static func contents(_ path: String) throws -> [UInt8] { try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) }

    @Test("an XMP packet under a damaged APP1 header, which exiftool still reads, is refused and the file left as it was; an ordinary APP1 is not")
    func nonstandardXMPHeader() throws {
        let damaged = Array("http://ns.adobe.com/xap/1.0X".utf8) + [0]
        let path = try Self.jpeg(with: [
            JPEGBuilder.segment(0xE1, Self.xmpSignature + Self.packet(Self.description("Old first"))),
            JPEGBuilder.segment(0xE1, damaged + Self.packet(Self.description("Old hidden") + "<exif:GPSLatitude>45,45.6N</exif:GPSLatitude>")),
        ])
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        #expect(try exiftool(["-a", "-s3", "-XMP-dc:Description", path]).contains("Old hidden"), "exiftool reads the damaged one")
        let original = try Self.contents(path)
        let error = #expect(throws: MetadataError.self) { try CaptionWriter.write(CaptionUpdate(caption: "New"), to: path) }
        #expect(error?.code == .corrupt && error?.message.contains("non-standard header") == true)
        #expect(try Self.contents(path) == original)
        #expect(try exiftool(["-a", "-s3", "-XMP-exif:GPSLatitude", path]).isEmpty == false, "exiftool sees a location in it")
        #expect(throws: MetadataError.self, "a location only exiftool sees is not left behind a success") { try CaptionWriter.stripLocation(from: path) }
        #expect(try Self.contents(path) == original)

        // An APP1 that is neither EXIF nor XMP to anyone (a vendor block) does not stop the write.
        let vendor = try Self.jpeg(with: [JPEGBuilder.segment(0xE1, Array("ACME maker notes".utf8) + [0, 1, 2, 3])])
        defer { try? FileManager.default.removeItem(atPath: (vendor as NSString).deletingLastPathComponent) }
        try CaptionWriter.write(CaptionUpdate(caption: "New"), to: vendor)
        #expect(try exiftoolValue("XMP-dc:Description", vendor) == "New")
    }

    @Test("two XMP segments: both get the caption, every other property of each is kept; exiftool sees only the new caption; restore is exact")
    func twoXMPSegments() throws {
        let path = try Self.jpeg(with: [
            JPEGBuilder.segment(0xE1, Self.xmpSignature + Self.packet(Self.description("Old first") + "<xmp:Label>Red</xmp:Label>")),
            JPEGBuilder.segment(0xE1, Self.xmpSignature + Self.packet(Self.description("Old second") + "<photoshop:Headline>Kept</photoshop:Headline>")),
        ])
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let original = try Self.contents(path)
        #expect(try exiftool(["-a", "-s3", "-XMP-dc:Description", path]) == "Old first\nOld second\n", "exiftool reads both packets")
        let snapshot = try CaptionWriter.write(CaptionUpdate(caption: "New caption 🌸", altText: "Alt"), to: path)
        #expect(try exiftool(["-a", "-s3", "-XMP-dc:Description", path]) == "New caption 🌸\nNew caption 🌸\n")
        #expect(try exiftoolValue("XMP-dc:Description", path) == "New caption 🌸")
        #expect(try exiftool(["-a", "-s3", "-XMP-iptcCore:AltTextAccessibility", path]) == "Alt\nAlt\n")
        #expect(try exiftoolValue("XMP-xmp:Label", path) == "Red")
        #expect(try exiftoolValue("XMP-photoshop:Headline", path) == "Kept")
        let written = try JPEGFile(Self.contents(path), source: path)
        #expect(written.xmpPackets.count == 2, "neither copy is dropped")
        for packet in written.xmpPackets {
            #expect(try Exiv2.readXMP(packet, source: path).first { $0.key == "Xmp.dc.description" }?.value == "New caption 🌸")
        }
        try CaptionWriter.restore(snapshot, to: path)
        #expect(try Self.contents(path) == original)
    }

    @Test("location only in the second XMP segment is stripped too")
    func stripSecondXMPSegment() throws {
        let path = try Self.jpeg(with: [
            JPEGBuilder.segment(0xE1, Self.xmpSignature + Self.packet(Self.description("Caption"))),
            JPEGBuilder.segment(0xE1, Self.xmpSignature + Self.packet("<photoshop:City>Lyon</photoshop:City><xmp:Label>Red</xmp:Label>")),
        ])
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        try CaptionWriter.stripLocation(from: path)
        #expect(try exiftool(["-a", "-s3", "-XMP-photoshop:City", path]).isEmpty)
        #expect(try exiftoolValue("XMP-xmp:Label", path) == "Red")
        #expect(try exiftoolValue("XMP-dc:Description", path) == "Caption")
    }

    @Test("Extended XMP that holds a caption is refused, the file untouched; other Extended XMP is kept byte for byte")
    func extendedXMP() throws {
        let stale = Self.packet(Self.description("Old extended caption"))
        let guid = "0123456789ABCDEF0123456789ABCDEF"  // MD5 of the packet by the standard; readers match it as a name
        let refused = try Self.jpeg(with: [
            JPEGBuilder.segment(0xE1, Self.xmpSignature + Self.packet(Self.description("Old"), attributes: " xmpNote:HasExtendedXMP=\"\(guid)\"")),
        ] + Self.extendedSegments(stale, guid: guid))
        defer { try? FileManager.default.removeItem(atPath: (refused as NSString).deletingLastPathComponent) }
        #expect(try exiftool(["-a", "-s3", "-XMP-dc:Description", refused]).contains("Old extended caption"), "exiftool reads the Extended XMP")
        let original = try Self.contents(refused)
        #expect { try CaptionWriter.write(CaptionUpdate(caption: "New"), to: refused) } throws: { error in
            (error as? MetadataError)?.code == .unsupportedFormat && (error as? MetadataError)?.reason.contains("Extended XMP") == true
        }
        #expect(try Self.contents(refused) == original)

        let other = Self.packet("<photoshop:History>\(String(repeating: "long history ", count: 40))</photoshop:History>")
        let otherGUID = "FEDCBA9876543210FEDCBA9876543210"
        let kept = try Self.jpeg(with: [
            JPEGBuilder.segment(0xE1, Self.xmpSignature + Self.packet(Self.description("Old"), attributes: " xmpNote:HasExtendedXMP=\"\(otherGUID)\"")),
        ] + Self.extendedSegments(other, guid: otherGUID))
        defer { try? FileManager.default.removeItem(atPath: (kept as NSString).deletingLastPathComponent) }
        let before = try JPEGFile(Self.contents(kept), source: kept)
        try CaptionWriter.write(CaptionUpdate(caption: "New"), to: kept)
        let after = try JPEGFile(Self.contents(kept), source: kept)
        #expect(after.extendedXMPPackets.map(\.packet) == before.extendedXMPPackets.map(\.packet))
        #expect(try exiftoolValue("XMP-dc:Description", kept) == "New")
        #expect(try exiftoolValue("XMP-xmpNote:HasExtendedXMP", kept) == otherGUID)
        #expect(try exiftoolValue("XMP-photoshop:History", kept).hasPrefix("long history"), "exiftool still joins the Extended XMP")
        #expect(try exiftool(["-warning", "-s3", kept]).isEmpty)
    }

    @Test("two EXIF segments (exiftool reads both) are refused for a caption and for a location strip, the file untouched")
    func twoEXIFSegments() throws {
        let camera = TIFFBuilder(.little).cameraBlock()
        let path = try Self.jpeg(with: [JPEGBuilder.exifSegment(camera), JPEGBuilder.exifSegment(camera)])
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        #expect(try exiftool(["-a", "-s3", "-GPS:GPSLatitude", path]).split(separator: "\n").count == 2, "exiftool reads both")
        let original = try Self.contents(path)
        let error = #expect(throws: MetadataError.self) { try CaptionWriter.write(CaptionUpdate(caption: "New"), to: path) }
        #expect(error?.code == .corrupt && error?.reason.contains("2 EXIF blocks") == true)
        #expect(throws: MetadataError.self) { try CaptionWriter.stripLocation(from: path) }
        #expect(try Self.contents(path) == original)
    }

    @Test("location in an XMP packet the toolkit rejects is found and stripped (libexiv2 lists none)")
    func locationInRejectedPacket() throws {
        let packet = Self.packet("<photoshop:City>Lyon</photoshop:City><xmp:Label>&nbsp;red</xmp:Label>")
        #expect(!XMPPacketCheck.toolkitReads(packet, source: "test"))
        let path = try Self.jpeg(with: [JPEGBuilder.segment(0xE1, Self.xmpSignature + packet)])
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        try CaptionWriter.stripLocation(from: path)
        #expect(try exiftool(["-a", "-s3", "-XMP-photoshop:City", path]).isEmpty)
        #expect(try exiftoolValue("XMP-xmp:Label", path) == "&nbsp;red")
    }

    @Test("an IPTC caption dataset present twice: both hold the new caption")
    func duplicateIPTCCaption() throws {
        func dataSet(_ number: UInt8, _ value: [UInt8]) -> [UInt8] { [0x1C, 2, number] + be16(UInt16(value.count)) + value }
        let iim = dataSet(0, [0, 4]) + dataSet(120, Array("Old one".utf8)) + dataSet(25, Array("beach".utf8)) + dataSet(120, Array("Old two".utf8))
        let resource = Array("8BIM".utf8) + be16(0x0404) + [0, 0] + be32(UInt32(iim.count)) + iim + (iim.count % 2 == 1 ? [0] : [])
        let path = try Self.jpeg(with: [JPEGBuilder.segment(0xED, Array("Photoshop 3.0".utf8) + [0] + resource)])
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        #expect(try exiftool(["-a", "-s3", "-IPTC:Caption-Abstract", path]) == "Old one\nOld two\n")
        try CaptionWriter.write(CaptionUpdate(caption: "Zoë 🌸"), to: path)
        #expect(try exiftool(["-a", "-s3", "-charset", "iptc=utf8", "-IPTC:Caption-Abstract", path]) == "Zoë 🌸\nZoë 🌸\n")
        #expect(try exiftoolValue("IPTC:Keywords", path) == "beach")
    }
}
