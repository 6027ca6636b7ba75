import Foundation
import ImageKit
import MemoraSystem
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

    @Test("a streamed write reports its progress up to the total, and a progress that stops it leaves the photo and no temporary file")
    func progressAndCancellation() throws {
        let (windowed, _) = try Self.photos(fotoStation: false)
        let folder = (windowed as NSString).deletingLastPathComponent
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let original = try Data(contentsOf: URL(fileURLWithPath: windowed))
        let update = MetadataOperation.caption(CaptionUpdate(caption: "Progress"))
        let stopped = try #require(try JPEGWindow.open(windowed, minimumSize: 1 << 10, tailLength: 64 << 10))
        var stopping = CaptionWriteOptions()
        stopping.progress = { _, _ throws(MetadataError) in throw MetadataError(.cancelled, path: windowed, reason: "cancelled", message: "cancelled") }
        #expect { try CaptionWriter.performWindowed(update, window: stopped, options: stopping, buffers: nil) } throws: {
            ($0 as? MetadataError)?.code == .cancelled
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: windowed)) == original)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix(".") }.isEmpty, "no temporary file left")

        let reports = ProgressLog()
        var reporting = CaptionWriteOptions()
        reporting.progress = { written, total throws(MetadataError) in reports.append(written, total) }
        let window = try #require(try JPEGWindow.open(windowed, minimumSize: 1 << 10, tailLength: 64 << 10))
        _ = try CaptionWriter.performWindowed(update, window: window, options: reporting, buffers: nil)
        let size = Int64(try FileManager.default.attributesOfItem(atPath: windowed)[.size] as? Int ?? 0)
        #expect(reports.all.count >= 3 && reports.all.last?.0 == size && reports.all.allSatisfy { $0.1 == size })
    }

    @Test("the async write reports the end and refuses to start in a cancelled task, leaving the photo")
    func asyncWrite() async throws {
        let (photo, _) = try Self.photos(fotoStation: false)
        defer { try? FileManager.default.removeItem(atPath: (photo as NSString).deletingLastPathComponent) }
        let reports = ProgressLog()
        try await CaptionWriter.write(CaptionUpdate(caption: "Async"), to: photo) { reports.append(Int64($0), Int64($1)) }
        #expect(try MetadataReader.read(contentsOf: photo).captions.caption == "Async")
        let size = Int64(try FileManager.default.attributesOfItem(atPath: photo)[.size] as? Int ?? -1)
        #expect(reports.all.count == 1 && reports.all.first?.0 == size && reports.all.first?.1 == size, "one report, at the end")
        let before = try Data(contentsOf: URL(fileURLWithPath: photo))
        let task = Task { () async throws -> MetadataSnapshot in
            withUnsafeCurrentTask { $0?.cancel() }
            return try await CaptionWriter.write(CaptionUpdate(caption: "Never"), to: photo) { _, _ in }
        }
        await #expect { _ = try await task.value } throws: { ($0 as? MetadataError)?.code == .cancelled }
        #expect(try Data(contentsOf: URL(fileURLWithPath: photo)) == before)
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
final class SnapshotBox: Sendable {
    private let snapshot = Locked<MetadataSnapshot?>(nil)
    func set(_ value: MetadataSnapshot) { snapshot.withLock { $0 = value } }
    func get() -> MetadataSnapshot? { snapshot.withLock { $0 } }
}

/// Progress reports from a write.
final class ProgressLog: Sendable {
    private let values = Locked<[(Int64, Int64)]>([])
    func append(_ written: Int64, _ total: Int64) { values.withLock { $0.append((written, total)) } }
    var all: [(Int64, Int64)] { values.withLock { $0 } }
}
