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

    /// The model to ask.
    public let model: String
    /// The size photos are prepared at (the cloud size unless given).
    public let profile: PreparationProfile
    /// Whether an API key was given: without one the generator is unavailable.
    let hasKey: Bool
    let server: ModelServer

    /// Creates a generator for `model`; `apiKey` is sent as `x-goog-api-key`. `transport` nil: URLSession, waiting
    /// `timeout`, with the system's trust; MemoraPinning's `PinnedTransport` holds a cloud host to the roots Memora ships.
    public init(endpoint: URL = defaultEndpoint, model: String = defaultModel, apiKey: APIKey?, profile: PreparationProfile = .cloud,
                timeout: Duration = .seconds(60), transport: (any HTTPTransport)? = nil) {
        self.model = model
        self.profile = profile
        self.hasKey = apiKey != nil
        self.server = ModelServer(endpoint: endpoint, headers: apiKey.map { ["x-goog-api-key": $0.value] } ?? [:], timeout: timeout,
                                  transport: transport)
    }

    /// The server's base URL; `v1beta/models/…` is appended.
    public var endpoint: URL { server.endpoint }
    /// How long to wait for a caption.
    public var timeout: Duration { server.timeout }

    public var modelInfo: ModelInfo {
        ModelInfo(provider: .gemini, name: model, pixelsLeaveDevice: !server.isLoopback, displayName: "Gemini \(model)")
    }

    /// Available when a key is present and the model's description can be fetched with it.
    public func availability() async -> GeneratorAvailability {
        guard hasKey else {
            return .unavailable(reason: "no Gemini API key; set \(SecretName.geminiAPIKey.rawValue) or add it to the secrets file")
        }
        return await server.availability(probing: "v1beta/models/\(model)", provider: modelInfo.displayName)
    }

    public func generateCaption(for request: CaptionRequest) async throws(MemoraError) -> GeneratedCaption {
        let provider = modelInfo.displayName
        guard hasKey else { throw .unavailable(provider: provider, reason: "no API key; set \(SecretName.geminiAPIKey.rawValue)") }
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
        let object = try await server.post("v1beta/models/\(model):generateContent", body: body, provider: provider)
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
