import Foundation
import ImageKit
import Testing
@testable import MetadataKit
import TestSupport

@Suite("Legacy and compressed PNG text chunks", .tags(.exiftool))
struct PNGTextChunkTests {
    /// A zlib stream of stored (uncompressed) deflate blocks: valid for any inflater, no compressor needed.
    static func storedZlib(_ data: [UInt8]) -> [UInt8] {
        var output: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let length = min(65_535, data.count - offset)
            let final: UInt8 = offset + length == data.count ? 1 : 0
            output += [final, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8 & 0xFF)]
            output += data[offset..<(offset + length)]
            offset += length
        } while offset < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data { a = (a + UInt32(byte)) % 65_521; b = (b + a) % 65_521 }
        let adler = b << 16 | a
        return output + [UInt8(adler >> 24), UInt8(adler >> 16 & 0xFF), UInt8(adler >> 8 & 0xFF), UInt8(adler & 0xFF)]
    }

    static let packet = Array("""
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator><rdf:Seq><rdf:li>Anna</rdf:li></rdf:Seq></dc:creator>
        <dc:description><rdf:Alt><rdf:li xml:lang="x-default">Old description</rdf:li></rdf:Alt></dc:description></rdf:Description></rdf:RDF></x:xmpmeta>
        """.utf8)

    /// A PNG whose XMP is in `chunk`, inserted after IHDR.
    static func makePNG(with chunk: PNGFile.Chunk) throws -> String {
        let path = try makeJPEG("shot.png")
        var png = try PNGFile(try ImageEncoder.encode(try SyntheticPhoto.landscape(width: 32, height: 24), as: .png()), source: "fixture")
        png.chunks.insert(chunk, at: 1)
        try Data(png.bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// ImageMagick's raw-profile text: a newline, the name, the byte count padded to 8, then hex in lines of 72.
    static func rawProfile(_ name: String, _ bytes: [UInt8]) -> [UInt8] {
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        let lines = stride(from: 0, to: hex.count, by: 72).map { start in
            String(hex[hex.index(hex.startIndex, offsetBy: start)..<hex.index(hex.startIndex, offsetBy: min(start + 72, hex.count))])
        }
        return Array(("\n\(name)\n" + String(repeating: " ", count: max(0, 8 - String(bytes.count).count)) + "\(bytes.count)\n"
            + lines.joined(separator: "\n") + "\n").utf8)
    }

    @Test("XMP only in ImageMagick's zTXt raw profile moves into the standard iTXt chunk, edited; restore is exact")
    func legacyRawProfile() throws {
        let profile = Self.rawProfile("xmp", Self.packet)
        let path = try Self.makePNG(with: .init(type: Array("zTXt".utf8), data: PNGFile.LegacyProfile.xmp.keyword + [0, 0] + Self.storedZlib(profile)))
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(try MetadataReader.read(contentsOf: path).captions.xmp == "Old description")
        let snapshot = try CaptionWriter.write(CaptionUpdate(caption: "Zoë’s new description"), to: path)
        #expect(try exiftoolValue("XMP-dc:Description", path) == "Zoë’s new description")
        #expect(try exiftoolValue("XMP-dc:Creator", path) == "Anna")
        let png = try PNGFile([UInt8](Data(contentsOf: URL(fileURLWithPath: path))), source: path)
        #expect(png.legacyIndex(.xmp) == nil && png.xmpIndex != nil, "one XMP copy, in the standard chunk")
        try CaptionWriter.restore(snapshot, to: path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original)
    }

    @Test("1,000 corrupted legacy XMP profiles (hex and zlib damage) are refused or written, never a crash")
    func legacyMutations() throws {
        let profile = Self.rawProfile("xmp", Self.packet)
        let path = try Self.makePNG(with: .init(type: Array("zTXt".utf8), data: PNGFile.LegacyProfile.xmp.keyword + [0, 0] + Self.storedZlib(profile)))
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let png = try PNGFile([UInt8](Data(contentsOf: URL(fileURLWithPath: path))), source: path)
        let index = try #require(png.legacyIndex(.xmp))
        var generator = MutationRandom(seed: 11)
        let target = path + ".mutant.png"
        for _ in 0..<1000 {
            var mutant = png
            var data = mutant.chunks[index].data
            for _ in 0..<(1 + generator.next(below: 3)) { data[PNGFile.LegacyProfile.xmp.keyword.count + 1 + generator.next(below: data.count - PNGFile.LegacyProfile.xmp.keyword.count - 1)] = UInt8(generator.next(below: 256)) }
            mutant.chunks[index].data = data  // the chunk CRC is recomputed, so the damage reaches the parsers
            let bytes = mutant.bytes
            try writeMutant(bytes, to: target)
        }
    }

    @Test("EXIF only in ImageMagick's tEXt raw profile moves into the standard eXIf chunk, edited; restore is exact")
    func legacyEXIFProfile() throws {
        let tiff = TIFFBlock.makeNew(ifd0: [(0x010E, 2, 4, Array("Old\0".utf8)), (0x010F, 2, 7, Array("Memora\0".utf8))], exifIFD: [])
        let text = Self.rawProfile("exif", JPEGFile.exifSignature + tiff)
        let path = try Self.makePNG(with: .init(type: Array("tEXt".utf8), data: PNGFile.LegacyProfile.exif.keyword + [0] + text))
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(try exiftoolValue("IFD0:Make", path) == "Memora", "exiftool reads the fixture's legacy profile")
        let snapshot = try CaptionWriter.write(CaptionUpdate(caption: "A new caption"), to: path)
        #expect(try exiftool(["-a", "-s3", "-ImageDescription", path]) == "A new caption\n", "one EXIF copy, with the caption")
        #expect(try exiftool(["-a", "-s3", "-Make", path]) == "Memora\n")
        let png = try PNGFile([UInt8](Data(contentsOf: URL(fileURLWithPath: path))), source: path)
        #expect(png.legacyIndex(.exif) == nil && png.exif != nil)
        try CaptionWriter.restore(snapshot, to: path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original)
    }

    @Test("a compressed XMP iTXt chunk is read and rewritten")
    func compressedITXt() throws {
        let data = PNGFile.xmpKeyword + [0, 1, 0, 0, 0] + Self.storedZlib(Self.packet)
        let path = try Self.makePNG(with: .init(type: Array("iTXt".utf8), data: data))
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        #expect(try exiftoolValue("XMP-dc:Description", path) == "Old description")
        try CaptionWriter.write(CaptionUpdate(caption: "Rewritten"), to: path)
        #expect(try exiftoolValue("XMP-dc:Description", path) == "Rewritten")
        #expect(try exiftoolValue("XMP-dc:Creator", path) == "Anna")
    }

    @Test("zlib: a damaged stream and an oversized one are refused with a typed error")
    func inflateLimits() throws {
        let stream = Self.storedZlib(Array(repeating: 7, count: 1000))
        #expect(try Zlib.inflate(stream[...], source: "ok") == Array(repeating: 7, count: 1000))
        #expect(throws: MetadataError.self) { try Zlib.inflate(stream[...], limit: 100, source: "big") }
        var damaged = stream
        damaged[damaged.count - 1] ^= 0xFF  // the Adler-32 checksum
        #expect(throws: MetadataError.self) { try Zlib.inflate(damaged[...], source: "damaged") }
        #expect(throws: MetadataError.self) { try Zlib.inflate(stream.prefix(500), source: "cut") }
    }
}
