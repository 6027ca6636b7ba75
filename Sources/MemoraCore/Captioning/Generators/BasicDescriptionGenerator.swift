import Foundation
internal import MemoraSystem
public import PhotoIndex
internal import PhotoVision
internal import PhotoVisionCore

/// The on-device description: what Memora's own vision models see in the pixels (the number of
/// faces, the main subject in a person's words, the text in the photo) and what the photo's
/// metadata says (names, place, month and year), composed by ``DescriptionComposer`` into a
/// caption, an alt text and an extended description. It is not a language model and says only what
/// these facts support; it never leaves the device, always works offline (without the models:
/// people from the metadata, place, date and colours only), says so in ``modelInfo``, and is used
/// only when the user allowed it (``CaptionConfiguration/Fallback/basic``); the photo is then marked
/// as holding a basic description (MetadataKit's `CaptionUpdate.isBasicDescription`) so that a real
/// model's caption replaces it later.
///
/// Example: "Ana and two other people with a dog in Porto, Portugal, July 2019. Text in the photo
/// reads "Praia da Luz"." with the alt text "Ana and two other people with a dog in Porto, Portugal."
/// followed by the most prominent text that fits 125 characters.
public struct BasicDescriptionGenerator: CaptionGenerator {
    /// The vision models (nil when they are not installed).
    private let vision: OnceLoaded<IndexVision>
    /// The photo index whose confirmed names (people a person named) the description may use.
    private let index: OnceLoaded<PhotoIndexDatabase>

    /// The generator with the installed vision models (Docs/Models.md), loaded on first use; without
    /// them it describes from the metadata and colours. The names a person gave in the photo index
    /// at its default place (`memora people name`) are used when that index exists (opened on first use).
    public init() {
        vision = OnceLoaded {
            // Models installed before the face counter or the text reader: dlib's faces, the subject, and the text when it can.
            (try? IndexVision.describing())
                ?? (try? IndexVision.installed(readsText: true, textThreads: ProcessInfo.processInfo.activeProcessorCount, thoroughFaces: true))
                ?? (try? IndexVision.installed())
        }
        index = OnceLoaded {
            let path = PhotoIndexDatabase.defaultPath
            return FileSystem.exists(path) ? try? PhotoIndexDatabase(path: path, creatingIfMissing: false) : nil
        }
    }

    /// The generator with `vision` (nil: metadata and colours only) and the names confirmed in `index`.
    public init(vision: IndexVision?, index: PhotoIndexDatabase? = nil) {
        self.vision = OnceLoaded(fixed: vision)
        self.index = OnceLoaded(fixed: index)
    }

    public var modelInfo: ModelInfo {
        ModelInfo(provider: .basicDescription, name: "basic-description", version: "3", pixelsLeaveDevice: false,
                  displayName: "On-device description (Memora's face, scene and text models on this device; not an AI language model)")
    }

    /// The identifier recorded in the queue and the history for a basic description.
    public static let identifier = BasicDescriptionGenerator(vision: nil).modelInfo.identifier

    public func availability() async -> GeneratorAvailability { .available }

    public func generateCaption(for request: CaptionRequest) async throws(MemoraError) -> GeneratedCaption {
        let facts = try PhotoFacts.gather(path: request.path, metadata: request.metadata, vision: vision.value, index: index.value)
        let (caption, altText, extended) = DescriptionComposer.compose(facts)
        var model = modelInfo
        if !facts.modelsUsed.isEmpty { model.displayName += "; models: " + facts.modelsUsed.joined(separator: ", ") }
        return GeneratedCaption(description: caption, altText: altText, model: model, rawText: caption, extendedDescription: extended)
    }
}

/// A value made once, on first use, by `make` (nil: there is none), or given at the start.
/// Loading the vision models costs a second and an index is a database to open: a generator is
/// made cheaply, and only a description pays for them.
final class OnceLoaded<Value: Sendable>: Sendable {
    private let make: (@Sendable () -> Value?)?
    /// The value once made (`.some(nil)`: there is none); nil until then.
    private let loaded: Locked<Value??>

    init(_ make: @escaping @Sendable () -> Value?) {
        self.make = make
        loaded = Locked(nil)
    }

    init(fixed: Value?) {
        make = nil
        loaded = Locked(.some(fixed))
    }

    /// The value, made on the first call.
    var value: Value? {
        loaded.withLock { loaded in
            if let loaded { return loaded }
            let made = make?()
            loaded = .some(made)
            return made
        }
    }
}
