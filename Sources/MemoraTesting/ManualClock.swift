public import Foundation
public import MemoraCore

/// A ``CaptionClock`` that never sleeps: `sleep` records the delay and moves time forward
/// at once, so retries, cool-downs and pauses are tested in microseconds.
public final class ManualClock: CaptionClock, @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date
    private var recorded: [Double] = []
    private let onSleep: (@Sendable (Double) -> Void)?

    /// A clock starting at `start`; `onSleep` runs after each sleep (to change the world mid-pause).
    public init(start: Date = Date(timeIntervalSince1970: 1_800_000_000), onSleep: (@Sendable (Double) -> Void)? = nil) {
        current = start
        self.onSleep = onSleep
    }

    public func now() -> Date { lock.withLock { current } }

    public func sleep(seconds: Double) async throws {
        try Task.checkCancellation()
        lock.withLock {
            recorded.append(seconds)
            current = current.addingTimeInterval(max(0, seconds))
        }
        onSleep?(seconds)
    }

    /// Moves time forward without a sleep.
    public func advance(by seconds: Double) {
        lock.withLock { current = current.addingTimeInterval(seconds) }
    }

    /// Every sleep requested, in order.
    public var sleeps: [Double] { lock.withLock { recorded } }
}

/// A ``ConstraintMonitor`` whose conditions the test sets.
public final class ControllableConstraintMonitor: ConstraintMonitor, @unchecked Sendable {
    private let lock = NSLock()
    private var conditions: DeviceConditions
    private var readings = 0

    /// Starts with `conditions` (by default: on a charger, on Wi-Fi, nominal temperature).
    public init(_ conditions: DeviceConditions = DeviceConditions(hasBattery: true, batteryLevel: 0.9, isCharging: true, network: .wifi, thermal: .nominal)) {
        self.conditions = conditions
    }

    public func currentConditions() async -> DeviceConditions {
        lock.withLock {
            readings += 1
            return conditions
        }
    }

    /// Changes the conditions.
    public func update(_ change: (inout DeviceConditions) -> Void) {
        lock.withLock { change(&conditions) }
    }

    /// How many times the conditions were read.
    public var readCount: Int { lock.withLock { readings } }
}
