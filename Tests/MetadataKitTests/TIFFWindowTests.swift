import Foundation
import Testing
@testable import MetadataKit
import TestSupport

/// TIFF and DNG files are written through a window (IFDs and metadata values in sparse memory,
/// the strips and tiles copied from the original in pieces); the result must be exactly what
/// the whole-file path writes.
@Suite("Large TIFFs written through a window")
struct TIFFWindowTests {
    enum Layout: String, CaseIterable, Sendable {
        /// Header, IFD0 and its values, the GPS IFD, then the strip.
        case metadataFirst
        /// Header, the strip, then IFD0 and the rest (as libtiff writes files).
        case metadataLast
        /// A DNG's shape: IFD0 with a small preview strip, the large image in a SubIFD, big-endian.
        case subIFD
    }

    static let stripLength = 300_000

    /// A grey TIFF with a caption, an XMP packet and a GPS position, its image data in one large strip.
    static func makeLargeTIFF(_ layout: Layout) -> [UInt8] {
        let builder = TIFFBuilder(layout == .subIFD ? .big : .little)
        let xmp = Array("""
            <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
            <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:description><rdf:Alt><rdf:li xml:lang="x-default">Old caption</rdf:li>\
            </rdf:Alt></dc:description></rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>
            """.utf8)
        var random = SystemRandomNumberGenerator()
        let strip = (0..<stripLength).map { _ in UInt8.random(in: 0...255, using: &random) }
        let side = UInt32(500), rows = UInt32(stripLength / 500)
        func image(stripOffset: UInt32, length: UInt32, width: UInt32, height: UInt32) -> [TIFFBuilder.Entry] {
            [builder.long(256, width), builder.long(257, height), builder.short(258, 8), builder.short(259, 1), builder.short(262, 1),
             builder.long(273, stripOffset), builder.short(277, 1), builder.long(278, height), builder.long(279, length)]
        }
        let gps = [builder.ascii(1, "N"), builder.rationals(2, [(48, 1), (51, 1), (2400, 100)]), builder.ascii(3, "E"),
                   builder.rationals(4, [(2, 1), (21, 1), (700, 100)])]
        func ifd0(stripOffset: UInt32, gpsOffset: UInt32, subIFD: UInt32?) -> [TIFFBuilder.Entry] {
            var entries = layout == .subIFD
                ? image(stripOffset: stripOffset, length: 64, width: 8, height: 8) + [builder.long(254, 1)]
                : image(stripOffset: stripOffset, length: UInt32(stripLength), width: side, height: rows)
            entries += [builder.ascii(270, "Old caption"), TIFFBuilder.Entry(tag: 700, type: 7, count: UInt32(xmp.count), data: xmp),
                        builder.long(34853, gpsOffset)]
            if let subIFD { entries.append(builder.long(330, subIFD)) }
            return entries
        }
        func aligned(_ offset: Int) -> Int { (offset + 1) / 2 * 2 }
        let hasSub = layout == .subIFD
        switch layout {
        case .metadataFirst, .subIFD:
            // Sizes do not depend on the offsets: lay out once with zeros, then for real.
            let ifd0Size = builder.ifd(ifd0(stripOffset: 0, gpsOffset: 0, subIFD: hasSub ? 0 : nil), at: 8).count
            let gpsOffset = aligned(8 + ifd0Size)
            let gpsSize = builder.ifd(gps, at: gpsOffset).count
            var subOffset = aligned(gpsOffset + gpsSize)
            let subSize = hasSub ? builder.ifd(image(stripOffset: 0, length: 0, width: 0, height: 0), at: subOffset).count : 0
            let previewOffset = aligned(subOffset + subSize)
            let stripOffset = hasSub ? previewOffset + 64 : previewOffset
            if !hasSub { subOffset = 0 }
            var bytes = builder.header()
            bytes += builder.ifd(ifd0(stripOffset: UInt32(hasSub ? previewOffset : stripOffset), gpsOffset: UInt32(gpsOffset),
                                      subIFD: hasSub ? UInt32(subOffset) : nil), at: 8)
            bytes += [UInt8](repeating: 0, count: gpsOffset - bytes.count) + builder.ifd(gps, at: gpsOffset)
            if hasSub {
                bytes += [UInt8](repeating: 0, count: subOffset - bytes.count)
                bytes += builder.ifd(image(stripOffset: UInt32(stripOffset), length: UInt32(stripLength), width: side, height: rows), at: subOffset)
                bytes += [UInt8](repeating: 0, count: previewOffset - bytes.count) + [UInt8](repeating: 0x80, count: 64)
            }
            bytes += [UInt8](repeating: 0, count: stripOffset - bytes.count) + strip
            return bytes
        case .metadataLast:
            let ifd0Offset = aligned(8 + stripLength)
            let ifd0Size = builder.ifd(ifd0(stripOffset: 8, gpsOffset: 0, subIFD: nil), at: ifd0Offset).count
            let gpsOffset = aligned(ifd0Offset + ifd0Size)
            var bytes = builder.header(ifd0Offset: UInt32(ifd0Offset)) + strip
            bytes += [UInt8](repeating: 0, count: ifd0Offset - bytes.count)
            bytes += builder.ifd(ifd0(stripOffset: 8, gpsOffset: UInt32(gpsOffset), subIFD: nil), at: ifd0Offset)
            bytes += [UInt8](repeating: 0, count: gpsOffset - bytes.count) + builder.ifd(gps, at: gpsOffset)
            return bytes
        }
    }

