import Foundation
import ImageKit
import Testing
@testable import MetadataKit
import TestSupport

/// Large rewrites (a caption on a multi-megabyte photo) go to the disk past the page cache where
/// the file system allows it (the system layer's writer, tested in MemoraSystemTests).
@Suite("Photos written past the page cache")
struct UncachedFileWriteTests {
    /// The temporary folder (ext4 on CI: direct I/O) and, when present, /dev/shm (tmpfs refuses `O_DIRECT`).
    static var folders: [String] {
        FileManager.default.isWritableFile(atPath: "/dev/shm") ? [NSTemporaryDirectory(), "/dev/shm/"] : [NSTemporaryDirectory()]
    }

    @Test("a caption on a multi-megabyte photo is written, verified and readable, on disk and on tmpfs", arguments: folders)
    func largePhotoCaption(base: String) throws {
        let folder = try temporaryFolder("metadatakit", in: base)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/large.jpg"
        try ImageEncoder.write(try SyntheticPhoto.landscape(width: 2400, height: 1800, seed: 4), to: path,
                               as: .jpeg(JPEGEncodingOptions(quality: 1.0)))
        let before = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        try #require(before.count > 1 << 20)  // over the system layer's uncached minimum
        let pixels = try ImageDecoder.decode(contentsOf: path)
        let snapshot = try CaptionWriter.write(CaptionUpdate(caption: "A large photo, Zoë 🌸"), to: path)
        #expect(try MetadataReader.read(contentsOf: path).captions.caption == "A large photo, Zoë 🌸")
        #expect(try ImageDecoder.decode(contentsOf: path) == pixels)
        try CaptionWriter.restore(snapshot, to: path)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["large.jpg"])
    }
}
