import Foundation
import ImageKit
import MemoraHTTP
import MemoraHub
import MemoraServer
import MemoraSync

/// Scenario 20 (`--only hub`): the Memory Palace hub in a child process on loopback.
/// - listing pages of `GET /api/memories` (newest, deep in the list, by person, by kind and dates)
///   with 100,000 memories, against the 50 ms limit;
/// - the dashboard's memory pages (`/memories`: the first page, a deep one, a person's, searches, a
///   year and a kind) with the same 100,000 memories, p99 against the 50 ms limit, on SQLite and (when
///   `MEMORA_BENCH_HUB_DATABASE` names an empty database) on PostgreSQL;
/// - photo uploads through `HubClient` (multipart, thumbnails, metadata read) against a plain copy;
/// - a 1 GiB video uploaded with curl's streaming multipart, against a plain copy, with the server's memory;
///   then the same file through `HubClient.upload` (an upload session in 8 MiB pieces), with both sides' memory.
enum HubBench {
    static func run(_ settings: Bench.Settings) async throws {
        let folder = NSTemporaryDirectory() + "memora-bench-hub-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        print("20. Memory Palace hub (memora-server in a child process, SQLite)")
        let data = try await ServerData.open(folder + "/hub")
        let seeding = try await Bench.seconds(measuring: { try await data.seedMemories(settings.hubMemories, people: 50) })
        print(String(format: "   %d text memories and 50 people written in %.1f s", settings.hubMemories, seeding))
        let server = try ChildServer(["--sync-server", folder + "/hub"])
        defer { server.stop() }
        let code = try await data.pairingCode(host: "127.0.0.1", port: server.port)
        let hub = try await HubClient.pair(code, credentials: SyncCredentialFile(path: folder + "/device.json"))
        try await listing(hub, count: settings.hubMemories)
        try await pages(server: server, data: data, hub: hub, count: settings.hubMemories, store: "SQLite")
        if let database = ProcessInfo.processInfo.environment["MEMORA_BENCH_HUB_DATABASE"], !database.isEmpty {
            let postgresData = try await ServerData.open(folder + "/hub-postgres", database: database)
            let seeded = try await Bench.seconds(measuring: { try await postgresData.seedMemories(settings.hubMemories, people: 50) })
            print(String(format: "   PostgreSQL: %d text memories and 50 people written in %.1f s", settings.hubMemories, seeded))
            let postgres = try ChildServer(["--sync-server", folder + "/hub-postgres", database])
            defer { postgres.stop() }
            let postgresHub = try await HubClient.pair(try await postgresData.pairingCode(host: "127.0.0.1", port: postgres.port),
                                                       credentials: SyncCredentialFile(path: folder + "/device-postgres.json"))
            try await pages(server: postgres, data: postgresData, hub: postgresHub, count: settings.hubMemories, store: "PostgreSQL")
        } else {
            print("   dashboard pages on PostgreSQL: skipped (MEMORA_BENCH_HUB_DATABASE is not set; `make bench` sets it when Debian's postgresql is installed)")
        }
        try await photos(hub, folder: folder)
        let token = try SyncCredentialFile(path: folder + "/device.json").load()?.token ?? ""
        try await video(server: server, hub: hub, token: token, folder: folder, megabytes: settings.uploadMegabytes)
        print("")
    }

    static func listing(_ hub: HubClient, count: Int) async throws {
        let middle = String(count / 2)
        let cases: [(String, () async throws -> MemoryPage)] = [
            ("newest 50", { try await hub.memories(limit: 50) }),
            ("50 from the middle (cursor)", { try await hub.memories(cursor: middle, limit: 50) }),
            ("a person's newest 50", { try await hub.memories(person: 7, limit: 50) }),
            ("text memories of 2015, 50", { try await hub.memories(kind: .text, from: 1_420_070_400_000, to: 1_451_606_399_000, limit: 50) }),
        ]
        var worst = 0.0
        for (name, request) in cases {
            _ = try await request()
            var times: [Double] = []
            for _ in 0..<15 {
                let start = ContinuousClock.now
                let page = try await request()
                times.append(Bench.seconds(ContinuousClock.now - start) * 1000)
                guard !page.memories.isEmpty else { throw BenchError("\(name): no memories") }
            }
            worst = max(worst, Bench.median(times))
            print(String(format: "   listing with %d memories, %@: %.2f ms median (%.2f–%.2f)", count, name, Bench.median(times), times.min() ?? 0, times.max() ?? 0))
        }
        print(String(format: "   slowest page %.2f ms; limit 50 ms: %@", worst, worst < 50 ? "met" : "NOT met"))
    }

