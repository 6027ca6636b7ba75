import Foundation
import MemoraHub
import MemoraSystem
import Testing
import TestSupport

/// The collector's offline outbox: memories and face tags written completely before they count,
/// read back oldest first, removed or set aside once the hub has answered.
@Suite("MemoryOutbox")
struct MemoryOutboxTests {
    @Test("an outbox whose folder does not exist yet holds no memories and no tags")
    func empty() throws {
        let outbox = MemoryOutbox(folder: try temporaryFolder("outbox-empty") + "/never-made")
        #expect(try outbox.items().isEmpty)
        #expect(try outbox.tags().isEmpty)
        #expect(!FileSystem.exists(outbox.folder), "reading does not create the folder")
    }

    @Test("a memory is queued with its metadata and a private copy of its file, which outlives the original")
    func queuedWithCopy() throws {
        let folder = try temporaryFolder("outbox-copy")
        let outbox = MemoryOutbox(folder: folder + "/outbox")
        let original = folder + "/voice note.wav"
        let bytes = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try bytes.write(to: URL(fileURLWithPath: original))
        let metadata = MemoryUpload(kind: .voice, title: "Grandma's song", description: "at the table", takenAt: 1_700_000_000_000,
                                    latitude: 41.15, longitude: -8.61, place: "Porto", people: [3, 5], faces: nil)
        #expect(try outbox.add(metadata, file: original) == 1)
        try FileManager.default.removeItem(atPath: original)

        let items = try outbox.items()
        try #require(items.count == 1)
        let item = items[0]
        #expect(item.metadata == metadata)
        let copy = try #require(item.file)
        #expect(copy.hasPrefix(item.path + "/") && copy.hasSuffix("/media-voice note.wav"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: copy)) == bytes)
        #expect(try FileSystem.status(of: item.path).permissions == 0o700)
        #expect(try FileSystem.status(of: item.path + "/metadata.json").permissions == 0o600)
        // A memory without a file has none, and the count returned is of every waiting memory.
        #expect(try outbox.add(MemoryUpload(kind: .text, title: "A thought", description: "words"), file: nil) == 2)
        let note = try #require(try outbox.items().first { $0.metadata.title == "A thought" })
        #expect(note.file == nil)
    }

    @Test("memories come back in the order they were queued, however fast they are queued")
    func order() throws {
        let outbox = MemoryOutbox(folder: try Self.fastFolder("outbox-order") + "/outbox")
        defer { Self.removeFastFolder(outbox.folder) }
        let titles = (1...60).map { "memory \($0)" }
        for title in titles { try outbox.add(MemoryUpload(kind: .text, title: title, description: "x"), file: nil) }
        // Many memories are queued in one millisecond here: the names' sequence keeps their order.
        let waiting = try outbox.items().map(\.metadata.title)
        #expect(waiting == titles)
        #expect(waiting.sorted() == titles.sorted(), "every memory waits, once")
    }

