public import Foundation
public import MemoraHTTP

/// Captions with an OpenAI-compatible Chat Completions server: OpenAI itself, or a
/// local server such as llama.cpp's `llama-server`, LM Studio or vLLM, by base URL.
/// The photo travels as a `data:` URI in an `image_url` content part.
public struct OpenAICaptionGenerator: CaptionGenerator {
    /// OpenAI's API base URL.
    public static let defaultEndpoint = URL(string: "https://api.openai.com/v1")!
    /// The default model (the seed's GPT option).
    public static let defaultModel = "gpt-5.2"

    /// The model to ask.
    public let model: String
    /// The size photos are prepared at: unless given, the on-device size for a server on this
    /// machine and the cloud size for any other.
    public let profile: PreparationProfile
    /// Whether an API key was given (a server on this machine may need none).
    let hasKey: Bool
    let server: ModelServer

    /// Creates a generator for `model` at `endpoint`; `apiKey` is sent as a bearer token. `transport` nil: URLSession, waiting
    /// `timeout`, with the system's trust; MemoraPinning's `PinnedTransport` holds a cloud host to the roots Memora ships.
    public init(endpoint: URL = defaultEndpoint, model: String = defaultModel, apiKey: APIKey?, profile: PreparationProfile? = nil,
                timeout: Duration = .seconds(60), transport: (any HTTPTransport)? = nil) {
        self.model = model
        self.hasKey = apiKey != nil
        self.server = ModelServer(endpoint: endpoint, headers: apiKey.map { ["Authorization": "Bearer " + $0.value] } ?? [:],
                                  timeout: timeout, transport: transport)
        self.profile = profile ?? (server.isLoopback ? .onDevice : .cloud)
    }

    /// The base URL (`…/v1`); `chat/completions` and `models` are appended.
    public var endpoint: URL { server.endpoint }
    /// How long to wait for a caption.
    public var timeout: Duration { server.timeout }

    public var modelInfo: ModelInfo {
        let local = server.isLoopback
        return ModelInfo(provider: .openAICompatible, name: model, pixelsLeaveDevice: !local,
                         displayName: "OpenAI-compatible \(model)" + (local ? " (on this device)" : " at \(endpoint.host ?? "?")"))
    }

    /// Available when a key is present (or the server is local) and `GET models` answers.
    public func availability() async -> GeneratorAvailability {
        if !hasKey && !server.isLoopback {
            return .unavailable(reason: "no API key for \(endpoint.host ?? "the server"); set \(SecretName.openAIAPIKey.rawValue) or add it to the secrets file")
        }
        return await server.availability(probing: "models", provider: modelInfo.displayName)
    }

    public func generateCaption(for request: CaptionRequest) async throws(MemoraError) -> GeneratedCaption {
        let provider = modelInfo.displayName
        if !hasKey && !server.isLoopback {
            throw .unavailable(provider: provider, reason: "no API key; set \(SecretName.openAIAPIKey.rawValue)")
        }
        let image = try ImagePreparer.prepare(path: request.path, profile: profile)
        let body: [String: Any] = [
            "model": model,
            "messages": [[
                "role": "user",
                "content": [
                    ["type": "text", "text": CaptionPrompt.text],
                    ["type": "image_url", "image_url": ["url": image.dataURI]],
                ],
            ]],
        ]
        let object = try await server.post("chat/completions", body: body, provider: provider)
        guard let choice = (object["choices"] as? [[String: Any]])?.first, let message = choice["message"] as? [String: Any] else {
            throw .malformedResponse(provider: provider, reason: "no choices[0].message in the reply")
        }
        if let refusal = message["refusal"] as? String, !refusal.isEmpty {
            throw .safetyBlocked(provider: provider, reason: "the model refused: \(refusal)")
        }
        if (choice["finish_reason"] as? String) == "content_filter" {
            throw .safetyBlocked(provider: provider, reason: "content_filter")
        }
        // Most servers send a string; some send an array of text parts.
        let content: String
        if let text = message["content"] as? String {
            content = text
        } else if let parts = message["content"] as? [[String: Any]] {
            content = parts.compactMap { $0["text"] as? String }.joined(separator: " ")
        } else {
            throw .malformedResponse(provider: provider, reason: "choices[0].message.content is missing")
        }
        var info = modelInfo
        info.version = object["model"] as? String
        return try ProviderReply.caption(from: content, model: info)
    }
}
