import Foundation
import MemoraHTTP
import MemoraServer
import MemoraSync
import MemoraSystem

/// Scenario 23 (`--only fleet`): a fleet of memora-server processes on one PostgreSQL database and one
/// data folder, under devices pushing at once, one server killed with SIGKILL and started again mid-run.
/// Each device pushes 20-mutation batches: half to places every device writes (contended keys, so
/// pushes wait on each other's rows), half to places of its own. A push that fails on a connection
/// error is sent again, the same batch to another server (the protocol makes a repeat harmless). At
/// the end a fresh device pulls everything and checks that every acknowledged change of a place of
/// its own is there, field for field. Reported beside one server on the same database, and one on
/// SQLite, measured in the same run.
enum FleetBench {
    struct Settings {
        var devices = 32
        var seconds = 10.0
        var mutationsPerPush = 20
        var sharedKeys = 64
    }

    static func run(_ settings: Bench.Settings) async throws {
        print("23. a fleet of servers on one database (child processes): devices pushing at once, one server killed mid-run")
        let fleet = Settings()
        let root = NSTemporaryDirectory() + "memora-bench-fleet-\(getpid())"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let sqlite = try await measure(Run(name: "SQLite, 1 server", folder: root + "/sqlite", database: nil, servers: 1, kill: false), fleet)
        print(sqlite.line)
        guard let database = ProcessInfo.processInfo.environment["MEMORA_BENCH_FLEET_DATABASE"], !database.isEmpty else {
            print("   PostgreSQL: skipped (MEMORA_BENCH_FLEET_DATABASE is not set; `make bench` sets it when Debian's postgresql is installed)\n")
            return
        }
        let fsync = ProcessInfo.processInfo.environment["MEMORA_BENCH_FSYNC"].map { ", fsync \($0)" } ?? ""
        let one = try await measure(Run(name: "PostgreSQL\(fsync), 1 server", folder: root + "/postgres", database: database, servers: 1, kill: false), fleet)
        print(one.line)
        let two = try await measure(Run(name: "PostgreSQL\(fsync), 2 servers, one killed", folder: root + "/postgres", database: database, servers: 2, kill: true), fleet)
        print(two.line)
        print(String(format: "   two servers with one killed / one server: %.2fx the mutations per second; nothing lost: %@\n",
                     two.rate / max(one.rate, 1), sqlite.lost + one.lost + two.lost == 0 ? "met" : "NOT met"))
    }

    struct Run {
        var name: String
        var folder: String
        var database: String?
        var servers: Int
        var kill: Bool
    }

    struct Outcome {
        var line: String
        var rate: Double
        var lost: Int
    }

    /// The servers of a run: their ports, replaced when one is started again.
    final class Servers: Sendable {
        private let children: Locked<[ChildServer]>
        let arguments: [String]

        init(count: Int, arguments: [String]) throws {
            self.arguments = arguments
            children = Locked(try (0..<count).map { _ in try ChildServer(arguments) })
        }

        func url(_ index: Int) -> URL {
            children.withLock { URL(string: "http://127.0.0.1:\($0[index % $0.count].port)")! }
        }

        var count: Int { children.withLock { $0.count } }

        /// SIGKILL for server `index`, then a new one in its place (same folder and database).
        func killAndRestart(_ index: Int) throws {
            let victim = children.withLock { $0[index] }
            kill(victim.pid, SIGKILL)
            victim.process.waitUntilExit()
            let fresh = try ChildServer(arguments)
            children.withLock { $0[index] = fresh }
        }

        func stop() { for child in children.withLock({ $0 }) { child.stop() } }
    }

    /// What the devices measured, together.
    struct Tally {
        var latencies: [Double] = []
        var retried = 0
        /// Each own place's key, and the name its last acknowledged put gave it.
        var acknowledged: [String: String] = [:]
        var mutations = 0
    }

