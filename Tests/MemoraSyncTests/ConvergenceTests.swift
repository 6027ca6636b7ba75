import Foundation
import MemoraServer
import MemoraSync
import Synchronization
import Testing
import TestSupport

/// A transport that loses, repeats, delays and reorders requests (seeded): the network of property 1.
final class FaultyTransport: SyncTransport {
    struct State {
        var random: SplitMix64
        var history: [SyncHTTPRequest] = []
        var enabled = true
        var faults = 0
    }

    let inner = URLSessionSyncTransport(timeout: 20)
    let state: Mutex<State>

    init(seed: UInt64) { state = Mutex(State(random: SplitMix64(seed: seed))) }

    func setEnabled(_ enabled: Bool) { state.withLock { $0.enabled = enabled } }
    var faults: Int { state.withLock { $0.faults } }

    func send(_ request: SyncHTTPRequest) async throws(SyncError) -> SyncHTTPResponse {
        let (roll, replay): (Double, SyncHTTPRequest?) = state.withLock { state in
            state.history.append(request)
            if state.history.count > 40 { state.history.removeFirst() }
            guard state.enabled else { return (1, nil) }
            let roll = state.random.nextUnit()
            let old = state.history[Int(state.random.next() % UInt64(state.history.count))]
            if roll < 0.4 { state.faults += 1 }
            return (roll, old)
        }
        let server = "\(request.url.host ?? "")"
        switch roll {
        case ..<0.1:
            throw .connectionFailed(server: server, reason: "dropped before it was sent (test)")
        case ..<0.2:
            _ = try await inner.send(request)
            throw .connectionFailed(server: server, reason: "the answer was lost (test)")
        case ..<0.3:
            _ = try await inner.send(request)
            return try await inner.send(request)
        case ..<0.4:
            let answer = try await inner.send(request)
            if let replay { _ = try? await inner.send(replay) }  // an old request arrives late
            return answer
        default:
            return try await inner.send(request)
        }
    }
}

/// A small seeded generator (the test's randomness is reproducible from the printed seed).
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func nextUnit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}

@Suite("Sync convergence")
struct ConvergenceTests {
    /// One simulated device: its replica file (reopened to simulate a crash), credentials, transport.
    final class Device: @unchecked Sendable {
        let folder: String
        let transport: FaultyTransport
        var replica: SyncReplica
        var deviceID: String?

        init(folder: String, seed: UInt64) throws {
            self.folder = folder
            transport = FaultyTransport(seed: seed)
            replica = try SyncReplica(path: folder + "/replica.sqlite")
        }

        var client: SyncClient {
            SyncClient(replica: replica, credentials: SyncCredentialFile(path: folder + "/credentials.json"), transport: transport)
        }

        /// The process dies and starts again: everything in memory is gone; the files remain.
        func crash() throws { replica = try SyncReplica(path: folder + "/replica.sqlite") }
    }

    static let seed: UInt64 = ProcessInfo.processInfo.environment["MEMORA_SYNC_SEED"].flatMap(UInt64.init) ?? 20261125

    @Test("convergence: devices with lost, repeated, delayed and reordered requests, server restarts and crashes end identical", arguments: TestStore.available)
    func convergence(store: TestStore) async throws {
        let seed = Self.seed
        let root = try temporaryFolder("sync-convergence")
        let server = try await TestServer(folder: root + "/server", store: store)
        defer { Task { await server.stop() } }
        // On PostgreSQL a second server process shares the database: the middle device talks to it.
        let second = store == .postgres ? try await TestServer(folder: root + "/server2", sharingDatabaseOf: server) : server
        defer { Task { await second.stop() } }
        func serverURL(_ index: Int) -> URL { index == 1 ? second.url : server.url }
        var random = SplitMix64(seed: seed)
        var devices: [Device] = []
        for index in 0..<3 {
            let device = try Device(folder: root + "/device\(index)", seed: seed &+ UInt64(index) &* 7919)
            device.transport.setEnabled(false)
            _ = try await device.client.sync(server: serverURL(index), joinCode: server.joinCode)
            device.deviceID = try SyncCredentialFile(path: device.folder + "/credentials.json").load()?.deviceID
            device.transport.setEnabled(true)
            devices.append(device)
        }
        let operations = 1200
        var syncs = 0, failures = 0, restarts = 0, crashes = 0
        for step in 0..<operations {
            let deviceIndex = Int(random.next() % 3)
            let device = devices[deviceIndex]
            let deviceID = try #require(device.deviceID)
            let n = Int(random.next() % 8) + 1
            switch random.next() % 10 {
            case 0...3:
                try device.replica.put(SyncSchema.places, Records.place(n, name: "place \(n) v\(step)", latitude: Double(random.next() % 180) - 90))
            case 4:
                try device.replica.delete(SyncSchema.places, key: ["id": .string(Records.uuid(n))])
            case 5:
                try device.replica.put(SyncSchema.categories, ["id": .string(Records.uuid(100 + n % 3)), "name": .string("category v\(step)")])
            case 6:
                try device.replica.put(SyncSchema.preferences, ["device_id": .string(deviceID), "wifi_only": .bool(random.next() % 2 == 0)])
            case 7:
                let hash = String(repeating: String(n), count: 64)
                try device.replica.put(SyncSchema.processingState, ["device_id": .string(deviceID), "image_hash": .string(hash),
                                                                  "status": .string("completed"), "caption": .string("caption \(step)")])
            default:
                break  // only sync
            }
            if random.next() % 3 == 0 {
                syncs += 1
                do {
                    _ = try await device.client.sync(server: serverURL(deviceIndex), joinCode: server.joinCode)
                } catch SyncError.malformedResponse(let reason) {
                    Issue.record("seed \(seed), step \(step): \(reason)")
                } catch {
                    failures += 1
                }
            }
            if random.next() % 40 == 0 {
                try await (random.next() % 2 == 0 ? server : second).restart()
                restarts += 1
            }
            if random.next() % 25 == 0 {
                try device.crash()
                crashes += 1
            }
        }
        // Quiescence: no more faults; every device syncs until its outbox is empty, then once more to pull.
        for device in devices { device.transport.setEnabled(false) }
        for _ in 0..<2 {
            for (index, device) in devices.enumerated() { _ = try await device.client.sync(server: serverURL(index)) }
        }
        let observer = try Device(folder: root + "/observer", seed: 1)
        observer.transport.setEnabled(false)
        _ = try await observer.client.sync(server: server.url, joinCode: server.joinCode)
        for collection in SyncSchema.collections where collection.pulled {
            let truth = try observer.replica.records(in: collection)
            for (index, device) in devices.enumerated() {
                #expect(try device.replica.pendingCount() == 0, "seed \(seed): device \(index) still has changes queued")
                #expect(try device.replica.records(in: collection) == truth, "seed \(seed): device \(index) differs in \(collection.name)")
            }
        }
        let faults = devices.map(\.transport.faults).reduce(0, +)
        let places = try observer.replica.records(in: SyncSchema.places).count
        let rejected = try devices.map { try $0.replica.rejections().count }.reduce(0, +)
        #expect(places > 0, "seed \(seed): every place ended deleted; the run says little")
        print("convergence on \(store.rawValue)\(store == .postgres ? " (two server processes)" : "") (seed \(seed)): \(operations) operations, \(syncs) syncs (\(failures) failed), \(faults) injected network faults, \(restarts) server restarts, \(crashes) client crashes, \(rejected) changes refused; \(places) places agree")
        #expect(faults > 20)
    }
}
