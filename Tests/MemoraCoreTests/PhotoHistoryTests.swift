import Foundation
import GRDB
import MetadataKit
import Testing
@testable import MemoraCore
import MemoraSystem
import TestSupport

/// One history for every write: captions, edits, `metadata write`, location strips and
/// rollbacks, each level restorable byte for byte, on a real SQLite file and real JPEGs.
@Suite("One history for every write")
struct PhotoHistoryTests {
    private func bytes(_ path: String) throws -> [UInt8] { try SystemFile(path).readAll() }

    @Test("metadata write, strip-location and an edit are one history; rollback to every level gives back that level's bytes")
    func everyLevel() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let database = try CaptionDatabase(path: folder + "/memora.sqlite")
        let editor = CaptionEditor(database: database)
        let history = PhotoHistory(database: database)
        let photo = try makeCameraJPEG(in: folder)
        var levels = [try bytes(photo)]

        let written = editor.write(CaptionUpdate(caption: "Harbour at dawn", altText: "Boats in a harbour."), toEach: [photo, folder + "/./photo.jpg"])
        #expect(written.count == 1, "a photo named twice is written once")
        levels.append(try bytes(photo))
        let stripped = editor.stripLocation(fromEach: [photo])
        #expect(try stripped.first?.result.get() != nil)
        #expect(try MetadataReader.read(contentsOf: photo).gps == nil)
        levels.append(try bytes(photo))
        try editor.edit(path: photo, caption: "Grandpa's boat at dawn")
        levels.append(try bytes(photo))

        let entries = try history.entries(forPath: photo)
        #expect(entries.map(\.kind) == [.metadataWrite, .stripLocation, .manual])
        #expect(entries.map(\.hasSnapshot) == [false, true, true], "entry 1's snapshot is the original's")
        #expect(try history.original(forPath: photo)?.caption == nil)
        #expect(try history.hasManualCaption(forPath: photo), "a metadata write and an edit are a person's captions")

