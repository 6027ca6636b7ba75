import Foundation
import ImageKit
import MemoraCore
import MemoraHub
import MemoraHTTP
import MemoraServer
import MemoraSync
import MemoraSystem
import ServerTestSupport
import Testing
import MemoraSyncTesting
import TestSupport

/// A request must never stop the server: numbers at the edges of their types, bodies built to make
/// work, bodies that arrive a byte at a time (issue 31, items 1 and 2).
@Suite("Server limits")
struct ServerLimitsTests {
    /// The integers the fuzz feeds into every numeric field: zero, minus one, the 64-bit edges, the
    /// edges of what JSON readers keep exactly, and one past Int64.max (not an Int64 at all).
    static let extremes = ["0", "-1", "9223372036854775807", "-9223372036854775808", "9007199254740991",
                           "9007199254740992", "9007199254740993", "9223372036854775808", "1e308", "-0"]

    @Test("a push numbered from Int64.max, or an upload piece whose length overflows its offset, is refused and the server lives", arguments: TestStore.available)
    func overflow(store: TestStore) async throws {
        let folder = try temporaryFolder("server-overflow")
        let server = try await TestServer(folder: folder + "/server", store: store)
        try await withAsyncCleanup {
            let client = RawClient(base: server.url)
            let token = try await client.register("device-overflow001", joinCode: server.joinCode)
            let push = try await client.send("POST", "api/sync/push", token: token, json:
                #"{"mutations":[{"id":9223372036854775807,"collection":"categories","op":"put","fields":{}},{"id":1,"collection":"categories","op":"put","fields":{}}]}"#)
            #expect(push.status == 400)
            #expect(RawClient.error(push)?.fields?.first?.field == "mutations[0].id")
            #expect(try await client.send("GET", "api/health").status == 200)

            // PATCH /api/uploads/{id} at offset 1 with a Content-Length of Int64.max: said on a raw socket,
            // since no HTTP client sends a length it does not have.
            let hub = try await server.pairedClient(folder + "/device")
            _ = hub
            let hubToken = try #require(try SyncCredentialFile(path: folder + "/device/hub.json").load()?.token)
            let start = try await client.send("POST", "api/uploads", token: hubToken,
                                              body: try JSONEncoder().encode(UploadSessionRequest(size: 10, sha256: String(repeating: "a", count: 64), contentType: "audio/wav")))
            let session = try JSONDecoder().decode(UploadSessionStatus.self, from: start.body)
            let badType = try await client.send("POST", "api/uploads", token: hubToken,
                                                body: try JSONEncoder().encode(UploadSessionRequest(size: 10, sha256: String(repeating: "a", count: 64), contentType: "2m0/lL+3*")))
            #expect(badType.status == 400 && RawClient.error(badType)?.fields?.first?.field == "contentType")
            #expect(try await client.send("PATCH", "api/uploads/\(session.id)", token: hubToken, body: Data([1]), headers: ["Upload-Offset": "0"]).status == 200)
            let answer = try await RawSocket.exchange(port: server.port, Data("""
                PATCH /api/uploads/\(session.id) HTTP/1.1\r
                Host: 127.0.0.1\r
                Authorization: Bearer \(hubToken)\r
                Upload-Offset: 1\r
                Content-Length: 9223372036854775807\r
                \r
                x
                """.utf8))
            #expect(answer.hasPrefix("HTTP/1.1 413"), "\(answer.prefix(200))")
            #expect(try await client.send("GET", "api/health").status == 200)
        } cleanup: {
            await server.stop()
        }
    }

    @Test("integer fuzz: extreme integers in every numeric field of every route get an answer below 500, and the server stays up", arguments: TestStore.available)
    func integerFuzz(store: TestStore) async throws {
        let folder = try temporaryFolder("server-fuzz")
        let server = try await TestServer(folder: folder + "/server", store: store)
        try await withAsyncCleanup {
            let client = RawClient(base: server.url)
            let syncToken = try await client.register("device-fuzzsync001", joinCode: server.joinCode)
            let hub = try await server.pairedClient(folder + "/device")
            let token = try #require(try SyncCredentialFile(path: folder + "/device/hub.json").load()?.token)
            // Something to point at: a person, a photo memory with a face, an upload session.
            let person = try await hub.addPerson(name: "Ana", relationship: nil)
            let photo = folder + "/photo.jpg"
            try ImageEncoder.write(try SyntheticPhoto.landscape(width: 320, height: 240, seed: 3), to: photo, as: .jpeg(JPEGEncodingOptions(quality: 0.9)))
            let (memory, _) = try await hub.upload(MemoryUpload(kind: .photo, title: "Porto", faces: [FaceTag(x: 0.1, y: 0.1, width: 0.2, height: 0.2)]), file: photo)
            let faceID = try #require(memory.faces.first?.id)
            let start = try await client.send("POST", "api/uploads", token: token,
                                              body: try JSONEncoder().encode(UploadSessionRequest(size: 100, sha256: String(repeating: "b", count: 64), contentType: "video/mp4")))
            let session = try JSONDecoder().decode(UploadSessionStatus.self, from: start.body).id

            // Each case: method, path, body template (N is replaced by the number), headers, token.
            typealias Case = (method: String, path: String, body: String?, headers: [String: String], token: String)
            let place = #""id":"\#(Records.uuid(1))","name":"a","latitude":N,"longitude":N,"radius_meters":N,"created_at":N"#
            let templates: [Case] = [
                ("POST", "api/sync/push", #"{"mutations":[{"id":N,"collection":"places","op":"put","fields":{"id":"\#(Records.uuid(1))","name":"a","latitude":1,"longitude":1,"radius_meters":10}}]}"#, [:], syncToken),
                ("POST", "api/sync/push", #"{"mutations":[{"id":1,"collection":"places","op":"put","baseVersion":N,"fields":{"id":"\#(Records.uuid(2))","name":"b","latitude":1,"longitude":1,"radius_meters":10}}]}"#, [:], syncToken),
                ("POST", "api/sync/push", #"{"mutations":[{"id":1,"collection":"places","op":"put","fields":{\#(place)}}]}"#, [:], syncToken),
                ("POST", "api/sync/push", #"{"mutations":[{"id":1,"collection":"places","op":"put","fields":{}},{"id":N,"collection":"places","op":"put","fields":{}}]}"#, [:], syncToken),
                ("POST", "api/sync/pull", #"{"limit":N}"#, [:], syncToken),
                ("PUT", "api/preferences", #"{"wifi_only":false,"ai_mode":"gemini","battery_threshold":N}"#, [:], syncToken),
                ("POST", "api/errors/log", #"{"error_type":"model_timeout","context":{"seconds":N}}"#, [:], syncToken),
                ("GET", "api/memories?limit=N", nil, [:], token),
                ("GET", "api/memories?cursor=N", nil, [:], token),
                ("GET", "api/memories?from=N&to=N", nil, [:], token),
                ("GET", "api/memories?person=N", nil, [:], token),
                ("GET", "api/memories/N", nil, [:], token),
                ("DELETE", "api/memories/N", nil, [:], token),
                ("GET", "api/memories/N/media", nil, [:], token),
                ("GET", "api/people/N", nil, [:], token),
                ("PUT", "api/people/N", #"{"name":"Zed"}"#, [:], token),
                ("GET", "api/people/N/memories", nil, [:], token),
                ("POST", "api/memories/\(memory.id)/faces", #"[{"x":N,"y":0.1,"width":0.1,"height":0.1}]"#, [:], token),
                ("POST", "api/memories/\(memory.id)/faces", #"[{"x":0.5,"y":0.5,"width":N,"height":N,"personId":N}]"#, [:], token),
                ("PUT", "api/memories/\(memory.id)/faces/N", #"{"personId":\#(person.id)}"#, [:], token),
                ("PUT", "api/memories/\(memory.id)/faces/\(faceID)", #"{"personId":N}"#, [:], token),
                ("PUT", "api/memories/N/faces/\(faceID)", #"{"personId":\#(person.id)}"#, [:], token),
                ("POST", "api/uploads", #"{"size":N,"sha256":"\#(String(repeating: "c", count: 64))","contentType":"video/mp4"}"#, [:], token),
                ("PATCH", "api/uploads/\(session)", "x", ["Upload-Offset": "N"], token),
            ]
            var answered = 0
            for template in templates {
                for number in Self.extremes {
                    let path = template.path.replacingOccurrences(of: "N", with: number)
                    let body = Data((template.body ?? "").replacingOccurrences(of: "N", with: number).utf8)
                    let headers = template.headers.mapValues { $0.replacingOccurrences(of: "N", with: number) }
                    let response = try await client.send(template.method, path, token: template.token, body: body, headers: headers)
                    #expect(response.status < 500, "\(template.method) \(path) with \(number): \(response.status) \(String(decoding: response.body.prefix(300), as: UTF8.self))")
                    answered += 1
                }
                #expect(try await client.send("GET", "api/health").status == 200, "the server stopped after \(template.method) \(template.path)")
            }
            // Multipart metadata's numbers too.
            for number in Self.extremes {
                let metadata = #"{"kind":"text","title":"n","takenAt":N,"latitude":N,"longitude":N}"#.replacingOccurrences(of: "N", with: number)
                let response = try await client.send("POST", "api/memories", token: token,
                                                     body: multipart([("metadata", "application/json", Array(metadata.utf8)), ("media", "text/plain", Array("hello".utf8))]),
                                                     headers: ["Content-Type": "multipart/form-data; boundary=test-boundary-42"])
                #expect(response.status < 500, "metadata with \(number): \(response.status)")
                answered += 1
            }
            #expect(answered == (templates.count + 1) * Self.extremes.count)
            #expect(try await client.send("GET", "api/health").status == 200)
        } cleanup: {
            await server.stop()
        }
    }

    @Test("a push of 1.3 million empty objects is refused in time and health answers meanwhile; a body sent a byte a second is cut off", arguments: TestStore.available)
    func slowBodies(store: TestStore) async throws {
        let server = try await TestServer(folder: try temporaryFolder("server-flood") + "/server", store: store)
        try await withAsyncCleanup {
            let floodClient = RawClient(base: server.url)
            let floodToken = try await floodClient.register("device-floodbody01", joinCode: server.joinCode)
            let flood = #"{"mutations":[{"id":1,"collection":"places","op":"put","fields":{"x":["# + Array(repeating: "{}", count: 1_300_000).joined(separator: ",") + "]}}]}"
            async let big1 = floodClient.send("POST", "api/sync/push", token: floodToken, body: Data(flood.utf8))
            async let big2 = floodClient.send("POST", "api/sync/push", token: floodToken, body: Data(flood.utf8))
            let started = ContinuousClock.now
            #expect(try await floodClient.send("GET", "api/health").status == 200)
            let healthTime = ContinuousClock.now - started
            let (first, second) = try await (big1, big2)
            #expect(first.status == 400 && second.status == 400)
            #expect(RawClient.error(first)?.message.contains("more JSON than a request may") == true)
            #expect(healthTime < .seconds(10), "health took \(healthTime) beside two floods")

            // A server with short timeouts for the slow clients.
            let folder = try temporaryFolder("server-slow")
            let database = try await store.makeDatabase()
            let loopback = try await LoopbackSyncServer(folder: folder, database: database, joinCode: "test-join-code-0123456789") { configuration in
                configuration.bodyTimeout = .seconds(2)
                configuration.idleTimeout = .seconds(2)
            }
            try await withAsyncCleanup {
                let client = RawClient(base: loopback.url)
                let token = try await client.register("device-slowbody001", joinCode: loopback.joinCode)

                // A byte a second: the handler gives up after the body timeout (2 s here), answering 400.
                let slow = try await RawSocket.exchange(port: loopback.port, Data("""
                    POST /api/sync/pull HTTP/1.1\r
                    Host: 127.0.0.1\r
                    Authorization: Bearer \(token)\r
                    Content-Type: application/json\r
                    Content-Length: 20\r
                    \r

                    """.utf8), trickle: Data("{\"limit\": 10}       ".utf8), secondsPerByte: 1)
                #expect(slow.hasPrefix("HTTP/1.1 400"), "\(slow.prefix(200))")
                #expect(slow.contains("did not arrive within"))
                // A head sent too slowly is closed by the idle timeout without an answer.
                let idle = try await RawSocket.exchange(port: loopback.port, Data("GET /api/health HTTP/1.1\r\n".utf8), trickle: Data(), secondsPerByte: 0, wait: 6)
                #expect(idle.isEmpty)
                // A malformed chunked body is a 400, not a 500.
                let chunked = try await RawSocket.exchange(port: loopback.port, Data("""
                    POST /api/sync/pull HTTP/1.1\r
                    Host: 127.0.0.1\r
                    Authorization: Bearer \(token)\r
                    Transfer-Encoding: chunked\r
                    \r
                    zz\r
                    {}\r
                    0\r
                    \r

                    """.utf8))
                // NIO's decoder fails the connection at the bad chunk: the route answers 400 when it reads the body
                // first; on a loaded machine the decoder's error can close the connection before any answer.
                // Never a 500, never a success.
                #expect(chunked.hasPrefix("HTTP/1.1 400") || chunked.isEmpty, "\(chunked.prefix(200))")
                #expect(try await client.send("GET", "api/health").status == 200)
            } cleanup: {
                await loopback.stop()
            }
        } cleanup: {
            await server.stop()
        }
    }
}

/// Files others can read (issue 31, item 6): a server folder made beforehand with 0755, and a
/// database left 0644 by an older release, end 0700 and 0600 once the server opens them.
@Suite("Server answers")
struct ServerAnswerTests {
    @Test("every answer says nosniff (a text memory is never run as a page); a method a path does not take is 405 with Allow, not 404; OPTIONS lists them")
    func headers() async throws {
        let folder = try temporaryFolder("server-answers")
        let server = try await TestServer(folder: folder + "/server")
        try await withAsyncCleanup {
            let hub = try await server.pairedClient(folder)
            let (note, _) = try await hub.upload(MemoryUpload(kind: .text, title: "A page?", description: "<script>alert(1)</script>"))
            let token = try #require(try SyncCredentialFile(path: folder + "/hub.json").load()?.token)
            let media = try await URLSessionTransport().send(HTTPRequest(method: "GET", url: server.url.appendingPathComponent("api/memories/\(note.id)/media"),
                                                                                 headers: ["Authorization": "Bearer \(token)"]))
            #expect(media.status == 200 && media.headers["x-content-type-options"] == "nosniff", "\(media.headers)")
            let health = try await URLSessionTransport().send(HTTPRequest(method: "GET", url: server.url.appendingPathComponent("api/health")))
            #expect(health.headers["x-content-type-options"] == "nosniff")
            for method in ["TRACE", "CONNECT"] {
                let answer = try await RawSocket.exchange(port: server.port, Data("\(method) /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8))
                #expect(answer.hasPrefix("HTTP/1.1 405") && answer.contains("Allow: GET, HEAD\r\n"), "\(method): \(answer.prefix(200))")
            }
            // A method the path does not take is a 405 that names the ones it does (schemathesis's
            // ST204), with or without a token; OPTIONS lists them (ST205); a path no route has stays 404.
            func exchange(_ method: String, _ path: String, token: String? = nil) async throws -> String {
                let authorization = token.map { "Authorization: Bearer \($0)\r\n" } ?? ""
                return try await RawSocket.exchange(port: server.port, Data("\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(authorization)Content-Length: 0\r\nConnection: close\r\n\r\n".utf8))
            }
            let cases: [(method: String, path: String, allow: String)] = [
                ("DELETE", "/api/health", "GET, HEAD"), ("PUT", "/api/sync/push", "POST"), ("GET", "/api/sync/push", "POST"),
                ("PATCH", "/api/people/1", "GET, HEAD, PUT, DELETE"), ("POST", "/api/memories/\(note.id)", "GET, HEAD, DELETE"),
                ("GET", "/api/objects/\(String(repeating: "a", count: 64))", "HEAD, PUT"), ("PUT", "/api/uploads/x", "GET, HEAD, PATCH"),
            ]
            for (method, path, allow) in cases {
                for token in [nil, token] {
                    let answer = try await exchange(method, path, token: token)
                    #expect(answer.hasPrefix("HTTP/1.1 405") && answer.contains("Allow: \(allow)\r\n"), "\(method) \(path): \(answer.prefix(300))")
                }
                let options = try await exchange("OPTIONS", path)
                #expect(options.hasPrefix("HTTP/1.1 204") && options.contains("Allow: \(allow), OPTIONS\r\n"), "OPTIONS \(path): \(options.prefix(300))")
            }
            #expect(try await exchange("DELETE", "/api/no-such-route").hasPrefix("HTTP/1.1 404"))
            #expect(try await exchange("OPTIONS", "/api/no-such-route").hasPrefix("HTTP/1.1 404"))
            #expect(try await exchange("GET", "/api/memories/\(note.id)", token: token).hasPrefix("HTTP/1.1 200"))
        } cleanup: {
            await server.stop()
        }
    }
}

@Suite("Server files are private")
struct ServerFilePermissionTests {
    @Test("a pre-made 0755 folder is tightened to 0700; the database and its WAL files are 0600, new or old")
    func permissions() async throws {
        let folder = try temporaryFolder("server-permissions") + "/data"
        try FileSystem.makeFolder(folder, permissions: 0o755)
        try FileSystem.setPermissions(folder, 0o755)
        let data = try await ServerData.open(folder)
        _ = try await data.store.devices()
        #expect(try FileSystem.status(of: folder).permissions == 0o700)
        let database = folder + "/memora-server.sqlite"
        for file in [database, database + "-wal", database + "-shm"] where FileSystem.exists(file) {
            #expect(try FileSystem.status(of: file).permissions == 0o600, "\(file)")
        }
        #expect(FileSystem.exists(database + "-wal"), "the WAL file exists and was checked")
        // An older release's 0644 database in a 0755 folder is tightened when opened.
        try FileSystem.setPermissions(folder, 0o755)
        try FileSystem.setPermissions(database, 0o644)
        _ = try await ServerData.open(folder)
        #expect(try FileSystem.status(of: database).permissions == 0o600 && FileSystem.status(of: folder).permissions == 0o700)
        // The secrets are in the database (Fleet), not in files of their own.
        for secret in ["join-code", "dashboard-key"] { #expect(!FileSystem.exists(folder + "/" + secret)) }
    }

    @Test("the caption database and a device's replica are created 0600 in a new 0700 folder; a folder the user chose keeps its mode")
    func clientDatabases() throws {
        let shared = try temporaryFolder("client-permissions")
        try FileSystem.setPermissions(shared, 0o755)
        _ = try CaptionDatabase(path: shared + "/memora.sqlite")
        _ = try SyncReplica(path: shared + "/new/replica.sqlite")
        #expect(try FileSystem.status(of: shared + "/memora.sqlite").permissions == 0o600)
        #expect(try FileSystem.status(of: shared + "/new/replica.sqlite").permissions == 0o600)
        #expect(try FileSystem.status(of: shared + "/new").permissions == 0o700)
        #expect(try FileSystem.status(of: shared).permissions == 0o755, "not tightened: the user's folder")
    }
}

/// A NUL must not stall a device on PostgreSQL (issue 31, item 3): both stores refuse it alike,
/// in an error report and inside a push, where the valid mutations behind it still apply.
@Suite("Both stores accept and refuse the same values")
struct StoreParityTests {
    @Test("U+0000 in a JSON field: 400 for an error report; in a push that mutation alone is rejected and the rest apply", arguments: TestStore.available)
    func nul(store: TestStore) async throws {
        let server = try await TestServer(folder: try temporaryFolder("server-nul") + "/server", store: store)
        try await withAsyncCleanup {
            let client = RawClient(base: server.url)
            let token = try await client.register("device-nul000000001", joinCode: server.joinCode)
            let report = try await client.send("POST", "api/errors/log", token: token, json: #"{"error_type":"model_timeout","context":{"k":"a\u0000b"}}"#)
            #expect(report.status == 400, "\(String(decoding: report.body, as: UTF8.self))")
            let key = try await client.send("POST", "api/errors/log", token: token, json: #"{"error_type":"model_timeout","context":{"a\u0000":1}}"#)
            #expect(key.status == 400)
            let push = try await client.push(token, [
                SyncMutation(id: 1, collection: "error_logs", op: .put, fields: ["id": .string(Records.uuid(7)), "device_id": .string("device-nul000000001"),
                                                                                "error_type": .string("model_timeout"), "context": .object(["k": .string("a\u{0}b")])]),
                SyncMutation(id: 2, collection: "places", op: .put, fields: Records.place(1, name: "Porto")),
            ])
            #expect(push.status == 200, "\(String(decoding: push.body, as: UTF8.self))")
            let results = try JSONDecoder().decode(PushResponse.self, from: push.body).results
            #expect(results.map(\.status) == [.rejected, .applied])
            #expect(try await client.pull(token, cursor: nil).changes.contains { $0.collection == "places" })
        } cleanup: {
            await server.stop()
        }
    }
}

/// An error report's context as Docs/openapi.json bounds it (issue 41, item 11): at most 8 members,
/// names of at most 32 characters, values text of at most 120, numbers, booleans or null.
@Suite("An error report's context is what the document says")
struct ErrorContextTests {
    @Test("a context name of 32 characters is stored, 33 is a 400 naming the field; more than 8 members, a long or nested value too", arguments: TestStore.available)
    func contextBounds(store: TestStore) async throws {
        let server = try await TestServer(folder: try temporaryFolder("server-context") + "/server", store: store)
        try await withAsyncCleanup {
            let client = RawClient(base: server.url)
            let token = try await client.register("device-context00001", joinCode: server.joinCode)
            func report(_ context: String) async throws -> HTTPResponse {
                try await client.send("POST", "api/errors/log", token: token, json: #"{"error_type":"model_timeout","context":\#(context)}"#)
            }
            let name32 = String(repeating: "k", count: 32), name33 = String(repeating: "k", count: 33)
            let eight = (1...8).map { #""m\#($0)":\#($0)"# }.joined(separator: ",")
            #expect(try await report(#"{"\#(name32)":"\#(String(repeating: "v", count: 120))","\#(String(repeating: "é", count: 32))":true}"#).status == 201)
            #expect(try await report("{\(eight)}").status == 201)
            for refused in [#"{"\#(name33)":1}"#, "{\(eight),\"m9\":9}", #"{"k":"\#(String(repeating: "v", count: 121))"}"#, #"{"k":{"nested":1}}"#, #"{"k":[1]}"#] {
                let answer = try await report(refused)
                #expect(answer.status == 400, "\(refused): \(String(decoding: answer.body, as: UTF8.self))")
                #expect(RawClient.error(answer)?.fields?.first?.field == "body.context", "\(refused)")
            }
            let named = try await report(#"{"\#(name33)":1}"#)
            #expect(RawClient.error(named)?.fields?.first?.message.contains("33 characters") == true)
            // In a push, the mutation alone is rejected.
            let push = try await client.push(token, [SyncMutation(id: 1, collection: "error_logs", op: .put, fields: [
                "id": .string(Records.uuid(9)), "device_id": .string("device-context00001"), "error_type": .string("model_timeout"),
                "context": .object([name33: .integer(1)])])])
            #expect(try JSONDecoder().decode(PushResponse.self, from: push.body).results.map(\.status) == [.rejected])
        } cleanup: {
            await server.stop()
        }
    }
}

/// Taking over a device (issue 31, item 5): a device id belongs to the token that registered it.
@Suite("Device ids belong to their token")
struct DeviceTakeoverTests {
    @Test("registering or pairing under a taken device id gives the newcomer its own id; the device keeps its token and its preferences", arguments: TestStore.available)
    func takeover(store: TestStore) async throws {
        let folder = try temporaryFolder("server-takeover")
        let server = try await TestServer(folder: folder + "/server", store: store)
        try await withAsyncCleanup {
            let client = RawClient(base: server.url)
            let victim = "device-victim000001"
            let token = try await client.register(victim, joinCode: server.joinCode)
            #expect(try await client.send("PUT", "api/preferences", token: token, json: #"{"wifi_only":true,"ai_mode":"gemini"}"#).status == 200)
            // Someone with the join code registers under the same id.
            let again = try await client.send("POST", "api/devices/register", json: #"{"deviceId":"\#(victim)","platform":"linux","joinCode":"\#(server.joinCode)"}"#)
            #expect(again.status == 201)
            let intruder = try JSONDecoder().decode(DeviceToken.self, from: again.body)
            #expect(intruder.deviceId != victim && intruder.token != token)
            #expect(try await client.send("POST", "api/sync/pull", token: token, json: "{}").status == 200, "the device is not locked out")
            #expect(try await client.send("GET", "api/preferences", token: intruder.token).status == 404, "the newcomer does not read the device's preferences")
            let preferences = try await client.send("GET", "api/preferences", token: token)
            #expect(try JSONDecoder().decode([String: JSONValue].self, from: preferences.body)["wifi_only"] == .bool(true))
            // Pairing with a hub's code under a taken id: the same rule.
            let code = try await server.pairingCode()
            let paired = try await client.send("POST", "api/hub/pair", json: #"{"pairingToken":"\#(code.authToken)","deviceId":"\#(victim)","platform":"linux"}"#)
            #expect(paired.status == 201)
            #expect(try JSONDecoder().decode(DeviceToken.self, from: paired.body).deviceId != victim)
            #expect(try await client.send("POST", "api/sync/pull", token: token, json: "{}").status == 200)
            // A device whose token expired (offline for months) comes back under its own id, its records kept.
            try await server.execute("UPDATE devices SET token_expires_at = 1 WHERE device_id = '\(victim)'")
            #expect(try await client.send("POST", "api/sync/pull", token: token, json: "{}").status == 401)
            let back = try await client.send("POST", "api/devices/register", json: #"{"deviceId":"\#(victim)","platform":"linux","joinCode":"\#(server.joinCode)"}"#)
            let returned = try JSONDecoder().decode(DeviceToken.self, from: back.body)
            #expect(back.status == 201 && returned.deviceId == victim)
            let kept = try await client.send("GET", "api/preferences", token: returned.token)
            #expect(try JSONDecoder().decode([String: JSONValue].self, from: kept.body)["wifi_only"] == .bool(true))
        } cleanup: {
            await server.stop()
        }
    }
}

/// A raw HTTP exchange on a TCP socket to the loopback server, in a child `python3` (the
/// standard library's socket module), for what no HTTP client sends: lengths it does not have,
/// bodies a byte a second, broken chunked framing. Returns what the server answered before it
/// closed or `wait` seconds passed (120 by default: a loaded machine can be slow to answer, and the
/// child's clock does not know this process was too busy to serve; a server that closes ends the
/// wait at once).
enum RawSocket {
    static func exchange(port: Int, _ head: Data, trickle: Data = Data(), secondsPerByte: Double = 0, wait: Double = 120) async throws -> String {
        let folder = try temporaryFolder("raw-socket")
        try head.write(to: URL(fileURLWithPath: folder + "/head"))
        try trickle.write(to: URL(fileURLWithPath: folder + "/trickle"))
        let script = """
            import socket, sys, time
            head, trickle = open(sys.argv[2], 'rb').read(), open(sys.argv[3], 'rb').read()
            s = socket.create_connection(('127.0.0.1', int(sys.argv[1])))
            s.sendall(head)
            answer = b''
            s.settimeout(float(sys.argv[5]))
            try:
                for i in range(len(trickle)):
                    time.sleep(float(sys.argv[4]))
                    s.sendall(trickle[i:i + 1])
            except OSError:
                pass
            try:
                while True:
                    part = s.recv(65536)
                    if not part:
                        break
                    answer += part
                    if bytes([13, 10, 13, 10]) in answer and len(answer) > 12:
                        s.settimeout(1)
            except (socket.timeout, OSError):
                pass
            open(sys.argv[6], 'wb').write(answer)
            """
        let arguments = ["-c", script, String(port), folder + "/head", folder + "/trickle", String(secondsPerByte), String(wait), folder + "/answer"]
        // On a thread of its own: the server under test runs on this process's cooperative pool.
        let status = try await BlockingWork.waiting.run { () throws -> Int32 in
            try ChildProcess.run("/usr/bin/python3", arguments, errorPath: folder + "/stderr").status
        }
        guard status == 0 else {
            let stderr = (try? String(contentsOfFile: folder + "/stderr", encoding: .utf8)) ?? ""
            throw APIError(code: "test", message: "python3 raw socket client failed (\(status)): \(stderr)")
        }
        return String(decoding: try Data(contentsOf: URL(fileURLWithPath: folder + "/answer")), as: UTF8.self)
    }
}
