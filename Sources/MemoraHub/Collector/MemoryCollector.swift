internal import Foundation
internal import ImageKit
internal import MemoraSystem
internal import MetadataKit
public import PhotoVisionCore

/// The collector's pipeline (the seed's upload flows): a photo's faces are found on the device and
/// suggested as people from the faces the user tagged before; its location is stripped unless the user
/// keeps it; the user's tags are kept as given; a photo with no description (in the upload or its own
/// metadata) is described on the device when a ``describer`` is given and the hub does not have the
/// same bytes already; then the memory goes to the paired hub, or, when the hub cannot be reached,
/// waits in the ``MemoryOutbox`` for the next ``flush()``. Pixels and faces leave the device only for
/// that hub.
public struct MemoryCollector: Sendable {
    /// The paired hub.
    public let hub: HubClient
    /// The tagged faces that suggest people: this device's, and a copy of the hub's.
    public let knownFaces: KnownFaces
    /// Memories waiting for the hub.
    public let outbox: MemoryOutbox
    /// Finds faces on photos (PhotoVision's `DlibFaceAnalyzer` on Linux, Vision in an Apple front end),
    /// with embeddings when it makes them; nil: photos go without faces unless the user gives them.
    public let faceAnalyzer: (any FaceAnalyzing)?
    /// Describes a photo that has no description, on the device (MemoraCore's on-device describer in
    /// the CLI); nil: such a photo goes without one, and the hub shows its title.
    public let describer: (any MemoryDescribing)?

    /// The longest side, in pixels, a photo is decoded at to look for its faces.
    public static let faceSearchSize = 1600

    /// A collector keeping its state (known faces, outbox) in `folder`.
    public init(hub: HubClient, folder: String, faceAnalyzer: (any FaceAnalyzing)?, describer: (any MemoryDescribing)? = nil) {
        self.hub = hub
        knownFaces = KnownFaces(path: folder + "/known-faces.json")
        outbox = MemoryOutbox(folder: folder + "/outbox")
        self.faceAnalyzer = faceAnalyzer
        self.describer = describer
    }

    /// A photo ready to upload.
    public struct PreparedPhoto: Sendable {
        /// The file to upload: a copy without the location, or the photo itself.
        public var file: String
        /// The faces found on the upright photo, most certain first, their boxes inside the photo.
        public var faces: [DetectedFace]
        /// Who the faces probably show (a face's index in ``faces`` to a person): the person whose
        /// tagged faces look closest, for faces that have an embedding and resemble someone.
        public var suggestions: [Int: Int64]
        /// Whether a GPS position was removed from the copy.
        public var locationRemoved: Bool
        /// Whether the photo carries a description the hub takes (its alt text, else its caption:
        /// `MemoryUpload`'s rule, the server's too).
        public var carriesDescription: Bool
    }

    /// Finds the photo's faces (with suggestions) and, unless `keepLocation`, makes a copy without its
    /// GPS position (the photo itself is never changed). Call ``discard(_:)`` when done.
    public func prepare(photo path: String, keepLocation: Bool = false) throws(HubError) -> PreparedPhoto {
        guard FileSystem.exists(path) else { throw .file(path: path, reason: "no such photo") }
        var faces: [DetectedFace] = []
        var suggestions: [Int: Int64] = [:]
        if let faceAnalyzer {
            do {
                let image = try ImageDecoder.thumbnail(contentsOf: path, maxPixelSize: Self.faceSearchSize,
                                                       options: DecodingOptions(applyOrientation: true))
                faces = try faceAnalyzer.faces(in: image).compactMap(\.clampedToPhoto)
            } catch {
                throw .file(path: path, reason: "cannot look for faces: \(error)")
            }
            for (index, person) in knownFaces.suggestions(for: faces.map(\.embedding)).enumerated() {
                if let person { suggestions[index] = person }
            }
        }
        let metadata = try? MetadataReader.scan(contentsOf: path)
        let carriesDescription = metadata.flatMap { MemoryUpload.ownDescription($0.captions) } != nil
        guard metadata?.gps != nil, !keepLocation else {
            return PreparedPhoto(file: path, faces: faces, suggestions: suggestions, locationRemoved: false, carriesDescription: carriesDescription)
        }
        let copy = NSTemporaryDirectory() + "memora-collector-\(UUID().uuidString)-" + SystemPath.fileName(of: path)
        do {
            try FileManager.default.copyItem(atPath: path, toPath: copy)
            _ = try CaptionWriter.stripLocation(from: copy)
        } catch {
            try? FileManager.default.removeItem(atPath: copy)
            throw .file(path: path, reason: "cannot remove its location before upload: \(error)")
        }
        return PreparedPhoto(file: copy, faces: faces, suggestions: suggestions, locationRemoved: true, carriesDescription: carriesDescription)
    }

