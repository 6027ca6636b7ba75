import Foundation
import ImageKit
import Testing
@testable import MetadataKit
import TestSupport

@Suite("Bad input never harms a file", .tags(.exiftool))
struct CaptionErrorTests {
    @Test("missing, empty, non-JPEG and truncated files give a typed error and stay byte-identical")
    func refusals() throws {
        let path = try makeJPEG()
        let folder = (path as NSString).deletingLastPathComponent
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(throws: MetadataError.self) { try CaptionWriter.write(CaptionUpdate(caption: "x"), to: folder + "/missing.jpg") }
        let jpeg = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let png = try ImageEncoder.encode(try SyntheticPhoto.landscape(width: 16, height: 16), as: .png())
        let cases: [(String, [UInt8])] = [("empty.jpg", []), ("cut.jpg", Array(jpeg.prefix(300))), ("text.jpg", Array("hello".utf8))]
        for (name, bytes) in cases {
            let file = folder + "/" + name
            try Data(bytes).write(to: URL(fileURLWithPath: file))
            do {
                try CaptionWriter.write(CaptionUpdate(caption: "x"), to: file)
                Issue.record("\(name) was written")
            } catch {
                #expect(error.description.contains(name))
            }
            #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: file))) == bytes, "\(name) is untouched")
        }
        // A PNG named .jpg is recognised by its content and written as the PNG it is.
        let misnamed = folder + "/png-named.jpg"
        try Data(png).write(to: URL(fileURLWithPath: misnamed))
        try CaptionWriter.write(CaptionUpdate(caption: "Still a PNG"), to: misnamed)
        #expect(ImageFormat.detect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: misnamed)))) == .png)
        #expect(try MetadataReader.read(contentsOf: misnamed).captions.caption == "Still a PNG")
    }

    @Test("a folder no file can be added to fails cleanly and leaves the file intact",
          .enabled(if: UnwritableFolder.possible, "root ignores permissions, and this file system or process cannot set the immutable attribute"))
    func readOnlyFolder() throws {
        let path = try makeJPEG()
        let folder = (path as NSString).deletingLastPathComponent
        defer {
            UnwritableFolder.undo(folder)
            try? FileManager.default.removeItem(atPath: folder)
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        try #require(UnwritableFolder.make(folder))
        #expect(!FileManager.default.createFile(atPath: folder + "/other.jpg", contents: Data()), "the folder takes no new file")
        #expect(throws: MetadataError.self) { try CaptionWriter.write(CaptionUpdate(caption: "x"), to: path) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test("2,000 randomly corrupted JPEGs go through read and write without a crash")
    func mutations() throws {
        let path = try makeJPEG()
        let folder = (path as NSString).deletingLastPathComponent
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try exiftool(["-q", "-overwrite_original", "-EXIF:ImageDescription=Seed", "-XMP-dc:Description=Seed", "-IPTC:Caption-Abstract=Seed", path])
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        // Corrupt the metadata-heavy head of the file, where parsers are most exposed.
        let head = min(original.count, 4096)
        var generator = MutationRandom(seed: 42)
        func random(_ bound: Int) -> Int { generator.next(below: bound) }
        let target = folder + "/mutant.jpg"
        var written = 0
        for _ in 0..<2000 {
            var bytes = original
            for _ in 0..<(1 + random(4)) { bytes[random(head)] = UInt8(random(256)) }
            if try writeMutant(bytes, to: target) { written += 1 }
        }
        #expect(written > 0)
    }
}
