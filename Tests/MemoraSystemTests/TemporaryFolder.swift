import Foundation
@testable import MemoraSystem

/// A new empty folder under the system's temporary folder, removed with the object.
final class TemporaryFolder {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "memora-system-\(UUID().uuidString)"
        try FileSystem.makeFolder(path)
    }

    deinit { try? FileSystem.removeTree(path) }
}