        // Every level, in an order that crosses back and forth.
        for level in [1, 0, 2, 1, 3, 0] {
            let entry = try editor.rollback(path: photo, to: level)
            #expect(try bytes(photo) == levels[level], "level \(level)")
            #expect(entry.kind == .rollback && entry.modelUsed == "rollback:\(level)")
        }
        // A rollback is itself an entry, so it can be undone: back to the level before it (3).
        try editor.rollback(path: photo)
        #expect(try bytes(photo) == levels[3])
        #expect(try MetadataReader.read(contentsOf: photo).captions.caption == "Grandpa's boat at dawn")
    }

    @Test("a caption from the pipeline and a later metadata write share the history; metadata restore undoes either")
    func captionThenMetadataWrite() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let database = try CaptionDatabase(path: folder + "/memora.sqlite")
        let photo = try makeCameraJPEG(in: folder)
        let queue = ProcessingQueue(database: database)
        try queue.enqueue(path: photo)
        _ = await CaptionPipeline(database: database, selector: ModelSelector(mode: .onDevice)).process(try #require(try queue.claimNext()))
        let captioned = try bytes(photo)
        let editor = CaptionEditor(database: database)
        _ = editor.write(CaptionUpdate(caption: "Mine"), toEach: [photo])
        #expect(try PhotoHistory(database: database).entries(forPath: photo).map(\.kind) == [.generated, .metadataWrite])
        try editor.rollback(path: photo)
        #expect(try bytes(photo) == captioned, "undoing the metadata write brings back the generated caption's bytes")
    }

    @Test("a failed write leaves no entry, and the photo unchanged")
    func failedWriteLeavesNoEntry() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let database = try CaptionDatabase(path: folder + "/memora.sqlite")
        let photo = folder + "/not-a-photo.jpg"
        try AtomicFileWriter.write(Array("plain text, not a JPEG".utf8), to: photo)
        let results = CaptionEditor(database: database).write(CaptionUpdate(caption: "x"), toEach: [photo])
        #expect(throws: MetadataError.self) { try results.first?.result.get() }
        #expect(try PhotoHistory(database: database).entries(forPath: photo).isEmpty)
        #expect(try PhotoHistory(database: database).original(forPath: photo) == nil)
        #expect(String(decoding: try bytes(photo), as: UTF8.self) == "plain text, not a JPEG")
    }

    @Test("a database from before the one history is migrated in place: its entries stay, and its original still restores")
    func migratesVersion1() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/memora.sqlite"
        let photo = try makeCameraJPEG(in: folder)
        let original = try bytes(photo)
        // The photo as release 1 left it: captioned, its original snapshot unversioned JSON with Foundation's dates.
        let snapshot = try CaptionWriter.write(CaptionUpdate(caption: "Old caption"), to: photo)
        guard case .jpeg(let saved) = snapshot.kept else { Issue.record("not a JPEG snapshot"); return }
        let legacy: [String: Any] = [
            "path": photo, "imageDigest": snapshot.imageDigest.base64EncodedString(), "date": Date().timeIntervalSinceReferenceDate,
            "segments": saved.segments.map { ["marker": Int($0.marker), "payload": $0.payload.base64EncodedString(), "position": $0.position] },
        ]
        do {
            let pool = try DatabasePool(path: path)
            try CaptionDatabase.migrator(clock: SystemClock()).migrate(pool, upTo: "v1")
            try pool.write { db in
                try db.execute(sql: "INSERT INTO original_metadata (asset_id, snapshot, caption, alt_text, created_at) VALUES (?, ?, NULL, NULL, 1)",
                               arguments: [ProcessingQueue.assetID(for: photo), try JSONSerialization.data(withJSONObject: legacy)])
                try db.execute(sql: "INSERT INTO caption_history (asset_id, caption, alt_text, model_used, was_manual_edit, kind, created_at) VALUES (?, 'Old caption', 'Old', 'ollama:llava', 0, 'generated', 2)",
                               arguments: [ProcessingQueue.assetID(for: photo)])
            }
        }
        let database = try CaptionDatabase(path: path)
        let history = PhotoHistory(database: database)
        #expect(try history.entries(forPath: photo).map(\.caption) == ["Old caption"])
        _ = CaptionEditor(database: database).stripLocation(fromEach: [photo])
        #expect(try history.entries(forPath: photo).map(\.kind) == [.generated, .stripLocation])
        try CaptionEditor(database: database).rollback(path: photo, to: 0)
        #expect(try bytes(photo) == original)
    }

    @Test("a snapshot file left by an earlier release's metadata write is restored when the photo has no history")
    func legacySnapshotFile() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let photo = try makeCameraJPEG(in: folder)
        let original = try bytes(photo)
        let snapshot = try CaptionWriter.write(CaptionUpdate(caption: "Written by release 1"), to: photo)
        let database = try CaptionDatabase(path: folder + "/memora.sqlite")
        var editor = CaptionEditor(database: database)
        editor.legacySnapshotFolder = folder + "/snapshots"
        let file = editor.legacySnapshotPath(for: photo)
        try FileSystem.makeFolder(editor.legacySnapshotFolder)
        try AtomicFileWriter.write(Array(snapshot.encoded()), to: file)
        let entry = try editor.rollback(path: photo)
        #expect(try bytes(photo) == original)
        #expect(entry.modelUsed == "restore")
        #expect(FileSystem.statusIfPresent(of: file) == nil, "the old snapshot file is removed once restored")
        #expect(throws: MemoraError.self) { try editor.rollback(path: folder + "/other.jpg") }
    }

    @Test("an entry a crash left pending is dropped when the write never reached the photo, and kept when it did")
    func pendingEntriesAfterACrash() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let database = try CaptionDatabase(path: folder + "/memora.sqlite")
        let history = PhotoHistory(database: database)
        let editor = CaptionEditor(database: database)
        let photo = try makeCameraJPEG(in: folder)
        let asset = ProcessingQueue.assetID(for: photo)

        let original = try bytes(photo)
        func record(_ caption: String) -> PhotoHistory.Record {
            PhotoHistory.Record(asset: asset, kind: .metadataWrite, caption: caption, altText: nil, modelUsed: "metadata-write")
        }

        // Killed after the entry was recorded, before the photo was replaced (the kill stands as a throw).
        let hook = history.options(recording: record("Never written"), into: PhotoHistory.Recorded())
        #expect(throws: MetadataError.self) {
            try CaptionWriter.write(CaptionUpdate(caption: "Never written"), to: photo, options: CaptionWriteOptions(beforeReplacing: { snapshot in
                try hook.beforeReplacing?(snapshot)
                throw CancellationError()
            }))
        }
        #expect(try bytes(photo) == original)
        #expect(try history.entries(forPath: photo).map(\.caption) == ["Never written"], "left pending")
        // The next write settles it: the photo never changed, so the entry is dropped.
        _ = editor.write(CaptionUpdate(caption: "Harbour"), toEach: [photo])
        #expect(try history.entries(forPath: photo).map(\.caption) == ["Harbour"])

        // Killed after the photo was replaced, before the entry was confirmed.
        try CaptionWriter.write(CaptionUpdate(caption: "Landed"), to: photo,
                                options: history.options(recording: record("Landed"), into: PhotoHistory.Recorded()))
        let landed = try bytes(photo)
        _ = editor.write(CaptionUpdate(caption: "After"), toEach: [photo])
        #expect(try history.entries(forPath: photo).map(\.caption) == ["Harbour", "Landed", "After"], "kept: the photo did change")
        try editor.rollback(path: photo, to: 2)
        #expect(try bytes(photo) == landed)
        try editor.rollback(path: photo, to: 0)
        #expect(try bytes(photo) == original)
    }
}
