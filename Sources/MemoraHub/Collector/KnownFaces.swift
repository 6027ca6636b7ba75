internal import Foundation
internal import MemoraSystem

/// The embeddings of tagged faces, by person, that suggest who a new face is: those this device's user
/// tagged (kept in `path`, so suggestions work offline) and those tagged on the hub from every device
/// (a copy in `sharedPath`, refreshed by ``MemoryCollector/refreshKnownFaces()``). Both files are 0600.
/// Embeddings leave the device only with their photo, for the paired hub.
public struct KnownFaces: Sendable {
    /// This device's tagged faces.
    public let path: String
    /// The copy of the hub's tagged faces.
    public let sharedPath: String
    /// Faces within this Euclidean distance of a tagged face are suggested as that person (dlib's
    /// embeddings: one person's faces are usually within 0.6; 0.5 keeps look-alikes apart).
    public var threshold: Float = 0.5
    /// At most this many faces are kept per person (the latest).
    public var perPerson = 32

    private struct Entry: Codable { var person: Int64; var embedding: [Float] }

    /// Known faces kept in `path`, with the hub's copy in `sharedPath` (by default beside `path`).
    public init(path: String, sharedPath: String? = nil) {
        self.path = path
        self.sharedPath = sharedPath ?? SystemPath.folder(of: path) + "/hub-faces.json"
    }

    private func load(_ file: String) -> [Entry] {
        guard let bytes = try? SystemFile(file).readAll() else { return [] }
        return (try? JSONDecoder().decode([Entry].self, from: Data(bytes))) ?? []
    }

    private func save(_ entries: [Entry], to file: String) throws(HubError) {
        do {
            try FileSystem.makeFolder(SystemPath.folder(of: file), permissions: 0o700)
            try AtomicFileWriter.write(Array(try JSONEncoder().encode(entries)), to: file, options: .secret())
        } catch {
            throw .file(path: file, reason: "cannot save the known faces: \(error)")
        }
    }

    /// Replaces the copy of the hub's tagged faces.
    public func replaceShared(_ faces: [KnownFace]) throws(HubError) {
        try save(faces.map { Entry(person: $0.personId, embedding: $0.embedding) }, to: sharedPath)
    }

    /// Makes the copy of the hub's faces count as fresh (kept as it is, or empty when there is none):
    /// after a refresh that failed, the next try waits as long as after one that worked.
    public func postponeRefresh() {
        if FileSystem.exists(sharedPath) {
            try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: sharedPath)
        } else {
            try? save([], to: sharedPath)
        }
    }

    /// How old the copy of the hub's faces is, in seconds; nil when there is none.
    public var sharedAge: Double? {
        guard let modified = try? FileManager.default.attributesOfItem(atPath: sharedPath)[.modificationDate] as? Date else { return nil }
        return Date().timeIntervalSince(modified)
    }

    /// Records tagged faces' embeddings.
    public func remember(_ faces: [(person: Int64, embedding: [Float])]) throws(HubError) {
        guard !faces.isEmpty else { return }
        var entries = load(path) + faces.map { Entry(person: $0.person, embedding: $0.embedding) }
        var kept: [Int64: Int] = [:]
        entries = entries.reversed().filter { entry in
            kept[entry.person, default: 0] += 1
            return kept[entry.person]! <= perPerson
        }.reversed()
        try save(entries, to: path)
    }

    /// Forgets a person (they were removed from the hub).
    public func forget(person: Int64) throws(HubError) {
        try keep { $0 != person }
    }

    /// Forgets every person for whom `isKept` is false (the hub no longer has them).
    public func keep(_ isKept: (Int64) -> Bool) throws(HubError) {
        for file in [path, sharedPath] where FileSystem.exists(file) {
            let entries = load(file)
            let kept = entries.filter { isKept($0.person) }
            if kept.count != entries.count { try save(kept, to: file) }
        }
    }

    /// The person whose known face is nearest `embedding`, when within ``threshold``.
    public func suggestion(for embedding: [Float]) -> Int64? {
        suggestions(for: [embedding])[0]
    }

    /// ``suggestion(for:)`` for each of several faces, reading the files once.
    public func suggestions(for embeddings: [[Float]?]) -> [Int64?] {
        let entries = load(path) + load(sharedPath)
        return embeddings.map { embedding in embedding.flatMap { Self.nearest($0, in: entries, within: threshold) } }
    }

    private static func nearest(_ embedding: [Float], in entries: [Entry], within threshold: Float) -> Int64? {
        var best: (person: Int64, distance: Float)?
        for entry in entries where entry.embedding.count == embedding.count {
            var sum: Float = 0
            for index in embedding.indices {
                let difference = embedding[index] - entry.embedding[index]
                sum += difference * difference
            }
            let distance = sum.squareRoot()
            if distance <= threshold, distance < (best?.distance ?? .infinity) { best = (entry.person, distance) }
        }
        return best?.person
    }
}
