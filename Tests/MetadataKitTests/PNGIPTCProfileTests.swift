import Foundation
import ImageKit
import Testing
@testable import MetadataKit

/// IPTC in a PNG lives only in a legacy "Raw profile type iptc" text chunk (exiftool writes a
/// compressed one holding a Photoshop block; ImageMagick may write a bare IIM block): a caption
/// write keeps its caption in step, a location strip reaches it, a restore is exact.
@Suite("IPTC raw profiles in PNG", .tags(.exiftool))
struct PNGIPTCProfileTests {
    /// A real PNG to which exiftool adds IPTC (it creates the zTXt raw profile itself).
    static func exiftoolPNG() throws -> String {
        let path = try makeJPEG("iptc.png")
        try ImageEncoder.write(try SyntheticPhoto.landscape(width: 48, height: 32), to: path, as: .png())
        _ = try exiftool(["-q", "-q", "-overwrite_original", "-charset", "iptc=utf8", "-IPTC:CodedCharacterSet=UTF8",
                          "-IPTC:Caption-Abstract=Old IPTC caption é", "-IPTC:City=Paris", "-IPTC:Keywords=beach", path])
        return path
    }

    @Test("exiftool's profile: the IPTC caption follows the new one, other datasets stay, restore is exact")
    func captionInStep() throws {
        let path = try Self.exiftoolPNG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(try exiftoolValue("IPTC:Caption-Abstract", path) == "Old IPTC caption é", "the fixture has IPTC")
        let snapshot = try CaptionWriter.write(CaptionUpdate(caption: "Zoë’s dog 🐕"), to: path)
        #expect(try exiftoolValue("IPTC:Caption-Abstract", path) == "Zoë’s dog 🐕")
        #expect(try exiftoolValue("IPTC:City", path) == "Paris")
        #expect(try exiftoolValue("IPTC:Keywords", path) == "beach")
        #expect(try exiftoolValue("XMP-dc:Description", path) == "Zoë’s dog 🐕")
        #expect(try exiftoolValue("EXIF:ImageDescription", path) == "Zoë’s dog 🐕")
        let reading = try MetadataReader.read(contentsOf: path)
        #expect(reading.captions.iptc == "Zoë’s dog 🐕" && !reading.captions.copiesDisagree)
        try CaptionWriter.restore(snapshot, to: path)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == original)
    }

    @Test("a snapshot taken before the IPTC profile counted as metadata (it was fingerprinted with the image) still restores")
    func olderSnapshotRestores() throws {
        let path = try Self.exiftoolPNG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let png = try PNGFile(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))), source: path)
        #expect(png.legacyImageDataDigest != png.imageDataDigest)
        let older = MetadataSnapshot(path: path, kept: .unversioned([]), imageDigest: Data(png.legacyImageDataDigest))
        try CaptionWriter.restore(older, to: path)
        var bogus = older
        bogus.imageDigest = Data([1, 2, 3, 4])
        #expect(throws: MetadataError.self) { try CaptionWriter.restore(bogus, to: path) }
    }

    @Test("strip-location removes the IPTC city from the profile and keeps the caption")
    func stripLocation() throws {
        let path = try Self.exiftoolPNG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        try CaptionWriter.stripLocation(from: path)
        #expect(try exiftoolValue("IPTC:City", path).isEmpty)
        #expect(try exiftoolValue("IPTC:Caption-Abstract", path) == "Old IPTC caption é")
        #expect(try exiftoolValue("IPTC:Keywords", path) == "beach")
    }

    @Test("a bare IIM block in an uncompressed tEXt profile is edited in place, same chunk type and profile name")
    func bareIIMProfile() throws {
        let iim = AFCPTrailerTests.dataSet(2, 120, "Old caption") + AFCPTrailerTests.dataSet(2, 25, "cat")
        let path = try PNGTextChunkTests.makePNG(with: PNGFile.Chunk(
            type: Array("tEXt".utf8), data: Array("Raw profile type iptc".utf8) + [0] + PNGTextChunkTests.rawProfile("IPTC profile", iim)))
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        try CaptionWriter.write(CaptionUpdate(caption: "New caption"), to: path)
        let png = try PNGFile(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))), source: path)
        let index = try #require(png.legacyIndex(.iptc))
        #expect(png.chunks[index].typeName == "tEXt")
        #expect(try png.text(ofChunk: png.chunks[index], source: path).starts(with: Array("\nIPTC profile\n".utf8)))
        let record = try IPTCRecord(try #require(try png.legacyProfile(.iptc, source: path)), source: path)
        #expect(record.dataSets.contains { $0.record == 2 && $0.number == 25 && $0.value == Array("cat".utf8) })
        #expect(try MetadataReader.read(contentsOf: path).captions.iptc == "New caption")
        #expect(try exiftoolValue("IPTC:Caption-Abstract", path) == "New caption")
    }

    @Test("XMP and EXIF both in the standard chunks and in legacy profiles: both copies get the new caption; restore is exact")
    func legacyCopiesBesideStandard() throws {
        let tiff = TIFFBlock.makeNew(ifd0: [(0x010E, 2, 4, Array("Old\0".utf8)), (0x010F, 2, 7, Array("Memora\0".utf8))], exifIFD: [])
        let path = try PNGTextChunkTests.makePNG(with: PNGFile.Chunk(
            type: Array("zTXt".utf8), data: PNGFile.LegacyProfile.xmp.keyword + [0, 0] + PNGTextChunkTests.storedZlib(PNGTextChunkTests.rawProfile("xmp", PNGTextChunkTests.packet))))
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        var png = try PNGFile(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))), source: path)
        png.setXMP(PNGTextChunkTests.packet)
        png.setEXIF(tiff)
        png.chunks.insert(PNGFile.Chunk(type: Array("tEXt".utf8), data: PNGFile.LegacyProfile.exif.keyword + [0]
                                        + PNGTextChunkTests.rawProfile("exif", JPEGFile.exifSignature + tiff)), at: 1)
        try Data(png.bytes).write(to: URL(fileURLWithPath: path))
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))

        let snapshot = try CaptionWriter.write(CaptionUpdate(caption: "Both copies"), to: path)
        let written = try PNGFile(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))), source: path)
        let legacyXMP = String(decoding: try #require(try written.legacyProfile(.xmp, source: path)), as: UTF8.self)
        let standardXMP = String(decoding: try #require(try written.xmpPacket(source: path)), as: UTF8.self)
        #expect(legacyXMP.contains("Both copies") && legacyXMP == standardXMP)
        let legacyEXIF = try #require(try written.legacyProfile(.exif, source: path))
        #expect(legacyEXIF == JPEGFile.exifSignature + (written.exif ?? []), "the legacy EXIF copy equals the standard one")
        #expect(written.chunks.first { $0.data.starts(with: PNGFile.LegacyProfile.xmp.keyword) }?.typeName == "zTXt")
        let reading = try MetadataReader.read(contentsOf: path)
        #expect(reading.captions.xmp == "Both copies" && reading.captions.exif == "Both copies" && reading.make == "Memora")
        try CaptionWriter.restore(snapshot, to: path)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == original)
    }
}
