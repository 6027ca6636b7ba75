import Foundation
import Testing
@testable import MetadataKit
import TestSupport

/// TIFF files that a write would leave unreadable, or whose pixels it would change, are refused
/// and left byte for byte as they were, on the whole-file path and through the window.
@Suite("TIFF files the write refuses")
struct TIFFRefusalTests {
    /// A grey little-endian TIFF with one strip of `stripLength` bytes and `extra` IFD0 entries. With
    /// `stripOverlapsHeader` the strip starts at byte 0, so the header and IFD0 are part of its pixels.
    static func tiff(stripLength: Int, extra: [TIFFBuilder.Entry] = [], stripOverlapsHeader: Bool = false) -> [UInt8] {
        let builder = TIFFBuilder(.little)
        let width = 100, rows = stripLength / width
        func entries(stripOffset: Int) -> [TIFFBuilder.Entry] {
            [builder.long(256, UInt32(width)), builder.long(257, UInt32(rows)), builder.short(258, 8), builder.short(259, 1),
             builder.short(262, 1), builder.long(273, UInt32(stripOffset)), builder.short(277, 1), builder.long(278, UInt32(rows)),
             builder.long(279, UInt32(width * rows))] + extra
        }
        let tableSize = builder.ifd(entries(stripOffset: 0), at: 8).count
        let stripOffset = stripOverlapsHeader ? 0 : (8 + tableSize + 1) / 2 * 2
        var bytes = builder.header() + builder.ifd(entries(stripOffset: stripOffset), at: 8)
        var random = MutationRandom(seed: 7)
        while bytes.count < stripOffset + width * rows { bytes.append(UInt8(random.next(below: 256))) }
        return bytes
    }

    /// Whether a caption write into `bytes` is refused as `corrupt` with a reason containing `words`, the file untouched;
    /// `windowed` says whether the file is large enough for the windowed path.
    static func expectRefused(_ bytes: [UInt8], windowed: Bool, reasonContains words: String) throws {
        let path = try TIFFWindowTests.write(bytes)
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        #expect((try TIFFWindow.open(path) != nil) == windowed)
        #expect { try CaptionWriter.write(CaptionUpdate(caption: "New caption"), to: path) } throws: { error in
            guard let error = error as? MetadataError else { return false }
            return error.code == .corrupt && error.reason.contains(words)
        }
        #expect(try TIFFWindowTests.contents(path) == bytes, "the original is byte for byte intact")
    }

    @Test("an IFD entry of a type only BigTIFF defines (16 LONG8, 17 SLONG8, 18 IFD8) in a classic TIFF is refused",
          arguments: [UInt16(16), 17, 18], [false, true])
    func bigTIFFOnlyType(_ type: UInt16, windowed: Bool) throws {
        let entry = TIFFBuilder.Entry(tag: 65000, type: type, count: 1, data: le32(5) + le32(0))
        try Self.expectRefused(Self.tiff(stripLength: windowed ? 300_000 : 2_000, extra: [entry]), windowed: windowed, reasonContains: "BigTIFF")
    }

    @Test("a strip that overlaps the header and IFD0 is refused: the write would change its pixels", arguments: [false, true])
    func stripOverlapsHeader(windowed: Bool) throws {
        try Self.expectRefused(Self.tiff(stripLength: windowed ? 300_000 : 2_000, stripOverlapsHeader: true), windowed: windowed,
                               reasonContains: "image data overlaps")
    }

    @Test("the same TIFFs without the defect are written (the fixtures are sound)", arguments: [false, true])
    func soundFixture(windowed: Bool) throws {
        let path = try TIFFWindowTests.write(Self.tiff(stripLength: windowed ? 300_000 : 2_000))
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        try CaptionWriter.write(CaptionUpdate(caption: "New caption"), to: path)
        #expect(try MetadataReader.read(contentsOf: path).captions.caption == "New caption")
    }
}
