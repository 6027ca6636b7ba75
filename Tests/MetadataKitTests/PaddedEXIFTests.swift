import Foundation
import Testing
@testable import MetadataKit

@Suite("EXIF blocks padded to the segment limit", .tags(.exiftool))
struct PaddedEXIFTests {
    /// A JPEG whose EXIF block is followed by `filler` bytes up to the 64 KB a segment holds, as
    /// Nikon cameras pad theirs with zeros.
    static func paddedJPEG(filler: UInt8) throws -> (path: String, bytes: [UInt8]) {
        let path = try makeJPEG("padded.jpg")
        try exiftool(["-q", "-overwrite_original", "-EXIF:Make=NIKON CORPORATION", "-EXIF:Model=NIKON D800", "-EXIF:Artist=Manfred", path])
        var jpeg = try JPEGFile([UInt8](Data(contentsOf: URL(fileURLWithPath: path))), source: path)
        let block = try #require(jpeg.exifTIFF)
        let padded = block + [UInt8](repeating: filler, count: JPEGFile.maximumPayload - JPEGFile.exifSignature.count - block.count)
        jpeg.setSegment(marker: 0xE1, signature: JPEGFile.exifSignature, payload: JPEGFile.exifSignature + padded)
        try Data(jpeg.bytes).write(to: URL(fileURLWithPath: path))
        return (path, jpeg.bytes)
    }

    @Test("zero padding makes room for the caption; every tag stays; restore gives the padded file back")
    func zeroPadding() throws {
        let (path, original) = try Self.paddedJPEG(filler: 0)
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let snapshot = try CaptionWriter.write(CaptionUpdate(caption: "Zoë’s café — 東京 🌸"), to: path)
        #expect(try exiftoolValue("IFD0:ImageDescription", path) == "Zoë’s café — 東京 🌸")
        #expect(try exiftoolValue("IFD0:Model", path) == "NIKON D800" && exiftoolValue("IFD0:Artist", path) == "Manfred")
        #expect(try exiftool(["-warning", "-s3", path]).isEmpty)
        try CaptionWriter.restore(snapshot, to: path)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == original)
    }

    @Test("a block filled with other bytes is not cut: the write is refused and the file untouched")
    func nonZeroFiller() throws {
        let (path, original) = try Self.paddedJPEG(filler: 0x5A)
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        #expect(throws: MetadataError.self) { try CaptionWriter.write(CaptionUpdate(caption: "A caption"), to: path) }
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == original)
    }
}
