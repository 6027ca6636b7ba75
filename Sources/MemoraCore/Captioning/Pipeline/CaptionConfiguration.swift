public import Foundation
public import MemoraHTTP
internal import MemoraSystem
import MetadataKit

/// Which models captioning may use, and where they are: what `memora caption`'s flags, the
/// environment and the secrets file say, as one value a front end builds and the library turns
/// into a ``ModelSelector``. Keys are looked up when the selector is built (environment first,
/// then the secrets file) and never stored in the value.
public struct CaptionConfiguration: Sendable {
    /// The protocol of the on-device model server.
    public enum LocalServer: String, Sendable, Hashable, CaseIterable {
        /// Ollama's `/api/chat`.
        case ollama
        /// An OpenAI-compatible server on this machine: llama.cpp's llama-server, LM Studio, vLLM.
        case openai
    }

    /// Where captions are made; nil: the `ai_mode` preference.
    public var mode: CaptionMode?
    /// The chosen mode's server (Ollama's for on-device; an OpenAI-compatible base URL ending in /v1; Gemini's).
    public var endpoint: URL?
    /// The chosen mode's model (defaults: llava, gpt-5.2, gemini-2.5-flash).
    public var model: String?
    /// The on-device server's protocol.
    public var localServer: LocalServer
    /// A secrets file (`NAME=value` lines, mode 0600); nil: ``FileSecretStore/defaultPath``.
    public var secretsPath: String?
    /// The environment read for API keys and `MEMORA_OLLAMA_URL` / `MEMORA_OLLAMA_MODEL`.
    public var environment: [String: String]
    /// What happens when no model can caption a photo.
    public var fallback: Fallback
    /// Makes the transport the cloud generators (Gemini, OpenAI, an OpenAI-compatible server) reach
    /// their endpoint through, for a caption that may take the given time; nil: URLSession with the
    /// system's trust. MemoraCore links no TLS stack of its own: `memora caption` passes
    /// MemoraPinning's pinned transport here (`PinnedTransport.maker(pins:)`), which holds the cloud
    /// hosts to the root certificates Memora ships.
    public var cloudTransport: (@Sendable (_ timeout: Duration) -> any HTTPTransport)?

    /// What happens when no model can caption a photo.
    public enum Fallback: String, Sendable, Hashable, CaseIterable {
        /// Nothing is written: a job fails before it starts when no model can run, and a photo
        /// every model failed stays uncaptioned.
        case none
        /// Memora's on-device description (`BasicDescriptionGenerator`: composed on this device from
        /// what its face, scene and text models find, never sent anywhere), labelled in the photo as
        /// written automatically so that a later model's caption replaces it. `memora caption` uses it
        /// by default (`--fallback on-device`).
        case basic
    }

    /// A configuration; by default the preference's mode with the default servers and models.
    public init(mode: CaptionMode? = nil, endpoint: URL? = nil, model: String? = nil, localServer: LocalServer = .ollama,
                secretsPath: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment,
                fallback: Fallback = .none, cloudTransport: (@Sendable (_ timeout: Duration) -> any HTTPTransport)? = nil) {
        self.mode = mode
        self.endpoint = endpoint
        self.model = model
        self.localServer = localServer
        self.secretsPath = secretsPath
        self.environment = environment
        self.fallback = fallback
        self.cloudTransport = cloudTransport
    }

