public import MemoraCore
internal import MemoraSystem

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
