import Foundation
import Testing
@testable import MetadataKit
import TestSupport

/// XMP packets are edited as text: only the caption, alt text or location elements change, so
/// what Adobe's XMP toolkit would refuse, rename or merge when it re-serialises (packets it
/// rejects, `rdf:about`, a property written twice) stays as exiftool and other readers see it.
@Suite("XMP edited as text")
struct XMPTextEditTests {
    static let rdf = "xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\""

    /// A packet with `descriptions` inside rdf:RDF, and `padding` spaces before the trailer.
    static func packet(_ descriptions: String, padding: Int = 0) -> [UInt8] {
        Array("""
            <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
            <x:xmpmeta xmlns:x="adobe:ns:meta/">
             <rdf:RDF \(rdf)>
            \(descriptions)
             </rdf:RDF>
            </x:xmpmeta>
            \(String(repeating: " ", count: padding))
            <?xpacket end="w"?>
            """.utf8)
    }

    static func jpeg(packet: [UInt8]) throws -> String {
        try DuplicateCopyTests.jpeg(with: [JPEGBuilder.segment(0xE1, DuplicateCopyTests.xmpSignature + packet)])
    }

    static func writtenPacket(_ path: String) throws -> [UInt8] {
        try #require(try JPEGFile(DuplicateCopyTests.contents(path), source: path).xmpPacket)
    }

    @Test("a caption set in place changes only the item's text; every other byte of the packet stays")
    func surgicalReplace() throws {
        let before = Self.packet("""
              <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:xmp="http://ns.adobe.com/xap/1.0/">
               <dc:description><rdf:Alt><rdf:li xml:lang="en-US">Old in English</rdf:li><rdf:li xml:lang="x-default">Old</rdf:li></rdf:Alt></dc:description>
               <xmp:Label>Red</xmp:Label>
              </rdf:Description>
            """)
        let after = try XMPTextEditor.apply(before, edits: [.setLanguageItem(key: CaptionWriter.descriptionKey, language: "x-default", value: "Fish & <chips>")])
        let expected = String(decoding: before, as: UTF8.self).replacingOccurrences(of: ">Old</rdf:li>", with: ">Fish &amp; &lt;chips&gt;</rdf:li>")
        #expect(String(decoding: after, as: UTF8.self) == expected)
        let document = try XMPDocument(after)
        #expect(document.values.contains { $0.name == "description" && $0.path == "[en-us]" && $0.text == "Old in English" })
        #expect(document.values.contains { $0.name == "description" && $0.path == "[x-default]" && $0.text == "Fish & <chips>" })
    }

    @Test("a new property goes at the end of the description, its namespace declared once; a packet that grew takes it from its padding")
    func insertionAndPadding() throws {
        let before = Self.packet("""
              <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/">
               <xmp:Label>Red</xmp:Label>
              </rdf:Description>
            """, padding: 2000)
        let after = try XMPTextEditor.apply(before, edits: [
            .setLanguageItem(key: CaptionWriter.descriptionKey, language: "x-default", value: "Caption"),
            .setLanguageItem(key: CaptionWriter.altTextKey, language: "x-default", value: "Alt"),
        ])
        #expect(after.count == before.count, "the padding absorbed the growth")
        let text = String(decoding: after, as: UTF8.self)
        #expect(text.components(separatedBy: "xmlns:dc=").count == 2 && text.components(separatedBy: "xmlns:Iptc4xmpCore=").count == 2)
        #expect(text.contains("   <dc:description><rdf:Alt><rdf:li xml:lang=\"x-default\">Caption</rdf:li></rdf:Alt></dc:description>\n"))
        let values = try XMPDocument(after).values
        #expect(values.contains { $0.name == "Label" && $0.text == "Red" })
        #expect(values.contains { $0.name == "AltTextAccessibility" && $0.text == "Alt" })
        // The self-closing and empty forms.
        let empty = Self.packet("<rdf:Description rdf:about=\"\"/>")
        let filled = try XMPTextEditor.apply(empty, edits: [.setLanguageItem(key: CaptionWriter.descriptionKey, language: "x-default", value: "C")])
        #expect(try XMPDocument(filled).values.map(\.text) == ["C"])
        let bare = Self.packet("")
        let created = try XMPTextEditor.apply(bare, edits: [.setLanguageItem(key: CaptionWriter.descriptionKey, language: "x-default", value: "C")])
        #expect(try XMPDocument(created).values.map(\.text) == ["C"])
        #expect(try Exiv2.readXMP(created, source: "test").first { $0.key == CaptionWriter.descriptionKey }?.value == "C", "the toolkit reads it")
    }

