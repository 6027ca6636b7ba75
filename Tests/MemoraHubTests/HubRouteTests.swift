import Foundation
import ImageKit
import MemoraHub
import MemoraHTTP
import MemoraServer
import MemoraSync
import MemoraSystem
import ServerTestSupport
import Testing
import TestSupport



@Suite("Memory Palace hub routes")
struct HubRouteTests {
    @Test("pairing: the QR code's token works once and not after it expires; the device token then works on every route", arguments: TestStore.available)
    func pairing(store: TestStore) async throws {
        let folder = try temporaryFolder("hub-pairing")
        let server = try await TestServer(folder: folder + "/server", store: store)
        try await withAsyncCleanup {
            let code = try await server.pairingCode()
            // The QR code's JSON (the seed's ServerConfig fields) round-trips through the parser.
            let json = String(decoding: try JSONEncoder().encode(code), as: UTF8.self)
            #expect(json.contains("\"serverIP\"") && json.contains("\"authToken\"") && json.contains("\"port\""))
            let parsed = try PairingCode(qrText: json)
            #expect(parsed == code)
            #expect(throws: HubError.self) { try PairingCode(qrText: "{\"serverIP\":\"x\"}") }
            #expect(throws: HubError.self) { try PairingCode(qrText: "hello") }

            let credentials = SyncCredentialFile(path: folder + "/hub.json")
            let hub = try await HubClient.pair(parsed, credentials: credentials, transport: CheckedTransport())
            #expect(try await hub.people().isEmpty)
            #expect(try await hub.testConnection().status == "ok")
            let mode = try FileManager.default.attributesOfItem(atPath: folder + "/hub.json")[.posixPermissions] as? Int
            #expect(mode == 0o600)
            // The same code again is refused: it was single-use.
            await #expect(throws: HubError.unauthorized("the pairing code is unknown, used already or expired: show a new QR code (memora-server pair) and scan it again")) {
                _ = try await HubClient.pair(parsed, credentials: SyncCredentialFile(path: folder + "/other.json"), transport: CheckedTransport())
            }
            // An expired code too.
            let expired = try await server.pairingCode(lifetimeSeconds: 0)
            await #expect(throws: HubError.self) {
                _ = try await HubClient.pair(expired, credentials: SyncCredentialFile(path: folder + "/other.json"), transport: CheckedTransport())
            }
            // A wrong device token: 401 on every hub route.
            let stranger = HubClient(base: server.url, token: "not-a-token", transport: CheckedTransport())
            await #expect(throws: HubError.unauthorized("the token is unknown, expired or revoked: register the device again")) { _ = try await stranger.people() }
            await #expect(throws: HubError.self) { _ = try await stranger.memories() }
            // A revoked device is refused.
            let device = try #require(try credentials.load()?.deviceID)
            #expect(try await server.store().revoke(deviceID: device, now: Int64(Date().timeIntervalSince1970 * 1000)))
            await #expect(throws: HubError.self) { _ = try await hub.people() }
            // The revoked device pairing again under its id is refused, and that does not spend the code: another device still pairs with it.
            let fresh = try await server.pairingCode()
            let raw = RawClient(base: server.url)
            let refused = try await raw.send("POST", "api/hub/pair", json: #"{"deviceId":"\#(device)","platform":"linux","pairingToken":"\#(fresh.authToken)"}"#)
            #expect(refused.status == 403, "\(String(decoding: refused.body, as: UTF8.self))")
            let other = try await HubClient.pair(fresh, credentials: SyncCredentialFile(path: folder + "/after-refusal.json"), transport: CheckedTransport())
            #expect(try await other.people().isEmpty)
        } cleanup: {
            await server.stop()
        }
    }

    @Test("people: 201, then 409 with the existing person for the same name in any case or spacing; rename, conflicts, removal untags faces", arguments: TestStore.available)
    func people(store: TestStore) async throws {
        let folder = try temporaryFolder("hub-people")
        let server = try await TestServer(folder: folder + "/server", store: store)
        try await withAsyncCleanup {
            let hub = try await server.pairedClient(folder)
            let ana = try await hub.addPerson(name: "Ana Silva", relationship: "daughter")
            #expect(ana.name == "Ana Silva" && ana.relationship == "daughter" && ana.memoryCount == 0)
            let duplicate = await hubFailure { () async throws(HubError) in _ = try await hub.addPerson(name: "  ana   SILVA ") }
            #expect(duplicate == .personExists(ana))
            let joao = try await hub.addPerson(name: "João")
            let taken = await hubFailure { () async throws(HubError) in _ = try await hub.updatePerson(id: ana.id, name: "joão") }
            #expect(taken == .personExists(joao))
            let renamed = try await hub.updatePerson(id: ana.id, name: "Ana", relationship: "daughter")
            #expect(renamed.name == "Ana")
            #expect(try await hub.people().map(\.name) == ["Ana", "João"])
            // One letter with 100,000 combining marks is one character to the eye but 100,001 code points
            // (schemathesis: a 100-letter Zalgo name passed); a direction override shows another name than is stored.
            for bad in ["", "   ", String(repeating: "x", count: 101), "tab\u{7}bell", "a" + String(repeating: "\u{301}", count: 100_000),
                        String(repeating: "e\u{301}", count: 51),
                        "Ana\u{202E}avlis", "line\nbreak"] {
                let failure = await hubFailure { () async throws(HubError) in _ = try await hub.addPerson(name: bad) }
                guard let fields = failure.flatMap({ $0.code == .invalidRequest ? $0.fields : nil }) else { Issue.record("the name \(bad.debugDescription): \(String(describing: failure))"); continue }
                #expect(fields.first?.hasPrefix("name") == true, "\(fields)")
            }
            await #expect(throws: HubError.notFound("no such person")) { _ = try await hub.updatePerson(id: 9999, name: "Nobody") }
            await #expect(throws: HubError.notFound("no such person")) { try await hub.removePerson(id: 9999) }
            try await hub.removePerson(id: joao.id)
            #expect(try await hub.people().map(\.id) == [ana.id])
        } cleanup: {
            await server.stop()
        }
    }

    @Test("memories: a photo with faces and people, its date and place read from the photo, deduplicated by SHA-256; voice and text; filters, pages, media, thumbnails, deletion", arguments: TestStore.available)
    func memories(store: TestStore) async throws {
        let folder = try temporaryFolder("hub-memories")
        let server = try await TestServer(folder: folder + "/server", store: store)
        try await withAsyncCleanup {
            let hub = try await server.pairedClient(folder)
            let ana = try await hub.addPerson(name: "Ana"), rui = try await hub.addPerson(name: "Rui")
            // A photo carrying a capture date and a GPS position (Paris) in its EXIF.
            let photo = folder + "/beach.jpg"
            try ImageEncoder.write(try SyntheticPhoto.landscape(width: 640, height: 480, seed: 9), to: photo, as: .jpeg(JPEGEncodingOptions(quality: 0.9)))
            let jpeg = JPEGBuilder.inserting(JPEGBuilder.exifSegment(TIFFBuilder().cameraBlock()), into: [UInt8](try Data(contentsOf: URL(fileURLWithPath: photo))))
            try Data(jpeg).write(to: URL(fileURLWithPath: photo))
            let sent = Locked<Int64>(0)
            let faces = [FaceTag(x: 0.1, y: 0.2, width: 0.2, height: 0.3, personId: ana.id), FaceTag(x: 0.6, y: 0.2, width: 0.2, height: 0.3)]
            let (memory, created) = try await hub.upload(MemoryUpload(kind: .photo, title: "At the beach", description: "Ana's first swim", people: [rui.id], faces: faces),
                                                         file: photo) { done, _ in sent.withLock { $0 = max($0, done) } }
            #expect(created)
            #expect(sent.withLock { $0 } > Int64(jpeg.count))  // progress reached the whole body
            #expect(memory.kind == .photo && memory.title == "At the beach" && memory.mediaType == "image/jpeg")
            #expect(memory.sha256 == Hex.string(SHA256Digest.hash(jpeg)) && memory.size == Int64(jpeg.count))
            #expect(memory.width == 640 && memory.height == 480)
            #expect(memory.people == [ana.id, rui.id].sorted())
            #expect(memory.faces.count == 2 && memory.faces.first?.personId == ana.id && memory.faces.last?.personId == nil)
            // The photo's own capture date (2019-07-14 16:05:09) and position (48.858 N, 2.294 E).
            let taken = try #require(memory.takenAt)
            #expect(abs(Double(taken) / 1000 - 1_563_120_309) < 24 * 3600)
            #expect(abs((memory.latitude ?? 0) - 48.858) < 0.001 && abs((memory.longitude ?? 0) - 2.2945) < 0.001)
            // The same bytes again: 200 with the same memory, nothing added.
            let (again, createdAgain) = try await hub.upload(MemoryUpload(kind: .photo, title: "Duplicate"), file: photo)
            #expect(!createdAgain && again.id == memory.id && again.title == "At the beach")

            // A voice note and a text memory.
            let voice = folder + "/story.wav"
            try await mediaFixture(voice, "-f", "lavfi", "-i", "sine=frequency=440:duration=70", "-c:a", "pcm_s16le")  // 6 MB
            let ticks = Locked<[Int64]>([])
            let (note, _) = try await hub.upload(MemoryUpload(kind: .voice, title: "Grandpa's story", people: [rui.id]), file: voice) { done, _ in
                ticks.withLock { $0.append(done) }
            }
            // Progress comes as the body goes, not only at the end, and never goes backwards.
            let reported = ticks.withLock { $0 }
            #expect(reported.count > 2 && reported == reported.sorted() && (reported.last ?? 0) > 6_000_000, "\(reported.count) ticks, last \(reported.last ?? 0)")
            #expect(note.mediaType == "audio/wav" && note.thumbnailUrl == nil && note.durationMs == 70_000)
            let (text, _) = try await hub.upload(MemoryUpload(kind: .text, title: "Recipe", description: "Bake at 180 °C for 40 minutes."))
            #expect(text.kind == .text && text.size == Int64("Bake at 180 °C for 40 minutes.".utf8.count))

            // Listing: newest first, filters, pages.
            #expect(try await hub.memories().memories.map(\.id) == [text.id, note.id, memory.id])
            #expect(try await hub.memories(person: ana.id).memories.map(\.id) == [memory.id])  // through her face tag
            #expect(try await hub.memories(person: rui.id).memories.map(\.id) == [note.id, memory.id])
            #expect(try await hub.memories(kind: .voice).memories.map(\.id) == [note.id])
            let first = try await hub.memories(limit: 2)
            #expect(first.memories.count == 2 && first.nextCursor != nil)
            let second = try await hub.memories(cursor: first.nextCursor, limit: 2)
            #expect(second.memories.map(\.id) == [memory.id] && second.nextCursor == nil)
            #expect(try await hub.people().first { $0.id == rui.id }?.memoryCount == 2)

            // The media and thumbnail, as stored.
            let token = try #require(try SyncCredentialFile(path: folder + "/hub.json").load()?.token)
            let raw = URLSessionTransport()
            let media = try await raw.send(HTTPRequest(method: "GET", url: server.url.appendingPathComponent("api/memories/\(memory.id)/media"), headers: ["Authorization": "Bearer \(token)"]))
            #expect(media.status == 200 && [UInt8](media.body) == jpeg)
            let thumbnail = try await raw.send(HTTPRequest(method: "GET", url: server.url.appendingPathComponent("api/memories/\(memory.id)/thumbnail"), headers: ["Authorization": "Bearer \(token)"]))
            #expect(thumbnail.status == 200 && thumbnail.body.prefix(3) == Data([0xFF, 0xD8, 0xFF]))
            let info = try ImageDecoder.info(of: [UInt8](thumbnail.body))
            #expect(max(info.width, info.height) == 512)

            // Tagging the untagged face; removing Ana untags hers.
            let untagged = try #require(memory.faces.last?.id)
            let tagged = try await hub.tagFace(memory: memory.id, face: untagged, person: rui.id)
            #expect(tagged.faces.map(\.personId) == [ana.id, rui.id])
            try await hub.removePerson(id: ana.id)
            #expect(try await hub.memory(id: memory.id).faces.map(\.personId) == [nil, rui.id])
            #expect(try await hub.memory(id: memory.id).people == [rui.id])

            // Deleting a memory removes it and its files.
            try await hub.removeMemory(id: memory.id)
            await #expect(throws: HubError.notFound("no such memory")) { _ = try await hub.memory(id: memory.id) }
            #expect(!FileManager.default.fileExists(atPath: "\(folder)/server/hub/media/\(memory.sha256.prefix(2))/\(memory.sha256)"))
        } cleanup: {
            await server.stop()
        }
    }

    @Test("bad uploads: boxes outside the image, unknown people, wrong types, broken multipart, missing parts, oversized fields; nothing is kept", arguments: TestStore.available)
    func badUploads(store: TestStore) async throws {
        let folder = try temporaryFolder("hub-bad")
        let server = try await TestServer(folder: folder + "/server", store: store)
        try await withAsyncCleanup {
            let hub = try await server.pairedClient(folder)
            let photo = folder + "/p.jpg"
            try ImageEncoder.write(try SyntheticPhoto.landscape(width: 64, height: 48, seed: 2), to: photo, as: .jpeg())
            func refusal(_ upload: MemoryUpload, file: String? = photo, type: String? = nil) async -> [String] {
                let failure = await hubFailure { () async throws(HubError) in _ = try await hub.upload(upload, file: file, contentType: type) }
                guard let fields = failure.flatMap({ $0.code == .invalidRequest ? $0.fields : nil }) else { Issue.record("\(upload): \(String(describing: failure))"); return [] }
                return fields
            }
            for (box, message) in [(FaceTag(x: 1.2, y: 0, width: 0.1, height: 0.1), "x and y"), (FaceTag(x: 0.1, y: 0.1, width: 0, height: 0.2), "above 0"),
                                   (FaceTag(x: 0.9, y: 0.1, width: 0.2, height: 0.2), "inside the image"), (FaceTag(x: 0.1, y: -0.1, width: 0.1, height: 0.1), "x and y")] {
                let fields = await refusal(MemoryUpload(kind: .photo, title: "t", faces: [box]))
                #expect(fields.first?.hasPrefix("metadata.faces[0]") == true && fields.first?.contains(message) == true, "\(fields)")
            }
            #expect(await refusal(MemoryUpload(kind: .photo, title: "t", people: [4242])).first?.contains("4242") == true)
            #expect(await refusal(MemoryUpload(kind: .photo, title: String(repeating: "t", count: 201))).first?.hasPrefix("metadata.title") == true)
            #expect(await refusal(MemoryUpload(kind: .photo, title: "t", latitude: 91, longitude: 0)).first?.hasPrefix("metadata.latitude") == true)
            #expect(await refusal(MemoryUpload(kind: .voice, title: "t"), type: "image/jpeg").first?.hasPrefix("media") == true)
            #expect(await refusal(MemoryUpload(kind: .video, title: "t"), file: nil).first?.hasPrefix("media") == true)
            // A "photo" that is not one.
            let notPhoto = folder + "/not.jpg"
            try Data("hello".utf8).write(to: URL(fileURLWithPath: notPhoto))
            #expect(await refusal(MemoryUpload(kind: .photo, title: "t"), file: notPhoto).first?.hasPrefix("media") == true)

            // Raw bodies: broken multipart, no metadata, an unknown part, JSON instead of multipart.
            let token = try #require(try SyncCredentialFile(path: folder + "/hub.json").load()?.token)
            let transport = CheckedTransport()
            func post(_ body: Data, type: String = "multipart/form-data; boundary=test-boundary-42") async throws -> HTTPResponse {
                try await transport.send(HTTPRequest(method: "POST", url: server.url.appendingPathComponent("api/memories"),
                                                         headers: ["Authorization": "Bearer \(token)", "Content-Type": type], body: body))
            }
            let metadata = Array(#"{"kind":"text","title":"t","description":"words"}"#.utf8)
            let cut = multipart([("metadata", "application/json", metadata), ("media", "text/plain", Array("some text".utf8))], close: false)
            #expect(try await post(cut.prefix(cut.count - 4)).status == 400)
            #expect(try await post(multipart([("media", "text/plain", Array("x".utf8))])).status == 400)
            #expect(try await post(multipart([("metadata", "application/json", metadata), ("other", "text/plain", [1])])).status == 400)
            #expect(try await post(multipart([("metadata", "application/json", Array("{not json".utf8))])).status == 400)
            #expect(try await post(Data(metadata), type: "application/json").status == 400)
            #expect(try await post(multipart([("metadata", "application/json", metadata)])).status == 201)  // the same, well formed
            // Nothing of the refused uploads was kept: one memory, no staged file left behind.
            #expect(try await hub.memories().memories.count == 1)
            let incoming = folder + "/server/hub/incoming"
            let staged = try FileManager.default.contentsOfDirectory(atPath: incoming).flatMap { try FileManager.default.contentsOfDirectory(atPath: incoming + "/" + $0) }
            #expect(staged.isEmpty, "\(staged)")
        } cleanup: {
            await server.stop()
        }
    }
}

