import Foundation
import ImageKit
import Testing
@testable import MetadataKit
import TestSupport

@Suite("Writer safety regressions")
struct WriterSafetyTests {
    @Test("a TIFF restore refuses a file that changed after the write")
    func staleWholeFileSnapshot() throws {
        let folder = try temporaryFolder("metadatakit")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/scan.tif"
        try Data(makeTIFF()).write(to: URL(fileURLWithPath: path))
        let snapshot = try CaptionWriter.write(CaptionUpdate(caption: "First"), to: path)
        try CaptionWriter.write(CaptionUpdate(caption: "Second"), to: path)
        let current = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(throws: MetadataError.self) { try CaptionWriter.restore(snapshot, to: path) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == current)
    }

    @Test("an EXIF value that points into its own IFD0 table is refused, not trusted")
    func selfOverlappingValue() throws {
        // Big-endian TIFF: IFD0 at 8 with one ImageDescription entry whose 32-byte value starts at 8.
        var tiff: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08, 0x00, 0x01]
        tiff += [0x01, 0x0E, 0x00, 0x02, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00]
        tiff += [UInt8](repeating: 0x41, count: 40)
        let path = try makeJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        var jpeg = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        jpeg = JPEGBuilder.inserting(JPEGBuilder.exifSegment(tiff), into: jpeg)
        try Data(jpeg).write(to: URL(fileURLWithPath: path))
        #expect(throws: MetadataError.self) { try CaptionWriter.write(CaptionUpdate(caption: "Sunset"), to: path) }
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == jpeg)
    }
}
