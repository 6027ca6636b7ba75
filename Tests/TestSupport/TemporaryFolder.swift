internal import Foundation

/// The folder this test process makes its temporary folders in, removed when the process exits:
/// a test that fails or forgets its cleanup leaves nothing in the system's temporary folder (the
/// folders tests left there had gathered to some 8,000, and 16 GB, on one machine).
private let processFolder: String = {
    let folder = NSTemporaryDirectory() + (NSTemporaryDirectory().hasSuffix("/") ? "" : "/")
        + "memora-tests-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8))"
    try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    atexit { removeProcessFolder() }
    return folder
}()

private func removeProcessFolder() {
    try? FileManager.default.removeItem(atPath: processFolder)
}

/// A new, empty folder named `label-UUID` inside `base` (by default a folder of this test process
/// in the system's temporary folder, removed with everything in it when the process exits). The
/// caller may remove it sooner; a folder made in another `base` is the caller's to remove.
public func temporaryFolder(_ label: String = "memora-tests", in base: String? = nil) throws -> String {
    let base = base ?? processFolder
    let folder = base + (base.hasSuffix("/") ? "" : "/") + label + "-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    return folder
}
