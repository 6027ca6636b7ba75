import Foundation
import ImageKit
import Testing
@testable import MetadataKit
import TestSupport

@Suite("Repeated writes", .tags(.exiftool))
struct RepeatedWriteTests {
    // A TIFF's XMP and IPTC values are IFD0 values too: one that grows is appended and its old
    // space zeroed, so a TIFF grows by those values when a caption gets longer (Docs/Metadata.md).
    @Test("writing long and short captions in turn reuses the space of earlier ones: the file does not grow", arguments: ["jpg"])
    func noGrowth(format: String) throws {
        let folder = try temporaryFolder("metadatakit")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/photo." + format
        if format == "jpg" {
            try ImageEncoder.write(try SyntheticPhoto.landscape(width: 64, height: 48), to: path, as: .jpeg())
        } else {
            try Data(makeTIFF()).write(to: URL(fileURLWithPath: path))
        }
        let long = String(repeating: "Ünïcødé 🐕 ", count: 182)
        var sizes: [Int] = []
        for caption in [long, "Short", long, "Short", long] {
            try CaptionWriter.write(CaptionUpdate(caption: caption), to: path)
            #expect(try exiftoolValue("IFD0:ImageDescription", path) == caption)
            sizes.append(try Data(contentsOf: URL(fileURLWithPath: path)).count)
        }
        #expect(sizes[2] == sizes[4] && sizes[1] < sizes[2], "sizes \(sizes)")
    }
}
