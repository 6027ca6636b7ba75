import Foundation
import ImageKit
import Testing
@testable import MetadataKit
import TestSupport

@Suite("XMP toolkit state", .tags(.exiftool))
struct XMPToolkitStateTests {
    @Test("an empty language item (a blank dc:title, as Canon's software writes) survives the toolkit's re-serialisation")
    func emptyLanguageItem() throws {
        let packet = Array("""
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">
            <dc:title><rdf:Alt><rdf:li xml:lang="x-default"/></rdf:Alt></dc:title></rdf:Description></rdf:RDF></x:xmpmeta>
            """.utf8)
        let edited = try Exiv2.applyXMP(packet, edits: [.setLanguageItem(key: CaptionWriter.descriptionKey, language: "x-default", value: "Heaven above Berlin")],
                                        source: "packet")
        let tags = try Exiv2.readXMP(edited, source: "edited")
        #expect(tags.contains { $0.key == "Xmp.dc.title" && $0.language == "x-default" && $0.value.isEmpty })
        #expect(tags.contains { $0.key == CaptionWriter.descriptionKey && $0.value == "Heaven above Berlin" })
        #expect(!String(decoding: edited, as: UTF8.self).contains("memora-empty"))

        // Through a whole write: exiftool still lists the blank title.
        let path = try makeJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let packetFile = path + ".packet.xmp"
        try Data(packet).write(to: URL(fileURLWithPath: packetFile))
        try exiftool(["-q", "-overwrite_original", "-xmp<=" + packetFile, path])
        try FileManager.default.removeItem(atPath: packetFile)
        try CaptionWriter.write(CaptionUpdate(caption: "Heaven above Berlin"), to: path)
        #expect(try exiftool(["-j", "-XMP-dc:Title", path]).contains("\"Title\": \"\""))
    }

    @Test("a packet that binds `dc` to another namespace does not change how later photos are written")
    func namespacePoisoning() throws {
        let hostile = Array("""
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:dc="http://example.com/not-dublin-core/"><dc:description>x</dc:description>
            </rdf:Description></rdf:RDF></x:xmpmeta>
            """.utf8)
        _ = try? Exiv2.readXMP(hostile, source: "hostile")
        let path = try makeJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        try CaptionWriter.write(CaptionUpdate(caption: "After a hostile packet"), to: path)
        #expect(try exiftoolValue("XMP-dc:Description", path) == "After a hostile packet")
    }
}
