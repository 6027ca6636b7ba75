import Foundation
import Hummingbird
import Logging
import MemoraServer
import MemoraSync
import MemoraHTTP
import MemoraSystem
import MemoraSyncTesting

/// Scenario 19 (`--only sync`): memora-server over loopback.
/// - `GET /api/health` requests per second at 64 connections (wrk) against a bare Hummingbird route
///   answering the same JSON, both in child processes, and their p99 latency;
/// - a push of 100 mutations and a pull of 1,000 changes (SQLite; PostgreSQL too when
///   `MEMORA_BENCH_DATABASE` names an empty database), against the 50 ms limit, and the server's
///   CPU time per pull;
/// - a 1 GiB upload (curl streaming a file) against a plain copy of the file, with the server's memory growth;
/// - convergence simulations (3 devices, faults, restarts, crashes) per minute.
enum SyncBench {
    static func run(_ settings: Bench.Settings) async throws {
        let folder = NSTemporaryDirectory() + "memora-bench-sync-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        print("19. sync server (memora-server over loopback, child processes)")
        let server = try ChildServer(["--sync-server", folder + "/sqlite"])
        defer { server.stop() }
        let bare = try ChildServer(["--bare-server"])
        defer { bare.stop() }
        try health(ours: server, bare: bare, rounds: max(1, min(settings.rounds, 3)))
        bare.stop()

        let client = try await BenchClient(server: server, folder: folder + "/sqlite")
        try await latency(client, server: server, store: "SQLite")
        if let database = ProcessInfo.processInfo.environment["MEMORA_BENCH_DATABASE"], !database.isEmpty {
            let postgres = try ChildServer(["--sync-server", folder + "/postgres", database])
            defer { postgres.stop() }
            try await latency(try await BenchClient(server: postgres, folder: folder + "/postgres", database: database), server: postgres, store: "PostgreSQL")
        } else {
            print("   PostgreSQL: skipped (MEMORA_BENCH_DATABASE is not set; `make bench` sets it when Debian's postgresql is installed)")
        }
        try await upload(client, server: server, folder: folder, megabytes: settings.uploadMegabytes)
        server.stop()
        try await convergence(folder: folder + "/convergence", runs: max(2, min(settings.rounds, 3)))
        print("")
    }

