import Foundation
import MemoraServer
import MemoraSync
import MemoraSystem
import MemoraSyncTesting
import ServerTestSupport
import Testing
import TestSupport

/// Issue 41, items 4-6: several memora-server processes on one database (a fleet). They share one
/// join code and dashboard key however many start at once, they share one data folder (a server on
/// another folder is refused), and one server starting or stopping never clears an upload another
/// is receiving.
@Suite("A fleet of servers on one database")
struct FleetTests {
    @Test("servers started together on a fresh folder make one join code, and each accepts the code `join-code` prints", arguments: TestStore.available)
    func secretsMadeOnce(store: TestStore) async throws {
        for round in 0..<8 {
            let folder = try temporaryFolder("fleet-secrets") + "/data"
            let database = try await store.makeDatabase()
            let opened = try await withThrowingTaskGroup(of: ServerData.self) { group in
                for _ in 0..<4 { group.addTask { try await ServerData.open(folder, database: database) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let printed = try await ServerData.open(folder, database: database).joinCode  // what `memora-server join-code` prints
            #expect(Set(opened.map(\.joinCode)) == [printed], "round \(round): \(Set(opened.map(\.joinCode)).count) join codes")
            #expect(Set(opened.map(\.dashboardKey)).count == 1, "round \(round): one dashboard key")
            #expect(!FileSystem.exists(folder + "/join-code") && !FileSystem.exists(folder + "/dashboard-key"), "no copy of a secret in the folder")
            var servers: [RunningSyncServer] = []
            for data in opened {
                var configuration = ServerConfiguration(joinCode: data.joinCode)
                configuration.port = 0
                configuration.logger.logLevel = .critical  // stopping by cancellation logs errors of its own
                servers.append(try await SyncServer(configuration: configuration, data: data).start())
            }
            for (index, server) in servers.enumerated() {
                _ = try await RawClient(base: server.url).register("fleet-device-\(round)-\(index)", joinCode: printed)
            }
            for server in servers { await server.stop() }
        }
    }

    @Test("a join code or dashboard key from an earlier release's folder is kept, and its file goes")
    func secretsFromFiles() async throws {
        let folder = try temporaryFolder("fleet-legacy") + "/data"
        try FileSystem.makeFolder(folder, permissions: 0o700)
        try AtomicFileWriter.write(Array("old-join-code-0123456789\n".utf8), to: folder + "/join-code", options: .secret())
        try AtomicFileWriter.write(Array("old-dashboard-key-0123456789\n".utf8), to: folder + "/dashboard-key", options: .secret())
        let data = try await ServerData.open(folder)
        #expect(data.joinCode == "old-join-code-0123456789" && data.dashboardKey == "old-dashboard-key-0123456789")
        #expect(!FileSystem.exists(folder + "/join-code") && !FileSystem.exists(folder + "/dashboard-key"))
        let reopened = try await ServerData.open(folder)
        #expect(reopened.joinCode == data.joinCode && reopened.dashboardKey == data.dashboardKey)
        let key = try await reopened.rotateDashboardKey()
        #expect(try await ServerData.open(folder).dashboardKey == key && key != data.dashboardKey)
    }

    @Test("on PostgreSQL, a server whose folder is not the fleet's is refused; the fleet's folder opens",
          .enabled(if: TestStore.available.contains(.postgres), "needs PostgreSQL (MEMORA_TEST_POSTGRES; make test sets it)"))
    func folderMismatch() async throws {
        let root = try temporaryFolder("fleet-folders")
        let database = try await TestStore.postgres.makeDatabase()
        let first = try await ServerData.open(root + "/shared", database: database)
        do {
            _ = try await ServerData.open(root + "/other", database: database)
            Issue.record("a second folder on the fleet's database was accepted")
        } catch {
            #expect(error.code == .fleetMismatch && error.message.contains("same folder"), "\(error)")
        }
        let again = try await ServerData.open(root + "/shared", database: database)
        #expect(again.joinCode == first.joinCode)
        // A fresh database takes the folder it is first opened with.
        let fresh = try await TestStore.postgres.makeDatabase()
        _ = try await ServerData.open(root + "/other", database: fresh)
        await #expect(throws: ServerError.self) { _ = try await ServerData.open(root + "/shared", database: fresh) }
    }

    @Test("a server starting and stopping on the shared folder leaves another's upload alone: it completes and its SHA-256 checks",
          arguments: TestStore.available)
    func uploadSurvivesRestart(store: TestStore) async throws {
        let root = try temporaryFolder("fleet-upload")
        let a = try await TestServer(folder: root + "/data", store: store)
        let token = try await RawClient(base: a.url).register("fleet-uploader-device", joinCode: a.joinCode)
        // An upload to A: all but its last 40 bytes sent at once, those a byte every 0.1 s.
        let text = Array((0..<200_000).map { UInt8(ascii: "a") + UInt8($0 % 26) })
        let body = multipart([("metadata", "application/json", Array(#"{"kind":"text","title":"in flight"}"#.utf8)), ("media", "text/plain", text)])
        let head = "POST /api/memories HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n"
            + "Content-Type: multipart/form-data; boundary=test-boundary-42\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        let upload = Task { try await RawSocket.exchange(port: a.port, Data(head.utf8) + body.prefix(body.count - 40), trickle: body.suffix(40), secondsPerByte: 0.1) }
        try await Task.sleep(for: .milliseconds(800))
        let staged = try FileSystem.entries(of: root + "/data/hub/incoming").map(\.name)
        #expect(staged.count == 1, "A stages the upload in its own folder: \(staged)")
        // B starts on the same folder and database, stops, and starts again, while A receives.
        let b = try await LoopbackSyncServer(folder: root + "/data", database: a.database, joinCode: a.joinCode)
        try await b.restart()
        let answer = try await upload.value
        #expect(answer.hasPrefix("HTTP/1.1 201"), "\(answer.prefix(300))")
        let sha256 = Hex.string(SHA256Digest.hash(text))
        let kept = try SystemFile(root + "/data/hub/media/" + sha256.prefix(2) + "/" + sha256).readAll()
        #expect(kept == text, "the memory's file is the upload, byte for byte")
        await b.stop()
        await a.stop()
        // Stopped servers leave no folder of their own behind.
        #expect(try FileSystem.entries(of: root + "/data/hub/incoming").isEmpty)
    }

    @Test("what a server that stopped without ending its lease left in incoming/ is cleared once the lease ends, not before")
    func abandonedUploadsCleared() async throws {
        let root = try temporaryFolder("fleet-abandoned")
        let data = try await ServerData.open(root + "/data")
        // A server killed mid-upload: its folder, a lease that runs, and a folder without any lease.
        for name in ["killed-server", "no-lease-server"] {
            try FileSystem.makeFolder(root + "/data/hub/incoming/" + name, permissions: 0o700)
            try AtomicFileWriter.write([1, 2, 3], to: root + "/data/hub/incoming/" + name + "/upload", options: .secret())
        }
        var configuration = ServerConfiguration(joinCode: data.joinCode)
        configuration.port = 0
        configuration.logger.logLevel = .critical
        let server = SyncServer(configuration: configuration, data: data)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        try await data.holdLease(forServer: "killed-server", now: now - 9 * 60 * 1000)  // renewed 9 minutes ago: a minute left
        let running = try await server.start()
        let left = Set(try FileSystem.entries(of: root + "/data/hub/incoming").map(\.name))
        #expect(left.contains("killed-server") && !left.contains("no-lease-server") && left.count == 2, "\(left)")
        // Two minutes on, the killed server's lease has ended (the running one's has not): the hourly
        // maintenance clears the killed server's folder.
        _ = try await server.maintain(now: now + 2 * 60 * 1000)
        let after = Set(try FileSystem.entries(of: root + "/data/hub/incoming").map(\.name))
        #expect(!after.contains("killed-server") && after.count == 1, "\(after)")
        await running.stop()
    }
}