/// A transport that counts the PATCH requests (an upload session's pieces) it passes on.
final class CountingTransport: HTTPTransport, Sendable {
    let inner = CheckedTransport()
    let patches = Locked(0)

    func send(_ request: HTTPRequest, progress: HTTPProgress?) async throws(HTTPError) -> HTTPResponse {
        if request.method == "PATCH" { patches.withLock { $0 += 1 } }
        return try await inner.send(request, progress: progress)
    }
}

/// A transport that loses the answer of the second PATCH (the bytes arrived) and drops the fourth
/// before it is sent: the resumable upload must continue from what the hub has.
final class DroppingTransport: HTTPTransport, Sendable {
    let inner = CheckedTransport()
    private let patches = Locked(0)

    func send(_ request: HTTPRequest, progress: HTTPProgress?) async throws(HTTPError) -> HTTPResponse {
        guard request.method == "PATCH" else { return try await inner.send(request) }
        let count = patches.withLock { $0 += 1; return $0 }
        if count == 4 { throw HTTPError(.connectionFailed, endpoint: "hub", reason: "dropped before it was sent (test)", isRetryable: true) }
        let response = try await inner.send(request, progress: progress)
        if count == 2 { throw HTTPError(.connectionFailed, endpoint: "hub", reason: "the answer was lost (test)", isRetryable: true) }
        return response
    }
}

