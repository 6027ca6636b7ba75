internal import Foundation
internal import MemoraSystem

/// The embeddings of faces this device's user tagged, by person, kept on the device only (a JSON
/// file, 0600): what suggests who a new face is. Never sent to the hub.
public struct KnownFaces: Sendable {
    /// The file.
    public let path: String
    /// Faces within this Euclidean distance of a tagged face are suggested as that person (dlib's
    /// embeddings: one person's faces are usually within 0.6; 0.5 keeps look-alikes apart).
    public var threshold: Float = 0.5
    /// At most this many faces are kept per person (the latest).
    public var perPerson = 32

    private struct Entry: Codable { var person: Int64; var embedding: [Float] }

    /// Known faces kept in `path`.
    public init(path: String) { self.path = path }

    private func load() -> [Entry] {
        guard let bytes = try? SystemFile(path).readAll() else { return [] }
        return (try? JSONDecoder().decode([Entry].self, from: Data(bytes))) ?? []
    }

    /// Records tagged faces' embeddings.
    public func remember(_ faces: [(person: Int64, embedding: [Float])]) throws(HubError) {
        guard !faces.isEmpty else { return }
        var entries = load() + faces.map { Entry(person: $0.person, embedding: $0.embedding) }
        var kept: [Int64: Int] = [:]
        entries = entries.reversed().filter { entry in
            kept[entry.person, default: 0] += 1
            return kept[entry.person]! <= perPerson
        }.reversed()
        do {
            try FileSystem.makeFolder(SystemPath.folder(of: path), permissions: 0o700)
            try AtomicFileWriter.write(Array(try JSONEncoder().encode(entries)), to: path, options: .secret())
        } catch {
            throw .file(path: path, reason: "cannot save the known faces: \(error)")
        }
    }

    /// Forgets a person (they were removed from the hub).
    public func forget(person: Int64) throws(HubError) {
        let entries = load().filter { $0.person != person }
        do { try AtomicFileWriter.write(Array(try JSONEncoder().encode(entries)), to: path, options: .secret()) } catch {
            throw .file(path: path, reason: "cannot save the known faces: \(error)")
        }
    }

    /// The person whose known face is nearest `embedding`, when within ``threshold``.
    public func suggestion(for embedding: [Float]) -> Int64? {
        suggestions(for: [embedding])[0]
    }

    /// ``suggestion(for:)`` for each of several faces, reading the file once.
    public func suggestions(for embeddings: [[Float]?]) -> [Int64?] {
        let entries = load()
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
