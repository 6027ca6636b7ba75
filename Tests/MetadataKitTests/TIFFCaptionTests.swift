import Foundation
import ImageKit
import Testing
@testable import MetadataKit
import TestSupport

@Suite("TIFF captions", .tags(.exiftool))
struct TIFFCaptionTests {
    @Test("a TIFF gets the caption in IFD0, XMP and IPTC; the strip bytes stay where they were; restore is exact")
    func tiff() throws {
        let folder = try temporaryFolder("metadatakit")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/scan.tif"
        let original = makeTIFF()
        try Data(original).write(to: URL(fileURLWithPath: path))
        let snapshot = try CaptionWriter.write(CaptionUpdate(caption: "Zoë’s café 🌸"), to: path)
        #expect(try exiftoolValue("IFD0:ImageDescription", path) == "Zoë’s café 🌸")
        #expect(try exiftoolValue("XMP-dc:Description", path) == "Zoë’s café 🌸")
        #expect(try exiftoolValue("IPTC:Caption-Abstract", path) == "Zoë’s café 🌸")
        #expect(try exiftool(["-warning", "-s3", path]).isEmpty)
        let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(Array(written[(original.count - 24)..<original.count]) == Array(original.suffix(24)), "pixel strip unchanged in place")
        try CaptionWriter.restore(snapshot, to: path)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == original)
    }
}