    /// The path of `name` in `PATH`, if it is installed.
    static func executable(_ name: String) -> String? {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
            .map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    // MARK: Health under load

    static func health(ours: ChildServer, bare: ChildServer, rounds: Int) throws {
        guard let wrk = executable("wrk") else {
            print("   health: skipped (wrk is not installed: apt-get install wrk)")
            return
        }
        var oursRates: [Double] = [], bareRates: [Double] = [], oursP99: [Double] = [], bareP99: [Double] = []
        _ = try runWrk(wrk, port: ours.port, seconds: 1)  // warm-up
        _ = try runWrk(wrk, port: bare.port, seconds: 1)
        for _ in 0..<rounds {
            let a = try runWrk(wrk, port: ours.port, seconds: 5)
            let b = try runWrk(wrk, port: bare.port, seconds: 5)
            oursRates.append(a.rate); oursP99.append(a.p99)
            bareRates.append(b.rate); bareP99.append(b.p99)
        }
        let ratio = Bench.median(oursRates) / Bench.median(bareRates)
        print(String(format: "   GET /api/health, wrk -t2 -c64 -d5s, %d rounds, median:", rounds))
        print(String(format: "   ours  %9.0f requests/s  p99 %6.2f ms  memora-server (routing, error middleware, per-IP token bucket)", Bench.median(oursRates), Bench.median(oursP99)))
        print(String(format: "   peer  %9.0f requests/s  p99 %6.2f ms  a bare Hummingbird route encoding the same JSON", Bench.median(bareRates), Bench.median(bareP99)))
        print(String(format: "   ours / bare: %.2fx  (target >= 0.90: %@)", ratio, ratio >= 0.9 ? "met" : "NOT met"))
    }

    /// Runs wrk for `seconds` and returns requests per second and the p99 latency in milliseconds.
    static func runWrk(_ wrk: String, port: Int, seconds: Int) throws -> (rate: Double, p99: Double) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: wrk)
        process.arguments = ["-t2", "-c64", "-d\(seconds)s", "--latency", "http://127.0.0.1:\(port)/api/health"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        if text.contains("Non-2xx") { throw BenchError("wrk got errors from port \(port):\n\(text)") }
        func value(after label: String) -> String? {
            text.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(label) }
                .map { $0.trimmingCharacters(in: .whitespaces).dropFirst(label.count).trimmingCharacters(in: .whitespaces) }
        }
        guard process.terminationStatus == 0, let rate = value(after: "Requests/sec:").flatMap(Double.init),
              let p99 = value(after: "99%").flatMap(milliseconds) else {
            throw BenchError("wrk failed or printed what the bench cannot read:\n\(text)")
        }
        return (rate, p99)
    }

    /// wrk's latency ("812.00us", "1.43ms", "2.01s") in milliseconds.
    static func milliseconds(_ text: String) -> Double? {
        for (unit, scale) in [("us", 0.001), ("ms", 1.0), ("s", 1000.0)] where text.hasSuffix(unit) {
            return Double(text.dropLast(unit.count)).map { $0 * scale }
        }
        return nil
    }

    // MARK: Push and pull

    /// The push and pull latencies seen by the client, then the server's own CPU time per pull over
    /// 30 more pulls: the figure a change to the server's store moves, steadier on a busy machine
    /// than a latency that also holds the client's decoding and the loopback.
    static func latency(_ client: BenchClient, server: ChildServer, store: String) async throws {
        var pushes: [Double] = [], pulls: [Double] = []
        for batch in 0..<10 {
            let mutations = (0..<100).map { index in
                let n = batch * 100 + index
                return SyncMutation(id: Int64(n + 1), collection: SyncSchema.places.name, op: .put, fields: [
                    "id": .string(String(format: "00000000-0000-4000-8000-%012x", n)), "name": .string("place \(n)"),
                    "latitude": .number(41.15 + Double(n) * 1e-4), "longitude": .number(-8.61), "radius_meters": .number(150),
                    "notes": .string(String(repeating: "n", count: 80)),
                ])
            }
            let start = ContinuousClock.now
            let answer = try await client.send("api/sync/push", PushRequest(mutations: mutations), as: PushResponse.self)
            pushes.append(Bench.seconds(ContinuousClock.now - start) * 1000)
            guard answer.lastMutationId == Int64(batch * 100 + 100), answer.results.allSatisfy({ $0.status == .applied }) else {
                throw BenchError("the push of batch \(batch) was not applied: \(answer.results.first { $0.status != .applied }.map { "\($0)" } ?? "")")
            }
        }
        for _ in 0..<7 {
            let start = ContinuousClock.now
            let page = try await client.send("api/sync/pull", PullRequest(cursor: nil, limit: 1000), as: PullResponse.self)
            pulls.append(Bench.seconds(ContinuousClock.now - start) * 1000)
            guard page.changes.count == 1000 else { throw BenchError("the pull gave \(page.changes.count) changes, not 1000") }
        }
        print(String(format: "   %@: push of 100 mutations %6.2f ms median (%.2f–%.2f, 10 pushes); pull of 1,000 changes %6.2f ms median (%.2f–%.2f, 7 pulls); limit 50 ms: %@",
                     store, Bench.median(pushes), pushes.min() ?? 0, pushes.max() ?? 0, Bench.median(pulls), pulls.min() ?? 0, pulls.max() ?? 0,
                     max(Bench.median(pushes), Bench.median(pulls)) < 50 ? "met" : "NOT met"))
        let pullsForCPU = 30
        guard let before = server.cpuSeconds() else { return print("      server CPU per pull: not measured (no /proc/\(server.pid)/stat)") }
        for _ in 0..<pullsForCPU {
            _ = try await client.send("api/sync/pull", PullRequest(cursor: nil, limit: 1000), as: PullResponse.self)
        }
        let perPull = ((server.cpuSeconds() ?? before) - before) / Double(pullsForCPU) * 1000
        print(String(format: "      server CPU per pull of 1,000 changes %6.2f ms (user and system, %d pulls; the rest of the latency is the client and the loopback)",
                     perPull, pullsForCPU))
    }

    // MARK: A large upload

    static func upload(_ client: BenchClient, server: ChildServer, folder: String, megabytes: Int) async throws {
        guard let curl = executable("curl") else {
            print("   upload: skipped (curl is not installed)")
            return
        }
        let file = folder + "/upload.bin"
        let hash = try randomFile(file, megabytes: megabytes)
        let copy = try plainCopy(file)
        let upload = try curlUpload(curl, server: server, folder: folder, token: client.token, contentType: "application/octet-stream",
                                    arguments: ["-X", "PUT", "-T", file, "http://127.0.0.1:\(server.port)/api/objects/\(hash)"])
        let (status, elapsed, before, peak, resetPeak) = (upload.status, upload.seconds, upload.before, upload.peak, upload.resetPeak)
        guard status == "201" else { throw BenchError("the upload answered \(status), not 201") }
        let rate = Double(megabytes) * 1.048576 / elapsed
        print(String(format: "   upload of %d MiB (PUT /api/objects/{sha256}, curl -T, hashed and written by the server): %.2f s, %.0f MB/s; target >= 100 MB/s: %@",
                     megabytes, elapsed, rate, rate >= 100 ? "met" : "NOT met"))
        print(String(format: "      a plain copy of the file (copy + fsync) %.2f s: upload / copy %.2fx", copy, elapsed / copy))
        print(String(format: "      server memory %.0f MiB before, peak %.0f MiB during: +%.0f MiB%@; limit +50 MiB: %@", before, peak, peak - before,
                     resetPeak ? "" : " (peak not reset: an upper bound)", peak - before < 50 ? "met" : "NOT met"))
    }

    /// Writes `megabytes` MiB of random bytes to `path`; returns their SHA-256.
    static func randomFile(_ path: String, megabytes: Int) throws -> String {
        let digest = StreamingSHA256()
        guard let handle = FileManager.default.createFile(atPath: path, contents: nil) ? FileHandle(forWritingAtPath: path) : nil else {
            throw BenchError("cannot create \(path)")
        }
        var random = UInt64(0x9E37_79B9_7F4A_7C15)
        var chunk = [UInt8](repeating: 0, count: 8 << 20)
        for _ in 0..<max(1, megabytes / 8) {
            chunk.withUnsafeMutableBytes { raw in
                for index in 0..<(raw.count / 8) {
                    random = random &* 6364136223846793005 &+ 1442695040888963407
                    raw.storeBytes(of: random, toByteOffset: index * 8, as: UInt64.self)
                }
            }
            digest.update(chunk)
            handle.write(Data(chunk))
        }
        try handle.close()
        return digest.finalizeHex()
    }

    /// Seconds to copy `file` beside itself and fsync the copy (the disk's own speed: the peer of an upload).
    static func plainCopy(_ file: String) throws -> Double {
        let target = file + ".copy"
        defer { try? FileManager.default.removeItem(atPath: target) }
        return try Bench.seconds {
            try FileManager.default.copyItem(atPath: file, toPath: target)
            let copied = FileHandle(forUpdatingAtPath: target)
            try copied?.synchronize()
            try copied?.close()
        }
    }

    /// Runs curl against the child server with the device token in a 0600 header file (not on its command
    /// line, where `ps` shows it); returns the status, the seconds and the server's memory before and at its peak.
    static func curlUpload(_ curl: String, server: ChildServer, folder: String, token: String, contentType: String?,
                           arguments: [String]) throws -> (status: String, seconds: Double, before: Double, peak: Double, resetPeak: Bool) {
        let headers = folder + "/headers"
        try? FileManager.default.removeItem(atPath: headers)
        let lines = "Authorization: Bearer \(token)\n" + (contentType.map { "Content-Type: \($0)\n" } ?? "")
        guard FileManager.default.createFile(atPath: headers, contents: Data(lines.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw BenchError("cannot write \(headers)")
        }
        let before = DBSCANBench.memory("VmRSS", of: "\(server.pid)")
        let resetPeak = (try? "5".write(toFile: "/proc/\(server.pid)/clear_refs", atomically: false, encoding: .utf8)) != nil
        let process = Process()
        process.executableURL = URL(fileURLWithPath: curl)
        process.arguments = ["-sS", "-o", "/dev/null", "-w", "%{http_code}", "-H", "@" + headers] + arguments
        let output = Pipe()
        process.standardOutput = output
        let start = ContinuousClock.now
        try process.run()
        let status = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let seconds = Bench.seconds(ContinuousClock.now - start)
        return (status, seconds, before, DBSCANBench.memory("VmHWM", of: "\(server.pid)"), resetPeak)
    }

    // MARK: Convergence

    static func convergence(folder: String, runs: Int) async throws {
        var times: [Double] = [], outcomes: [ConvergenceSimulation.Outcome] = []
        for run in 0..<runs {
            let server = try await LoopbackSyncServer(folder: "\(folder)/\(run)/server")
            let start = ContinuousClock.now
            let outcome = try await ConvergenceSimulation(seed: 20261125 &+ UInt64(run), operations: 1200)
                .run(folder: "\(folder)/\(run)", servers: [server.simulationServer], joinCode: server.joinCode)
            times.append(Bench.seconds(ContinuousClock.now - start))
            await server.stop()
            guard outcome.converged else { throw BenchError("a convergence run failed: \(outcome.problems.joined(separator: "; "))") }
            outcomes.append(outcome)
        }
        let faults = outcomes.map(\.faults).reduce(0, +), restarts = outcomes.map(\.restarts).reduce(0, +), crashes = outcomes.map(\.crashes).reduce(0, +)
        print(String(format: "   convergence (SQLite, in process): %.1f runs/min of 1,200 operations by 3 devices (the test's size) (%.1f s median; %d faults, %d restarts, %d crashes over %d runs, all converged)",
                     60 / Bench.median(times), Bench.median(times), faults, restarts, crashes, runs))
    }

    // MARK: Child processes

    /// `memora-bench --sync-server FOLDER [DATABASE]`: memora-server's routes with limits fit for a
    /// benchmark (rate limits that never refuse, uploads up to 4 GiB); prints its port.
    static func serve(folder: String, database: String?) async throws {
        let data = try await ServerData.open(folder, database: database)
        var configuration = ServerConfiguration(joinCode: data.joinCode)
        configuration.port = 0
        configuration.logger.logLevel = .critical
        (configuration.ipBurst, configuration.ipPerSecond) = (1_000_000_000, 1_000_000_000)
        (configuration.deviceBurst, configuration.devicePerSecond) = (1_000_000_000, 1_000_000_000)
        configuration.maxObjectBytes = 4 << 30
        try await SyncServer(configuration: configuration, data: data).run { port in
            FileHandle.standardOutput.write(Data("\(port)\n".utf8))
        }
    }

    /// `memora-bench --bare-server`: one Hummingbird route answering `GET /api/health` as memora-server does.
    static func serveBare() async throws {
        let router = Router()
        router.get("/api/health") { _, _ -> Response in
            let body = try JSONEncoder().encode(HealthResponse(status: "ok", version: SyncServer.version, storage: "sqlite"))
            return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
        }
        var logger = Logger(label: "bare-server")
        logger.logLevel = .critical
        let app = Application(router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in FileHandle.standardOutput.write(Data("\(channel.localAddress?.port ?? 0)\n".utf8)) },
                              logger: logger)
        try await app.runService()
    }
}