    static func measure(_ run: Run, _ settings: Settings) async throws -> Outcome {
        try FileManager.default.createDirectory(atPath: run.folder, withIntermediateDirectories: true)
        let fleet = try Servers(count: run.servers, arguments: ["--sync-server", run.folder] + (run.database.map { [$0] } ?? []))
        defer { fleet.stop() }
        let code = try await ServerData.open(run.folder, database: run.database).joinCode
        let transport = URLSessionTransport(timeout: .seconds(60))
        let tag = UUID().uuidString.prefix(8).lowercased()
        var tokens: [String] = []
        for device in 0..<settings.devices {
            tokens.append(try await register(transport, fleet.url(device), id: "fleet-bench-\(tag)-\(device)", code: code))
        }
        let measured = Locked(Tally())
        let start = ContinuousClock.now
        let deadline = start + .milliseconds(Int(settings.seconds * 1000))
        let killer = Task {
            guard run.kill else { return }
            try await Task.sleep(for: .milliseconds(Int(settings.seconds * 400)))
            try fleet.killAndRestart(0)
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for device in 0..<settings.devices {
                let token = tokens[device]
                group.addTask {
                    var next: Int64 = 1, server = device
                    while ContinuousClock.now < deadline {
                        var mutations: [SyncMutation] = [], own: [(String, String)] = []
                        for index in 0..<settings.mutationsPerPush {
                            let id = next + Int64(index)
                            let shared = index % 2 == 0
                            let key = shared ? placeKey("s", 0, Int.random(in: 0..<settings.sharedKeys)) : placeKey(tag, device, Int(id))
                            let name = "device \(device) mutation \(id)"
                            if !shared { own.append((key, name)) }
                            mutations.append(SyncMutation(id: id, collection: SyncSchema.places.name, op: .put, fields: [
                                "id": .string(key), "name": .string(name), "latitude": .number(41.15), "longitude": .number(-8.61),
                                "radius_meters": .number(150),
                            ]))
                        }
                        let body = try JSONEncoder().encode(PushRequest(mutations: mutations))
                        while true {
                            let began = ContinuousClock.now
                            let response: MemoraHTTP.HTTPResponse
                            do {
                                response = try await transport.send(MemoraHTTP.HTTPRequest(method: "POST", url: fleet.url(server).appendingPathComponent("api/sync/push"),
                                                                                headers: ["Content-Type": "application/json", "Authorization": "Bearer \(token)"], body: body))
                            } catch {
                                // The server went away (killed): the same batch again, through the next server.
                                measured.withLock { $0.retried += 1 }
                                server += 1
                                try await Task.sleep(for: .milliseconds(50))
                                continue
                            }
                            if response.status == 503 || response.status == 429 {
                                measured.withLock { $0.retried += 1 }
                                server += 1
                                try await Task.sleep(for: .milliseconds(50))
                                continue
                            }
                            guard response.status == 200 else {
                                throw BenchError("a push answered \(response.status): \(String(decoding: response.body.prefix(300), as: UTF8.self))")
                            }
                            let answer = try JSONDecoder().decode(PushResponse.self, from: response.body)
                            guard answer.lastMutationId == next + Int64(settings.mutationsPerPush) - 1,
                                  answer.results.allSatisfy({ $0.status == .applied }) else {
                                throw BenchError("a push was not applied whole (last \(answer.lastMutationId))")
                            }
                            let milliseconds = Bench.seconds(ContinuousClock.now - began) * 1000
                            measured.withLock { tally in
                                tally.latencies.append(milliseconds)
                                for (key, name) in own { tally.acknowledged[key] = name }
                                tally.mutations += mutations.count
                            }
                            break
                        }
                        next += Int64(settings.mutationsPerPush)
                    }
                }
            }
            try await group.waitForAll()
        }
        let elapsed = Bench.seconds(ContinuousClock.now - start)
        try await killer.value
        // A device that never pushed pulls everything, through the last server.
        let observer = try await register(transport, fleet.url(fleet.count - 1), id: "fleet-bench-\(tag)-observer", code: code)
        var found: [String: String] = [:], cursor: String?
        repeat {
            let response = try await transport.send(MemoraHTTP.HTTPRequest(method: "POST", url: fleet.url(fleet.count - 1).appendingPathComponent("api/sync/pull"),
                                                                headers: ["Content-Type": "application/json", "Authorization": "Bearer \(observer)"],
                                                                body: try JSONEncoder().encode(PullRequest(cursor: cursor, limit: 1000))))
            guard response.status == 200 else { throw BenchError("the final pull answered \(response.status)") }
            let page = try JSONDecoder().decode(PullResponse.self, from: response.body)
            for change in page.changes where !change.deleted {
                if case .string(let name)? = change.fields["name"] { found[change.key] = name }
            }
            cursor = page.hasMore ? page.cursor : nil
        } while cursor != nil
        let tally = measured.withLock { $0 }
        let lost = tally.acknowledged.filter { found[$0.key] != $0.value }.count
        let sorted = tally.latencies.sorted()
        func percentile(_ p: Double) -> Double { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
        let rate = Double(tally.mutations) / elapsed
        let line = String(format: "   %@: %d devices, %d-mutation pushes (half on %d shared places): %.0f mutations/s, push p50 %.0f ms, p99 %.0f ms, "
                          + "%d connection errors retried, %d of %d acknowledged own places lost",
                          run.name, settings.devices, settings.mutationsPerPush, settings.sharedKeys, rate, percentile(0.5), percentile(0.99),
                          tally.retried, lost, tally.acknowledged.count)
        return Outcome(line: line, rate: rate, lost: lost)
    }

    static func placeKey(_ tag: some StringProtocol, _ device: Int, _ index: Int) -> String {
        let prefix = String(String.UnicodeScalarView(tag.unicodeScalars.filter { $0.properties.isASCIIHexDigit }.prefix(8)))
        let padded = String(repeating: "0", count: max(0, 8 - prefix.count)) + prefix
        let middle = String(device & 0xffff, radix: 16), last = String(index, radix: 16)
        return padded + "-" + String(repeating: "0", count: 4 - middle.count) + middle + "-4000-8000-"
            + String(repeating: "0", count: max(0, 12 - last.count)) + last
    }

    static func register(_ transport: URLSessionTransport, _ base: URL, id: String, code: String) async throws -> String {
        let body = try JSONEncoder().encode(RegisterRequest(deviceId: id, platform: "linux", joinCode: code))
        let response = try await transport.send(MemoraHTTP.HTTPRequest(method: "POST", url: base.appendingPathComponent("api/devices/register"),
                                                            headers: ["Content-Type": "application/json"], body: body))
        guard response.status == 201 else { throw BenchError("registering a device answered \(response.status)") }
        return try JSONDecoder().decode(DeviceToken.self, from: response.body).token
    }
}