@Suite("Memory Palace hub: resumable uploads")
struct HubResumableUploadTests {
    @Test("upload sends a file of up to 8 MiB in one request and a larger one through an upload session, from the file itself, with progress to the end", arguments: TestStore.available)
    func uploadSizes(store: TestStore) async throws {
        let folder = try temporaryFolder("hub-upload-sizes")
        let server = try await TestServer(folder: folder + "/server", store: store)
        try await withAsyncCleanup {
            let counting = CountingTransport()
            let hub = try await HubClient.pair(try await server.pairingCode(), credentials: SyncCredentialFile(path: folder + "/hub.json"), transport: counting)
            // A 9 MiB PNG of noise (it does not compress) and a small JPEG.
            var generator = SystemRandomNumberGenerator()
            let noise = (0..<(1800 * 1800 * 3)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let large = folder + "/large.png", small = folder + "/small.jpg"
            try ImageEncoder.write(try Image(width: 1800, height: 1800, pixelFormat: .rgb8, pixels: noise), to: large, as: .png())
            try ImageEncoder.write(try SyntheticPhoto.landscape(width: 320, height: 240, seed: 5), to: small, as: .jpeg())
            for (file, pieces) in [(large, 2), (small, 0)] {
                let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
                #expect((bytes.count > HubClient.singleRequestLimit) == (pieces > 0))
                let before = counting.patches.withLock { $0 }
                let sent = Locked<[Int64]>([])
                let (memory, created) = try await hub.upload(MemoryUpload(kind: .photo, title: "Size \(bytes.count)"), file: file) { done, total in
                    sent.withLock { $0.append(done) }
                    #expect(total == Int64(bytes.count) || pieces == 0)
                }
                #expect(created && memory.size == Int64(bytes.count) && memory.sha256 == Hex.string(SHA256Digest.hash(bytes)))
                #expect(counting.patches.withLock { $0 } - before == pieces, "pieces sent through the session")
                #expect(sent.withLock { $0.last } ?? 0 >= Int64(bytes.count))
            }
        } cleanup: {
            await server.stop()
        }
    }

    @Test("an upload session survives dropped connections: offsets, a wrong offset answered 409, the memory made from it once complete and its SHA-256 checked", arguments: TestStore.available)
    func resumable(store: TestStore) async throws {
        let folder = try temporaryFolder("hub-resumable")
        let server = try await TestServer(folder: folder + "/server", store: store)
        try await withAsyncCleanup {
            let code = try await server.pairingCode()
            var hub = try await HubClient.pair(code, credentials: SyncCredentialFile(path: folder + "/hub.json"), transport: DroppingTransport())
            let waits = ManualClock()
            hub.clock = waits
            let video = folder + "/wedding.mp4"
            try await mediaFixture(video, "-f", "lavfi", "-i", "testsrc=size=640x480:rate=25", "-t", "3", "-c:v", "mpeg4", "-q:v", "2")
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: video)))
            let seen = Locked<[Int64]>([])
            let (memory, created) = try await hub.uploadResumable(MemoryUpload(kind: .video, title: "The wedding"), file: video, pieceSize: 32 * 1024) { offset, _ in
                seen.withLock { $0.append(offset) }
            }
            #expect(created && memory.kind == .video && memory.mediaType == "video/mp4")
            #expect(bytes.count > 5 * 32 * 1024, "the video is large enough for the dropped pieces")
            #expect(memory.size == Int64(bytes.count) && memory.sha256 == Hex.string(SHA256Digest.hash(bytes)))
            #expect(seen.withLock { $0 }.last == Int64(bytes.count))
            // Each dropped piece waited once on the client's clock before asking where the upload stood.
            #expect(waits.sleeps == [.milliseconds(200), .milliseconds(200)])
            #expect(memory.durationMs == 3000 && memory.width == 640 && memory.thumbnailUrl != nil)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/server/hub/sessions").isEmpty)  // the session's file became the media

