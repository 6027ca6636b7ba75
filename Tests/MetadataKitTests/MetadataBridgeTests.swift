import Foundation
import MetadataKit
import Testing
import TestSupport

/// A JPEG made by a real encoder elsewhere would pull ImageKit in; MetadataKit's
/// tests stay independent, so they use the smallest valid baseline JPEG (a 1x1
/// grey pixel, built from its standard tables) and add EXIF by hand.
enum MetadataFixtures {
    /// A 1x1 baseline JPEG: SOI, DQT, SOF0, DHT (DC and AC, one code each), SOS, one MCU, EOI.
    static let tinyJPEG: [UInt8] = {
        var bytes: [UInt8] = [0xFF, 0xD8]
        bytes += [0xFF, 0xDB, 0x00, 0x43, 0x00] + [UInt8](repeating: 1, count: 64)
        bytes += [0xFF, 0xC0, 0x00, 0x0B, 0x08, 0x00, 0x01, 0x00, 0x01, 0x01, 0x01, 0x11, 0x00]
        bytes += [0xFF, 0xC4, 0x00, 0x14, 0x00] + [1] + [UInt8](repeating: 0, count: 15) + [0x00]
        bytes += [0xFF, 0xC4, 0x00, 0x14, 0x10] + [1] + [UInt8](repeating: 0, count: 15) + [0x00]
        bytes += [0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00]
        bytes += [0x00]  // DC diff category 0 ("0"), then AC EOB ("0"), padded with zeros
        bytes += [0xFF, 0xD9]
        return bytes
    }()

    /// An APP1 EXIF segment (little-endian TIFF) with IFD0 ImageDescription = `description`.
    static func exifSegment(description: String) -> [UInt8] {
        // Padded to 5 bytes at least, so the value is stored after the table, not inline.
        var text = Array(description.utf8) + [0]
        if text.count <= 4 { text += [UInt8](repeating: 0, count: 5 - text.count) }
        return JPEGBuilder.exifSegment(TIFFBuilder().block([.init(tag: 0x010E, type: 2, count: UInt32(text.count), data: text)]))
    }

    static func jpeg(description: String) -> [UInt8] {
        JPEGBuilder.inserting(exifSegment(description: description), into: tinyJPEG)
    }
}

@Suite("The libexiv2 and libexif bridges")
struct MetadataBridgeTests {
    @Test("libexiv2 reads an EXIF ImageDescription, including UTF-8 text")
    func exiv2ReadsDescription() throws {
        let caption = "Zoë’s café at dusk"
        let tags = try MetadataTagReader.tags(in: MetadataFixtures.jpeg(description: caption), source: "caption.jpg")
        let description = try #require(tags.first { $0.key == "Exif.Image.ImageDescription" })
        #expect(description.family == .exif)
        #expect(description.typeName == "Ascii")
        #expect(description.value == caption)
    }

    @Test("libexiv2 reads files from disk and reports no tags for a bare JPEG")
    func exiv2ReadsFiles() throws {
        let path = NSTemporaryDirectory() + "bare-\(UUID().uuidString).jpg"
        try Data(MetadataFixtures.tinyJPEG).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try MetadataTagReader.tags(contentsOf: path).isEmpty)
    }

    @Test("a libexiv2 failure comes back as a typed error naming the file, not a C++ exception")
    func exiv2Errors() throws {
        #expect(throws: MetadataError.self) { try MetadataTagReader.tags(in: Array("not an image".utf8), source: "notes.txt") }
        #expect(throws: MetadataError.self) { try MetadataTagReader.tags(in: [], source: "empty.jpg") }
        do {
            _ = try MetadataTagReader.tags(contentsOf: "/no/such/photo.jpg")
            Issue.record("reading a missing file succeeded")
        } catch {
            #expect(error.description.contains("/no/such/photo.jpg"))
        }
        #expect(MetadataTagReader.libraryVersion.hasPrefix("0.27"))
    }

    @Test("libexif's quick scan agrees with libexiv2 on IFD0")
    func libexifScan() {
        let entries = EXIFQuickScan.ifd0(in: MetadataFixtures.jpeg(description: "Harbour at noon"))
        #expect(entries["ImageDescription"] == "Harbour at noon")
        #expect(EXIFQuickScan.ifd0(in: MetadataFixtures.tinyJPEG).isEmpty)
        #expect(EXIFQuickScan.ifd0(in: Array("garbage".utf8)).isEmpty)
    }
}
