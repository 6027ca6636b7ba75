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

    /// The base URL (`…/v1`); `chat/completions` and `models` are appended.
    public let endpoint: URL
    /// The model to ask.
    public let model: String
    /// The API key, sent as a bearer token; optional for servers on this machine.
    public let apiKey: APIKey?
    /// The size photos are prepared at: unless given, the on-device size for a server on this
    /// machine and the cloud size for any other.
    public let profile: PreparationProfile
    /// How long to wait for a caption.
    public let timeout: Duration
    let transport: any HTTPTransport

    /// Creates a generator for `model` at `endpoint`. `transport` nil: URLSession, waiting
    /// `timeout`, with the system's trust; MemoraPinning's `PinnedTransport` holds a cloud host to the roots Memora ships.
    public init(endpoint: URL = defaultEndpoint, model: String = defaultModel, apiKey: APIKey?, profile: PreparationProfile? = nil,
                timeout: Duration = .seconds(60), transport: (any HTTPTransport)? = nil) {
        self.endpoint = endpoint
        self.model = model
        self.apiKey = apiKey
        self.profile = profile ?? (Endpoint.isLoopback(endpoint) ? .onDevice : .cloud)
        self.timeout = timeout
        self.transport = Endpoint.transport(transport, timeout: timeout)
    }

    public var modelInfo: ModelInfo {
        let local = Endpoint.isLoopback(endpoint)
        return ModelInfo(provider: .openAICompatible, name: model, pixelsLeaveDevice: !local,
                         displayName: "OpenAI-compatible \(model)" + (local ? " (on this device)" : " at \(endpoint.host ?? "?")"))
    }

    var headers: [String: String] {
        apiKey.map { ["Authorization": "Bearer " + $0.value] } ?? [:]
    }

    /// Available when a key is present (or the server is local) and `GET models` answers.
    public func availability() async -> GeneratorAvailability {
        if apiKey == nil && !Endpoint.isLoopback(endpoint) {
            return .unavailable(reason: "no API key for \(endpoint.host ?? "the server"); set \(SecretName.openAIAPIKey.rawValue) or add it to the secrets file")
        }
        return await ProviderReply.availability(
            probing: Endpoint.get(ProviderReply.url(endpoint, "models"), headers: headers, timeout: .seconds(10)),
            transport: transport, provider: modelInfo.displayName)
    }

    public func generateCaption(for request: CaptionRequest) async throws(MemoraError) -> GeneratedCaption {
        let provider = modelInfo.displayName
        if apiKey == nil && !Endpoint.isLoopback(endpoint) {
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
        let reply = try await transport.exchange(Endpoint.post(ProviderReply.url(endpoint, "chat/completions"), body: body, headers: headers, timeout: timeout))
        try ProviderReply.check(reply, provider: provider)
        let object = try ProviderReply.object(reply, provider: provider)
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