            // By hand: a wrong offset is answered 409; an incomplete session makes no memory; a session of another device is not found.
            let token = try #require(try SyncCredentialFile(path: folder + "/hub.json").load()?.token)
            let transport = CheckedTransport()
            func send(_ method: String, _ path: String, body: Data = Data(), headers: [String: String] = [:], as device: String? = nil) async throws -> HTTPResponse {
                try await transport.send(HTTPRequest(method: method, url: server.url.appendingPathComponent(path),
                                                         headers: ["Authorization": "Bearer \(device ?? token)", "Content-Type": "application/json"].merging(headers) { $1 }, body: body))
            }
            let clip = folder + "/clip.wav"
            try await mediaFixture(clip, "-f", "lavfi", "-i", "sine=frequency=220:duration=1", "-c:a", "pcm_s16le", "-ar", "8000")
            let small = [UInt8](try Data(contentsOf: URL(fileURLWithPath: clip)))
            let start = try await send("POST", "api/uploads", body: try JSONEncoder().encode(UploadSessionRequest(size: Int64(small.count), sha256: Hex.string(SHA256Digest.hash(small)), contentType: "audio/wav")))
            #expect(start.status == 201)
            let session = try JSONDecoder().decode(UploadSessionStatus.self, from: start.body)
            #expect(try await send("PATCH", "api/uploads/\(session.id)", body: Data(small.prefix(10)), headers: ["Upload-Offset": "0"]).status == 200)
            #expect(try await send("PATCH", "api/uploads/\(session.id)", body: Data(small.dropFirst(10)), headers: ["Upload-Offset": "0"]).status == 409)
            // A missing offset and one that is not a non-negative integer are each named for what they are.
            for (value, message) in [(nil, "the header is required"), ("-1", "must be a non-negative integer"), ("+10", "must be a non-negative integer"),
                                     ("ten", "must be a non-negative integer")] as [(String?, String)] {
                let refused = try await send("PATCH", "api/uploads/\(session.id)", body: Data(small.dropFirst(10)), headers: value.map { ["Upload-Offset": $0] } ?? [:])
                let problem = try? JSONDecoder().decode(APIErrorBody.self, from: refused.body).error.fields?.first
                #expect(refused.status == 400 && problem?.field == "Upload-Offset" && problem?.message.hasPrefix(message) == true, "\(value ?? "none"): \(String(decoding: refused.body, as: UTF8.self))")
            }
            let incomplete = await hubFailure { () async throws(HubError) in _ = try await hub.upload(MemoryUpload(kind: .voice, title: "Too soon", uploadId: session.id)) }
            guard let fields = incomplete.flatMap({ $0.code == .invalidRequest ? $0.fields : nil }) else { Issue.record("\(String(describing: incomplete))"); return }
            #expect(fields.first?.contains("10 of \(small.count) bytes") == true, "\(fields)")
            let other = try await server.pairedClient(folder + "/other")
            let otherToken = try #require(try SyncCredentialFile(path: folder + "/other/hub.json").load()?.token)
            _ = other
            #expect(try await send("GET", "api/uploads/\(session.id)", as: otherToken).status == 404)
            let status = try JSONDecoder().decode(UploadSessionStatus.self, from: try await send("GET", "api/uploads/\(session.id)").body)
            #expect(status.offset == 10)
            #expect(try await send("PATCH", "api/uploads/\(session.id)", body: Data(small.dropFirst(10) + [1]), headers: ["Upload-Offset": "10"]).status == 413)
            #expect(try await send("PATCH", "api/uploads/\(session.id)", body: Data(small.dropFirst(10)), headers: ["Upload-Offset": "10"]).status == 200)
            let (note, _) = try await hub.upload(MemoryUpload(kind: .voice, title: "Two pieces", uploadId: session.id))
            #expect(note.size == Int64(small.count) && note.mediaType == "audio/wav" && note.durationMs == 1000)
            #expect(try await send("GET", "api/uploads/\(session.id)").status == 404)  // used up