    @Test("what the text editor does not handle goes to the toolkit; what nobody can parse is refused")
    func fallbacks() throws {
        for broken in ["<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF \(Self.rdf)>", "<!DOCTYPE x [<!ENTITY a \"b\">]><x/>", "<a><b></a></b>"] {
            #expect(throws: XMPTextEditor.Unsupported.self) {
                try XMPTextEditor.apply(Array(broken.utf8), edits: [.setLanguageItem(key: CaptionWriter.descriptionKey, language: "x-default", value: "C")])
            }
        }
        #expect(throws: XMPTextEditor.Unsupported.self, "not UTF-8") {
            try XMPTextEditor.apply([0x3C, 0x61, 0xFF, 0x3E], edits: [.remove(key: "Xmp.photoshop.City")])
        }
        let error = #expect(throws: MetadataError.self) {
            try XMPPacketCheck.apply(Array("<a><b></a>".utf8), edits: [.setLanguageItem(key: CaptionWriter.descriptionKey, language: "x-default", value: "C")], source: "p.xmp")
        }
        #expect(error?.code == .xmpRejected)
        // A structure in the caption's place is not rewritten blindly.
        let structured = Self.packet("<rdf:Description rdf:about=\"\" xmlns:dc=\"http://purl.org/dc/elements/1.1/\"><dc:description><rdf:Bag><rdf:li>a</rdf:li></rdf:Bag></dc:description></rdf:Description>")
        #expect(throws: XMPTextEditor.Unsupported.self) {
            try XMPTextEditor.apply(structured, edits: [.setLanguageItem(key: CaptionWriter.descriptionKey, language: "x-default", value: "C")])
        }
    }

    @Test("the check reads packets as exiftool does: a changed rdf:about, a merged duplicate or a caption not written is caught")
    func packetCheck() throws {
        let caption = MetadataOperation.caption(CaptionUpdate(caption: "New"))
        let original = Self.packet("""
            <rdf:Description rdf:about="uuid:1" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:format>a</dc:format></rdf:Description>
            <rdf:Description rdf:about="uuid:1" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:format>b</dc:format></rdf:Description>
            """)
        let good = try XMPTextEditor.apply(original, edits: try #require(caption.xmpEdits(hasPacket: true)))
        #expect(XMPPacketCheck.differences(before: original, after: good, operation: caption, place: "XMP") == [])
        let renamed = Array(String(decoding: good, as: UTF8.self).replacingOccurrences(of: "uuid:1", with: "").utf8)
        #expect(XMPPacketCheck.differences(before: original, after: renamed, operation: caption, place: "XMP")?.first?.contains("about") == true)
        let merged = Array(String(decoding: good, as: UTF8.self).replacingOccurrences(of: "<dc:format>b</dc:format>", with: "").utf8)
        #expect(XMPPacketCheck.differences(before: original, after: merged, operation: caption, place: "XMP")?.first?.contains("format") == true)
        #expect(XMPPacketCheck.differences(before: original, after: original, operation: caption, place: "XMP") == ["XMP \(CaptionWriter.descriptionKey) (not written)"])
    }

    @Test("rdf:about is kept (the toolkit turned it into xmpMM:InstanceID), as exiftool reads it", .tags(.exiftool))
    func aboutKept() throws {
        let packet = Self.packet("""
              <rdf:Description rdf:about="uuid:faf5bdd5-ba3d-11da-ad31-d33d75182f1b" xmlns:dc="http://purl.org/dc/elements/1.1/">
               <dc:creator><rdf:Seq><rdf:li>Ana</rdf:li></rdf:Seq></dc:creator>
              </rdf:Description>
            """)
        let path = try Self.jpeg(packet: packet)
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let original = try DuplicateCopyTests.contents(path)
        let snapshot = try CaptionWriter.write(CaptionUpdate(caption: "Ana at the lake", altText: "A woman by a lake."), to: path)
        #expect(try exiftoolValue("XMP-rdf:About", path) == "uuid:faf5bdd5-ba3d-11da-ad31-d33d75182f1b")
        #expect(try exiftool(["-s3", "-XMP-xmpMM:InstanceID", path]).isEmpty, "no property appears")
        #expect(try exiftoolValue("XMP-dc:Description", path) == "Ana at the lake")
        #expect(try exiftoolValue("XMP-iptcCore:AltTextAccessibility", path) == "A woman by a lake.")
        #expect(try exiftoolValue("XMP-dc:Creator", path) == "Ana")
        let written = String(decoding: try Self.writtenPacket(path), as: UTF8.self)
        #expect(written.replacingOccurrences(of: " xmlns:Iptc4xmpCore=\"http://iptc.org/std/Iptc4xmpCore/1.0/xmlns/\"", with: "").hasPrefix(String(decoding: packet, as: UTF8.self).components(separatedBy: "  </rdf:Description>")[0]), "the bytes before the insertion are the original's")
        try CaptionWriter.restore(snapshot, to: path)
        #expect(try DuplicateCopyTests.contents(path) == original)
    }

    @Test("a property written twice with two values keeps both (the toolkit merged them and the write was refused)", .tags(.exiftool))
    func duplicatePropertyKept() throws {
        // Windows wrote the namespace with and without its final slash; libexiv2 lists both values ("63 | 75").
        let path = try Self.jpeg(packet: Self.packet("""
              <rdf:Description rdf:about="" xmlns:MicrosoftPhoto="http://ns.microsoft.com/photo/1.0"><MicrosoftPhoto:Rating>63</MicrosoftPhoto:Rating></rdf:Description>
              <rdf:Description rdf:about="" xmlns:MicrosoftPhoto="http://ns.microsoft.com/photo/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/"><MicrosoftPhoto:Rating>75</MicrosoftPhoto:Rating><dc:description><rdf:Alt><rdf:li xml:lang="x-default">Old</rdf:li></rdf:Alt></dc:description></rdf:Description>
            """))
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        try CaptionWriter.write(CaptionUpdate(caption: "New"), to: path)
        #expect(try exiftool(["-a", "-s3", "-XMP-microsoft:RatingPercent", path]) == "63\n75\n")
        #expect(try exiftool(["-a", "-s3", "-XMP-dc:Description", path]) == "New\n")
        #expect(try MetadataReader.read(contentsOf: path).captions.xmp == "New", "libexiv2 reads it too")
    }

    @Test("packets the toolkit rejects are written as exiftool writes them; exiftool sees the caption and every other value", .tags(.exiftool))
    func toolkitRejectedPackets() throws {
        let packets = [
            // The same property as an attribute and as an element (toolkit error 203).
            "<rdf:Description rdf:about=\"\" xmlns:xmp=\"http://ns.adobe.com/xap/1.0/\" xmp:Rating=\"3\"><xmp:Rating>4</xmp:Rating></rdf:Description>",
            // Different rdf:about values (toolkit error 203).
            "<rdf:Description rdf:about=\"a\" xmlns:xmp=\"http://ns.adobe.com/xap/1.0/\"><xmp:Rating>3</xmp:Rating></rdf:Description><rdf:Description rdf:about=\"b\" xmlns:xmp=\"http://ns.adobe.com/xap/1.0/\"><xmp:Label>Red</xmp:Label></rdf:Description>",
            // An HTML entity (toolkit error 201).
            "<rdf:Description rdf:about=\"\" xmlns:xmp=\"http://ns.adobe.com/xap/1.0/\"><xmp:Label>&nbsp;red</xmp:Label></rdf:Description>",
        ]
        for body in packets {
            let packet = Self.packet(body)
            #expect(!XMPPacketCheck.toolkitReads(packet, source: "test"), "the toolkit rejects it: \(body)")
            let path = try Self.jpeg(packet: packet)
            defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
            let before = try exiftool(["-a", "-args", "-XMP:all", path])
            let original = try DuplicateCopyTests.contents(path)
            let snapshot = try CaptionWriter.write(CaptionUpdate(caption: "New caption"), to: path)
            #expect(try exiftoolValue("XMP-dc:Description", path) == "New caption")
            #expect(try exiftoolValue("EXIF:ImageDescription", path) == "New caption")
            let after = try exiftool(["-a", "-args", "-XMP:all", path])
            #expect(after.split(separator: "\n").filter { !$0.hasPrefix("-Description=") } == before.split(separator: "\n"), "every other XMP value as it was")
            try CaptionWriter.restore(snapshot, to: path)
            #expect(try DuplicateCopyTests.contents(path) == original)
        }
    }

    @Test("a location strip removes attributes and elements and leaves valid XMP with everything else", .tags(.exiftool))
    func stripAsText() throws {
        let path = try Self.jpeg(packet: Self.packet("""
              <rdf:Description rdf:about="uuid:7" xmlns:exif="http://ns.adobe.com/exif/1.0/" xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/"
                xmlns:xmp="http://ns.adobe.com/xap/1.0/" exif:GPSLatitude="45,45.6N" photoshop:City="Lyon" xmp:Rating="3">
               <exif:GPSLongitude>4,50.4E</exif:GPSLongitude>
               <xmp:Label>Red</xmp:Label>
              </rdf:Description>
            """))
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        try CaptionWriter.stripLocation(from: path)
        #expect(try exiftool(["-a", "-s3", "-XMP-exif:all", "-XMP-photoshop:City", path]).isEmpty)
        #expect(try exiftoolValue("XMP-xmp:Rating", path) == "3")
        #expect(try exiftoolValue("XMP-xmp:Label", path) == "Red")
        #expect(try exiftoolValue("XMP-rdf:About", path) == "uuid:7")
        #expect(try exiftool(["-warning", "-s3", path]).isEmpty, "valid XMP")
        // Location only: the description is left empty, which is still valid XMP.
        let only = try Self.jpeg(packet: Self.packet("<rdf:Description rdf:about=\"\" xmlns:photoshop=\"http://ns.adobe.com/photoshop/1.0/\" photoshop:City=\"Lyon\"/>"))
        defer { try? FileManager.default.removeItem(atPath: (only as NSString).deletingLastPathComponent) }
        try CaptionWriter.stripLocation(from: only)
        #expect(try exiftool(["-a", "-s3", "-XMP:all", only]).isEmpty)
        #expect(try exiftool(["-warning", "-s3", only]).isEmpty, "no 'Invalid XMP'")
    }
}

