import Foundation
import ImageKit
import Testing
@testable import MetadataKit
import TestSupport

@Suite("FotoStation trailers", .tags(.exiftool))
struct FotoStationTests {
    /// A JPEG that ends with a FotoStation trailer: a Latin-1 IPTC record (no 1:90) and a soft-edit record.
    /// `padding` zero bytes sit between the end-of-image marker and the trailer, as in some files.
    static func makeFotoStationJPEG(padding: Int = 0) throws -> (path: String, softEdit: [UInt8]) {
        let path = try makeJPEG()
        let latin1 = { (text: String) in TextEncodings.windows1252Encode(text)! }
        let iim = IPTCRecord(dataSets: [
            .init(record: 2, number: 0, value: [0, 4]),
            .init(record: 2, number: 120, value: latin1("Alte Beschreibung")),
            .init(record: 2, number: 25, value: latin1("Café")),
            .init(record: 2, number: 90, value: latin1("München")),
        ]).bytes
        let softEdit: [UInt8] = (0..<48).map { UInt8($0 * 5 & 0xFF) }
        let trailer = FotoStationTrailer(records: [.init(type: 1, data: iim), .init(type: 2, data: softEdit)])
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([UInt8](repeating: 0, count: padding) + trailer.bytes))
        try handle.close()
        return (path, softEdit)
    }

    @Test("the IPTC copy in a FotoStation trailer gets the caption, its Latin-1 text is transcoded, the other records stay; restore is exact")
    func caption() throws {
        let (path, softEdit) = try Self.makeFotoStationJPEG(padding: 1)
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        #expect(try exiftoolValue("IPTC2:Caption-Abstract", path) == "Alte Beschreibung", "exiftool sees the fixture's trailer")
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        let pixels = try ImageDecoder.decode([UInt8](original))
        let snapshot = try CaptionWriter.write(CaptionUpdate(caption: "Zoë’s café — 東京 🌸"), to: path)
        #expect(try exiftoolValue("IPTC2:Caption-Abstract", path) == "Zoë’s café — 東京 🌸")
        #expect(try exiftoolValue("IPTC2:Keywords", path) == "Café")
        #expect(try exiftoolValue("IPTC2:City", path) == "München")
        #expect(try exiftoolValue("IPTC:Caption-Abstract", path) == "Zoë’s café — 東京 🌸", "and the APP13 copy")
        let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let trailer = try #require(try JPEGFile(written, source: path).fotoStation)
        #expect(trailer.records.map(\.type) == [1, 2] && trailer.records[1].data == softEdit)
        #expect(try ImageDecoder.decode(written) == pixels)
        try CaptionWriter.restore(snapshot, to: path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original)
    }

    @Test("1,000 corrupted or cut FotoStation trailers go through read and write without a crash; a refused write changes nothing")
    func mutations() throws {
        let (path, _) = try Self.makeFotoStationJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        var generator = MutationRandom(seed: 7)
        let target = path + ".mutant.jpg"
        for round in 0..<1000 {
            var bytes = original
            if round % 5 == 0 {
                bytes.removeLast(1 + generator.next(below: 120))
            } else {
                for _ in 0..<(1 + generator.next(below: 3)) { bytes[bytes.count - 1 - generator.next(below: 160)] = UInt8(generator.next(below: 256)) }
            }
            try writeMutant(bytes, to: target)
        }
    }

    @Test("strip-location removes the city from a FotoStation trailer's IPTC copy")
    func stripLocation() throws {
        let (path, _) = try Self.makeFotoStationJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        try CaptionWriter.stripLocation(from: path)
        #expect(try exiftoolValue("IPTC2:City", path).isEmpty)
        #expect(try exiftoolValue("IPTC2:Caption-Abstract", path) == "Alte Beschreibung")
    }
}
