import Foundation
import ImageKit
import Testing
@testable import MemoraCore
@testable import MetadataKit
import TestSupport

@Suite("Linux constraint monitor on a generated sysfs tree")
struct LinuxConstraintMonitorTests {
    func write(_ text: String, _ path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data((text + "\n").utf8).write(to: URL(fileURLWithPath: path))
    }

    @Test("a laptop on battery, on Wi-Fi, warm")
    func laptop() async throws {
        let root = try temporaryFolder("sysfs")
        defer { try? FileManager.default.removeItem(atPath: root) }
        try write("Battery", root + "/class/power_supply/BAT0/type")
        try write("42", root + "/class/power_supply/BAT0/capacity")
        try write("Discharging", root + "/class/power_supply/BAT0/status")
        try write("Mains", root + "/class/power_supply/AC/type")
        try write("0", root + "/class/power_supply/AC/online")
        try write("Battery", root + "/class/power_supply/hidpp_battery_0/type")
        try write("Device", root + "/class/power_supply/hidpp_battery_0/scope")
        try write("5", root + "/class/power_supply/hidpp_battery_0/capacity")
        try write("up", root + "/class/net/wlp2s0/operstate")
        try FileManager.default.createDirectory(atPath: root + "/class/net/wlp2s0/wireless", withIntermediateDirectories: true)
        try write("down", root + "/class/net/enp0s31f6/operstate")
        try write("1", root + "/class/net/enp0s31f6/type")
        try write("unknown", root + "/class/net/lo/operstate")
        try write("45000", root + "/class/thermal/thermal_zone0/temp")
        try write("74500", root + "/class/thermal/thermal_zone1/temp")
        let conditions = await LinuxConstraintMonitor(root: root).currentConditions()
        #expect(conditions == DeviceConditions(hasBattery: true, batteryLevel: 0.42, isCharging: false, network: .wifi, thermal: .fair))
    }

    @Test("a server: no battery (always on power), wired, cellular modem ignored when the wire is up, hot")
    func server() async throws {
        let root = try temporaryFolder("sysfs")
        defer { try? FileManager.default.removeItem(atPath: root) }
        try write("up", root + "/class/net/eth0/operstate")
        try write("1", root + "/class/net/eth0/type")
        try write("up", root + "/class/net/wwan0/operstate")
        try write("DEVTYPE=wwan\nINTERFACE=wwan0", root + "/class/net/wwan0/uevent")
        try write("95000", root + "/class/thermal/thermal_zone0/temp")
        let conditions = await LinuxConstraintMonitor(root: root).currentConditions()
        #expect(conditions == DeviceConditions(hasBattery: false, batteryLevel: nil, isCharging: true, network: .ethernet, thermal: .critical))
        // Inside a container the only link is a virtual veth: it counts when nothing physical is up.
        let container = try temporaryFolder("sysfs")
        defer { try? FileManager.default.removeItem(atPath: container) }
        try write("up", container + "/devices/virtual/net/eth0/operstate")
        try write("1", container + "/devices/virtual/net/eth0/type")
        try FileManager.default.createDirectory(atPath: container + "/class/net", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: container + "/class/net/eth0", withDestinationPath: "../../devices/virtual/net/eth0")
        #expect(await LinuxConstraintMonitor(root: container).currentConditions().network == .ethernet)
        let empty = try temporaryFolder("sysfs")
        defer { try? FileManager.default.removeItem(atPath: empty) }
        #expect(await LinuxConstraintMonitor(root: empty).currentConditions().network == NetworkType.none)
    }
}

@Suite("Secret stores")
struct SecretStoreTests {
    @Test("environment first, then a 0600 file; keys never appear in descriptions")
    func chain() throws {
        let folder = try temporaryFolder("secrets")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = FileSecretStore(path: folder + "/memora/secrets")
        #expect(try file.secret(.geminiAPIKey) == nil)
        try file.store(APIKey("AIza-from-file"), as: .geminiAPIKey)
        var status = stat()
        #expect(stat(file.path, &status) == 0 && status.st_mode & 0o777 == 0o600)
        let chain = ChainedSecretStore([EnvironmentSecretStore(environment: ["OPENAI_API_KEY": " sk-env "]), file])
        #expect(try chain.secret(.openAIAPIKey)?.value == "sk-env")
        let gemini = try #require(try chain.secret(.geminiAPIKey))
        #expect(gemini.value == "AIza-from-file")
        #expect(!"\(gemini)".contains("AIza") && !String(reflecting: gemini).contains("AIza"))
    }

    @Test("a secrets file other users can read is refused with the command that fixes it")
    func insecureFile() throws {
        let folder = try temporaryFolder("secrets")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/secrets"
        try Data("GEMINI_API_KEY=abc\n".utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o644)
        #expect(throws: MemoraError.insecurePermissions(path: path, mode: "644")) { try FileSecretStore(path: path).secret(.geminiAPIKey) }
        try Data("no equals sign\n".utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
        #expect(throws: MemoraError.malformedLine(path: path, line: 1)) { try FileSecretStore(path: path).secret(.geminiAPIKey) }
    }
}

@Suite("Basic description")
struct BasicDescriptionTests {
    @Test("without vision models: people from the metadata, place, month and colours, and an alt text of its own")
    func sentence() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let generator = BasicDescriptionGenerator(vision: nil)
        let caption = try await generator.generateCaption(for: CaptionRequest(path: try makeCameraJPEG(in: folder)))
        #expect(caption.description.contains("July 2019"), "\(caption.description)")
        #expect(caption.model.provider == .basicDescription && !caption.model.displayName.contains("models:"))
    }

    @Test("the generator is labelled as not a model and keeps pixels on the device")
    func label() async throws {
        let generator = BasicDescriptionGenerator()
        #expect(generator.modelInfo.provider == .basicDescription)
        #expect(!generator.modelInfo.pixelsLeaveDevice)
        #expect(generator.modelInfo.displayName.contains("not an AI language model"))
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let caption = try await generator.generateCaption(for: CaptionRequest(path: try makeCameraJPEG(in: folder)))
        #expect(caption.description.contains("July 2019") && caption.model.displayName.contains("models: faces, scene, text"), "\(caption.description) \(caption.model.displayName)")
        await #expect(throws: MemoraError.self) { try await generator.generateCaption(for: CaptionRequest(path: folder + "/missing.jpg")) }
    }
}