/// Memora's mark of a basic description (`memora:BasicDescription`), written with the caption
/// and removed by any other caption write, in a new packet (the toolkit) and an existing one (text).
@Suite("The basic-description mark", .tags(.exiftool))
struct BasicDescriptionMarkTests {
    @Test("written with a basic description, read back, removed by a real caption, restored exactly; other readers see it")
    func markRoundTrip() throws {
        let withoutXMP = try makeJPEG()
        let withXMP = try XMPTextEditTests.jpeg(packet: XMPTextEditTests.packet(
            "<rdf:Description rdf:about=\"\" xmlns:xmp=\"http://ns.adobe.com/xap/1.0/\"><xmp:Label>Red</xmp:Label></rdf:Description>"))
        defer {
            for path in [withoutXMP, withXMP] { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        }
        for path in [withoutXMP, withXMP] {
            let original = try DuplicateCopyTests.contents(path)
            let basic = "A photo; mostly blue."
            let first = try CaptionWriter.write(CaptionUpdate(caption: basic, altText: "Photo, mostly blue.", isBasicDescription: true), to: path)
            let marked = try MetadataReader.read(contentsOf: path).captions
            #expect(marked.isBasicDescription && marked.basicDescription == basic && marked.caption == basic)
            #expect(try exiftool(["-s3", "-XMP:BasicDescription", path]) == basic + "\n", "exiftool reads the mark")
            try CaptionWriter.write(CaptionUpdate(caption: "Ana at the lake."), to: path)
            let real = try MetadataReader.read(contentsOf: path).captions
            #expect(!real.isBasicDescription && real.basicDescription == nil && real.caption == "Ana at the lake.")
            #expect(try exiftool(["-s3", "-XMP:BasicDescription", path]).isEmpty)
            try CaptionWriter.restore(first, to: path)
            #expect(try DuplicateCopyTests.contents(path) == original)
        }
    }

    @Test("a caption another program wrote over a basic description, keeping the mark, is not taken for one")
    func foreignCaptionOverMark() throws {
        let path = try makeJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        try CaptionWriter.write(CaptionUpdate(caption: "A photo; mostly blue.", isBasicDescription: true), to: path)
        try exiftool(["-overwrite_original", "-XMP-dc:Description=Ana's own words", "-EXIF:ImageDescription=Ana's own words",
                      "-IPTC:Caption-Abstract=Ana's own words", path])
        let captions = try MetadataReader.read(contentsOf: path).captions
        #expect(captions.caption == "Ana's own words" && captions.basicDescription == "A photo; mostly blue.")
        #expect(!captions.isBasicDescription)
    }
}
