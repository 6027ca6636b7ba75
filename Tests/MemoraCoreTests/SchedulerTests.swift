import Foundation
import Testing
@testable import MemoraCore
import MemoraSystem
import MemoraTesting
import TestSupport

/// The constraint-aware scheduler with a controllable monitor and a manual clock.
@Suite("Scheduler")
struct SchedulerTests {
    func makeQueue(_ count: Int) throws -> (String, CaptionDatabase) {
        let folder = try temporaryFolder()
        let database = try CaptionDatabase(path: folder + "/memora.sqlite")
        for index in 0..<count {
            try ProcessingQueue(database: database).enqueue(path: try makeCameraJPEG(in: folder, name: "p\(index).jpg", seed: UInt64(index + 1)))
        }
        return (folder, database)
    }

    @Test("a batch pauses when the charger is unplugged mid-way and resumes when it is back")
    func chargingOnlyPauseAndResume() async throws {
        let (folder, database) = try makeQueue(4)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try database.setPreference("charging_only", to: "true")
        let monitor = ControllableConstraintMonitor()
        // While paused, each poll is a sleep: the charger comes back after the third poll.
        let polls = Counter()
        let clock = ManualClock(onSleep: { _ in
            if polls.increment() == 3 { monitor.update { $0.isCharging = true } }
        })
        let pipeline = CaptionPipeline(database: database, selector: ModelSelector(mode: .onDevice, clock: clock))
        let scheduler = CaptionScheduler(database: database, pipeline: pipeline, monitor: monitor, clock: clock)
        let events = EventLog()
        let summary = try await scheduler.run(.init(pollInterval: 30)) { event in
            events.append(event)
            // Unplug after the second photo.
            if case .photo = event, events.photoCount == 2 { monitor.update { $0.isCharging = false } }
        }
        #expect(summary.captioned == 4)
        #expect(summary.pausedSeconds == 90)
        #expect(clock.sleeps == [.seconds(30), .seconds(30), .seconds(30)])
        #expect(events.kinds == ["started", "photo", "photo", "paused", "resumed", "photo", "photo"])
        #expect(try ProcessingQueue(database: database).counts()[.completed] == 4)
    }

    @Test("wifi_only holds back cloud modes on a cellular network but not the on-device mode")
    func wifiOnlyAppliesToCloud() {
        let policy = SchedulingPolicy()
        let preferences = CaptionPreferences(backgroundEnabled: true, aiMode: .gemini, autoProcessNew: true, processExisting: false,
                                             wifiOnly: true, chargingOnly: false, updatedAt: Date())
        let cellular = DeviceConditions(hasBattery: true, batteryLevel: 0.8, isCharging: false, network: .cellular, thermal: .nominal)
        guard case .pause(let reason) = policy.decide(cellular, preferences: preferences, mode: .gemini) else { Issue.record("expected a pause"); return }
        #expect(reason.contains("Wi-Fi"))
        #expect(policy.decide(cellular, preferences: preferences, mode: .onDevice) == .run(delayBetweenPhotos: 0))
        var ethernet = cellular
        ethernet.network = .ethernet
        #expect(policy.decide(ethernet, preferences: preferences, mode: .gpt) == .run(delayBetweenPhotos: 0))
        var low = cellular
        low.batteryLevel = 0.1
        guard case .pause = policy.decide(low, preferences: preferences, mode: .onDevice) else { Issue.record("a low battery must pause"); return }
        let desktop = DeviceConditions(hasBattery: false, isCharging: true, network: .ethernet, thermal: .nominal)
        var chargingOnly = preferences
        chargingOnly.chargingOnly = true
        #expect(policy.decide(desktop, preferences: chargingOnly, mode: .onDevice) == .run(delayBetweenPhotos: 0))
    }

    @Test("the rate limiter slows down as the device warms and stops when it is critical")
    func thermalRateLimit() async throws {
        let (folder, database) = try makeQueue(3)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let monitor = ControllableConstraintMonitor()
        monitor.update { $0.thermal = .fair }
        let clock = ManualClock()
        let pipeline = CaptionPipeline(database: database, selector: ModelSelector(mode: .onDevice, clock: clock))
        let scheduler = CaptionScheduler(database: database, pipeline: pipeline, monitor: monitor, clock: clock)
        let summary = try await scheduler.run(.init(maxPause: 60)) { event in
            if case .photo = event { monitor.update { $0.thermal = $0.thermal == .fair ? .serious : .critical } }
        }
        #expect(summary.captioned == 2)
        #expect(summary.stoppedEarly?.contains("too hot") == true)
        #expect(Array(clock.sleeps.prefix(2)) == [.milliseconds(500), .seconds(2)])
        #expect(try ProcessingQueue(database: database).counts()[.pending] == 1)
    }

    @Test("cancellation is honoured between photos: nothing is half-done")
    func cancellation() async throws {
        let (folder, database) = try makeQueue(5)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let pipeline = CaptionPipeline(database: database, selector: ModelSelector(mode: .onDevice, clock: ManualClock()))
        let scheduler = CaptionScheduler(database: database, pipeline: pipeline, monitor: ControllableConstraintMonitor(), clock: ManualClock())
        let task = Task {
            try await scheduler.run { event in
                if case .photo = event { withUnsafeCurrentTask { $0?.cancel() } }
            }
        }
        let summary = try await task.value
        #expect(summary.captioned == 1 && summary.stoppedEarly == "cancelled")
        let counts = try ProcessingQueue(database: database).counts()
        #expect(counts[.completed] == 1 && counts[.pending] == 4 && counts[.processing] == 0)
    }
}

/// A thread-safe counter for callbacks.
final class Counter: Sendable {
    private let value = Locked(0)
    func increment() -> Int { value.withLock { $0 += 1; return $0 } }
}

/// Records scheduler events.
final class EventLog: Sendable {
    private let events = Locked<[String]>([])
    func append(_ event: CaptionScheduler.Event) {
        let kind: String
        switch event {
        case .started: kind = "started"
        case .paused: kind = "paused"
        case .resumed: kind = "resumed"
        case .photo: kind = "photo"
        }
        events.withLock { $0.append(kind) }
    }
    var kinds: [String] { events.withLock { $0 } }
    var photoCount: Int { events.withLock { $0.filter { $0 == "photo" }.count } }
}
