import Foundation
import ImageKit
import Testing
@testable import MetadataKit
import TestSupport

@Suite("IPTC inside EXIF", .tags(.exiftool))
struct IPTCInEXIFTests {
    @Test("an IPTC block in a JPEG's EXIF IFD0 (tag 33723) gets the caption too, its Latin-1 text transcoded")
    func iptcInEXIF() throws {
        let path = try makeJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let latin1 = { (text: String) in TextEncodings.windows1252Encode(text)! }
        let iim = IPTCRecord(dataSets: [
            .init(record: 2, number: 0, value: [0, 4]),
            .init(record: 2, number: 120, value: latin1("Alte Beschreibung")),
            .init(record: 2, number: 25, value: latin1("Café")),
        ]).bytes
        let tiff = TIFFBlock.makeNew(ifd0: [(0x010E, 2, 5, Array("Alte\0".utf8)), (0x83BB, 7, UInt32(iim.count), iim)], exifIFD: [])
        var jpeg = try JPEGFile([UInt8](Data(contentsOf: URL(fileURLWithPath: path))), source: path)
        jpeg.setSegment(marker: 0xE1, signature: JPEGFile.exifSignature, payload: JPEGFile.exifSignature + tiff)
        try Data(jpeg.bytes).write(to: URL(fileURLWithPath: path))
        #expect(try exiftool(["-a", "-s3", "-charset", "iptc=latin", "-Caption-Abstract", path]).contains("Alte Beschreibung"))

        try CaptionWriter.write(CaptionUpdate(caption: "Zoë’s café"), to: path)
        let captions = try exiftool(["-a", "-s3", "-charset", "iptc=utf8", "-Caption-Abstract", path]).split(separator: "\n")
        #expect(captions.count == 2 && captions.allSatisfy { $0 == "Zoë’s café" }, "both IPTC copies: \(captions)")
        let written = try JPEGFile([UInt8](Data(contentsOf: URL(fileURLWithPath: path))), source: path)
        let exifTIFF = try #require(written.exifTIFF)
        let embeddedBytes = try #require(try TIFFBlock(exifTIFF, source: path).value(ofIFD0Tag: 0x83BB))
        let embedded = try IPTCRecord(embeddedBytes, source: path)
        #expect(embedded.declaresUTF8 && embedded.strings(record: 2, number: 25) == ["Café"])
    }

    @Test("an embedded copy in ISO 2022 cannot hold the caption: its old caption is removed, the rest kept, restore exact")
    func iso2022CopyLosesItsCaption() throws {
        let path = try makeJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        // ISO 2022 designations (ASCII, JIS X 0208) and a JIS caption: ESC $ B, two-byte codes, ESC ( B.
        let jis: [UInt8] = [0x1B, 0x24, 0x42, 0x46, 0x7C, 0x4B, 0x5C, 0x1B, 0x28, 0x42]
        let iim = IPTCRecord(dataSets: [
            .init(record: 1, number: 90, value: [0x1B, 0x28, 0x42, 0x1B, 0x24, 0x29, 0x42]),
            .init(record: 2, number: 0, value: [0, 4]),
            .init(record: 2, number: 120, value: jis),
            .init(record: 2, number: 25, value: Array("tokyo".utf8)),
        ]).bytes
        let tiff = TIFFBlock.makeNew(ifd0: [(0x010E, 2, 4, Array("Old\0".utf8)), (0x83BB, 7, UInt32(iim.count), iim)], exifIFD: [])
        var jpeg = try JPEGFile([UInt8](Data(contentsOf: URL(fileURLWithPath: path))), source: path)
        jpeg.setSegment(marker: 0xE1, signature: JPEGFile.exifSignature, payload: JPEGFile.exifSignature + tiff)
        try Data(jpeg.bytes).write(to: URL(fileURLWithPath: path))
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))

        let snapshot = try CaptionWriter.write(CaptionUpdate(caption: "Zoë’s café 東京"), to: path)
        let written = try JPEGFile([UInt8](Data(contentsOf: URL(fileURLWithPath: path))), source: path)
        let exifTIFF = try #require(written.exifTIFF)
        let embeddedBytes = try #require(try TIFFBlock(exifTIFF, source: path).value(ofIFD0Tag: 0x83BB))
        let embedded = try IPTCRecord(embeddedBytes, source: path)
        #expect(!embedded.dataSets.contains { $0.record == 2 && $0.number == 120 }, "no stale caption left")
        #expect(embedded.dataSets.first { $0.record == 1 && $0.number == 90 }?.value == [0x1B, 0x28, 0x42, 0x1B, 0x24, 0x29, 0x42], "its character set kept")
        #expect(embedded.strings(record: 2, number: 25) == ["tokyo"])
        #expect(try exiftoolValue("IPTC:Caption-Abstract", path) == "Zoë’s café 東京", "the main IPTC record has the caption")
        try CaptionWriter.restore(snapshot, to: path)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == original)
    }

    @Test("a record declaring ISO 8859-1 keeps it when the caption fits, and becomes UTF-8 (transcoded) when it does not")
    func declaredLatin1() throws {
        for (caption, staysLatin1) in [("Zoë à la plage", true), ("Zoë’s café 🌸", false)] {
            let path = try makeJPEG()
            defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
            try exiftool(["-q", "-overwrite_original", "-charset", "iptc=latin", "-IPTC:CodedCharacterSet=ESC - A",
                          "-IPTC:Headline=Crème brûlée", "-IPTC:Caption-Abstract=Vieille légende", path])
            #expect(try exiftool(["-s3", "-IPTC:CodedCharacterSet", path]) == "ESC - A\n", "the fixture declares Latin-1")
            try CaptionWriter.write(CaptionUpdate(caption: caption), to: path)
            #expect(try exiftool(["-s3", "-IPTC:CodedCharacterSet", path]) == (staysLatin1 ? "ESC - A\n" : "UTF8\n"))
            #expect(try exiftool(["-s3", "-IPTC:Caption-Abstract", path]) == caption + "\n")
            #expect(try exiftool(["-s3", "-IPTC:Headline", path]) == "Crème brûlée\n", "the other text keeps its meaning")
            #expect(try MetadataReader.read(contentsOf: path).captions.iptc == caption)
        }
    }

    @Test("strip-location removes the city from an IPTC block inside EXIF")
    func stripLocation() throws {
        let path = try makeJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let iim = IPTCRecord(dataSets: [.init(record: 2, number: 90, value: Array("Porto".utf8)), .init(record: 2, number: 25, value: Array("river".utf8))]).bytes
        var jpeg = try JPEGFile([UInt8](Data(contentsOf: URL(fileURLWithPath: path))), source: path)
        jpeg.setSegment(marker: 0xE1, signature: JPEGFile.exifSignature,
                        payload: JPEGFile.exifSignature + TIFFBlock.makeNew(ifd0: [(0x83BB, 7, UInt32(iim.count), iim)], exifIFD: []))
        try Data(jpeg.bytes).write(to: URL(fileURLWithPath: path))
        try CaptionWriter.stripLocation(from: path)
        let written = try JPEGFile([UInt8](Data(contentsOf: URL(fileURLWithPath: path))), source: path)
        let exifTIFF = try #require(written.exifTIFF)
        let embedded = try IPTCRecord(try #require(try TIFFBlock(exifTIFF, source: path).value(ofIFD0Tag: 0x83BB)), source: path)
        #expect(embedded.strings(record: 2, number: 90).isEmpty && embedded.strings(record: 2, number: 25) == ["river"])
    }
}
