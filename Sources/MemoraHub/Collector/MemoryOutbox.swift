internal import Foundation
internal import MemoraSystem

/// Memories made while the hub was away, waiting on the device in the order they were made: each a
/// folder with its metadata and a copy of its file, written completely (and fsynced) before it counts.
/// A memory sent twice is harmless (the hub keeps one memory per SHA-256), so a crash between an
/// upload and its removal from the outbox loses nothing and duplicates nothing.
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

    /// The outbox in `folder`.
    public init(folder: String) { self.folder = folder }

    /// Queues a memory (its file copied in); returns how many wait now.
    @discardableResult
    public func add(_ metadata: MemoryUpload, file: String?) throws(HubError) -> Int {
        let name = String(format: "%015.0f-", Date().timeIntervalSince1970 * 1000) + UUID().uuidString.lowercased()
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
        for name in names where name != "refused" {
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
