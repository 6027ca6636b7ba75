import Foundation
import ImageKit
import Testing
@testable import MetadataKit
import TestSupport

/// Large JPEGs are written through a window (header and end of file in memory, the coded image
/// between copied in pieces); the result must be exactly what the whole-file path writes.
@Suite("Large JPEGs written through a window")
struct JPEGWindowTests {
    /// A ~1 MB photo, optionally ending with a FotoStation trailer, and a copy of it.
    static func photos(fotoStation: Bool) throws -> (windowed: String, whole: String) {
        let folder = try temporaryFolder("metadatakit")
        var bytes = try ImageEncoder.encode(try SyntheticPhoto.landscape(width: 1600, height: 1200, seed: 9),
                                            as: .jpeg(JPEGEncodingOptions(quality: 0.97)))
        if fotoStation {
            let iim = IPTCRecord(dataSets: [.init(record: 2, number: 0, value: [0, 4]), .init(record: 2, number: 120, value: Array("Old".utf8))]).bytes
            bytes += FotoStationTrailer(records: [.init(type: 1, data: iim)]).bytes
        }
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/windowed.jpg"))
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/whole.jpg"))
        return (folder + "/windowed.jpg", folder + "/whole.jpg")
    }

    @Test("the windowed write equals the whole-file write byte for byte, its snapshot restores the original exactly", arguments: [false, true])
    func sameAsWholeFile(fotoStation: Bool) throws {
        let (windowed, whole) = try Self.photos(fotoStation: fotoStation)
        defer { try? FileManager.default.removeItem(atPath: (windowed as NSString).deletingLastPathComponent) }
        let original = try Data(contentsOf: URL(fileURLWithPath: windowed))
        let window = try #require(try JPEGWindow.open(windowed, minimumSize: 1 << 10, tailLength: 64 << 10))
        #expect(window.middle.count > 500_000, "most of the coded image is never in memory")
        let saved = SnapshotBox()
        let options = CaptionWriteOptions(beforeReplacing: { saved.set($0) })
        let update = MetadataOperation.caption(CaptionUpdate(caption: "Zoë’s café — 東京 🌸", altText: "A test photo"))
        let snapshot = try #require(try CaptionWriter.performWindowed(update, window: window, options: options, buffers: nil))
        let reference = try CaptionWriter.perform(update, on: whole, options: CaptionWriteOptions())
        #expect(try Data(contentsOf: URL(fileURLWithPath: windowed)) == Data(contentsOf: URL(fileURLWithPath: whole)))
        #expect(snapshot.imageDigest == reference.imageDigest, "the digest covers the bytes that were never read into memory")
        #expect(saved.get()?.imageDigest == snapshot.imageDigest, "the snapshot was saved before the photo was replaced")
        #expect(try MetadataReader.read(contentsOf: windowed).captions.caption == "Zoë’s café — 東京 🌸")
        try CaptionWriter.restore(snapshot, to: windowed)
        #expect(try Data(contentsOf: URL(fileURLWithPath: windowed)) == original)
    }

    @Test("a file changed between the read and the write is refused and left as it is")
    func changedFileRefused() throws {
        let (windowed, _) = try Self.photos(fotoStation: false)
        defer { try? FileManager.default.removeItem(atPath: (windowed as NSString).deletingLastPathComponent) }
        let window = try #require(try JPEGWindow.open(windowed, minimumSize: 1 << 10, tailLength: 64 << 10))
        var changed = try [UInt8](Data(contentsOf: URL(fileURLWithPath: windowed)))
        changed[changed.count / 2] ^= 0x01
        try Data(changed).write(to: URL(fileURLWithPath: windowed))
        #expect(throws: MetadataError.self) {
            try CaptionWriter.performWindowed(.caption(CaptionUpdate(caption: "x")), window: window, options: CaptionWriteOptions(), buffers: nil)
        }
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: windowed))) == changed)
    }
}

/// The snapshot a `beforeReplacing` hook received.
final class SnapshotBox: @unchecked Sendable {
    private let lock = NSLock()
    private var snapshot: MetadataSnapshot?
    func set(_ value: MetadataSnapshot) { lock.withLock { snapshot = value } }
    func get() -> MetadataSnapshot? { lock.withLock { snapshot } }
}
