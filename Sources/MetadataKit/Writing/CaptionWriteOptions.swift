import Foundation
internal import MemoraSystem

/// Options for writing.
public struct CaptionWriteOptions: Sendable {
    /// Keep the file's modification time.
    public var keepModificationTime: Bool
    /// Called with the snapshot after verification and before the file is replaced, so a
    /// caller can store it first; an error thrown here cancels the write.
    public var beforeReplacing: (@Sendable (MetadataSnapshot) throws -> Void)?

    /// Creates options.
    public init(keepModificationTime: Bool = false, beforeReplacing: (@Sendable (MetadataSnapshot) throws -> Void)? = nil) {
        self.keepModificationTime = keepModificationTime
        self.beforeReplacing = beforeReplacing
    }
}
