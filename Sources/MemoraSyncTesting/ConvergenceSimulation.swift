public import Foundation
internal import MemoraSync
internal import MemoraSystem

/// The convergence property of the sync protocol (Docs/Sync.md), as a reusable run: simulated devices
/// make random changes (places, categories, preferences, processing state) offline and sync through
/// ``FaultyTransport`` while servers restart and devices crash (their replica reopened from disk);
/// then, with the faults off, every device syncs until quiet, and a fresh observer device pulls
/// everything. The run converged when every device holds exactly the observer's records and has
/// nothing queued. The tests run it with a fixed seed; `memora-bench` times it.
public struct ConvergenceSimulation: Sendable {
    /// A server the devices talk to: its address now, and how to restart it.
    public struct Server: Sendable {
        /// The server's current address.
        public var url: @Sendable () -> URL
        /// Stops the server and starts it again on the same data (and port).
        public var restart: @Sendable () async throws -> Void

        /// A server at `url`, restarted by `restart`.
        public init(url: @escaping @Sendable () -> URL, restart: @escaping @Sendable () async throws -> Void) {
            self.url = url
            self.restart = restart
        }
    }

    /// What a run did and found.
    public struct Outcome: Sendable {
        /// Random operations made by the devices.
        public var operations = 0
        /// Syncs attempted during the faulty phase, and how many of them failed.
        public var syncs = 0, failedSyncs = 0
        /// Faults the transports injected, server restarts and client crashes.
        public var faults = 0, restarts = 0, crashes = 0
        /// Changes the server refused (recorded by the devices as rejections).
        public var rejected = 0
        /// Changes with a value no store keeps (a NUL) that a careless client sent: each must be among ``rejected``.
        public var unstorable = 0
        /// Places that exist at the end (on the observer).
        public var places = 0
        /// Every difference found: empty when the run converged. Each message names the seed.
        public var problems: [String] = []

        /// Whether every device ended identical to the server with nothing queued.
        public var converged: Bool { problems.isEmpty }
    }

    /// The seed of every random choice (operations, faults).
    public var seed: UInt64
    /// How many random operations the devices make.
    public var operations: Int
    /// How many devices take part.
    public var devices: Int

    /// A simulation of `operations` random operations by `devices` devices, chosen by `seed`.
    public init(seed: UInt64, operations: Int = 1200, devices: Int = 3) {
        self.seed = seed
        self.operations = operations
        self.devices = devices
    }

    /// Runs the simulation with its files in `folder`. Device `i` talks to `servers[i % servers.count]`;
    /// every server must share one store (`joinCode` registers on any of them).
    public func run(folder: String, servers: [Server], joinCode: String) async throws -> Outcome {
        precondition(!servers.isEmpty && devices > 0, "a simulation needs a server and a device")
        var random = SeededRandom(seed: seed)
        var outcome = Outcome()
        func server(_ index: Int) -> URL { servers[index % servers.count].url() }
        var members: [SimulatedDevice] = []
        for index in 0..<devices {
            let device = try SimulatedDevice(folder: "\(folder)/device\(index)", seed: seed &+ UInt64(index) &* 7919)
            device.transport.setEnabled(false)
            _ = try await device.client.sync(server: server(index), joinCode: joinCode)
            device.deviceID = try SyncCredentialFile(path: device.folder + "/credentials.json").load()?.deviceID
            device.transport.setEnabled(true)
            members.append(device)
        }
        for step in 0..<operations {
            let index = Int(random.next() % UInt64(devices))
            let device = members[index]
            guard let deviceID = device.deviceID else { throw SyncError.notRegistered(server: server(index).absoluteString) }
            let n = Int(random.next() % 8) + 1
            switch random.next() % 10 {
            case 0...3:
                try device.replica.put(SyncSchema.places, Self.place(n, name: "place \(n) v\(step)", latitude: Double(random.next() % 180) - 90))
            case 4:
                try device.replica.delete(SyncSchema.places, key: ["id": .string(Self.uuid(n))])
            case 5:
                try device.replica.put(SyncSchema.categories, ["id": .string(Self.uuid(100 + n % 3)), "name": .string("category v\(step)")])
            case 6:
                try device.replica.put(SyncSchema.preferences, ["device_id": .string(deviceID), "wifi_only": .bool(random.next() % 2 == 0)])
            case 7:
                let hash = String(repeating: String(n), count: 64)
                try device.replica.put(SyncSchema.processingState, ["device_id": .string(deviceID), "image_hash": .string(hash),
                                                                  "status": .string("completed"), "caption": .string("caption \(step)")])
            case 8 where random.next() % 4 == 0:
                // A client that does not check what it sends (an older version): a NUL, which no store keeps. The
                // server refuses that change alone, on SQLite and PostgreSQL alike; the device's others still apply.
                try device.replica.putUnchecked(SyncSchema.places, Self.place(20 + n, name: "nul\u{0000}place \(step)", latitude: 1))
                outcome.unstorable += 1
            default:
                break  // only sync
            }
            outcome.operations += 1
            if random.next() % 3 == 0 {
                outcome.syncs += 1
                do {
                    _ = try await device.client.sync(server: server(index), joinCode: joinCode)
                } catch where error.code == .malformedResponse {
                    outcome.problems.append("seed \(seed), step \(step): a malformed answer: \(error.message)")
                } catch {
                    outcome.failedSyncs += 1
                }
            }
            if random.next() % 40 == 0 {
                try await servers[Int(random.next() % UInt64(servers.count))].restart()
                outcome.restarts += 1
            }
            if random.next() % 25 == 0 {
                try device.crash()
                outcome.crashes += 1
            }
        }
        // Quiescence: no more faults; every device syncs until its outbox is empty, then once more to pull.
        for device in members { device.transport.setEnabled(false) }
        for _ in 0..<2 {
            for (index, device) in members.enumerated() { _ = try await device.client.sync(server: server(index)) }
        }
        let observer = try SimulatedDevice(folder: folder + "/observer", seed: 1)
        observer.transport.setEnabled(false)
        _ = try await observer.client.sync(server: server(0), joinCode: joinCode)
        for collection in SyncSchema.collections where collection.pulled {
            let truth = try observer.replica.records(in: collection)
            for (index, device) in members.enumerated() {
                if try device.replica.pendingCount() > 0 {
                    outcome.problems.append("seed \(seed): device \(index) still has changes queued")
                }
                if try device.replica.records(in: collection) != truth {
                    outcome.problems.append("seed \(seed): device \(index) differs from the server in \(collection.name)")
                }
            }
        }
        outcome.faults = members.map(\.transport.faults).reduce(0, +)
        outcome.places = try observer.replica.records(in: SyncSchema.places).count
        outcome.rejected = try members.map { try $0.replica.rejections().count }.reduce(0, +)
        return outcome
    }

    static func uuid(_ n: Int) -> String { String(format: "00000000-0000-4000-8000-%012x", n) }

    static func place(_ n: Int, name: String, latitude: Double) -> [String: JSONValue] {
        ["id": .string(uuid(n)), "name": .string(name), "latitude": .number(latitude), "longitude": .number(-8.61), "radius_meters": .number(150)]
    }
}

/// One simulated device: its replica file (reopened to simulate a crash), credentials and transport.
private final class SimulatedDevice {
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