    /// Checks an endpoint a person typed: an http(s) URL with a host.
    public static func endpoint(parsing text: String) throws(MemoraError) -> URL {
        guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            throw .invalidConfiguration("the endpoint must be an http(s) URL, got '\(text)'")
        }
        return url
    }

    /// The mode used with `preferences`: ``mode`` when set, else the preference.
    public func effectiveMode(preferences: CaptionPreferences) -> CaptionMode { mode ?? preferences.aiMode }

    /// The selector for this configuration: the on-device generator always (the privacy rule's
    /// fallback), plus Gemini or GPT for those modes, with keys from the environment or the secrets
    /// file, and the basic description last when ``fallback`` allows it.
    public func makeSelector(preferences: CaptionPreferences) throws(MemoraError) -> ModelSelector {
        try makeSelector(mode: effectiveMode(preferences: preferences))
    }

    /// The selector for this configuration in `mode`.
    func makeSelector(mode: CaptionMode) throws(MemoraError) -> ModelSelector {
        let store = ChainedSecretStore([EnvironmentSecretStore(environment: environment),
                                        FileSecretStore(path: secretsPath ?? FileSecretStore.defaultPath)])
        let localEndpoint = (mode == .onDevice ? endpoint : nil)
            ?? environment["MEMORA_OLLAMA_URL"].flatMap(URL.init(string:)) ?? OllamaCaptionGenerator.defaultEndpoint
        let localModel = (mode == .onDevice ? model : nil) ?? environment["MEMORA_OLLAMA_MODEL"] ?? OllamaCaptionGenerator.defaultModel
        // The cloud generators wait their default 60 s for a caption; their transport as long.
        let transport = cloudTransport?(.seconds(60))
        let local: any CaptionGenerator
        switch localServer {
        case .ollama: local = OllamaCaptionGenerator(endpoint: localEndpoint, model: localModel)
        case .openai: local = OpenAICaptionGenerator(endpoint: localEndpoint, model: localModel, apiKey: try store.secret(.openAIAPIKey), transport: transport)
        }
        var gemini: (any CaptionGenerator)?
        var gpt: (any CaptionGenerator)?
        switch mode {
        case .onDevice: break
        case .gemini:
            gemini = GeminiCaptionGenerator(endpoint: endpoint ?? GeminiCaptionGenerator.defaultEndpoint,
                                            model: model ?? GeminiCaptionGenerator.defaultModel, apiKey: try store.secret(.geminiAPIKey), transport: transport)
        case .gpt:
            gpt = OpenAICaptionGenerator(endpoint: endpoint ?? OpenAICaptionGenerator.defaultEndpoint,
                                         model: model ?? OpenAICaptionGenerator.defaultModel, apiKey: try store.secret(.openAIAPIKey), transport: transport)
        }
        return ModelSelector(mode: mode, local: [local], gemini: gemini, gpt: gpt, basic: fallback == .basic ? BasicDescriptionGenerator() : nil)
    }
}

extension CaptionConfiguration {
    /// Describes one photo with this configuration's models, in one call: no database, no queue,
    /// nothing written. The mode is ``mode``, else on-device. Throws ``MemoraError/Code/noModel``
    /// when no model can run (and ``fallback`` does not allow the basic description), and the
    /// error of the last model tried when every model failed. To write the result into the photo:
    /// `CaptionWriter.write(CaptionUpdate(caption: result.description, altText: result.altText,
    /// isBasicDescription: result.model.provider == .basicDescription), to: path)`; for many
    /// photos, with history, retries and crash safety, run a ``CaptionJob``.
    public func describe(file path: String) async throws(MemoraError) -> GeneratedCaption {
        guard FileSystem.exists(path) else { throw .notFound(path: path) }
        let selector = try makeSelector(mode: mode ?? .onDevice)
        try await selector.requireModel()
        let metadata = try? MetadataReader.read(contentsOf: path)
        return try await selector.caption(CaptionRequest(path: path, metadata: metadata)).caption
    }

    /// ``describe(file:)`` for a photo held in memory: written to a private temporary file
    /// (0600, removed afterwards) for the generators to read.
    public func describe(bytes: [UInt8]) async throws(MemoraError) -> GeneratedCaption {
        let path = FileManager.default.temporaryDirectory.path + "/memora-describe-" + UUID().uuidString
        do {
            try AtomicFileWriter.write(bytes, to: path, options: AtomicFileWriter.Options(permissions: .exactly(0o600), replacesExisting: false))
        } catch {
            throw .io(path: path, reason: error.reason, systemCode: error.code)
        }
        defer { try? FileSystem.remove(path) }
        return try await describe(file: path)
    }
}
