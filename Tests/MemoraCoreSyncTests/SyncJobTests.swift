import Foundation
import MemoraDemo
import GRDB
import ImageKit
import MemoraCore
import MemoraServer
import MemoraSync
import MemoraSystem
import ServerTestSupport
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
        try await withAsyncCleanup {
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
            do throws(SyncError) {
                _ = try await jobA.run(server: server.url)
                Issue.record("sync ran on a metered network with wifi_only set")
            } catch {
                #expect(error.code == .waitingForNetwork && error.isRetryable && error.message.contains("cellular"))
            }
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
            do throws(SyncError) {
                _ = try await jobB.run(server: server.url, joinCode: "wrong")
                Issue.record("a wrong join code was accepted")
            } catch {
                #expect(error.code == .unauthorized)
                #expect(error.message.contains("join code"))
            }
            #expect(FileManager.default.fileExists(atPath: folder + "/b.json") == false)
            // The credentials file is the owner's only.
            let mode = try FileManager.default.attributesOfItem(atPath: folder + "/a.json")[.posixPermissions] as? Int
            #expect(mode == 0o600)
        } cleanup: {
            await server.stop()
        }
    }

    @Test("captions, history entries, failed tries and error reports are queued with the change, named by the photo's SHA-256, and reach the server")
    func captionsThroughTheOutbox() async throws {
        let folder = try temporaryFolder("sync-captions")
        let server = try await TestServer(folder: folder + "/server")
        try await withAsyncCleanup {
            let database = try CaptionDatabase(path: folder + "/memora.sqlite")
            let photo = folder + "/roses.jpg"
            try ImageEncoder.write(try SyntheticPhoto.landscape(width: 96, height: 64, seed: 3), to: photo, as: .jpeg(JPEGEncodingOptions(quality: 0.9)))
            let editor = CaptionEditor(database: database)
            _ = try editor.edit(path: photo, caption: "Before the device joined.")
            database.logError(asset: nil, type: "before_join", message: "not queued")
            #expect(try database.syncReplica.pendingCount() == 0)  // not joined: nothing queued, nothing hashed

            let job = SyncJob(database: database, credentials: SyncCredentialFile(path: folder + "/credentials.json"), monitor: Network(type: .wifi))
            _ = try await job.run(server: server.url, joinCode: server.joinCode)
            let device = try #require(try database.syncReplica.deviceID())
            _ = try editor.edit(path: photo, caption: "Mum and the roses, summer 2019.")
            let hash = Hex.string(try SHA256Digest.hash(contentsOf: photo))
            var queued = try database.syncReplica.pending()
            let history = try #require(queued.first { $0.collection == "caption_history" })
            #expect(history.fields["caption"] == .string("Mum and the roses, summer 2019."))
            #expect(history.fields["image_hash"] == .string(hash))
            #expect(history.fields["was_manual_edit"] == .bool(true))
            #expect(history.fields["device_id"] == .string(device))
            let state = try #require(queued.first { $0.collection == "processing_state" })
            #expect(state.fields["status"] == .string("completed"))
            #expect(state.fields["image_hash"] == .string(hash))
            // The path never leaves the device.
            #expect(!queued.contains { mutation in mutation.fields.values.contains { $0 == .string(photo) } })

            // A failed try updates the photo's state; an error report is queued with its context.
            let queue = ProcessingQueue(database: database)
            _ = try queue.enqueue(path: photo, force: true)
            let item = try #require(try queue.claimNext())
            #expect(try queue.fail(item.id, error: "the model timed out", maxRetries: 3) == .pending)
            database.logError(asset: nil, type: "model_timeout", message: "the model timed out", context: ["stage": "generate"])
            queued = try database.syncReplica.pending()
            let failed = try #require(queued.last { $0.collection == "processing_state" })
            #expect(failed.fields["status"] == .string("pending"))
            #expect(failed.fields["retry_count"] == .integer(1))
            let report = try #require(queued.first { $0.collection == "error_logs" })
            #expect(report.fields["context"] == .object(["stage": .string("generate")]))
            #expect(report.fields["error_type"] == .string("model_timeout"))

            // Everything is accepted by the server; another device sees the caption and the state, not the error report.
            let pushed = try await job.run(server: server.url)
            #expect(pushed.pushed == queued.count)
            #expect(try database.syncReplica.pendingCount() == 0)
            #expect(try database.syncReplica.rejections().isEmpty)
            let other = SyncClient(replica: try SyncReplica(path: folder + "/other.sqlite"), credentials: SyncCredentialFile(path: folder + "/other.json"))
            _ = try await other.sync(server: server.url, joinCode: server.joinCode)
            let captions = try other.replica.records(in: SyncSchema.captionHistory).values
            #expect(captions.map { $0["caption"] } == [.string("Mum and the roses, summer 2019.")])
            let states = try other.replica.records(in: SyncSchema.processingState).values
            #expect(states.count == 1)
            #expect(states.first?["status"] == .string("pending"))
            #expect(states.first?["error_message"] == .string("the model timed out"))
            #expect(try other.replica.records(in: SyncSchema.errorLogs).isEmpty)
        } cleanup: {
            await server.stop()
        }
    }

    @Test("the demo's two devices end with the same places as the server")
    func demo() async throws {
        let report = try await SyncDemo.run(folder: try temporaryFolder("sync-demo"))
        #expect(report.converged)
        #expect(report.placesPerDevice == [["Grandma's"], ["Grandma's"]])
    }
}
