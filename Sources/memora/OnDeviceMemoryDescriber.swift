import Foundation
import MemoraCore
import MemoraHub
import MemoraSystem

/// MemoraCore's on-device description (`BasicDescriptionGenerator`: the face, scene and text models
/// on this device, never a server) for the hub collector: a photo that goes to the hub with no
/// description gets its alt text and extended description. A failure is said on stderr, and the
/// memory goes without.
final class OnDeviceMemoryDescriber: MemoryDescribing {
    private let generator = BasicDescriptionGenerator()
    /// How many photos it described.
    private let count = Locked(0)

    /// How many photos it described so far.
    var described: Int { count.withLock { $0 } }

    func describe(photo path: String) async -> MemoryDescription? {
        do {
            let caption = try await generator.generateCaption(for: CaptionRequest(path: path))
            count.withLock { $0 += 1 }
            return MemoryDescription(description: caption.altText, extendedDescription: caption.extendedDescription)
        } catch {
            StandardError.write("memora: the photo could not be described on this device (\(error.message)); it goes to the hub without a description\n")
            return nil
        }
    }
}
