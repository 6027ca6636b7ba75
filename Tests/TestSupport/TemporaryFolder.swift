public import Foundation

/// A new, empty folder named `label-UUID` inside `base` (the system's temporary folder by
/// default); the caller removes it.
public func temporaryFolder(_ label: String = "memora-tests", in base: String = NSTemporaryDirectory()) throws -> String {
    let folder = base + (base.hasSuffix("/") ? "" : "/") + label + "-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    return folder
}