    @Test("a memory whose file cannot be copied is not queued and leaves nothing half-written")
    func failedCopy() throws {
        let folder = try temporaryFolder("outbox-failed")
        let outbox = MemoryOutbox(folder: folder + "/outbox")
        #expect(try outbox.add(MemoryUpload(kind: .text, title: "First", description: "x"), file: nil) == 1)
        let error = #expect(throws: HubError.self) {
            try outbox.add(MemoryUpload(kind: .photo, title: "Gone"), file: folder + "/no-such-photo.jpg")
        }
        #expect(error?.code == .file)
        #expect(try outbox.items().map(\.metadata.title) == ["First"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: outbox.folder).count == 1, "no staging folder is left")
    }

    @Test("a half-written memory (a crash before its rename) is removed when the outbox is read; an unreadable one is skipped")
    func halfWritten() throws {
        let outbox = MemoryOutbox(folder: try temporaryFolder("outbox-crash") + "/outbox")
        try outbox.add(MemoryUpload(kind: .text, title: "Whole", description: "x"), file: nil)
        let staging = outbox.folder + "/.incoming-000000000000001-crash"
        try FileSystem.makeFolder(staging, permissions: 0o700)
        try Data(#"{"kind":"text","title":"Half"}"#.utf8).write(to: URL(fileURLWithPath: staging + "/metadata.json"))
        let broken = outbox.folder + "/000000000000002-broken"
        try FileSystem.makeFolder(broken, permissions: 0o700)
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: broken + "/metadata.json"))

        #expect(try outbox.items().map(\.metadata.title) == ["Whole"])
        #expect(!FileSystem.exists(staging))
    }

    @Test("remove drops a memory; setAside moves it to refused/ with the reason, and neither is waiting any more")
    func removeAndSetAside() throws {
        let outbox = MemoryOutbox(folder: try temporaryFolder("outbox-remove") + "/outbox")
        for title in ["Refused", "Sent", "Waiting"] { try outbox.add(MemoryUpload(kind: .text, title: title, description: "x"), file: nil) }
        let items = Dictionary(uniqueKeysWithValues: try outbox.items().map { ($0.metadata.title, $0) })
        let refusedItem = try #require(items["Refused"]), sent = try #require(items["Sent"])
        outbox.setAside(refusedItem, reason: "the hub refused it: title too long")
        outbox.remove(sent)
        #expect(try outbox.items().map(\.metadata.title) == ["Waiting"])
        #expect(!FileSystem.exists(sent.path))
        let refused = outbox.folder + "/refused/" + SystemPath.fileName(of: refusedItem.path)
        #expect(try String(contentsOfFile: refused + "/refused.txt", encoding: .utf8) == "the hub refused it: title too long")
        #expect(FileSystem.exists(refused + "/metadata.json"), "the refused memory is kept, not lost")
    }

    @Test("face tags wait apart from the memories, each with its person (nil kept); remove and setAside take one tag out")
    func tags() throws {
        let outbox = MemoryOutbox(folder: try temporaryFolder("outbox-tags") + "/outbox")
        #expect(try outbox.addTag(MemoryOutbox.PendingTag(memory: 7, face: 1, person: 3)) == 1)
        #expect(try outbox.addTag(MemoryOutbox.PendingTag(memory: 7, face: 2, person: nil)) == 2)
        #expect(try outbox.addTag(MemoryOutbox.PendingTag(memory: 9, face: 4, person: 5)) == 3)
        try outbox.add(MemoryUpload(kind: .text, title: "Note", description: "x"), file: nil)
        #expect(try outbox.items().map(\.metadata.title) == ["Note"], "tags are not memories")

        // In face order here: the order they wait in has its own test.
        let waiting = try outbox.tags().sorted { $0.face < $1.face }
        #expect(waiting.map(\.face) == [1, 2, 4] && waiting.map(\.memory) == [7, 7, 9])
        #expect(waiting.map(\.person) == [3, nil, 5], "untagging (nil) is kept as nil")
        #expect(waiting.allSatisfy { $0.path?.hasPrefix(outbox.folder + "/tags/") == true })

        // A tag not read back from the outbox has no file: removing it changes nothing.
        outbox.remove(MemoryOutbox.PendingTag(memory: 7, face: 1, person: 3))
        #expect(try outbox.tags().count == 3)
        outbox.remove(waiting[0])
        outbox.setAside(waiting[1], reason: "no such face")
        #expect(try outbox.tags().map(\.face) == [4])
        let name = SystemPath.fileName(of: try #require(waiting[1].path))
        #expect(try String(contentsOfFile: outbox.folder + "/refused/" + name + ".refused.txt", encoding: .utf8) == "no such face")
        #expect(FileSystem.exists(outbox.folder + "/refused/" + name))
    }

    @Test("a tag file that is hidden, not JSON or not a tag is not read as a tag")
    func strayTagFiles() throws {
        let outbox = MemoryOutbox(folder: try temporaryFolder("outbox-stray") + "/outbox")
        try outbox.addTag(MemoryOutbox.PendingTag(memory: 1, face: 1, person: 1))
        let tags = outbox.folder + "/tags/"
        try Data(#"{"memory":2,"face":2,"person":2}"#.utf8).write(to: URL(fileURLWithPath: tags + ".hidden.json"))
        try Data(#"{"memory":3,"face":3,"person":3}"#.utf8).write(to: URL(fileURLWithPath: tags + "note.txt"))
        try Data("{half".utf8).write(to: URL(fileURLWithPath: tags + "000000000000000-torn.json"))
        try Data(#"{"title":"not a tag"}"#.utf8).write(to: URL(fileURLWithPath: tags + "000000000000001-other.json"))
        #expect(try outbox.tags().map(\.memory) == [1])
    }

    @Test("face tags come back in the order they were queued, however fast they are queued")
    func tagOrder() throws {
        let outbox = MemoryOutbox(folder: try Self.fastFolder("outbox-tag-order") + "/outbox")
        defer { Self.removeFastFolder(outbox.folder) }
        for face in Int64(1)...100 { try outbox.addTag(MemoryOutbox.PendingTag(memory: 1, face: face, person: nil)) }
        // Many tags are queued in one millisecond here: the names' sequence keeps their order.
        let waiting = try outbox.tags().map(\.face)
        #expect(waiting == Array(1...100))
        #expect(waiting.sorted() == Array(1...100), "every tag waits, once")
    }

    @Test("the queue's order is stamped with the outbox's clock, and a clock stepped back does not reorder it")
    func clockStamps() throws {
        // A year ahead of the system's clock, so no name this process made before is later.
        let clock = ManualClock(start: Date().addingTimeInterval(365 * 86_400))
        let outbox = MemoryOutbox(folder: try temporaryFolder("outbox-clock") + "/outbox", clock: clock)
        _ = try outbox.addTag(MemoryOutbox.PendingTag(memory: 1, face: 1, person: nil))
        let stamped = clock.milliseconds()
        clock.advance(by: .seconds(-7200))  // the wall clock is set back two hours
        _ = try outbox.addTag(MemoryOutbox.PendingTag(memory: 1, face: 2, person: nil))
        let waiting = try outbox.tags()
        #expect(waiting.map(\.face) == [1, 2])
        let names = waiting.compactMap { $0.path.map(SystemPath.fileName(of:)) }
        #expect(names.count == 2 && names.allSatisfy { $0.hasPrefix(String(format: "%015lld-", stamped)) }, "\(names)")
    }

    /// A folder on a RAM file system where there is one (`/dev/shm` on Linux): queueing there takes
    /// well under a millisecond, as on a phone's fast flash. Otherwise a temporary folder.
    static func fastFolder(_ label: String) throws -> String {
        FileSystem.isFolder("/dev/shm") ? try temporaryFolder(label, in: "/dev/shm") : try temporaryFolder(label)
    }

    /// Removes the folder above `outbox` when it is on `/dev/shm` (the process's own temporary folders go at exit).
    static func removeFastFolder(_ outbox: String) {
        let folder = SystemPath.folder(of: outbox)
        if folder.hasPrefix("/dev/shm/") { try? FileSystem.removeTree(folder) }
    }
}
