public import Foundation
public import MemoraCore
internal import MemoraSystem

/// A ``CaptionClock`` that never sleeps: `sleep` records the delay and moves time forward
/// at once, so retries, cool-downs and pauses are tested in microseconds.
public final class ManualClock: CaptionClock, Sendable {
    /// The current time and every sleep requested so far.
    private let state: Locked<(current: Date, recorded: [Double])>
    private let onSleep: (@Sendable (Double) -> Void)?

    /// A clock starting at `start`; `onSleep` runs after each sleep (to change the world mid-pause).
    public init(start: Date = Date(timeIntervalSince1970: 1_800_000_000), onSleep: (@Sendable (Double) -> Void)? = nil) {
        state = Locked((current: start, recorded: []))
        self.onSleep = onSleep
    }

    public func now() -> Date { state.withLock { $0.current } }

    public func sleep(seconds: Double) async throws {
        try Task.checkCancellation()
        state.withLock { state in
            state.recorded.append(seconds)
            state.current = state.current.addingTimeInterval(max(0, seconds))
        }
        onSleep?(seconds)
    }

    /// Moves time forward without a sleep.
    public func advance(by seconds: Double) {
        state.withLock { $0.current = $0.current.addingTimeInterval(seconds) }
    }

    /// Every sleep requested, in order.
    public var sleeps: [Double] { state.withLock { $0.recorded } }
}

/// A ``ConstraintMonitor`` whose conditions the test sets.
public final class ControllableConstraintMonitor: ConstraintMonitor, Sendable {
    /// The conditions and how many times they were read.
    private let state: Locked<(conditions: DeviceConditions, readings: Int)>

    /// Starts with `conditions` (by default: on a charger, on Wi-Fi, nominal temperature).
    public init(_ conditions: DeviceConditions = DeviceConditions(hasBattery: true, batteryLevel: 0.9, isCharging: true, network: .wifi, thermal: .nominal)) {
        state = Locked((conditions: conditions, readings: 0))
    }

    public func currentConditions() async -> DeviceConditions {
        state.withLock { state in
            state.readings += 1
            return state.conditions
        }
    }

    /// Changes the conditions.
    public func update(_ change: (inout DeviceConditions) -> Void) {
        state.withLock { change(&$0.conditions) }
    }

    /// How many times the conditions were read.
    public var readCount: Int { state.withLock { $0.readings } }
}