    /// Removes a prepared photo's copy, if it made one.
    public func discard(_ prepared: PreparedPhoto) {
        if prepared.locationRemoved { try? FileManager.default.removeItem(atPath: prepared.file) }
    }

    /// What adding a memory did.
    public enum Outcome: Sendable {
        /// The hub has it (`created` false: the same bytes were there already).
        case uploaded(HubMemory, created: Bool)
        /// The hub could not be reached: it waits in the outbox (its position there).
        case queued(Int)
    }

    /// Adds a photo memory: prepared, faces tagged with `tags` (a face's index to a person) or else
    /// with their suggestions when `acceptSuggestions`, described by the ``describer`` when neither
    /// `metadata` nor the photo has a description, then uploaded or queued. When the hub has the same
    /// bytes already, the photo is not described and only its metadata goes (``MemoryUpload/sha256``,
    /// which the collector sets from the file; one given in `metadata` is ignored).
    /// Tagged faces' embeddings are remembered for later suggestions.
    public func addPhoto(_ path: String, metadata: MemoryUpload, tags: [Int: Int64] = [:], acceptSuggestions: Bool = true,
                         keepLocation: Bool = false) async throws(HubError) -> Outcome {
        if (knownFaces.sharedAge ?? .infinity) > Self.knownFacesLifetime {
            // Suggestions only: an old copy (or none, offline) still suggests from this device's tags,
            // and the next try waits as long as a fresh copy would (no wait on an absent hub per photo).
            do { try await refreshKnownFaces() } catch { knownFaces.postponeRefresh() }
        }
        let prepared = try prepare(photo: path, keepLocation: keepLocation)
        defer { discard(prepared) }
        var upload = metadata
        upload.kind = .photo
        // The file's own bytes say whether the hub has them: a hash left in the metadata is not asked.
        upload.sha256 = nil
        if !keepLocation { (upload.latitude, upload.longitude) = (nil, nil) }
        var remembered: [(person: Int64, embedding: [Float])] = []
        let faces = prepared.faces.enumerated().map { index, face in
            let person = tags[index] ?? (acceptSuggestions ? prepared.suggestions[index] : nil)
            if let person, let embedding = face.embedding { remembered.append((person, embedding)) }
            return FaceTag(x: face.x, y: face.y, width: face.width, height: face.height, personId: person, embedding: face.embedding)
        }
        upload.faces = (upload.faces ?? []) + faces
        if let hash = await hashOnHub(prepared.file), let outcome = try await sendKnown(upload, sha256: hash) {
            try knownFaces.remember(remembered)
            return outcome
        }
        if upload.description == nil, !prepared.carriesDescription, let describer,
           let described = await describer.describe(photo: prepared.file) {
            upload.description = MemoryUpload.checkedText(described.description, maxLength: MemoryDetails.descriptionLimit(for: .photo))
            if upload.extendedDescription == nil, upload.description != nil {
                upload.extendedDescription = MemoryUpload.checkedText(described.extendedDescription, maxLength: MemoryDetails.extendedDescriptionLimit)
            }
        }
        let outcome = try await send(upload, file: prepared.file, contentType: nil)
        try knownFaces.remember(remembered)
        return outcome
    }

    /// The file's SHA-256 when the hub has these bytes already: then it keeps its memory and takes
    /// only the upload's faces and people, so the bytes need not go and a description made here would
    /// be thrown away. Nil when it cannot tell within ``lookupWait`` (away, an error, a file that cannot
    /// be read): the photo is then described and sent as before.
    func hashOnHub(_ file: String) async -> String? {
        guard let digest = try? SHA256Digest.hash(contentsOf: file) else { return nil }
        let hash = Hex.string(digest)
        return (try? await hub.memory(sha256: hash, wait: Self.lookupWait)) != nil ? hash : nil
    }

    /// Sends `upload` naming bytes the hub has (``MemoryUpload/sha256``) instead of sending them. Nil
    /// when that did not do: the memory was removed since the hub was asked, or the hub went away
    /// (then the whole photo is described and sent, or queued, as any other).
    private func sendKnown(_ upload: MemoryUpload, sha256: String) async throws(HubError) -> Outcome? {
        var reference = upload
        reference.sha256 = sha256
        do {
            let (memory, created) = try await hub.upload(reference)
            return .uploaded(memory, created: created)
        } catch where error.code == .notFound || error.code == .connectionFailed {
            return nil
        }
    }