/// A server in a child process of the bench: started, its port read from its first line, killed at the end.
final class ChildServer: @unchecked Sendable {
    let process = Process()
    let port: Int
    var pid: Int32 { process.processIdentifier }

    init(_ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let more = output.fileHandleForReading.availableData
            if more.isEmpty { throw BenchError("the child server \(arguments.first ?? "") did not start") }
            line.append(more)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw BenchError("the child server printed no port")
        }
        self.port = port
    }

    /// The CPU time the child has used so far, user and system, in seconds: fields 14 and 15 of
    /// `/proc/PID/stat`, counted by every thread, in ticks of 1/100 s (Linux's fixed `USER_HZ`).
    /// Nil where there is no such file.
    func cpuSeconds() -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let nameEnd = stat.lastIndex(of: ")") else { return nil }
        // After the command's name, in parentheses, the state is field 3: utime (14) and stime (15) are 11 and 12 here.
        let fields = stat[stat.index(after: nameEnd)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / 100
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}

/// A device of the bench: registered with the child server's join code (read from its folder).
struct BenchClient {
    let base: URL
    let token: String
    let transport = URLSessionTransport(timeout: .seconds(600))

    init(server: ChildServer, folder: String, database: String? = nil) async throws {
        base = URL(string: "http://127.0.0.1:\(server.port)")!
        let code = try await ServerData.open(folder, database: database).joinCode
        let register = RegisterRequest(deviceId: UUID().uuidString.lowercased(), platform: "linux", joinCode: code)
        let response = try await transport.send(MemoraHTTP.HTTPRequest(method: "POST", url: base.appendingPathComponent("api/devices/register"),
                                                                headers: ["Content-Type": "application/json"], body: try JSONEncoder().encode(register)))
        guard response.status == 201 else { throw BenchError("registering the bench's device answered \(response.status)") }
        token = try JSONDecoder().decode(DeviceToken.self, from: response.body).token
    }

    func send<Body: Encodable, Answer: Decodable>(_ path: String, _ body: Body, as: Answer.Type) async throws -> Answer {
        let response = try await transport.send(MemoraHTTP.HTTPRequest(method: "POST", url: base.appendingPathComponent(path),
                                                                headers: ["Content-Type": "application/json", "Authorization": "Bearer \(token)"],
                                                                body: try JSONEncoder().encode(body)))
        guard response.status == 200 else { throw BenchError("\(path) answered \(response.status): \(String(decoding: response.body, as: UTF8.self))") }
        return try JSONDecoder().decode(Answer.self, from: response.body)
    }
}
