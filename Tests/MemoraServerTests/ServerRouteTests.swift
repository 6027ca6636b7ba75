import Foundation
import MemoraServer
import MemoraSync
import MemoraSystem
import ServerTestSupport
import Testing
import TestSupport

/// The routes against a real server on loopback: authentication, validation, the error shape, objects.
@Suite("Sync server routes")
struct ServerRouteTests {
    @Test("health answers without a token; every other route answers 401 without one", arguments: TestStore.available)
    func authentication(store: TestStore) async throws {
        let server = try await TestServer(folder: try temporaryFolder("sync-routes"), store: store)
        try await withAsyncCleanup {
            let client = RawClient(base: server.url)
            let health = try await client.send("GET", "api/health")
            #expect(health.status == 200)
            #expect(try JSONDecoder().decode(HealthResponse.self, from: health.body).storage == store.rawValue)
            for (method, path) in [("POST", "api/sync/pull"), ("POST", "api/sync/push"), ("GET", "api/preferences"), ("PUT", "api/preferences"),
                                   ("POST", "api/errors/log"), ("POST", "api/devices/refresh")] {
                let response = try await client.send(method, path, json: "{}")
                #expect(response.status == 401, "\(method) \(path)")
                #expect(RawClient.error(response)?.code == "unauthorized")
                let wrong = try await client.send(method, path, token: "not-a-token", json: "{}")
                #expect(wrong.status == 401, "\(method) \(path) with a wrong token")
            }
            // A wrong join code registers nothing.
            let refused = try await client.send("POST", "api/devices/register", json: #"{"deviceId":"device-aaaaaaaaaaaa","platform":"linux","joinCode":"nope"}"#)
            #expect(refused.status == 401)
            let token = try await client.register("device-aaaaaaaaaaaa", joinCode: server.joinCode)
            #expect(try await client.send("POST", "api/sync/pull", token: token, json: "{}").status == 200)
            // Revoked: the token stops working and the device cannot register again.
            #expect(try await server.store().revoke(deviceID: "device-aaaaaaaaaaaa", now: 1))
            #expect(try await client.send("POST", "api/sync/pull", token: token, json: "{}").status == 401)
            let again = try await client.send("POST", "api/devices/register", json: #"{"deviceId":"device-aaaaaaaaaaaa","platform":"linux","joinCode":"\#(server.joinCode)"}"#)
            #expect(again.status == 403)
            #expect(RawClient.error(again)?.code == "revoked")
        } cleanup: {
            await server.stop()
        }
    }

    @Test("bad input gets a 400 with the fields at fault, in the one error shape", arguments: TestStore.available)
    func validation(store: TestStore) async throws {
        let server = try await TestServer(folder: try temporaryFolder("sync-validation"), store: store)
        try await withAsyncCleanup {
            let client = RawClient(base: server.url)
            let register = try await client.send("POST", "api/devices/register", json: #"{"deviceId":"short","platform":"beos","joinCode":"x"}"#)
            #expect(register.status == 400)
            #expect(Set(RawClient.error(register)?.fields?.map(\.field) ?? []) == ["deviceId", "platform"])
            let token = try await client.register("device-bbbbbbbbbbbb", joinCode: server.joinCode)
            let notJSON = try await client.send("POST", "api/sync/pull", token: token, json: "{nope")
            #expect(notJSON.status == 400)
            #expect(RawClient.error(notJSON)?.code == "invalid_request")
            let wrongType = try await client.send("POST", "api/sync/pull", token: token, json: #"{"limit":"ten"}"#)
            #expect(RawClient.error(wrongType)?.fields?.first?.field == "limit")
            let badLimit = try await client.send("POST", "api/sync/pull", token: token, json: #"{"limit":5000}"#)
            #expect(badLimit.status == 400)
            let badCursor = try await client.send("POST", "api/sync/pull", token: token, json: #"{"cursor":"yesterday"}"#)
            #expect(RawClient.error(badCursor)?.fields?.first?.field == "cursor")
            let invalidUTF8 = try await client.send("POST", "api/sync/pull", token: token, body: Data([0x7B, 0xFF, 0xFE, 0x7D]))
            #expect(invalidUTF8.status == 400)
            let huge = try await client.send("POST", "api/sync/push", token: token, body: Data(repeating: 0x20, count: 5 * 1024 * 1024))
            #expect(huge.status == 413)
            #expect(RawClient.error(huge)?.code == "too_large")
            let unnumbered = try await client.push(token, [SyncMutation(id: 1, collection: "places", op: .put, fields: Records.place(1, name: "a")),
                                                           SyncMutation(id: 3, collection: "places", op: .put, fields: Records.place(2, name: "b"))])
            #expect(RawClient.error(unnumbered)?.fields?.first?.field == "mutations[1].id")
            // Preferences: field-level problems, then a good write read back.
            let badPreferences = try await client.send("PUT", "api/preferences", token: token, json: #"{"wifi_only":"yes","ai_mode":"magic","colour":1}"#)
            #expect(badPreferences.status == 400)
            #expect(Set(RawClient.error(badPreferences)?.fields?.map(\.field) ?? []) == ["body.wifi_only", "body.ai_mode", "body.colour"])
            #expect(try await client.send("GET", "api/preferences", token: token).status == 404)
            #expect(try await client.send("PUT", "api/preferences", token: token, json: #"{"wifi_only":false,"ai_mode":"gemini"}"#).status == 200)
            let preferences = try await client.send("GET", "api/preferences", token: token)
            let values = try JSONDecoder().decode([String: JSONValue].self, from: preferences.body)
            #expect(values["wifi_only"] == .bool(false))
            #expect(values["ai_mode"] == .string("gemini"))
            // Error reports: validated, stored, never pulled.
            let report = try await client.send("POST", "api/errors/log", token: token, json: #"{"error_type":"model_timeout","context":{"seconds":60}}"#)
            #expect(report.status == 201)
            let badReport = try await client.send("POST", "api/errors/log", token: token, json: #"{"error_type":"\#(String(repeating: "x", count: 51))"}"#)
            #expect(RawClient.error(badReport)?.fields?.first?.field == "body.error_type")
            let page = try await client.pull(token, cursor: nil)
            #expect(page.changes.map(\.collection) == ["preferences"])
        } cleanup: {
            await server.stop()
        }
    }

    @Test("rate limits: a token bucket per IP before authentication and per device after it, 429 with Retry-After", arguments: TestStore.available)
    func rateLimits(store: TestStore) async throws {
        let server = try await TestServer(folder: try temporaryFolder("sync-limits"), store: store, limits: (ip: (8, 0.001), device: (3, 0.001)))  // refills too slow to matter on a loaded machine
        try await withAsyncCleanup {
            let client = RawClient(base: server.url)
            let token = try await client.register("device-limits-aaaa", joinCode: server.joinCode)
            var statuses: [Int] = []
            var retryAfter: String?
            for _ in 0..<5 {
                let response = try await client.send("POST", "api/sync/pull", token: token, json: "{}")
                statuses.append(response.status)
                if response.status == 429 { retryAfter = response.headers["retry-after"] }
            }
            #expect(statuses == [200, 200, 200, 429, 429])  // the device's bucket: 3 at once
            #expect(Int(retryAfter ?? "") ?? 0 >= 1)
            // The IP's bucket (8, one already spent on registering, five on the pulls) runs out too, before authentication.
            var unauthenticated: [Int] = []
            for _ in 0..<3 { unauthenticated.append(try await client.send("GET", "api/health").status) }
            #expect(unauthenticated.last == 429)
        } cleanup: {
            await server.stop()
        }
    }

    @Test("maintenance removes tombstones past retention and uploads no place references, and keeps the rest", arguments: TestStore.available)
    func maintenance(store: TestStore) async throws {
        let server = try await TestServer(folder: try temporaryFolder("sync-maintenance"), store: store)
        try await withAsyncCleanup {
            let client = RawClient(base: server.url)
            let token = try await client.register("device-maintain-aa", joinCode: server.joinCode)
            let kept = Data("kept photo".utf8), orphan = Data("orphan photo".utf8)
            for data in [kept, orphan] {
                #expect(try await client.send("PUT", "api/objects/\(SHA256Hex.of(data))", token: token, body: data).status == 201)
            }
            var place = Records.place(1, name: "kept")
            place["photos"] = .array([.string(SHA256Hex.of(kept))])
            _ = try await client.push(token, [SyncMutation(id: 1, collection: "places", op: .put, fields: place),
                                              SyncMutation(id: 2, collection: "places", op: .put, fields: Records.place(2, name: "gone")),
                                              SyncMutation(id: 3, collection: "places", op: .delete, fields: ["id": .string(Records.uuid(2))])])
            let data = try await ServerData.open(server.folder, database: server.database)
            let sync = SyncServer(configuration: ServerConfiguration(joinCode: server.joinCode), store: data.store, objects: data.objects)
            // Now: nothing is old enough.
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let early = try await sync.maintain(now: now)
            #expect(early.tombstones == 0 && early.orphanObjects == 0)
            // A year later: the tombstone and the orphan go; the referenced photo stays.
            let later = now + 365 * 24 * 3600 * 1000
            let late = try await sync.maintain(now: later)
            #expect(late.tombstones == 1 && late.orphanObjects == 1)
            #expect(try await client.send("HEAD", "api/objects/\(SHA256Hex.of(kept))", token: token).status == 200)
            #expect(try await client.send("HEAD", "api/objects/\(SHA256Hex.of(orphan))", token: token).status == 404)
            #expect(!FileManager.default.fileExists(atPath: server.folder + "/objects/" + SHA256Hex.of(orphan).prefix(2) + "/" + SHA256Hex.of(orphan)))
        } cleanup: {
            await server.stop()
        }
    }

    @Test("the OpenAPI check finds an undocumented status, a missing property, a wrong type and an undocumented field")
    func openAPICheckFindsProblems() {
        let document = OpenAPIDocument.shared
        #expect(document.problems(method: "GET", path: "/api/health", status: 200, body: Data(#"{"status":"ok","version":"1","storage":"sqlite"}"#.utf8)).isEmpty)
        #expect(!document.problems(method: "GET", path: "/api/health", status: 418, body: Data("{}".utf8)).isEmpty)
        #expect(!document.problems(method: "GET", path: "/api/health", status: 200, body: Data(#"{"status":"ok","version":"1"}"#.utf8)).isEmpty)
        #expect(!document.problems(method: "GET", path: "/api/health", status: 200, body: Data(#"{"status":"ok","version":1,"storage":"sqlite"}"#.utf8)).isEmpty)
        #expect(!document.problems(method: "GET", path: "/api/health", status: 200, body: Data(#"{"status":"ok","version":"1","storage":"sqlite","extra":1}"#.utf8)).isEmpty)
        #expect(!document.problems(method: "POST", path: "/api/sync/pull", status: 200,
                                   body: Data(#"{"changes":[{"collection":"places"}],"cursor":"c","hasMore":false,"reset":false,"lastMutationId":0}"#.utf8)).isEmpty)
    }

    @Test("an unknown route and a wrong method answer in the same error shape", arguments: TestStore.available)
    func unknownRoutes(store: TestStore) async throws {
        let server = try await TestServer(folder: try temporaryFolder("sync-404"), store: store)
        try await withAsyncCleanup {
            let response = try await RawClient(base: server.url).send("GET", "api/nothing-here")
            #expect(response.status == 404)
            #expect(RawClient.error(response)?.code == "not_found")
        } cleanup: {
            await server.stop()
        }
    }

    @Test("objects: uploaded by SHA-256, verified, deduplicated, size-limited; places reference only uploaded ones", arguments: TestStore.available)
    func objects(store: TestStore) async throws {
        let server = try await TestServer(folder: try temporaryFolder("sync-objects"), store: store)
        try await withAsyncCleanup {
            let client = RawClient(base: server.url)
            let token = try await client.register("device-cccccccccccc", joinCode: server.joinCode)
            let photo = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            let hash = SHA256Hex.of(photo)
            var place = Records.place(1, name: "Grandma's house")
            place["photos"] = .array([.string(hash)])
            let early = try await client.push(token, [SyncMutation(id: 1, collection: "places", op: .put, fields: place)])
            let earlyAnswer = try JSONDecoder().decode(PushResponse.self, from: early.body)
            #expect(earlyAnswer.results.first?.error?.code == "missing_object")
            #expect(try await client.send("HEAD", "api/objects/\(hash)", token: token).status == 404)
            let wrong = try await client.send("PUT", "api/objects/\(hash)", token: token, body: photo.dropLast())
            #expect(wrong.status == 400)
            #expect(try await client.send("HEAD", "api/objects/\(hash)", token: token).status == 404)
            #expect(try await client.send("PUT", "api/objects/\(hash)", token: token, body: photo).status == 201)
            #expect(try await client.send("PUT", "api/objects/\(hash)", token: token, body: photo).status == 200)
            #expect(try await client.send("HEAD", "api/objects/\(hash)", token: token).status == 200)
            #expect(try await client.send("PUT", "api/objects/NOT-A-HASH", token: token, body: photo).status == 400)
            let late = try await client.push(token, [SyncMutation(id: 2, collection: "places", op: .put, fields: place)])
            #expect(try JSONDecoder().decode(PushResponse.self, from: late.body).results.first?.status == .applied)
            let stored = try Data(contentsOf: URL(fileURLWithPath: server.folder + "/objects/" + hash.prefix(2) + "/" + hash))
            #expect(stored == photo)
        } cleanup: {
            await server.stop()
        }
    }
}

/// SHA-256 in hex, for the tests (the system layer's, as the server uses).
enum SHA256Hex {
    static func of(_ data: Data) -> String {
        let digest = StreamingSHA256()
        digest.update(Array(data))
        return digest.finalizeHex()
    }
}