    /// The longest the collector waits for the hub to say whether it has a photo's bytes: a hub that
    /// does not answer (a machine switched off, a network that drops the packets) costs each photo
    /// this much more before it is described and queued, never the client's 60 s.
    public static let lookupWait: Duration = .seconds(5)

    /// How long a copy of the hub's tagged faces is used before ``addPhoto(_:metadata:tags:acceptSuggestions:keepLocation:)`` asks again, in seconds.
    public static let knownFacesLifetime: Double = 60

    /// Copies the hub's tagged faces (from every device) for suggestions, and forgets this device's
    /// faces of people the hub no longer has (another device removed them).
    public func refreshKnownFaces() async throws(HubError) {
        let people = Set(try await hub.people().map(\.id))
        try knownFaces.replaceShared(try await hub.knownFaces())
        try knownFaces.keep { people.contains($0) }
    }

    /// Adds a video, voice or text memory: uploaded, or queued when the hub cannot be reached.
    public func add(_ metadata: MemoryUpload, file: String?) async throws(HubError) -> Outcome {
        try await send(metadata, file: file, contentType: nil)
    }

    private func send(_ upload: MemoryUpload, file: String?, contentType: String?) async throws(HubError) -> Outcome {
        do {
            let (memory, created) = try await hub.upload(upload, file: file, contentType: contentType)
            return .uploaded(memory, created: created)
        } catch where error.code == .connectionFailed {
            return .queued(try outbox.add(upload, file: file))
        }
    }

    /// What tagging a face did.
    public enum TagOutcome: Sendable {
        /// The hub has it: the memory with its faces.
        case tagged(HubMemory)
        /// The hub could not be reached: the tag waits in the outbox (how many tags wait).
        case queued(Int)
    }

    /// Says who face `face` of memory `memory` is (nil: nobody). When the hub cannot be reached the tag
    /// waits in the outbox, behind any tags waiting already, and ``flush()`` sends them in order; the hub
    /// keeps the tag it receives last (Docs/Hub.md, "Faces from several devices").
    public func tag(memory: Int64, face: Int64, person: Int64?) async throws(HubError) -> TagOutcome {
        let pending = MemoryOutbox.PendingTag(memory: memory, face: face, person: person)
        if try !outbox.tags().isEmpty {
            _ = try await flushTags()
            if try !outbox.tags().isEmpty { return .queued(try outbox.addTag(pending)) }
        }
        do {
            return .tagged(try await hub.tagFace(memory: memory, face: face, person: person))
        } catch where error.code == .connectionFailed {
            return .queued(try outbox.addTag(pending))
        }
    }

    /// Sends the waiting tags, oldest first, and stops at the first that cannot go. A tag the hub
    /// refuses for good (its memory, face or person is gone) is set aside in `refused/` with the reason.
    /// Returns how many the hub took.
    @discardableResult
    public func flushTags() async throws(HubError) -> Int {
        var sent = 0
        for pending in try outbox.tags() {
            do {
                _ = try await hub.tagFace(memory: pending.memory, face: pending.face, person: pending.person)
                outbox.remove(pending)
                sent += 1
            } catch where error.code == .connectionFailed {
                break
            } catch where error.code == .notFound || error.code == .invalidRequest {
                outbox.setAside(pending, reason: error.message)
            }
        }
        return sent
    }

    /// Uploads what waits in the outbox, oldest first, and stops at the first that cannot go (the hub is
    /// still away: it stays queued), then sends the waiting tags (``flushTags()``). An upload the hub
    /// refuses for good is set aside in `refused/` with the reason, so it does not block the rest.
    /// Returns the memories uploaded.
    public func flush() async throws(HubError) -> [HubMemory] {
        var uploaded: [HubMemory] = []
        for item in try outbox.items() {
            do {
                let (memory, _) = try await hub.upload(item.metadata, file: item.file)
                uploaded.append(memory)
                outbox.remove(item)
            } catch where error.code == .connectionFailed {
                break
            } catch where error.code == .invalidRequest || (error.code == .serverError && [413, 415, 422].contains(error.status)) {
                outbox.setAside(item, reason: error.message)
            }
        }
        try await flushTags()
        return uploaded
    }
}
