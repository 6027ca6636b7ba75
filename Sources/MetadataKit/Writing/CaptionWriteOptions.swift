import Foundation
internal import MemoraSystem

/// Options for writing.
public struct CaptionWriteOptions: Sendable {
    /// Keep the file's modification time.
    public var keepModificationTime: Bool
    /// Called with the snapshot after verification and before the file is replaced, so a
    /// caller can store it first; an error thrown here cancels the write.
    public var beforeReplacing: (@Sendable (MetadataSnapshot) throws -> Void)?
    /// A dry run: read, edit and verify, then stop where the photo would be replaced
    /// (``CaptionWriter/check(_:in:)``).
    var checksOnly = false
    /// While a large photo is streamed to its new version: bytes written and the total; throwing stops the write.
    var progress: FileProgress?

    /// Called where the photo is about to be replaced: stops a dry run, else lets the caller
    /// store the snapshot first.
    func willReplace(_ snapshot: MetadataSnapshot, path: String) throws(MetadataError) {
        if checksOnly { throw MetadataError(.checkedOnly, path: path, reason: "checked, not written", message: "\(path): checked, not written") }
        do {
            try beforeReplacing?(snapshot)
        } catch {
            throw .io(path: path, reason: "the snapshot could not be saved (\(error)), so the photo was not changed", isRetryable: true)
        }
    }

    /// Creates options.
    public init(keepModificationTime: Bool = false, beforeReplacing: (@Sendable (MetadataSnapshot) throws -> Void)? = nil) {
        self.keepModificationTime = keepModificationTime
        self.beforeReplacing = beforeReplacing
    }
}
