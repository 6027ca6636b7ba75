import Foundation
import ImageKit
import MetadataKit
import Testing
@testable import MemoraCore
import MemoraSystem
import MemoraTesting
import TestSupport

/// The caption job the CLI, the demo and the benchmark all run, against loopback model servers.
@Suite("The caption job")
struct CaptionJobTests {
    @Test("a configured on-device job captions a folder through Ollama's wire format and reports what it did")
    func configuredJobCaptionsAFolder() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/photos", withIntermediateDirectories: true)
        let first = try makeCameraJPEG(in: folder + "/photos", name: "a.jpg", seed: 1)
        _ = try makeCameraJPEG(in: folder + "/photos", name: "b.jpg", seed: 2)
        try Data("not a photo".utf8).write(to: URL(fileURLWithPath: folder + "/photos/notes.txt"))
        let server = LoopbackModelServer(flavor: .ollama)
        let url = try await server.start()
        try await withAsyncCleanup {
            let database = try CaptionDatabase(path: folder + "/memora.sqlite")
            let configuration = CaptionConfiguration(mode: .onDevice, endpoint: url, model: "llava", environment: [:])
            let events = JobEventLog()
            let report = try await CaptionJob(database: database, models: .configured(configuration), ignoresConstraints: true)
                .run(paths: [folder + "/photos"]) { events.append($0) }
            #expect(report.summary.captioned == 2)
            #expect(report.scan.queued == 2 && report.scan.notPhotos == 1)
            #expect(report.mode == .onDevice && report.ignoredConstraints)
            #expect(report.chain.first?.hasPrefix("ollama:llava") == true)
            #expect(report.failures.isEmpty)
            #expect(try MetadataReader.read(contentsOf: first).captions.caption == "A red kite above a green hill.")
            #expect(await server.requests.contains { $0.path.hasSuffix("/api/chat") })
            let kinds = events.kinds
            #expect(kinds.first == "models" && kinds.contains("started") && kinds.filter { $0 == "photo" }.count == 2)
        } cleanup: {
            await server.stop()
        }
    }

    @Test("a missing path is refused before anything is queued, and a second job on the same database is refused while one runs")
    func refusals() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let database = try CaptionDatabase(path: folder + "/memora.sqlite")
        let job = CaptionJob(database: database, models: .selector(ModelSelector(mode: .onDevice, clock: ManualClock())), ignoresConstraints: true)
        await #expect { _ = try await job.run(paths: [folder + "/missing"]) } throws: {
            ($0 as? MemoraError)?.code == .notFound && ($0 as? MemoraError)?.path == folder + "/missing"
        }
        #expect(try ProcessingQueue(database: database).counts().values.reduce(0, +) == 0)
        let held = try QueueWorkerLock(database: database)
        await #expect { _ = try await job.run(paths: []) } throws: { ($0 as? MemoraError)?.code == .locked && ($0 as? MemoraError)?.isRetryable == true }
        withExtendedLifetime(held) {}
    }

    @Test("a configuration builds the chain its mode asks for, with keys from its environment, and refuses a malformed endpoint")
    func configurationBuildsTheChain() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let preferences = try CaptionDatabase(path: folder + "/memora.sqlite").preferences()
        let gemini = try CaptionConfiguration(mode: .gemini, environment: ["GEMINI_API_KEY": "test-key"])
            .makeSelector(preferences: preferences)
        #expect(gemini.mode == .gemini)
        #expect(gemini.chain.map { $0.provider }.first == CaptionProvider.gemini)
        #expect(gemini.chain.contains { $0.provider == CaptionProvider.ollama }, "the on-device model stays as the fallback")
        let local = try CaptionConfiguration(environment: ["MEMORA_OLLAMA_MODEL": "moondream"]).makeSelector(preferences: preferences)
        #expect(local.mode == preferences.aiMode)
        #expect(local.chain.contains { $0.provider == CaptionProvider.ollama && $0.name == "moondream" })
        #expect(throws: MemoraError.self) { try CaptionConfiguration.endpoint(parsing: "ftp://example.org") }
        #expect(try CaptionConfiguration.endpoint(parsing: "http://127.0.0.1:11434").port == 11434)
    }
}

/// Events a job reported, in order.
final class JobEventLog: Sendable {
    private let events = Locked<[CaptionJob.Event]>([])

    func append(_ event: CaptionJob.Event) { events.withLock { $0.append(event) } }

    var kinds: [String] {
        events.withLock { events in
            events.map { event in
                switch event {
                case .resuming: "resuming"
                case .models: "models"
                case .started: "started"
                case .paused: "paused"
                case .resumed: "resumed"
                case .photo: "photo"
                }
            }
        }
    }
}
