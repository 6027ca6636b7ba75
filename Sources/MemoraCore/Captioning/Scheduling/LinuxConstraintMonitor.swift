import Foundation

/// ``ConstraintMonitor`` for Linux, from sysfs:
/// - power: `/sys/class/power_supply/*` — a `type` of `Battery` gives `capacity` (percent)
///   and `status` (`Charging`/`Full`/`Not charging` count as on power); a `Mains` or `USB`
///   supply with `online` = 1 also means on power. No battery means always on power.
/// - network: `/sys/class/net/*` except `lo`, with `operstate` `up` (or `unknown` with
///   `carrier` 1): a `wireless` or `phy80211` entry is Wi-Fi, `DEVTYPE=wwan` in `uevent` is
///   cellular, `type` 1 is Ethernet; virtual interfaces (`/sys/devices/virtual`: bridges,
///   tunnels, a container's veth) count only when no physical interface is up.
/// - thermal: the hottest `/sys/class/thermal/thermal_zone*/temp` (millidegrees Celsius):
///   below 70 °C nominal, below 80 fair, below 90 serious, else critical.
///
/// The sysfs root is a parameter, so the parsing is tested on a generated tree.
public struct LinuxConstraintMonitor: ConstraintMonitor {
    /// The sysfs mount point.
    public let root: String

    /// A monitor reading `root` (`/sys` by default).
    public init(root: String = "/sys") {
        self.root = root
    }

    public func currentConditions() async -> DeviceConditions {
        let power = readPower()
        return DeviceConditions(hasBattery: power.hasBattery, batteryLevel: power.level, isCharging: power.onPower,
                                network: readNetwork(), thermal: readThermal())
    }

    func text(_ path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func entries(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }

    func readPower() -> (hasBattery: Bool, level: Double?, onPower: Bool) {
        let base = root + "/class/power_supply"
        var hasBattery = false
        var levels: [Double] = []
        var onPower = false
        for supply in entries(base) {
            let path = base + "/" + supply
            switch text(path + "/type") {
            case "Battery":
                // Peripheral batteries (a mouse, a headset) have scope Device; they do not power the machine.
                if text(path + "/scope") == "Device" { continue }
                hasBattery = true
                if let capacity = text(path + "/capacity").flatMap(Double.init) { levels.append(min(max(capacity / 100, 0), 1)) }
                if let status = text(path + "/status"), ["Charging", "Full", "Not charging"].contains(status) { onPower = true }
            case "Mains", "USB", "USB_C", "USB_PD":
                if text(path + "/online") == "1" { onPower = true }
            default:
                continue
            }
        }
        let level = levels.isEmpty ? nil : levels.reduce(0, +) / Double(levels.count)
        return (hasBattery, level, onPower || !hasBattery)
    }

    func readNetwork() -> NetworkType {
        let base = root + "/class/net"
        var physical: [NetworkType] = []
        var virtual: [NetworkType] = []
        for interface in entries(base) where interface != "lo" {
            let path = base + "/" + interface
            let state = text(path + "/operstate")
            guard state == "up" || (state == "unknown" && text(path + "/carrier") == "1") else { continue }
            let kind: NetworkType
            if FileManager.default.fileExists(atPath: path + "/wireless") || FileManager.default.fileExists(atPath: path + "/phy80211") {
                kind = .wifi
            } else if text(path + "/uevent")?.contains("DEVTYPE=wwan") == true {
                kind = .cellular
            } else if text(path + "/type") == "1" {
                kind = .ethernet
            } else {
                kind = .unknown
            }
            // Bridges, VPN tunnels and container veths sit on top of a real link; they count
            // only when no physical interface is up (inside a container, the veth is the link).
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? ""
            if target.contains("/devices/virtual/") { virtual.append(kind) } else { physical.append(kind) }
        }
        let found = physical.isEmpty ? virtual : physical
        // The best link wins: an unmetered one if any is up.
        for preferred in [NetworkType.ethernet, .wifi, .cellular, .unknown] where found.contains(preferred) { return preferred }
        return .none
    }

    func readThermal() -> ThermalState {
        let base = root + "/class/thermal"
        let hottest = entries(base).filter { $0.hasPrefix("thermal_zone") }
            .compactMap { text(base + "/" + $0 + "/temp").flatMap(Double.init) }
            .map { $0 / 1000 }
            .max()
        guard let hottest else { return .nominal }
        switch hottest {
        case ..<70: return .nominal
        case ..<80: return .fair
        case ..<90: return .serious
        default: return .critical
        }
    }
}
