/// Whether a batch may run now and how fast: the seed's constraints and its thermal-aware rate limiter.
public struct SchedulingPolicy: Sendable, Hashable {
    /// Below this battery level, when not on power, batches pause.
    public var lowBattery: Double
    /// Seconds between photos in each thermal state (critical pauses instead).
    public var delayByThermalState: [ThermalState: Double]

    /// Creates a policy; by default it pauses below 20 % battery and waits 0, 0.5 and 2 s between photos when nominal, fair and serious.
    public init(lowBattery: Double = 0.2, delayByThermalState: [ThermalState: Double] = [.nominal: 0, .fair: 0.5, .serious: 2]) {
        self.lowBattery = lowBattery
        self.delayByThermalState = delayByThermalState
    }

    /// The decision for one moment.
    public enum Decision: Sendable, Hashable {
        /// Run, waiting this many seconds after each photo.
        case run(delayBetweenPhotos: Double)
        /// Wait, for this reason.
        case pause(reason: String)
    }

    /// Decides from the device's `conditions`, the user's `preferences` and the mode in use.
    public func decide(_ conditions: DeviceConditions, preferences: CaptionPreferences, mode: CaptionMode) -> Decision {
        if conditions.thermal == .critical { return .pause(reason: "the device is too hot (thermal state critical)") }
        if preferences.chargingOnly && !conditions.isCharging {
            return .pause(reason: "waiting for the charger (charging_only is on)")
        }
        if conditions.hasBattery && !conditions.isCharging, let level = conditions.batteryLevel, level < lowBattery {
            return .pause(reason: "the battery is low (\(Int((level * 100).rounded())) %)")
        }
        if mode.isCloud && preferences.wifiOnly && !conditions.network.isUnmetered {
            return .pause(reason: "waiting for Wi-Fi (wifi_only is on and the \(mode.rawValue) mode sends photos over the network; now: \(conditions.network.rawValue))")
        }
        return .run(delayBetweenPhotos: delayByThermalState[conditions.thermal] ?? 0)
    }
}
