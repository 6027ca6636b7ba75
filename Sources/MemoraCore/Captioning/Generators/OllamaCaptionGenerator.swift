public import Foundation
public import MemoraHTTP

/// Captions with a model served by Ollama (`/api/chat`, images as base64, `"stream": false`).
///
/// On Linux this is the on-device model: with the default loopback endpoint the
/// pixels never leave the machine. Pointed at another host, ``modelInfo`` says
/// that pixels leave the device, and the on-device mode will not use it.
public struct OllamaCaptionGenerator: CaptionGenerator {
    /// Ollama's default address.
    public static let defaultEndpoint = URL(string: "http://127.0.0.1:11434")!
    /// The default vision model.
    public static let defaultModel = "llava"

    /// The model to run.
    public let model: String
    /// The size photos are prepared at.
    public let profile: PreparationProfile
    let server: ModelServer

    /// Creates a generator for `model` on the Ollama server at `endpoint`. `transport` nil: a
    /// `URLSessionTransport` that waits `timeout` (a cold model can take long to load).
    public init(endpoint: URL = defaultEndpoint, model: String = defaultModel, profile: PreparationProfile = .onDevice,
                timeout: Duration = .seconds(120), transport: (any HTTPTransport)? = nil) {
        self.model = model
        self.profile = profile
        self.server = ModelServer(endpoint: endpoint, timeout: timeout, transport: transport)
    }

    /// The server's base URL.
    public var endpoint: URL { server.endpoint }
    /// How long to wait for a caption.
    public var timeout: Duration { server.timeout }

    public var modelInfo: ModelInfo {
        let local = server.isLoopback
        return ModelInfo(provider: .ollama, name: model, pixelsLeaveDevice: !local,
                         displayName: "Ollama \(model)" + (local ? " (on this device)" : " at \(endpoint.host ?? "?")"))
    }

    /// Available when the server answers `/api/tags` and lists the model as pulled.
    public func availability() async -> GeneratorAvailability {
        let reply: HTTPResponse
        do {
            reply = try await server.get("api/tags", wait: .seconds(5))
        } catch {
            return .unavailable(reason: "Ollama is not running at \(endpoint.absoluteString) (\(error)); start it with `ollama serve`")
        }
        guard reply.status == 200, let object = try? ProviderReply.object(reply, provider: "Ollama") else {
            return .unavailable(reason: "Ollama at \(endpoint.absoluteString) answered /api/tags with HTTP \(reply.status)")
        }
        let names = ((object["models"] as? [[String: Any]]) ?? []).flatMap { [$0["name"] as? String, $0["model"] as? String].compactMap { $0 } }
        let wanted = model.contains(":") ? [model] : [model, model + ":latest"]
        guard names.contains(where: wanted.contains) else {
            return .unavailable(reason: "the model \(model) is not pulled on Ollama at \(endpoint.absoluteString); run `ollama pull \(model)`")
        }
        return .available
    }

    public func generateCaption(for request: CaptionRequest) async throws(MemoraError) -> GeneratedCaption {
        let image = try ImagePreparer.prepare(path: request.path, profile: profile)
        let body: [String: Any] = [
            "model": model,
            "stream": false,
            "messages": [["role": "user", "content": CaptionPrompt.text, "images": [image.base64]]],
            "options": ["temperature": 0.2],
        ]
        let provider = modelInfo.displayName
        let object = try await server.post("api/chat", body: body, provider: provider)
        guard let message = object["message"] as? [String: Any], let content = message["content"] as? String else {
            throw .malformedResponse(provider: provider, reason: "no message.content in the /api/chat reply")
        }
        return try ProviderReply.caption(from: content, model: modelInfo)
    }
}
