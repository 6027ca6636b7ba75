import Foundation
import GRDB
import MemoraCore
import MemoraServer
import MemoraSync
import Testing
import TestSupport

/// MemoraCore's side: the caption database's outbox, `SyncJob`, and the demo's two devices.
@Suite("Sync job")
struct SyncJobTests {
    /// A monitor that reports a fixed network.
    struct Network: ConstraintMonitor {
        let type: NetworkType
        func currentConditions() async -> DeviceConditions {
            DeviceConditions(hasBattery: false, isCharging: true, network: type, thermal: .nominal)
        }
    }

    @Test("a preference change and its queued mutation commit together; the server's value wins on the other side")
    func preferencesThroughTheOutbox() async throws {
        let folder = try temporaryFolder("sync-job")
        let server = try await TestServer(folder: folder + "/server")
        defer { Task { await server.stop() } }
        let first = try CaptionDatabase(path: folder + "/a.sqlite")
        try first.setPreference("wifi_only", to: "false")
        #expect(try first.syncReplica.pendingCount() == 0)  // not joined yet: nothing to queue
        let jobA = SyncJob(database: first, credentials: SyncCredentialFile(path: folder + "/a.json"), monitor: Network(type: .cellular))
        let joined = try await jobA.run(server: server.url, joinCode: server.joinCode)
        #expect(joined.registered)
        #expect(joined.pushed == 1)  // the preferences as they were
        try first.setPreference("charging_only", to: "true")
        #expect(try first.syncReplica.pendingCount() == 1)
        #expect(try first.syncReplica.pending().first?.fields["charging_only"] == .bool(true))
        // wifi_only holds sync back on a metered network, and the change stays queued.
        try first.setPreference("wifi_only", to: "true")
        await #expect(throws: MemoraError.self) { try await jobA.run(server: server.url) }
        #expect(try first.syncReplica.pendingCount() == 2)
        let pushed = try await jobA.run(server: server.url, ignoringNetwork: true)
        #expect(pushed.pushed == 2)
        #expect(try first.syncReplica.pendingCount() == 0)
        // The server's record is this device's preferences; a stale local value gives way to it.
        let device = try #require(try first.syncReplica.deviceID())
        let record = try #require(try first.syncReplica.confirmedRecords(in: SyncSchema.preferences)[device])
        #expect(record.fields["charging_only"] == .bool(true))
        // A join code that is wrong is refused with a message that says what to do.
        let second = try CaptionDatabase(path: folder + "/b.sqlite")
        let jobB = SyncJob(database: second, credentials: SyncCredentialFile(path: folder + "/b.json"), monitor: Network(type: .wifi))
        do {
            _ = try await jobB.run(server: server.url, joinCode: "wrong")
            Issue.record("a wrong join code was accepted")
        } catch {
            #expect(error.code == .syncFailed)
            #expect(error.message.contains("join code"))
        }
        #expect(FileManager.default.fileExists(atPath: folder + "/b.json") == false)
        // The credentials file is the owner's only.
        let mode = try FileManager.default.attributesOfItem(atPath: folder + "/a.json")[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test("the demo's two devices end with the same places as the server")
    func demo() async throws {
        let report = try await SyncDemo.run(folder: try temporaryFolder("sync-demo"))
        #expect(report.converged)
        #expect(report.placesPerDevice == [["Grandma's"], ["Grandma's"]])
    }
}
