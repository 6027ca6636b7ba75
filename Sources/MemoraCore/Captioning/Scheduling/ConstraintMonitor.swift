/// The kind of network the device uses.
public enum NetworkType: String, Sendable, Hashable, Codable, CaseIterable {
    /// No network interface is up.
    case none
    /// Wi-Fi.
    case wifi
    /// Wired Ethernet (unmetered, treated like Wi-Fi).
    case ethernet
    /// A mobile (metered) connection.
    case cellular
    /// Up, but of a kind Memora cannot tell.
    case unknown

    /// Whether a `wifi_only` preference allows cloud requests on this network.
    public var isUnmetered: Bool { self == .wifi || self == .ethernet }
}

/// How hot the device is, in the four levels of Apple's `ProcessInfo.ThermalState`.
public enum ThermalState: Int, Sendable, Hashable, Codable, CaseIterable, Comparable {
    /// Normal.
    case nominal
    /// Slightly warm: slow down a little.
    case fair
    /// Hot: slow down a lot.
    case serious
    /// Too hot: stop.
    case critical

    public static func < (lhs: ThermalState, rhs: ThermalState) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A reading of the device's state.
public struct DeviceConditions: Sendable, Hashable, Codable {
    /// Whether the device has a battery at all (a desktop or server has none and is always on mains power).
    public var hasBattery: Bool
    /// The battery's charge in 0...1, when known.
    public var batteryLevel: Double?
    /// Whether it is on external power (charging or full on the charger).
    public var isCharging: Bool
    /// The network in use.
    public var network: NetworkType
    /// The thermal state.
    public var thermal: ThermalState

    /// Creates a reading.
    public init(hasBattery: Bool, batteryLevel: Double? = nil, isCharging: Bool, network: NetworkType, thermal: ThermalState) {
        self.hasBattery = hasBattery
        self.batteryLevel = batteryLevel
        self.isCharging = isCharging
        self.network = network
        self.thermal = thermal
    }
}

/// Reads the device's battery, power, network and thermal state. ``LinuxConstraintMonitor``
/// reads sysfs; an iOS front end would use `UIDevice`, `NWPathMonitor` and `ProcessInfo`.
public protocol ConstraintMonitor: Sendable {
    /// The current conditions.
    func currentConditions() async -> DeviceConditions
}