    /// The dashboard's memory pages as a signed-in browser asks for them (each a whole HTML page: the
    /// memories with their people, the people and years for the form), 200 times each, one at a time.
    static func pages(server: ChildServer, data: ServerData, hub: HubClient, count: Int, store: String) async throws {
        let cookie = "memora_dashboard=" + (try await data.newDashboardSession())
        guard let middle = try await hub.memories(cursor: String(count / 2), limit: 1).memories.first else { throw BenchError("no memory in the middle") }
        let cases = [
            ("the first page", "/memories"),
            ("a deep page (the middle, by its link)", "/memories?before=\(middle.takenAt ?? middle.createdAt).\(middle.id)"),
            ("a person's memories", "/memories?person=7"),
            ("a search with one match", "/memories?q=number%20\(count / 3)"),
            ("a search every memory matches", "/memories?q=benchmark"),
            ("a year and a kind", "/memories?kind=text&year=2015"),
        ]
        let transport = URLSessionTransport()
        var worst = 0.0
        for (name, path) in cases {
            guard let url = URL(string: "http://127.0.0.1:\(server.port)" + path) else { throw BenchError("\(path) is not an address") }
            let request = HTTPRequest(method: "GET", url: url, headers: ["Cookie": cookie])
            var times: [Double] = []
            for round in 0..<205 {
                let start = ContinuousClock.now
                let response = try await transport.send(request)
                if round >= 5 { times.append(Bench.seconds(ContinuousClock.now - start) * 1000) }
                guard response.status == 200, String(decoding: response.body, as: UTF8.self).contains("href=\"/memories/") else {
                    throw BenchError("\(store) \(path): \(response.status), or no memory on the page")
                }
            }
            let sorted = times.sorted(), p99 = sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]
            worst = max(worst, p99)
            print(String(format: "   %@ dashboard, %d memories, %@: p50 %.2f ms, p99 %.2f ms", store, count, name, Bench.median(times), p99))
        }
        print(String(format: "   %@ dashboard: slowest p99 %.2f ms; limit 50 ms: %@", store, worst, worst < 50 ? "met" : "NOT met"))
    }

    static func photos(_ hub: HubClient, folder: String) async throws {
        var paths: [String] = []
        for index in 0..<24 {
            let path = folder + "/photo-\(index).jpg"
            try ImageEncoder.write(try SyntheticPhoto.landscape(width: 3000, height: 2000, seed: UInt64(index + 100)), to: path, as: .jpeg(JPEGEncodingOptions(quality: 0.9)))
            paths.append(path)
        }
        let bytes = try paths.reduce(0) { $0 + ((try FileManager.default.attributesOfItem(atPath: $1)[.size] as? Int) ?? 0) }
        let copy = try paths.reduce(0.0) { $0 + (try SyncBench.plainCopy($1)) }
        let start = ContinuousClock.now
        for (index, path) in paths.enumerated() {
            let (_, created) = try await hub.upload(MemoryUpload(kind: .photo, title: "Photo \(index)"), file: path)
            guard created else { throw BenchError("photo \(index) was not new") }
        }
        let elapsed = Bench.seconds(ContinuousClock.now - start)
        print(String(format: "   %d photo memories of 6 MP (%.1f MB each) through HubClient.upload (one multipart request made in memory; the hub hashes, reads the metadata, makes a 512-px thumbnail): %.1f photos/s, %.0f MB/s; a plain copy of each + fsync: %.2fx faster",
                     paths.count, Double(bytes) / Double(paths.count) / 1e6, Double(paths.count) / elapsed, Double(bytes) / 1e6 / elapsed, elapsed / copy))
    }

    static func video(server: ChildServer, hub: HubClient, token: String, folder: String, megabytes: Int) async throws {
        guard let curl = SyncBench.executable("curl") else {
            print("   video: skipped (curl is not installed)")
            return
        }
        // A real video of about `megabytes` MiB: uncompressed 720p frames in Matroska, made by Debian's ffmpeg (the hub reads every video it keeps).
        guard let ffmpeg = SyncBench.executable("ffmpeg") else {
            print("   video: skipped (ffmpeg is not installed: scripts/install-deps.sh)")
            return
        }
        let file = folder + "/video.mkv"
        let frames = max(1, megabytes * 1_048_576 / (1280 * 720 * 3 / 2))
        let maker = Process()
        maker.executableURL = URL(fileURLWithPath: ffmpeg)
        maker.arguments = ["-y", "-v", "error", "-f", "lavfi", "-i", "testsrc=size=1280x720:rate=30", "-frames:v", String(frames),
                           "-c:v", "rawvideo", "-pix_fmt", "yuv420p", file]
        try maker.run()
        maker.waitUntilExit()
        guard maker.terminationStatus == 0 else { throw BenchError("ffmpeg could not make the video") }
        let size = (try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
        let copy = try SyncBench.plainCopy(file)
        let metadata = folder + "/metadata.json"
        try Data(#"{"kind":"video","title":"The wedding, whole"}"#.utf8).write(to: URL(fileURLWithPath: metadata))
        let upload = try SyncBench.curlUpload(curl, server: server, folder: folder, token: token, contentType: nil, arguments: [
            "-F", "metadata=<\(metadata);type=application/json", "-F", "media=@\(file);type=video/x-matroska", "http://127.0.0.1:\(server.port)/api/memories",
        ])
        guard upload.status == "201" else { throw BenchError("the video upload answered \(upload.status), not 201") }
        let rate = Double(size) / 1e6 / upload.seconds
        print(String(format: "   a %d MiB video (POST /api/memories, curl's streaming multipart; parsed, hashed, staged, read by FFmpeg, a poster frame made, kept): %.2f s, %.0f MB/s; target >= 100 MB/s: %@",
                     size >> 20, upload.seconds, rate, rate >= 100 ? "met" : "NOT met"))
        print(String(format: "      a plain copy of the file (copy + fsync) %.2f s: upload / copy %.2fx", copy, upload.seconds / copy))
        print(String(format: "      server memory %.0f MiB before, peak %.0f MiB during: +%.0f MiB%@; flat (< +50 MiB): %@", upload.before, upload.peak,
                     upload.peak - upload.before, upload.resetPeak ? "" : " (peak not reset: an upper bound)", upload.peak - upload.before < 50 ? "met" : "NOT met"))

        // The same file through the library: HubClient.upload sends a file this large through an upload
        // session, reading 8 MiB pieces from the file (the hub answers 200: it has these bytes already).
        let serverBefore = DBSCANBench.memory("VmRSS", of: "\(server.pid)"), clientBefore = DBSCANBench.memory("VmRSS")
        let resets = ["\(server.pid)", "self"].allSatisfy { (try? "5".write(toFile: "/proc/\($0)/clear_refs", atomically: false, encoding: .utf8)) != nil }
        let start = ContinuousClock.now
        let (memory, _) = try await hub.upload(MemoryUpload(kind: .video, title: "The wedding, again"), file: file)
        let seconds = Bench.seconds(ContinuousClock.now - start)
        guard memory.size == Int64(size) else { throw BenchError("the session upload kept \(memory.size) bytes, not \(size)") }
        let serverGrowth = DBSCANBench.memory("VmHWM", of: "\(server.pid)") - serverBefore, clientGrowth = DBSCANBench.memory("VmHWM") - clientBefore
        print(String(format: "   the same video through HubClient.upload (an upload session, 8 MiB pieces read from the file, hashed first): %.2f s, %.0f MB/s; target >= 100 MB/s: %@",
                     seconds, Double(size) / 1e6 / seconds, Double(size) / 1e6 / seconds >= 100 ? "met" : "NOT met"))
        print(String(format: "      memory growth: server +%.0f MiB, client +%.0f MiB%@; flat (< +50 MiB): %@", serverGrowth, clientGrowth,
                     resets ? "" : " (peaks not reset: upper bounds)", max(serverGrowth, clientGrowth) < 50 ? "met" : "NOT met"))

        // Played back as a player asks for it: the whole file, then from its middle (a seek: a range
        // request). The hub streams the file in 128 KiB pieces, so its memory stays flat.
        let url = "http://127.0.0.1:\(server.port)/api/memories/\(memory.id)/media"
        for (name, range, bytes) in [("the whole video", nil, size), ("from its middle (Range: bytes=\(size / 2)-)", "bytes=\(size / 2)-", size - size / 2)] {
            let played = try SyncBench.curlUpload(curl, server: server, folder: folder, token: token, contentType: nil,
                                                  arguments: (range.map { ["-H", "Range: \($0)"] } ?? []) + [url])
            guard played.status == (range == nil ? "200" : "206") else { throw BenchError("GET \(name) answered \(played.status)") }
            print(String(format: "   GET %@, %d MiB: %.2f s, %.0f MB/s; server memory +%.0f MiB%@; flat (< +50 MiB): %@", name, bytes >> 20, played.seconds,
                         Double(bytes) / 1e6 / played.seconds, played.peak - played.before, played.resetPeak ? "" : " (peak not reset: an upper bound)",
                         played.peak - played.before < 50 ? "met" : "NOT met"))
        }
    }
}