            // An abandoned session expires: maintenance removes it and its bytes.
            let abandoned = try JSONDecoder().decode(UploadSessionStatus.self, from: try await send("POST", "api/uploads",
                body: try JSONEncoder().encode(UploadSessionRequest(size: 100, sha256: String(repeating: "a", count: 64), contentType: "video/mp4"))).body)
            let data = try await ServerData.open(server.folder, database: server.database)
            _ = try await SyncServer(configuration: ServerConfiguration(joinCode: server.joinCode), data: data).maintain(now: abandoned.expiresAt + 1)
            #expect(try await send("GET", "api/uploads/\(abandoned.id)").status == 404)
            #expect(!FileManager.default.fileExists(atPath: folder + "/server/hub/sessions/\(abandoned.id)"))

            // A crash between moving a file into place and writing its row leaves it unreferenced: swept once it is an hour old.
            let orphan = folder + "/server/hub/media/bb/" + String(repeating: "b", count: 64)
            let orphanAvatar = folder + "/server/hub/avatars/" + String(repeating: "c", count: 64) + ".jpg"
            try FileManager.default.createDirectory(atPath: folder + "/server/hub/media/bb", withIntermediateDirectories: true)
            for path in [orphan, orphanAvatar] { try Data("left by a crash".utf8).write(to: URL(fileURLWithPath: path)) }
            let maintainer = SyncServer(configuration: ServerConfiguration(joinCode: server.joinCode), data: data)
            let clock = Int64(Date().timeIntervalSince1970 * 1000)
            #expect(try await maintainer.maintain(now: clock).orphanHubFiles == 0, "a file younger than an hour may be a request's in flight")
            #expect(FileManager.default.fileExists(atPath: orphan))
            #expect(try await maintainer.maintain(now: clock + 2 * 3600 * 1000).orphanHubFiles == 2)
            #expect(!FileManager.default.fileExists(atPath: orphan) && !FileManager.default.fileExists(atPath: orphanAvatar))
            #expect(try await send("GET", "api/memories/\(note.id)/media").status == 200, "a memory's media stays")
        } cleanup: {
            await server.stop()
        }
    }

    @Test("videos and voice notes are read by FFmpeg: durations, a video's poster frame as its thumbnail; a file that is not what it says is refused", arguments: TestStore.available)
    func media(store: TestStore) async throws {
        let folder = try temporaryFolder("hub-media")
        let server = try await TestServer(folder: folder + "/server", store: store)
        try await withAsyncCleanup {
            let hub = try await server.pairedClient(folder)
            let video = folder + "/party.mp4", voice = folder + "/story.m4a"
            try await mediaFixture(video, "-f", "lavfi", "-i", "testsrc=size=1280x720:rate=30", "-t", "2", "-c:v", "libx264", "-pix_fmt", "yuv420p")
            try await mediaFixture(voice, "-f", "lavfi", "-i", "sine=frequency=440:duration=2", "-c:a", "aac")
            let (party, _) = try await hub.upload(MemoryUpload(kind: .video, title: "The party"), file: video)
            #expect(party.durationMs == 2000 && party.width == 1280 && party.height == 720 && party.mediaType == "video/mp4")
            let token = try #require(try SyncCredentialFile(path: folder + "/hub.json").load()?.token)
            let poster = try await URLSessionTransport().send(HTTPRequest(method: "GET", url: server.url.appendingPathComponent("api/memories/\(party.id)/thumbnail"),
                                                                                 headers: ["Authorization": "Bearer \(token)"]))
            let info = try ImageDecoder.info(of: [UInt8](poster.body))
            #expect(poster.status == 200 && info.width == 512 && info.height == 288)
            let (story, _) = try await hub.upload(MemoryUpload(kind: .voice, title: "The story"), file: voice)
            #expect(abs((story.durationMs ?? 0) - 2000) <= 50 && story.mediaType == "audio/mp4" && story.thumbnailUrl == nil, "\(story)")
            // Matroska and FLAC, typed by the client from their names.
            let clip = folder + "/clip.mkv", tune = folder + "/tune.flac"
            try await mediaFixture(clip, "-f", "lavfi", "-i", "testsrc=size=320x240:rate=10", "-t", "1", "-c:v", "mpeg4")
            try await mediaFixture(tune, "-f", "lavfi", "-i", "sine=frequency=330:duration=1", "-c:a", "flac")
            #expect(try await hub.upload(MemoryUpload(kind: .video, title: "Clip"), file: clip).memory.mediaType == "video/x-matroska")
            #expect(try await hub.upload(MemoryUpload(kind: .voice, title: "Tune"), file: tune).memory.mediaType == "audio/flac")
            // Not a video; a sound sent as a video; nothing kept.
            let fake = folder + "/fake.mp4"
            try Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: URL(fileURLWithPath: fake))
            let song = folder + "/song.m4a"  // not uploaded yet (the same bytes again would give the existing memory)
            try await mediaFixture(song, "-f", "lavfi", "-i", "sine=frequency=523:duration=1", "-c:a", "aac")
            for (file, kind, message) in [(fake, MemoryKind.video, "cannot be read"), (song, MemoryKind.video, "has no video"), (fake, MemoryKind.voice, "cannot be read")] {
                let failure = await hubFailure { () async throws(HubError) in _ = try await hub.upload(MemoryUpload(kind: kind, title: "bad"), file: file, contentType: kind == .video ? "video/mp4" : "audio/mp4") }
                guard let text = failure.flatMap({ $0.code == .invalidRequest ? $0.message : nil }) else { Issue.record("\(String(describing: failure))"); continue }
                #expect(text.contains(message), "\(text)")
            }
            #expect(try await hub.memories().memories.count == 4)
            let incoming = folder + "/server/hub/incoming"
            let staged = try FileManager.default.contentsOfDirectory(atPath: incoming).flatMap { try FileManager.default.contentsOfDirectory(atPath: incoming + "/" + $0) }
            #expect(staged.isEmpty, "\(staged)")
        } cleanup: {
            await server.stop()
        }
    }

    @Test("ids are never reused: deleting the newest person, memory or face and making another gives a new id", arguments: TestStore.available)
    func idsNeverReused(store: TestStore) async throws {
        let folder = try temporaryFolder("hub-ids")
        let server = try await TestServer(folder: folder + "/server", store: store)
        try await withAsyncCleanup {
            let hub = try await server.pairedClient(folder)
            _ = try await hub.addPerson(name: "Ana")
            let newest = try await hub.addPerson(name: "Bo")
            try await hub.removePerson(id: newest.id)
            let next = try await hub.addPerson(name: "Cy")
            #expect(next.id > newest.id, "person \(newest.id) deleted, then \(next.id)")
            let face = [FaceTag(x: 0.1, y: 0.1, width: 0.2, height: 0.2)]
            _ = try await hub.upload(MemoryUpload(kind: .photo, title: "First", faces: face), file: try smallPhoto(folder, seed: 1))
            let (memory, _) = try await hub.upload(MemoryUpload(kind: .photo, title: "Second", faces: face), file: try smallPhoto(folder, seed: 2))
            try await hub.removeMemory(id: memory.id)
            let (after, _) = try await hub.upload(MemoryUpload(kind: .photo, title: "Third", faces: face), file: try smallPhoto(folder, seed: 3))
            #expect(after.id > memory.id, "memory \(memory.id) deleted, then \(after.id)")
            let (oldFace, newFace) = (try #require(memory.faces.first?.id), try #require(after.faces.first?.id))
            #expect(newFace > oldFace, "face \(oldFace) deleted with its memory, then \(newFace)")
        } cleanup: {
            await server.stop()
        }
    }

    @Test("a SQLite hub made before ids were kept unique is rebuilt on start: rows and ids kept, a deleted newest id not given again")
    func idsMigration() async throws {
        let folder = try temporaryFolder("hub-ids-migration")
        let server = try await TestServer(folder: folder + "/server")
        try await withAsyncCleanup {
            let hub = try await server.pairedClient(folder)
            let ana = try await hub.addPerson(name: "Ana", relationship: "sister"), bo = try await hub.addPerson(name: "Bo")
            let face = [FaceTag(x: 0.1, y: 0.1, width: 0.2, height: 0.2, personId: ana.id)]
            let (memory, _) = try await hub.upload(MemoryUpload(kind: .photo, title: "Kept", faces: face), file: try smallPhoto(folder, seed: 1))
            let (newest, _) = try await hub.upload(MemoryUpload(kind: .photo, title: "Newest", faces: face), file: try smallPhoto(folder, seed: 2))
            // The tables as the hub made them before: INTEGER PRIMARY KEY without AUTOINCREMENT.
            try await server.execute("""
                ALTER TABLE hub_people RENAME TO old_people;
                CREATE TABLE hub_people (id INTEGER PRIMARY KEY, name TEXT NOT NULL, name_key TEXT NOT NULL UNIQUE, relationship TEXT,
                    avatar_sha256 TEXT, created_by TEXT NOT NULL, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL);
                INSERT INTO hub_people SELECT * FROM old_people; DROP TABLE old_people;
                ALTER TABLE hub_memories RENAME TO old_memories;
                CREATE TABLE hub_memories (id INTEGER PRIMARY KEY, sha256 TEXT NOT NULL UNIQUE, kind TEXT NOT NULL, title TEXT NOT NULL,
                    description TEXT, taken_at BIGINT, latitude REAL, longitude REAL, place TEXT, media_type TEXT NOT NULL,
                    size BIGINT NOT NULL, width BIGINT, height BIGINT, has_thumbnail BIGINT NOT NULL DEFAULT 0,
                    uploaded_by TEXT NOT NULL, upload_nonce TEXT NOT NULL, created_at BIGINT NOT NULL, duration_ms BIGINT);
                INSERT INTO hub_memories SELECT id, sha256, kind, title, description, taken_at, latitude, longitude, place, media_type, size, width, height,
                    has_thumbnail, uploaded_by, upload_nonce, created_at, duration_ms FROM old_memories;
                DROP TABLE old_memories;
                ALTER TABLE hub_faces RENAME TO old_faces;
                CREATE TABLE hub_faces (id INTEGER PRIMARY KEY, memory_id BIGINT NOT NULL, x REAL NOT NULL, y REAL NOT NULL,
                    width REAL NOT NULL, height REAL NOT NULL, person_id BIGINT, updated_by TEXT NOT NULL, updated_at BIGINT NOT NULL, embedding TEXT);
                INSERT INTO hub_faces SELECT * FROM old_faces; DROP TABLE old_faces;
                DELETE FROM sqlite_sequence;
                """)
            try await server.restart()
            #expect(try await hub.people().map(\.id) == [ana.id, bo.id])
            #expect(try await hub.people().first?.relationship == "sister")
            #expect(try await hub.memory(id: memory.id).faces.map(\.personId) == [ana.id])
            try await hub.removePerson(id: bo.id)
            #expect(try await hub.addPerson(name: "Cy").id > bo.id)
            try await hub.removeMemory(id: newest.id)
            let (after, _) = try await hub.upload(MemoryUpload(kind: .photo, title: "After", faces: face), file: try smallPhoto(folder, seed: 3))
            #expect(after.id > newest.id && (after.faces.first?.id ?? 0) > (newest.faces.first?.id ?? .max))
            // The name and the bytes stay unique after the rebuild.
            let again = await hubFailure { () async throws(HubError) in _ = try await hub.addPerson(name: "ana") }
            #expect(again?.code == .personExists, "\(String(describing: again))")
            #expect(try await hub.upload(MemoryUpload(kind: .photo, title: "Same"), file: try smallPhoto(folder, seed: 1)).memory.id == memory.id)
            // The search index (its triggers went with the old table) is made again from every memory.
            let cookie = "memora_dashboard=" + (try await ServerData.open(server.folder).newDashboardSession())
            let found = try await URLSessionTransport().send(HTTPRequest(method: "GET", url: URL(string: server.url.absoluteString + "/memories?q=after")!, headers: ["Cookie": cookie]))
            #expect(String(decoding: found.body, as: UTF8.self).contains("href=\"/memories/\(after.id)\""))
        } cleanup: {
            await server.stop()
        }
    }

    /// A small JPEG in `folder`, its pixels from `seed`.
    private func smallPhoto(_ folder: String, seed: UInt64) throws -> String {
        let path = folder + "/photo-\(seed).jpg"
        try ImageEncoder.write(try SyntheticPhoto.landscape(width: 160, height: 120, seed: seed), to: path, as: .jpeg())
        return path
    }

    @Test("the same photo from two devices is one memory: 201 for the first, 200 with the same memory for the second", arguments: TestStore.available)
    func samePhotoTwoDevices(store: TestStore) async throws {
        let folder = try temporaryFolder("hub-two-devices")
        let server = try await TestServer(folder: folder + "/server", store: store)
        try await withAsyncCleanup {
            let phone = try await server.pairedClient(folder + "/phone"), laptop = try await server.pairedClient(folder + "/laptop")
            let photo = folder + "/same.jpg"
            try ImageEncoder.write(try SyntheticPhoto.landscape(width: 320, height: 240, seed: 77), to: photo, as: .jpeg())
            let (first, created) = try await phone.upload(MemoryUpload(kind: .photo, title: "From the phone"), file: photo)
            let (second, createdAgain) = try await laptop.upload(MemoryUpload(kind: .photo, title: "From the laptop"), file: photo)
            #expect(created && !createdAgain && second.id == first.id && second.title == "From the phone")
            #expect(try await laptop.memories().memories.count == 1)
        } cleanup: {
            await server.stop()
        }
    }

    @Test("faces from two devices converge on one photo: a face's tag is kept, untagged faces get the other's, new faces are added, people join; sending again changes nothing; tagged embeddings are known to every device", arguments: TestStore.available)
    func facesFromTwoDevices(store: TestStore) async throws {
        let folder = try temporaryFolder("hub-faces-merge")
        let photo = folder + "/group.jpg"
        try ImageEncoder.write(try SyntheticPhoto.landscape(width: 320, height: 240, seed: 78), to: photo, as: .jpeg())
        let embedding = { (seed: Float) in (0..<128).map { Float($0) * 0.001 + seed } }
        // The phone: face A tagged (person 1), face B untagged. The laptop: A moved a little and tagged
        // (person 2), B tagged (person 3), a new face C; the memory's people: person 2.
        func phoneFaces(_ people: [Int64]) -> [FaceTag] {
            [FaceTag(x: 0.10, y: 0.10, width: 0.20, height: 0.30, personId: people[0], embedding: embedding(0.5)),
             FaceTag(x: 0.50, y: 0.10, width: 0.20, height: 0.30, embedding: embedding(-0.25))]
        }
        func laptopFaces(_ people: [Int64]) -> [FaceTag] {
            [FaceTag(x: 0.11, y: 0.12, width: 0.20, height: 0.29, personId: people[1]),
             FaceTag(x: 0.49, y: 0.11, width: 0.21, height: 0.30, personId: people[2], embedding: embedding(0.75)),
             FaceTag(x: 0.75, y: 0.50, width: 0.20, height: 0.30)]
        }
        var outcomes: [[String]] = []
        for phoneFirst in [true, false] {
            let server = try await TestServer(folder: folder + "/server-\(phoneFirst)", store: store)
            return try await withAsyncCleanup {
                let phone = try await server.pairedClient(folder + "/phone-\(phoneFirst)"), laptop = try await server.pairedClient(folder + "/laptop-\(phoneFirst)")
                var people: [Int64] = []
                for name in ["Ana", "Bea", "Carl"] { people.append(try await phone.addPerson(name: name).id) }
                let fromPhone = MemoryUpload(kind: .photo, title: "Phone", faces: phoneFaces(people))
                let fromLaptop = MemoryUpload(kind: .photo, title: "Laptop", people: [people[1]], faces: laptopFaces(people))
                let order = phoneFirst ? [(phone, fromPhone), (laptop, fromLaptop)] : [(laptop, fromLaptop), (phone, fromPhone)]
                let (first, created) = try await order[0].0.upload(order[0].1, file: photo)
                let (merged, createdAgain) = try await order[1].0.upload(order[1].1, file: photo)
                #expect(created && !createdAgain && merged.id == first.id)
                // Three faces whichever came first: B is tagged person 3 and C is untagged; A keeps the first device's tag.
                #expect(merged.faces.count == 3, "\(merged.faces)")
                let byPlace = merged.faces.sorted { $0.x < $1.x }
                #expect(byPlace.map(\.personId) == [people[phoneFirst ? 0 : 1], people[2], nil])
                #expect(byPlace.allSatisfy { $0.embedding == nil })  // embeddings stay on the hub
                #expect(Set(merged.people) == Set(phoneFirst ? people : [people[1], people[2]]))
                // Sent again, by either device: nothing changes.
                #expect(try await order[1].0.upload(order[1].1, file: photo).memory == merged)
                #expect(try await order[0].0.upload(order[0].1, file: photo).memory == merged)
                // Faces added later merge the same way: one already there keeps its tag, a new one is added.
                let added = try await laptop.addFaces(memory: merged.id, faces: [FaceTag(x: 0.76, y: 0.5, width: 0.19, height: 0.3, personId: people[0]),
                                                                                 FaceTag(x: 0.12, y: 0.1, width: 0.2, height: 0.3, personId: people[2])])
                #expect(added.faces.sorted { $0.x < $1.x }.map(\.personId) == [people[phoneFirst ? 0 : 1], people[2], people[0]])
                #expect(try await phone.addFaces(memory: merged.id, faces: [FaceTag(x: 0.0, y: 0.7, width: 0.1, height: 0.1)]).faces.count == 4)
                // Changing a tag is a PUT: the later one wins, whoever sends it.
                let faceA = try #require(byPlace[0].id)
                _ = try await phone.tagFace(memory: merged.id, face: faceA, person: people[1])
                #expect(try await laptop.tagFace(memory: merged.id, face: faceA, person: people[0]).faces.first { $0.id == faceA }?.personId == people[0])
                // Every device sees the tagged faces' embeddings: A's (tagged person 1, from the phone) and
                // B's (the phone's embedding kept, tagged person 3 by the laptop).
                let known = try await laptop.knownFaces()
                #expect(Set(known) == [KnownFace(personId: people[0], embedding: embedding(0.5)), KnownFace(personId: people[2], embedding: embedding(phoneFirst ? -0.25 : 0.75))])
                // A face keeps the box it was first seen with.
                let firstBox = phoneFirst ? phoneFaces(people)[0] : laptopFaces(people)[0]
                #expect([byPlace[0].x, byPlace[0].y, byPlace[0].width, byPlace[0].height] == [firstBox.x, firstBox.y, firstBox.width, firstBox.height])
                outcomes.append(merged.faces.sorted { $0.x < $1.x }.map { "\($0.x),\($0.y),\($0.width),\($0.height)" })
                if phoneFirst {
                    // A crowd: 100 faces with 512-float embeddings (about 0.7 MB of metadata) go in one upload.
                    let crowd = folder + "/crowd.jpg"
                    try ImageEncoder.write(try SyntheticPhoto.landscape(width: 400, height: 300, seed: 79), to: crowd, as: .jpeg())
                    var faces: [FaceTag] = []
                    for index in 0..<100 {
                        let embedding: [Float] = (0..<512).map { (value: Int) -> Float in Float(value + index) / 3 + 0.000_123_456 }
                        faces.append(FaceTag(x: Double(index % 10) / 10, y: Double(index / 10) / 10, width: 0.09, height: 0.09, embedding: embedding))
                    }
                    #expect(try await phone.upload(MemoryUpload(kind: .photo, title: "Crowd", faces: faces), file: crowd).memory.faces.count == 100)
                }
                // Bad embeddings are refused.
                for bad in [[Float](), [Float](repeating: 0.5, count: 513)] {
                    let failure = await hubFailure { () async throws(HubError) in _ = try await phone.addFaces(memory: merged.id, faces: [FaceTag(x: 0.3, y: 0.6, width: 0.1, height: 0.1, embedding: bad)]) }
                    guard let fields = failure.flatMap({ $0.code == .invalidRequest ? $0.fields : nil }) else { Issue.record("\(String(describing: failure))"); continue }
                    #expect(fields.first?.contains("embedding") == true, "\(fields)")
                }
            } cleanup: {
                await server.stop()
            }
        }
        // Both ways three faces, and the boxes differ only where both devices sent one (faces A and B).
        #expect(outcomes.count == 2 && outcomes.allSatisfy { $0.count == 3 } && outcomes[0][2] == outcomes[1][2] && outcomes[0][0] != outcomes[1][0])
    }
}

