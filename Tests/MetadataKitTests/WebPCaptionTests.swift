import Foundation
import ImageKit
import Testing
@testable import MetadataKit
import TestSupport

@Suite("WebP captions", .tags(.exiftool))
struct WebPCaptionTests {
    /// A WebP made by Debian's cwebp from a PNG made by ImageKit.
    func makeWebP(lossless: Bool, in folder: String, width: Int = 40, height: Int = 30) throws -> String {
        let png = folder + "/source.png"
        try ImageEncoder.write(try SyntheticPhoto.landscape(width: width, height: height), to: png, as: .png())
        let path = folder + (lossless ? "/lossless.webp" : "/lossy.webp")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/cwebp")
        process.arguments = (lossless ? ["-lossless"] : []) + ["-quiet", png, "-o", path]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "cwebp (Debian package webp) must be installed")
        return path
    }

    @Test("a simple WebP gains a VP8X header with the bitstream's canvas, EXIF and XMP; restore is exact", arguments: [false, true])
    func webp(lossless: Bool) throws {
        let folder = try temporaryFolder("metadatakit")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try makeWebP(lossless: lossless, in: folder)
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        let snapshot = try CaptionWriter.write(CaptionUpdate(caption: "Zoë’s café 🌸"), to: path)
        #expect(try exiftoolValue("XMP-dc:Description", path) == "Zoë’s café 🌸")
        #expect(try exiftoolValue("IFD0:ImageDescription", path) == "Zoë’s café 🌸")
        #expect(try exiftoolValue("RIFF:ImageWidth", path) == "40" && exiftoolValue("RIFF:ImageHeight", path) == "30")
        #expect(try exiftool(["-warning", "-s3", path]).isEmpty)
        let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(Array(written[12..<16]) == Array("VP8X".utf8))
        #expect(written[20] & 0x0C == 0x0C, "the EXIF and XMP flags are set")
        try CaptionWriter.restore(snapshot, to: path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original)
    }
}
