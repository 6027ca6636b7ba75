import Foundation
import ImageKit
import Testing
@testable import MetadataKit
import TestSupport

@Suite("PNG, HEIC and read-only files", .tags(.exiftool))
struct OtherFormatTests {
    @Test("a PNG gets the caption in its standard eXIf and XMP iTXt chunks, pixels unchanged, and restores exactly")
    func png() throws {
        let folder = try temporaryFolder("metadatakit")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/shot.png"
        try ImageEncoder.write(try SyntheticPhoto.landscape(width: 64, height: 48), to: path, as: .png())
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        let snapshot = try CaptionWriter.write(CaptionUpdate(caption: "Zoë’s café 🌸", altText: "Café"), to: path)
        #expect(try exiftoolValue("XMP-dc:Description", path) == "Zoë’s café 🌸")
        #expect(try exiftoolValue("IFD0:ImageDescription", path) == "Zoë’s café 🌸")
        #expect(try exiftool(["-warning", "-s3", path]).isEmpty)
        #expect(try ImageDecoder.decode(contentsOf: path) == ImageDecoder.decode([UInt8](original)))
        try CaptionWriter.restore(snapshot, to: path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original)
    }

    @Test("a HEIC made by libheif and tagged by exiftool is read through MetadataKit's own box parser")
    func heicRead() throws {
        let folder = try temporaryFolder("metadatakit")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/phone.heic"
        try ImageEncoder.write(try SyntheticPhoto.landscape(width: 64, height: 48), to: path, as: .heif())
        try exiftool(["-q", "-overwrite_original", "-XMP-dc:Description=Sunset from the phone", "-EXIF:Make=Memora", path])
        let metadata = try MetadataReader.read(contentsOf: path)
        #expect(metadata.mimeType == "image/heic")
        // libexiv2 0.27.6 alone finds nothing here (it misreads libheif's iloc base offsets).
        #expect(metadata.captions.caption == "Sunset from the phone")
        #expect(metadata.make == "Memora")
    }

    @Test("a read-only file is refused, even for root")
    func readOnlyFile() throws {
        let path = try makeJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(throws: MetadataError.self) { try CaptionWriter.write(CaptionUpdate(caption: "x"), to: path) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }
}
