import Foundation
import ImageKit
import MemoraHTTP
import MemoraHub
import MemoraServer
import MemoraSync
import MemoraSystem
import MetadataKit
import PhotoVision
import PhotoVisionCore
import ServerTestSupport
import Testing
import TestSupport

/// The collector's pipeline with the real face finder (dlib through PhotoVision, the installed
/// models) against a real hub: faces found and tagged, people suggested, locations stripped, and the
/// offline outbox.
@Suite("Memory Palace collector")
struct HubCollectorTests {
    /// The astronaut photo the models script installs (a real face), written as a JPEG carrying a GPS position.
    static func facePhoto(_ path: String, size: Int) throws {
        let models = VisionModels.installed.folder
        let image = try ImageDecoder.thumbnail(contentsOf: models + "/fixtures/astronaut.png", maxPixelSize: size)
        try ImageEncoder.write(image, to: path, as: .jpeg(JPEGEncodingOptions(quality: 0.9)))
        let jpeg = JPEGBuilder.inserting(JPEGBuilder.exifSegment(TIFFBuilder().cameraBlock()), into: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        try Data(jpeg).write(to: URL(fileURLWithPath: path))
    }

    @Test("a photo's face is found on the device and tagged; the next photo of that face is suggested as the same person; the location leaves only when kept")
    func facesAndSuggestions() async throws {
        let folder = try temporaryFolder("hub-collector")
        let server = try await TestServer(folder: folder + "/server")
        try await withAsyncCleanup {
            let hub = try await server.pairedClient(folder)
            let collector = MemoryCollector(hub: hub, folder: folder + "/device", faceAnalyzer: try DlibFaceAnalyzer())
            let ana = try await hub.addPerson(name: "Ana")
            let first = folder + "/first.jpg", second = folder + "/second.jpg"
            try Self.facePhoto(first, size: 512)
            try Self.facePhoto(second, size: 400)
            let original = try Data(contentsOf: URL(fileURLWithPath: first))

            // Prepared: the face found (no suggestion yet), a copy without the GPS position; the photo itself untouched.
            let prepared = try collector.prepare(photo: first)
            #expect(prepared.faces.count >= 1 && prepared.suggestions[0] == nil && prepared.faces[0].embedding?.count == 128)
            #expect(prepared.locationRemoved && prepared.file != first)
            #expect(try MetadataReader.scan(contentsOf: prepared.file).gps == nil)
            collector.discard(prepared)
            #expect(!FileManager.default.fileExists(atPath: prepared.file))
            #expect(try Data(contentsOf: URL(fileURLWithPath: first)) == original)

            // Uploaded with the face tagged Ana: the hub has no GPS position, her face box is where dlib found it.
            guard case .uploaded(let memory, true) = try await collector.addPhoto(first, metadata: MemoryUpload(kind: .photo, title: "Launch day"), tags: [0: ana.id]) else {
                Issue.record("the photo was not uploaded")
                return
            }
            #expect(memory.latitude == nil && memory.longitude == nil)
            #expect(memory.faces.first?.personId == ana.id && memory.people == [ana.id])
            #expect(memory.sha256 != Hex.string(SHA256Digest.hash([UInt8](original))))  // the stripped copy went, not the original

            // The same face in another photo: suggested as Ana from the embedding kept on the device.
            let next = try collector.prepare(photo: second, keepLocation: true)
            defer { collector.discard(next) }
            #expect(!next.locationRemoved && next.file == second)
            #expect(next.suggestions[0] == ana.id)
            guard case .uploaded(let kept, _) = try await collector.addPhoto(second, metadata: MemoryUpload(kind: .photo, title: "Later"), keepLocation: true) else {
                Issue.record("the second photo was not uploaded")
                return
            }
            #expect(kept.faces.first?.personId == ana.id)  // the suggestion accepted
            #expect(abs((kept.latitude ?? 0) - 48.858) < 0.01)  // kept on request: the hub read it from the photo
            // The embeddings stay on the device: the known faces file is the owner's only.
            let mode = try FileManager.default.attributesOfItem(atPath: folder + "/device/known-faces.json")[.posixPermissions] as? Int
            #expect(mode == 0o600)
        } cleanup: {
            await server.stop()
        }
    }

    @Test("a face tagged on one device is suggested on another: the hub keeps tagged faces' embeddings and each collector keeps a copy")
    func suggestionsAcrossDevices() async throws {
        let folder = try temporaryFolder("hub-collector-devices")
        let server = try await TestServer(folder: folder + "/server")
        try await withAsyncCleanup {
            let finder = try DlibFaceAnalyzer()
            let phone = MemoryCollector(hub: try await server.pairedClient(folder + "/phone"), folder: folder + "/phone", faceAnalyzer: finder)
            let laptop = MemoryCollector(hub: try await server.pairedClient(folder + "/laptop"), folder: folder + "/laptop", faceAnalyzer: finder)
            let ana = try await phone.hub.addPerson(name: "Ana")
            let first = folder + "/first.jpg", second = folder + "/second.jpg"
            try Self.facePhoto(first, size: 512)
            try Self.facePhoto(second, size: 400)
            guard case .uploaded(let tagged, true) = try await phone.addPhoto(first, metadata: MemoryUpload(kind: .photo, title: "Launch day"), tags: [0: ana.id]) else {
                Issue.record("the photo was not uploaded")
                return
            }
            #expect(tagged.faces.first?.personId == ana.id)

            // The laptop has tagged nothing: no suggestion from its own faces, Ana's from the hub's.
            #expect(try laptop.prepare(photo: second, keepLocation: true).suggestions[0] == nil)
            try await laptop.refreshKnownFaces()
            let prepared = try laptop.prepare(photo: second)
            defer { laptop.discard(prepared) }
            #expect(prepared.suggestions[0] == ana.id)
            let mode = try FileManager.default.attributesOfItem(atPath: laptop.knownFaces.sharedPath)[.posixPermissions] as? Int
            #expect(mode == 0o600 && !FileManager.default.fileExists(atPath: laptop.knownFaces.path))
            guard case .uploaded(let suggested, true) = try await laptop.addPhoto(second, metadata: MemoryUpload(kind: .photo, title: "Later")) else {
                Issue.record("the second photo was not uploaded")
                return
            }
            #expect(suggested.faces.first?.personId == ana.id)

            // Ana removed: her faces are no longer known to the hub, nor, after a refresh, to the laptop.
            try await phone.hub.removePerson(id: ana.id)
            #expect(try await laptop.hub.knownFaces().isEmpty)
            try await laptop.refreshKnownFaces()
            #expect(try laptop.prepare(photo: first, keepLocation: true).suggestions[0] == nil)
        } cleanup: {
            await server.stop()
        }
    }

    @Test("offline: memories made while the hub is away wait in the outbox, in order, and go when it is back; sending one twice makes one memory")
    func offlineOutbox() async throws {
        let folder = try temporaryFolder("hub-outbox")
        let server = try await TestServer(folder: folder + "/server")
        try await withAsyncCleanup {
            let hub = try await server.pairedClient(folder)
            let collector = MemoryCollector(hub: hub, folder: folder + "/device", faceAnalyzer: nil)
            let voice = folder + "/note.wav"
            try await mediaFixture(voice, "-f", "lavfi", "-i", "sine=frequency=330:duration=1", "-c:a", "pcm_s16le")
            await server.stop()
            guard case .queued(1) = try await collector.add(MemoryUpload(kind: .voice, title: "First"), file: voice) else { Issue.record("not queued"); return }
            guard case .queued(2) = try await collector.add(MemoryUpload(kind: .text, title: "Second", description: "words"), file: nil) else { Issue.record("not queued"); return }
            // A photo while the hub is away: queued; the failed refresh of the hub's faces is not tried again for every photo.
            let photo = folder + "/away.jpg"
            try ImageEncoder.write(try SyntheticPhoto.landscape(width: 160, height: 120, seed: 3), to: photo, as: .jpeg())
            #expect(collector.knownFaces.sharedAge == nil)
            guard case .queued(3) = try await collector.addPhoto(photo, metadata: MemoryUpload(kind: .photo, title: "Third")) else { Issue.record("not queued"); return }
            #expect((collector.knownFaces.sharedAge ?? .infinity) < MemoryCollector.knownFacesLifetime)
            try FileManager.default.removeItem(atPath: voice)  // the outbox keeps its own copy
            #expect(try await collector.flush().isEmpty)  // still away: nothing lost
            #expect(try collector.outbox.items().map(\.metadata.title) == ["First", "Second", "Third"])
            try await server.restart()
            let sent = try await collector.flush()
            #expect(sent.map(\.title) == ["First", "Second", "Third"])
            #expect(try collector.outbox.items().isEmpty)
            // A memory whose upload reached the hub but whose removal from the outbox did not (a crash): sent again, still one memory.
            try collector.outbox.add(MemoryUpload(kind: .text, title: "Second again", description: "words"), file: nil)
            let again = try await collector.flush()
            #expect(again.map(\.id) == [sent[1].id])
            #expect(try await hub.memories().memories.count == 3)

            // Tags made while the hub is away wait in order; the last one for a face wins; one for a memory
            // removed meanwhile is set aside; a tag made while others wait goes behind them.
            let ana = try await hub.addPerson(name: "Ana"), bea = try await hub.addPerson(name: "Bea")
            let photo2 = folder + "/group.jpg"
            try ImageEncoder.write(try SyntheticPhoto.landscape(width: 200, height: 150, seed: 4), to: photo2, as: .jpeg())
            let group = try await hub.upload(MemoryUpload(kind: .photo, title: "Group", faces: [FaceTag(x: 0.1, y: 0.1, width: 0.2, height: 0.2)]), file: photo2).memory
            let doomed = try await hub.upload(MemoryUpload(kind: .photo, title: "Doomed", faces: [FaceTag(x: 0.5, y: 0.5, width: 0.2, height: 0.2)]), file: photo).memory
            let faceID = try #require(group.faces.first?.id), doomedFace = try #require(doomed.faces.first?.id)
            await server.stop()
            guard case .queued(1) = try await collector.tag(memory: group.id, face: faceID, person: ana.id),
                  case .queued(2) = try await collector.tag(memory: doomed.id, face: doomedFace, person: ana.id),
                  case .queued(3) = try await collector.tag(memory: group.id, face: faceID, person: bea.id) else { Issue.record("not queued"); return }
            #expect(try collector.outbox.tags().map(\.person) == [ana.id, ana.id, bea.id])
            try await server.restart()
            try await hub.removeMemory(id: doomed.id)
            #expect(try await collector.flush().isEmpty)
            #expect(try await hub.memory(id: group.id).faces.first?.personId == bea.id)
            #expect(try collector.outbox.tags().isEmpty)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/device/outbox/refused").contains { $0.hasSuffix(".refused.txt") })
            // Online again: a tag goes at once.
            guard case .tagged(let retagged) = try await collector.tag(memory: group.id, face: faceID, person: nil) else { Issue.record("not sent"); return }
            #expect(retagged.faces.first?.personId == nil)
        } cleanup: {
            await server.stop()
        }
    }

    /// Describes every photo alike and counts the photos it was asked for.
    final class CountingDescriber: MemoryDescribing {
        let asked = Locked(0)
        func describe(photo path: String) async -> MemoryDescription? {
            asked.withLock { $0 += 1 }
            return MemoryDescription(description: "An astronaut in a white suit.")
        }
    }

    /// Sends requests on (checked against Docs/openapi.json) and records the size of each `POST /api/memories` body.
    struct UploadRecorder: HTTPTransport {
        let inner = CheckedTransport()
        let memoryBodies = Locked<[Int]>([])
        func send(_ request: HTTPRequest, progress: HTTPProgress?) async throws(HTTPError) -> HTTPResponse {
            if request.method == "POST" && request.url.path.hasSuffix("/api/memories") { memoryBodies.withLock { $0.append(request.body.count) } }
            return try await inner.send(request, progress: progress)
        }
    }

    @Test("a photo whose bytes the hub has is neither described nor sent again: the hub's memory is kept and takes the upload's people; a new photo is described")
    func knownBytesNotDescribed() async throws {
        let folder = try temporaryFolder("hub-known-bytes")
        let server = try await TestServer(folder: folder + "/server")
        try await withAsyncCleanup {
            _ = try await server.pairedClient(folder)
            let recorder = UploadRecorder()
            let hub = try HubClient(credentials: SyncCredentialFile(path: folder + "/hub.json"), transport: recorder)
            let describer = CountingDescriber()
            let collector = MemoryCollector(hub: hub, folder: folder + "/device", faceAnalyzer: nil, describer: describer)
            // Carries a GPS position: what goes is a copy without it, the same bytes each time.
            let photo = folder + "/astronaut.jpg"
            try Self.facePhoto(photo, size: 300)
            guard case .uploaded(let first, true) = try await collector.addPhoto(photo, metadata: MemoryUpload(kind: .photo, title: "Launch")) else {
                Issue.record("the photo was not uploaded")
                return
            }
            #expect(describer.asked.withLock { $0 } == 1 && first.description == "An astronaut in a white suit.")
            #expect(try await hub.memory(sha256: first.sha256)?.id == first.id)
            #expect(try await hub.memory(sha256: String(repeating: "0", count: 64)) == nil)

            let ana = try await hub.addPerson(name: "Ana")
            guard case .uploaded(let again, false) = try await collector.addPhoto(photo, metadata: MemoryUpload(kind: .photo, title: "Launch, again", people: [ana.id])) else {
                Issue.record("the photo was not sent again")
                return
            }
            #expect(again.id == first.id && again.title == "Launch" && again.description == first.description)
            #expect(again.people == [ana.id], "the people of the upload that named the bytes joined the memory")
            #expect(describer.asked.withLock { $0 } == 1, "the describer was asked for a photo the hub has")
            let sent = recorder.memoryBodies.withLock { $0 }
            #expect(sent.count == 2 && sent[0] > Int(first.size) && sent[1] < 4096, "the bytes went again: request bodies \(sent), the photo \(first.size)")

            let other = folder + "/other.jpg"
            try Self.facePhoto(other, size: 260)
            // A hash left in the metadata (here the first photo's) is not the file's: the photo's own bytes go.
            let stray = MemoryUpload(MemoryDetails(kind: .photo, title: "Other"), sha256: first.sha256)
            guard case .uploaded(let new, true) = try await collector.addPhoto(other, metadata: stray) else {
                Issue.record("the other photo was not uploaded")
                return
            }
            #expect(new.id != first.id && describer.asked.withLock { $0 } == 2)

            // A hash that is not one is refused, naming the field.
            do throws(HubError) {
                _ = try await hub.memories(sha256: "F00D")
                Issue.record("the hub took a hash of four digits")
            } catch {
                #expect(error.code == .invalidRequest && error.fields == ["sha256: 64 lower-case hex digits"], "\(error.fields)")
            }
            // Naming bytes: unknown ones are a 404, a bad hash, another kind or the media sent as well a 400 naming the field.
            let refusals: [(MemoryUpload, String?, HubError.Code, [String])] = [
                (MemoryUpload(MemoryDetails(kind: .photo, title: "Unknown"), sha256: String(repeating: "0", count: 64)), nil, .notFound, []),
                (MemoryUpload(MemoryDetails(kind: .photo, title: "Bad"), sha256: "F00D"), nil, .invalidRequest, ["metadata.sha256: 64 lower-case hex digits"]),
                (MemoryUpload(MemoryDetails(kind: .voice, title: "Voice"), sha256: first.sha256), nil, .invalidRequest,
                 ["metadata.kind: the memory of these bytes is a photo memory"]),
                (MemoryUpload(MemoryDetails(kind: .photo, title: "Twice"), sha256: first.sha256), other, .invalidRequest,
                 ["metadata.sha256: send the media, an upload session or the SHA-256 of media the hub has: one of them"]),
            ]
            for (upload, file, code, fields) in refusals {
                do throws(HubError) {
                    _ = try await hub.upload(upload, file: file)
                    Issue.record("the hub took \(upload.title)")
                } catch {
                    #expect(error.code == code && error.fields == fields, "\(upload.title): \(error.code) \(error.fields)")
                }
            }
            #expect(try await hub.memories().memories.count == 2, "nothing refused was stored")
        } cleanup: {
            await server.stop()
        }
    }

    @Test("asking whether the hub has a photo waits as long as asked, not the client's 60 s: a hub that takes the connection and never answers")
    func lookupWaitsAsAsked() async throws {
        // A listener that accepts connections (the kernel does, from its backlog) and never answers.
        let listener = Process()
        listener.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        listener.arguments = ["-c", "import socket, time\ns = socket.socket()\ns.bind(('127.0.0.1', 0))\ns.listen(8)\nprint(s.getsockname()[1], flush=True)\ntime.sleep(120)"]
        let output = Pipe()
        listener.standardOutput = output
        try listener.run()
        defer { listener.terminate() }
        let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let port = try #require(Int(line), "the listener printed no port: \(line)")
        let hub = HubClient(base: URL(string: "http://127.0.0.1:\(port)")!, token: "unused")
        let started = ContinuousClock.now
        do throws(HubError) {
            _ = try await hub.memory(sha256: String(repeating: "a", count: 64), wait: .seconds(1))
            Issue.record("a hub that never answers answered")
        } catch {
            #expect(error.code == .timedOut && error.isRetryable, "\(error)")
        }
        // One second asked for; the client's own wait is 60.
        #expect(ContinuousClock.now - started < .seconds(30))
    }
}
