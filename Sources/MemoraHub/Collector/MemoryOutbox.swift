internal import Foundation
public import MemoraSystem

/// Memories made and faces tagged while the hub was away, waiting on the device in the order they
/// were made: each memory a folder with its metadata and a copy of its file, each tag a small file in
/// `tags/`, written completely (and fsynced) before it counts. A memory sent twice is harmless (the
/// hub keeps one memory per SHA-256), and so is a tag (it says the same again), so a crash between a
/// send and its removal from the outbox loses nothing and duplicates nothing.
public struct MemoryOutbox: Sendable {
    /// The outbox's folder.
    public let folder: String

    /// One waiting memory.
    public struct Item: Sendable {
        /// Its folder.
        public var path: String
        /// Its metadata.
        public var metadata: MemoryUpload
        /// Its file's copy, if it has one.
        public var file: String?
    }

    /// A face tag waiting for the hub: face `face` of memory `memory` is `person` (nil: nobody).
    public struct PendingTag: Sendable, Hashable, Codable {
        /// The memory.
        public var memory: Int64
        /// The face on its photo.
        public var face: Int64
        /// The person, or nil to untag the face.
        public var person: Int64?
        /// Its file in the outbox (set when read back).
        public var path: String?

        /// A tag to queue.
        public init(memory: Int64, face: Int64, person: Int64?) {
            self.memory = memory
            self.face = face
            self.person = person
        }
    }

    /// Where the queue's order is read: the names start with its time in milliseconds.
    public let clock: any MemoraClock

    /// The outbox in `folder`; `clock` stamps what is queued (the system's unless a test moves time).
    public init(folder: String, clock: any MemoraClock = SystemClock()) {
        self.folder = folder
        self.clock = clock
    }

    /// The last millisecond a name was made for, and how many names were made in it.
    private static let lastQueued = Locked<(millisecond: Int64, sequence: Int)>((0, 0))

    /// A new file name that sorts after every name this process made before: the time in
    /// milliseconds (never going back, even when the wall clock does), a sequence number within the
    /// millisecond, and a random part. Two items queued in one millisecond keep their order.
    private func queueName() -> String {
        let now = clock.milliseconds()
        let (millisecond, sequence) = Self.lastQueued.withLock { last in
            if now > last.millisecond { last = (now, 0) } else if last.sequence < 999_999 { last.sequence += 1 } else { last = (last.millisecond + 1, 0) }
            return last
        }
        return String(format: "%015lld-%06ld-", millisecond, sequence) + UUID().uuidString.lowercased()
    }

    /// Queues a face tag; returns how many tags wait now.
    @discardableResult
    public func addTag(_ tag: PendingTag) throws(HubError) -> Int {
        var stored = tag
        stored.path = nil
        do {
            try FileSystem.makeFolder(folder + "/tags", permissions: 0o700)
            try AtomicFileWriter.write(Array(try JSONEncoder().encode(stored)), to: folder + "/tags/" + queueName() + ".json", options: .secret())
            FileSystem.syncFolder(folder + "/tags")
        } catch {
            throw .file(path: folder, reason: "cannot queue the tag: \(error)")
        }
        return (try? tags().count) ?? 1
    }

    /// The waiting tags, oldest first.
    public func tags() throws(HubError) -> [PendingTag] {
        let tagFolder = folder + "/tags"
        guard FileSystem.exists(tagFolder) else { return [] }
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: tagFolder).filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.sorted() } catch {
            throw .file(path: tagFolder, reason: "cannot read the outbox: \(error)")
        }
        return names.compactMap { name in
            guard let bytes = try? SystemFile(tagFolder + "/" + name).readAll(),
                  var tag = try? JSONDecoder().decode(PendingTag.self, from: Data(bytes)) else { return nil }
            tag.path = tagFolder + "/" + name
            return tag
        }
    }

    /// Removes a tag once the hub has it.
    public func remove(_ tag: PendingTag) {
        if let path = tag.path { try? FileSystem.remove(path) }
    }

    /// Moves a tag the hub refused for good to `refused/`, with the reason beside it.
    public func setAside(_ tag: PendingTag, reason: String) {
        guard let path = tag.path else { return }
        let name = SystemPath.fileName(of: path)
        try? FileSystem.makeFolder(folder + "/refused", permissions: 0o700)
        try? AtomicFileWriter.write(Array(reason.utf8), to: folder + "/refused/" + name + ".refused.txt")
        try? FileSystem.rename(path, to: folder + "/refused/" + name)
    }

    /// Queues a memory (its file copied in); returns how many wait now.
    @discardableResult
    public func add(_ metadata: MemoryUpload, file: String?) throws(HubError) -> Int {
        let name = queueName()
        let staging = folder + "/.incoming-" + name, final = folder + "/" + name
        do {
            try FileSystem.makeFolder(staging, permissions: 0o700)
            try AtomicFileWriter.write(Array(try JSONEncoder().encode(metadata)), to: staging + "/metadata.json", options: .secret())
            if let file {
                try FileManager.default.copyItem(atPath: file, toPath: staging + "/media-" + SystemPath.fileName(of: file))
                let copied = FileHandle(forUpdatingAtPath: staging + "/media-" + SystemPath.fileName(of: file))
                try copied?.synchronize()
                try copied?.close()
            }
            try FileSystem.rename(staging, to: final)
            FileSystem.syncFolder(folder)
        } catch {
            try? FileSystem.removeTree(staging)
            throw .file(path: folder, reason: "cannot queue the memory: \(error)")
        }
        return (try? items().count) ?? 1
    }

    /// The waiting memories, oldest first (half-written ones are removed).
    public func items() throws(HubError) -> [Item] {
        guard FileSystem.exists(folder) else { return [] }
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted() } catch {
            throw .file(path: folder, reason: "cannot read the outbox: \(error)")
        }
        var items: [Item] = []
        for name in names where name != "refused" && name != "tags" {
            let path = folder + "/" + name
            if name.hasPrefix(".incoming-") { try? FileSystem.removeTree(path); continue }
            guard let bytes = try? SystemFile(path + "/metadata.json").readAll(),
                  let metadata = try? JSONDecoder().decode(MemoryUpload.self, from: Data(bytes)) else { continue }
            let media = (try? FileManager.default.contentsOfDirectory(atPath: path))?.first { $0.hasPrefix("media-") }
            items.append(Item(path: path, metadata: metadata, file: media.map { path + "/" + $0 }))
        }
        return items
    }

    /// Removes an item once the hub has it.
    public func remove(_ item: Item) {
        try? FileSystem.removeTree(item.path)
    }

    /// Moves an item the hub refused for good to `refused/`, with the reason beside it.
    public func setAside(_ item: Item, reason: String) {
        let target = folder + "/refused/" + SystemPath.fileName(of: item.path)
        try? FileSystem.makeFolder(folder + "/refused", permissions: 0o700)
        try? AtomicFileWriter.write(Array(reason.utf8), to: item.path + "/refused.txt")
        try? FileSystem.rename(item.path, to: target)
    }
}
