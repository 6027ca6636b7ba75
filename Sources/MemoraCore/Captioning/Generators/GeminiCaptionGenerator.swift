public import Foundation
public import MemoraHTTP

/// Captions with Google's Gemini API (`models/{model}:generateContent`, the photo as
/// `inline_data`, the key in the `x-goog-api-key` header). Safety blocks, which arrive
/// as HTTP 200, become ``MemoraError/safetyBlocked(provider:reason:)``. Flash models
/// get a thinking budget of 0: a caption needs no reasoning tokens.
public struct GeminiCaptionGenerator: CaptionGenerator {
    /// Google's endpoint.
    public static let defaultEndpoint = URL(string: "https://generativelanguage.googleapis.com")!
    /// The default model.
    public static let defaultModel = "gemini-2.5-flash"
    /// Finish reasons that mean the answer was withheld.
    static let blockingFinishReasons: Set<String> = ["SAFETY", "RECITATION", "PROHIBITED_CONTENT", "BLOCKLIST", "SPII", "IMAGE_SAFETY", "LANGUAGE"]

    /// The server's base URL; `v1beta/models/…` is appended.
    public let endpoint: URL
    /// The model to ask.
    public let model: String
    /// The API key, sent as `x-goog-api-key`; without one the generator is unavailable.
    public let apiKey: APIKey?
    /// The size photos are prepared at (the cloud size unless given).
    public let profile: PreparationProfile
    /// How long to wait for a caption.
    public let timeout: Duration
    let transport: any HTTPTransport

    /// Creates a generator for `model`. `transport` nil: URLSession, waiting
    /// `timeout`, with the system's trust; MemoraPinning's `PinnedTransport` holds a cloud host to the roots Memora ships.
    public init(endpoint: URL = defaultEndpoint, model: String = defaultModel, apiKey: APIKey?, profile: PreparationProfile = .cloud,
                timeout: Duration = .seconds(60), transport: (any HTTPTransport)? = nil) {
        self.endpoint = endpoint
        self.model = model
        self.apiKey = apiKey
        self.profile = profile
        self.timeout = timeout
        self.transport = Endpoint.transport(transport, timeout: timeout)
    }

    public var modelInfo: ModelInfo {
        ModelInfo(provider: .gemini, name: model, pixelsLeaveDevice: !Endpoint.isLoopback(endpoint), displayName: "Gemini \(model)")
    }

    var headers: [String: String] { apiKey.map { ["x-goog-api-key": $0.value] } ?? [:] }

    /// Available when a key is present and the model's description can be fetched with it.
    public func availability() async -> GeneratorAvailability {
        guard apiKey != nil else {
            return .unavailable(reason: "no Gemini API key; set \(SecretName.geminiAPIKey.rawValue) or add it to the secrets file")
        }
        return await ProviderReply.availability(
            probing: Endpoint.get(ProviderReply.url(endpoint, "v1beta/models/\(model)"), headers: headers, timeout: .seconds(10)),
            transport: transport, provider: modelInfo.displayName)
    }

    public func generateCaption(for request: CaptionRequest) async throws(MemoraError) -> GeneratedCaption {
        let provider = modelInfo.displayName
        guard apiKey != nil else { throw .unavailable(provider: provider, reason: "no API key; set \(SecretName.geminiAPIKey.rawValue)") }
        let image = try ImagePreparer.prepare(path: request.path, profile: profile)
        var generationConfig: [String: Any] = ["temperature": 0.2]
        if model.contains("flash") { generationConfig["thinkingConfig"] = ["thinkingBudget": 0] }
        let body: [String: Any] = [
            "contents": [[
                "role": "user",
                "parts": [
                    ["inline_data": ["mime_type": "image/jpeg", "data": image.base64]],
                    ["text": CaptionPrompt.text],
                ],
            ]],
            "generationConfig": generationConfig,
        ]
        let url = ProviderReply.url(endpoint, "v1beta/models/\(model):generateContent")
        let reply = try await transport.exchange(Endpoint.post(url, body: body, headers: headers, timeout: timeout))
        try ProviderReply.check(reply, provider: provider)
        let object = try ProviderReply.object(reply, provider: provider)
        if let feedback = object["promptFeedback"] as? [String: Any], let reason = feedback["blockReason"] as? String {
            throw .safetyBlocked(provider: provider, reason: "the prompt was blocked: \(reason)")
        }
        guard let candidate = (object["candidates"] as? [[String: Any]])?.first else {
            throw .malformedResponse(provider: provider, reason: "the reply has no candidates")
        }
        if let reason = candidate["finishReason"] as? String, Self.blockingFinishReasons.contains(reason) {
            throw .safetyBlocked(provider: provider, reason: "the answer was withheld: \(reason)")
        }
        let parts = ((candidate["content"] as? [String: Any])?["parts"] as? [[String: Any]]) ?? []
        // Thought summaries (`"thought": true`) are not part of the answer.
        let text = parts.filter { ($0["thought"] as? Bool) != true }.compactMap { $0["text"] as? String }.joined()
        var info = modelInfo
        info.version = object["modelVersion"] as? String
        return try ProviderReply.caption(from: text, model: info)
    }
}