@Suite("Memory Palace hub: avatars")
struct HubAvatarTests {

    @Test("an avatar is kept as a 256-pixel JPEG, replaced, refused when it is not an image, and removed with its person", arguments: TestStore.available)
    func avatars(store: TestStore) async throws {
        let folder = try temporaryFolder("hub-avatars")
        let server = try await TestServer(folder: folder + "/server", store: store)
        try await withAsyncCleanup {
            let hub = try await server.pairedClient(folder)
            let ana = try await hub.addPerson(name: "Ana")
            #expect(ana.avatarUrl == nil)
            let portrait = folder + "/ana.png"
            try ImageEncoder.write(try SyntheticPhoto.landscape(width: 900, height: 600, seed: 5), to: portrait, as: .png())
            let updated = try await hub.setAvatar(person: ana.id, image: portrait)
            #expect(updated.avatarUrl == "/api/people/\(ana.id)/avatar")
            let token = try #require(try SyncCredentialFile(path: folder + "/hub.json").load()?.token)
            let fetched = try await CheckedTransport().send(HTTPRequest(method: "GET", url: server.url.appendingPathComponent("api/people/\(ana.id)/avatar"),
                                                                             headers: ["Authorization": "Bearer \(token)"]))
            #expect(fetched.status == 200)
            let info = try ImageDecoder.info(of: [UInt8](fetched.body))
            #expect(info.format == .jpeg && max(info.width, info.height) == 256)
            // Replaced: one avatar file remains.
            let second = folder + "/ana2.jpg"
            try ImageEncoder.write(try SyntheticPhoto.landscape(width: 400, height: 400, seed: 6), to: second, as: .jpeg())
            _ = try await hub.setAvatar(person: ana.id, image: second)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/server/hub/avatars").count == 1)
            // Not an image: refused, the avatar unchanged.
            let text = folder + "/not.png"
            try Data("not an image".utf8).write(to: URL(fileURLWithPath: text))
            let refused = await hubFailure { () async throws(HubError) in _ = try await hub.setAvatar(person: ana.id, image: text) }
            guard refused?.code == .invalidRequest else { Issue.record("\(String(describing: refused))"); return }
            // A small PNG that declares 100 megapixels is refused from its header, before any pixel is decoded.
            let bomb = pngDeclaring(width: 10000, height: 10000, try ImageEncoder.encode(try Image(width: 4, height: 4, fill: .white), as: .png()))
            try Data(bomb).write(to: URL(fileURLWithPath: folder + "/bomb.png"))
            let tooLarge = await hubFailure { () async throws(HubError) in _ = try await hub.setAvatar(person: ana.id, image: folder + "/bomb.png") }
            guard let fields = tooLarge.flatMap({ $0.code == .invalidRequest ? $0.fields : nil }) else { Issue.record("\(String(describing: tooLarge))"); return }
            #expect(fields.contains { $0.contains("10000x10000") && $0.contains("16 megapixels") }, "\(fields)")
            await #expect(throws: HubError.notFound("no such person")) { _ = try await hub.setAvatar(person: 999, image: second) }
            // A GIF (which ImageKit does not decode) is refused by name, and the document declares exactly the types that are read.
            let gif: [UInt8] = Array("GIF89a".utf8) + [1, 0, 1, 0, 0x80, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 1, 0, 0x3B]
            try Data(gif).write(to: URL(fileURLWithPath: folder + "/dot.gif"))
            let notRead = await hubFailure { () async throws(HubError) in _ = try await hub.setAvatar(person: ana.id, image: folder + "/dot.gif") }
            let gifFields = notRead.flatMap { $0.code == .invalidRequest ? $0.fields : nil } ?? []
            #expect(gifFields.contains { $0.contains("GIF is not read") && $0.contains("JPEG, PNG, HEIC, AVIF, WebP, TIFF") }, "\(String(describing: notRead))")
            func member(_ value: JSONValue?, _ name: String) -> JSONValue? { if case .object(let members)? = value { members[name] } else { nil } }
            let content = ["paths", "/api/people/{id}/avatar", "put", "requestBody", "content"].reduce(OpenAPIDocument.shared.root as JSONValue?, member)
            guard case .object(let declared)? = content else { Issue.record("no request body for the avatar in Docs/openapi.json"); return }
            #expect(Set(declared.keys) == Set(ImageFormat.allCases.filter(\.isDecodable).map(\.mimeType)))
            // Removed with the person.
            try await hub.removePerson(id: ana.id)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/server/hub/avatars").isEmpty)
        } cleanup: {
            await server.stop()
        }
    }
}
