import Foundation
import TestSupport
@testable import MemoraSystem

/// A new empty folder under the system's temporary folder, removed with the object.
final class TemporaryFolder {
    let path: String

    init() throws {
        path = try temporaryFolder("memora-system")
    }

    deinit { try? FileSystem.removeTree(path) }
}

/// `count` bytes of a pattern that differs from block to block, made quickly (tests run in debug builds).
func patterned(_ count: Int, salt: UInt8) -> [UInt8] {
    [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
        var value = UInt32(salt) &* 2_654_435_761 | 1
        for index in 0..<count {
            value ^= value << 13; value ^= value >> 17; value ^= value << 5
            buffer[index] = UInt8(truncatingIfNeeded: value)
        }
        initialized = count
    }
}
