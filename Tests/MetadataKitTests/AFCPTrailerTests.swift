import Foundation
import Testing
@testable import MetadataKit

/// JPEGs ending with an AFCP trailer (absolute offsets; exiftool reads its IPTC as `IPTC2`):
/// a write that changes the header's size must move every offset with the trailer, keep its
/// IPTC copy in step, and a restore must give the original back byte for byte.
@Suite("AFCP trailers", .tags(.exiftool))
struct AFCPTrailerTests {
    /// One IIM dataset.
    static func dataSet(_ record: UInt8, _ number: UInt8, _ value: String) -> [UInt8] {
        let bytes = Array(value.utf8)
        return [0x1C, record, number, UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes
    }

    /// Appends an AFCP trailer with an IPTC record (UTF-8 caption, city, keyword) and a TEXT
    /// record to the JPEG at `path`, laid out by hand from the format's description.
    static func appendTrailer(to path: String, bigEndian: Bool) throws -> [UInt8] {
        var file = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let iim = dataSet(1, 90, "\u{1B}%G") + dataSet(2, 120, "Old caption é") + dataSet(2, 90, "Paris") + dataSet(2, 25, "beach")
        let records: [(String, [UInt8])] = [("IPTC", iim), ("TEXT", Array("some text".utf8))]
        func number(_ value: Int, _ width: Int) -> [UInt8] {
            let little = (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
            return bigEndian ? little.reversed() : little
        }
        let signature = Array((bigEndian ? "AXS!" : "AXS*").utf8)
        let start = file.count
        file += signature + [0, 1] + number(records.count, 2) + number(0, 4)
        var offset = start + 12 + 12 * records.count
        for (tag, data) in records {
            file += Array(tag.utf8) + number(data.count, 4) + number(offset, 4)
            offset += data.count
        }
        for (_, data) in records { file += data }
        file += signature + number(start, 4) + number(0, 4)
        try Data(file).write(to: URL(fileURLWithPath: path))
        return file
    }

    @Test("a caption write moves the trailer's offsets and updates its IPTC copy; restore is exact", arguments: [true, false])
    func captionKeepsTrailerValid(bigEndian: Bool) throws {
        let path = try makeJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let original = try Self.appendTrailer(to: path, bigEndian: bigEndian)
        #expect(try exiftoolValue("IPTC2:Caption-Abstract", path) == "Old caption é", "exiftool reads the fixture")

        let snapshot = try CaptionWriter.write(CaptionUpdate(caption: "New caption 🌸"), to: path)
        let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(written.count > original.count + 100, "the header grew, so the trailer moved")
        #expect(try exiftoolValue("IPTC2:Caption-Abstract", path) == "New caption 🌸")
        #expect(try exiftoolValue("IPTC2:City", path) == "Paris")
        #expect(try exiftoolValue("IPTC2:Keywords", path) == "beach")
        #expect(try exiftoolValue("AFCP:Text", path) == "some text")
        #expect(try exiftool(["-warning", "-s3", path]).isEmpty, "no 'Adjusted AFCP offsets' warning")
        #expect(try exiftoolValue("IPTC:Caption-Abstract", path) == "New caption 🌸")

        try CaptionWriter.restore(snapshot, to: path)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == original)
    }

    @Test("strip-location removes the city from the trailer's IPTC copy too, and keeps the rest")
    func stripLocation() throws {
        let path = try makeJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        _ = try Self.appendTrailer(to: path, bigEndian: true)
        try CaptionWriter.stripLocation(from: path)
        #expect(try exiftoolValue("IPTC2:City", path).isEmpty)
        #expect(try exiftoolValue("IPTC2:Keywords", path) == "beach")
        #expect(try exiftoolValue("AFCP:Text", path) == "some text")
        #expect(try exiftool(["-warning", "-s3", path]).isEmpty)
    }

    @Test("a trailer whose offsets point nowhere cannot be kept valid: the write is refused, the file untouched")
    func brokenTrailerRefused() throws {
        let path = try makeJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        var bytes = try Self.appendTrailer(to: path, bigEndian: true)
        bytes[bytes.count - 5] ^= 0x10  // the end record's start offset
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect {
            try CaptionWriter.write(CaptionUpdate(caption: "New"), to: path)
        } throws: { error in
            guard let error = error as? MetadataError, error.code == .unsupportedFormat else { return false }
            return error.reason.contains("AFCP")
        }
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == bytes)
        #expect(try MetadataReader.read(contentsOf: path).captions.caption == nil, "reading still works")
    }

    @Test("the parser reads both byte orders and rebuilds the same records at any offset")
    func parseAndRebuild() throws {
        for bigEndian in [true, false] {
            let path = try makeJPEG()
            defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
            let file = try Self.appendTrailer(to: path, bigEndian: bigEndian)
            let found = try #require(try AFCPTrailer.find(in: file[...]))
            #expect(found.trailer.entries.map { String(decoding: $0.tag, as: UTF8.self) } == ["IPTC", "TEXT"])
            #expect(found.trailer.bytes(at: found.start) == Array(file[found.start...]), "unchanged: byte for byte")
            let moved = [UInt8](repeating: 0, count: found.start + 1000) + found.trailer.bytes(at: found.start + 1000)
            let refound = try #require(try AFCPTrailer.find(in: moved[...]))
            #expect(refound.start == found.start + 1000 && refound.trailer.entries == found.trailer.entries)
            #expect(AFCPTrailer.saved(found.trailer.original)?.entries == found.trailer.entries)
        }
    }
}
