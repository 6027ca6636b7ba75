import Foundation
public import MetadataKit

/// A captioning model: the seed's `CaptionGenerator` interface.
///
/// Implementations speak one provider's wire format (``OllamaCaptionGenerator``,
/// ``OpenAICaptionGenerator``, ``GeminiCaptionGenerator``) or describe the photo
/// from what the library can measure (``BasicDescriptionGenerator``).
public protocol CaptionGenerator: Sendable {
    /// What the model is and whether pixels leave the device when it runs.
    var modelInfo: ModelInfo { get }
    /// Whether the model can be used now (server reachable, model pulled, key present).
    func availability() async -> GeneratorAvailability
    /// Describes the photo in `request`.
    func generateCaption(for request: CaptionRequest) async throws(MemoraError) -> GeneratedCaption
}

/// The kinds of caption generator Memora ships.
public enum CaptionProvider: String, Sendable, Hashable, Codable, CaseIterable {
    /// A local Ollama server (on-device).
    case ollama
    /// An OpenAI-compatible Chat Completions server (OpenAI in the cloud, or llama.cpp, LM Studio, vLLM locally).
    case openAICompatible = "openai"
    /// Google's Gemini API.
    case gemini
    /// The factual description Memora measures itself; never leaves the device.
    case basicDescription = "basic"
}

/// Describes a caption generator's model.
public struct ModelInfo: Sendable, Hashable, Codable {
    /// Which kind of generator this is.
    public var provider: CaptionProvider
    /// The model's name, as the provider knows it (for example `llava:7b` or `gemini-2.5-flash`).
    public var name: String
    /// The model's version when the provider reports one.
    public var version: String?
    /// Whether the photo's pixels are sent off this device to run the model.
    public var pixelsLeaveDevice: Bool
    /// A short human description, for example "Gemini gemini-2.5-flash (cloud)".
    public var displayName: String

    /// Creates a model description.
    public init(provider: CaptionProvider, name: String, version: String? = nil, pixelsLeaveDevice: Bool, displayName: String? = nil) {
        self.provider = provider
        self.name = name
        self.version = version
        self.pixelsLeaveDevice = pixelsLeaveDevice
        self.displayName = displayName ?? "\(provider.rawValue):\(name)"
    }

    /// The identifier stored in the queue and the history: `provider:name`.
    public var identifier: String { "\(provider.rawValue):\(name)" }
}

/// Whether a generator can run now.
public enum GeneratorAvailability: Sendable, Hashable {
    /// Ready to caption.
    case available
    /// Not usable now, with a reason a person can act on.
    case unavailable(reason: String)

    /// True when ``available``.
    public var isAvailable: Bool { self == .available }
}

/// One photo to describe.
public struct CaptionRequest: Sendable {
    /// The photo file.
    public var path: String
    /// Its metadata when the caller already read it (the basic description uses dates, places and faces).
    public var metadata: PhotoMetadata?

    /// Creates a request for the photo at `path`.
    public init(path: String, metadata: PhotoMetadata? = nil) {
        self.path = path
        self.metadata = metadata
    }
}

/// A caption produced by a generator, already post-processed.
public struct GeneratedCaption: Sendable, Hashable, Codable {
    /// The full description, written to `dc:description`, EXIF and IPTC.
    public var description: String
    /// The short alt text (at most ``CaptionPostProcessor/altTextLimit`` characters), written to `AltTextAccessibility`.
    public var altText: String
    /// The model that produced it.
    public var model: ModelInfo
    /// What the model returned before post-processing.
    public var rawText: String
    /// What the alt text leaves out, for IPTC's Extended Description (Accessibility), when there is more.
    public var extendedDescription: String?

    /// Creates a caption.
    public init(description: String, altText: String, model: ModelInfo, rawText: String, extendedDescription: String? = nil) {
        self.description = description
        self.altText = altText
        self.model = model
        self.rawText = rawText
        self.extendedDescription = extendedDescription
    }
}
