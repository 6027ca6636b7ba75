import Foundation
import ImageKit
import MemoraSystem
@testable import MetadataKit
import Testing
import TestSupport

@Suite("Snapshots: a versioned format that old releases' snapshots still restore from")
struct MetadataSnapshotTests {
    private func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    @Test("a JPEG snapshot is typed (segments with positions), survives encoding and restores the file byte for byte")
    func jpegRoundTrip() throws {
        let path = try makeJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        try CaptionWriter.write(CaptionUpdate(caption: "First"), to: path)
        let before = try bytes(path)
        let snapshot = try CaptionWriter.write(CaptionUpdate(caption: "Second"), to: path)
        guard case .jpeg(let saved) = snapshot.kept else { Issue.record("not a JPEG snapshot: \(snapshot.kept)"); return }
        #expect(saved.segments.contains { $0.marker == 0xE1 }, "the EXIF and XMP segments are kept")
        let encoded = snapshot.encoded()
        let json = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        #expect(json["version"] as? Int == MetadataSnapshot.formatVersion)
        #expect(json["kind"] as? String == "jpeg")
        let decoded = try MetadataSnapshot(decoding: encoded)
        #expect(decoded.kept == snapshot.kept)
        #expect(abs(decoded.date.timeIntervalSince(snapshot.date)) < 0.01)
        try CaptionWriter.restore(decoded, to: path)
        #expect(try bytes(path) == before)
    }

    @Test("an unversioned snapshot of an earlier release (JSON with marker-coded segments, either date style) still restores")
    func unversionedRestores() throws {
        let path = try makeJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        try CaptionWriter.write(CaptionUpdate(caption: "Before"), to: path)
        let before = try bytes(path)
        let typed = try CaptionWriter.write(CaptionUpdate(caption: "After"), to: path)
        guard case .jpeg(let saved) = typed.kept else { Issue.record("not a JPEG snapshot"); return }
        // What releases before format 1 wrote: `segments` of marker, payload, position; the date as
        // Foundation's seconds since 2001 (the caption database) or ISO 8601 (the snapshot files).
        let segments: [[String: Any]] = saved.segments.map {
            ["marker": Int($0.marker), "payload": $0.payload.base64EncodedString(), "position": $0.position]
        }
        for date: Any in [Date().timeIntervalSinceReferenceDate, "2025-06-01T10:00:00Z"] {
            let legacy: [String: Any] = ["path": path, "segments": segments, "imageDigest": typed.imageDigest.base64EncodedString(), "date": date]
            let snapshot = try MetadataSnapshot(decoding: try JSONSerialization.data(withJSONObject: legacy))
            guard case .unversioned = snapshot.kept else { Issue.record("read as \(snapshot.kept)"); return }
            try CaptionWriter.write(CaptionUpdate(caption: "Something else"), to: path)
            try CaptionWriter.restore(snapshot, to: path)
            #expect(try bytes(path) == before)
        }
    }

    @Test("a snapshot in a newer format is refused with a message saying to update, and the file is not touched")
    func newerFormatRefused() throws {
        let newer: [String: Any] = ["version": MetadataSnapshot.formatVersion + 1, "kind": "jpeg", "path": "a.jpg", "imageDigest": "", "date": "2026-01-01T00:00:00Z"]
        do {
            _ = try MetadataSnapshot(decoding: try JSONSerialization.data(withJSONObject: newer), source: "a.jpg")
            Issue.record("a newer format was accepted")
        } catch {
            #expect(String(describing: error).contains("update Memora"))
            #expect(!String(describing: error).contains("DecodingError"))
        }
        #expect(throws: MetadataError.self) { try MetadataSnapshot(decoding: Data("not json".utf8)) }
    }

    @Test("a PNG snapshot restored onto a JPEG is refused: the formats differ")
    func formatMismatchRefused() throws {
        let path = try makeJPEG()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let before = try bytes(path)
        let png = MetadataSnapshot(path: path, kept: .png(.init(exif: nil, xmp: nil, profiles: [])), imageDigest: Data([1]))
        #expect(throws: MetadataError.self) { try CaptionWriter.restore(png, to: path) }
        #expect(try bytes(path) == before)
    }

    @Test("a TIFF snapshot keeps only the overwritten ranges and the original length; restoring it, and undoing the restore, is exact")
    func tiffPatches() throws {
        let folder = try temporaryFolder("metadatakit")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/scan.tif"
        // Pixels after the IFD make the file large enough that a whole-file snapshot would show.
        var original = makeTIFF()
        original += [UInt8](repeating: 0x5A, count: 200_000)
        try Data(original).write(to: URL(fileURLWithPath: path))
        let first = try CaptionWriter.write(CaptionUpdate(caption: "Short"), to: path)
        let afterFirst = try bytes(path)
        // A longer caption grows the values: the old appended ones are cut back and written again.
        let second = try CaptionWriter.write(CaptionUpdate(caption: String(repeating: "A much longer caption. ", count: 40)), to: path)
        let afterSecond = try bytes(path)
        for snapshot in [first, second] {
            guard case .patches(let patches) = snapshot.kept else { Issue.record("not a patch snapshot: \(snapshot.kept)"); return }
            #expect(patches.ranges.reduce(0) { $0 + $1.bytes.count } < 4096, "a few KB, not the \(original.count)-byte file")
            #expect(snapshot.encoded().count < 8192)
        }
        // Restore the second write, keeping what the restore replaced; then undo the restore.
        let undo = Locked<MetadataSnapshot?>(nil)
        try CaptionWriter.restore(try MetadataSnapshot(decoding: second.encoded()), to: path,
                                  options: CaptionWriteOptions(beforeReplacing: { snapshot in undo.withLock { $0 = snapshot } }))
        #expect(try bytes(path) == afterFirst)
        let inverse = try #require(undo.withLock { $0 })
        guard case .patches = inverse.kept else { Issue.record("the restore's own snapshot is \(inverse.kept)"); return }
        try CaptionWriter.restore(inverse, to: path)
        #expect(try bytes(path) == afterSecond)
        try CaptionWriter.restore(second, to: path)
        try CaptionWriter.restore(first, to: path)
        #expect(try bytes(path) == original)
        // Patches that do not fit the file are refused, and the file is not touched.
        var bogus = first
        bogus.kept = .patches(.init(originalLength: 10, ranges: [.init(offset: 8, bytes: Data([1, 2, 3, 4]))]))
        bogus.imageDigest = Data(CaptionWriter.fingerprint(original))  // the right file: only the patches are wrong
        #expect(throws: MetadataError.self) { try CaptionWriter.restore(bogus, to: path) }
        bogus.kept = .patches(.init(originalLength: 1 << 40, ranges: []))  // a forged length allocates nothing
        #expect(throws: MetadataError.self) { try CaptionWriter.restore(bogus, to: path) }
        #expect(try bytes(path) == original)
    }
}