    static func write(_ bytes: [UInt8]) throws -> String {
        let path = try temporaryFolder("metadatakit") + "/photo.tif"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func contents(_ path: String) throws -> [UInt8] { try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) }

    @Test("the windowed write equals the whole-file write byte for byte, the strip is never read, the snapshot restores the original exactly",
          arguments: Layout.allCases)
    func sameAsWholeFile(_ layout: Layout) throws {
        let original = Self.makeLargeTIFF(layout)
        let path = try Self.write(original)
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let window = try #require(try TIFFWindow.open(path))
        #expect(window.holes.reduce(0) { $0 + $1.count } > Self.stripLength - 3 * PatchedBytes.pageSize, "the strip is left out")
        #expect(window.holes.allSatisfy { $0.lowerBound % PatchedBytes.pageSize == 0 && $0.upperBound % PatchedBytes.pageSize == 0 })
        let operation = MetadataOperation.caption(CaptionUpdate(caption: "Zoë’s café — 東京 🌸", altText: "A grey test image"))
        let saved = SnapshotBox()
        let snapshot = try #require(try CaptionWriter.performWindowed(operation, tiff: window, options: CaptionWriteOptions(beforeReplacing: { saved.set($0) }),
                                                                      buffers: nil))
        let reference = try #require(try CaptionWriter.edit(operation, original, source: path))
        let written = try Self.contents(path)
        #expect(written == reference.updated)
        #expect(snapshot.imageDigest == reference.snapshot.imageDigest, "the digest covers the bytes that were never read into memory")
        #expect(snapshot.kept == reference.snapshot.kept)
        #expect(saved.get()?.imageDigest == snapshot.imageDigest, "the snapshot was saved before the photo was replaced")
        let read = try MetadataReader.read(contentsOf: path)
        #expect(read.captions.caption == "Zoë’s café — 東京 🌸")
        #expect(read.captions.altText == "A grey test image")
        try CaptionWriter.restore(snapshot, to: path)
        #expect(try Self.contents(path) == original)
    }

    @Test("a location strip through the window removes the GPS directory and XMP location like the whole-file path", arguments: Layout.allCases)
    func stripLocation(_ layout: Layout) throws {
        let original = Self.makeLargeTIFF(layout)
        let path = try Self.write(original)
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        #expect(try MetadataReader.read(contentsOf: path).gps != nil)
        let snapshot = try CaptionWriter.stripLocation(from: path)
        let reference = try #require(try CaptionWriter.edit(.stripAllLocation, original, source: path))
        #expect(try Self.contents(path) == reference.updated)
        #expect(try MetadataReader.read(contentsOf: path).gps == nil)
        #expect(try MetadataReader.read(contentsOf: path).captions.caption == "Old caption")
        try CaptionWriter.restore(snapshot, to: path)
        #expect(try Self.contents(path) == original)
    }

    @Test("captions written again and again through the window do not grow the file")
    func repeatedWrites() throws {
        let path = try Self.write(Self.makeLargeTIFF(.metadataFirst))
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        try CaptionWriter.write(CaptionUpdate(caption: "First caption, a little longer than the old one"), to: path)
        let size = try Self.contents(path).count
        for round in 0..<4 { try CaptionWriter.write(CaptionUpdate(caption: "Caption \(round) of the same length as before!!"), to: path) }
        #expect(try Self.contents(path).count == size)
        #expect(try MetadataReader.read(contentsOf: path).captions.caption == "Caption 3 of the same length as before!!")
    }

    @Test("a file changed between the read and the write is refused and left as it is")
    func changedFileRefused() throws {
        let path = try Self.write(Self.makeLargeTIFF(.metadataFirst))
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let window = try #require(try TIFFWindow.open(path))
        var changed = try Self.contents(path)
        changed[changed.count - 100] ^= 0x01
        changed.append(0)
        try Data(changed).write(to: URL(fileURLWithPath: path))
        #expect(throws: MetadataError.self) {
            try CaptionWriter.performWindowed(.caption(CaptionUpdate(caption: "x")), tiff: window, options: CaptionWriteOptions(), buffers: nil)
        }
        #expect(try Self.contents(path) == changed)
    }

    @Test("a small TIFF, or one that is not TIFF, gets no window")
    func noWindow() throws {
        let small = try Self.write(makeTIFF())
        defer { try? FileManager.default.removeItem(atPath: (small as NSString).deletingLastPathComponent) }
        #expect(try TIFFWindow.open(small) == nil)
        try Data([0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 0, count: 100_000)).write(to: URL(fileURLWithPath: small))
        #expect(try TIFFWindow.open(small) == nil)
    }
}

@Suite("Large TIFFs read through a window")
struct TIFFWindowReadTests {
    @Test("reading and scanning a TIFF through the window give what reading it whole gives", arguments: TIFFWindowTests.Layout.allCases)
    func sameAsWholeFile(_ layout: TIFFWindowTests.Layout) throws {
        let bytes = TIFFWindowTests.makeLargeTIFF(layout)
        let path = try TIFFWindowTests.write(bytes)
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let windowed = try #require(MetadataReader.readThroughWindow(path))
        let whole = try MetadataReader.read(bytes, source: path)
        #expect(windowed == whole)
        #expect(windowed.captions.caption == "Old caption")
        #expect(windowed.gps != nil)
        #expect(try MetadataReader.read(contentsOf: path) == whole)
        #expect(try MetadataReader.scan(contentsOf: path) == MetadataReader.scan(bytes, source: path))
    }
}
