public import Foundation
import FlyingFox
import FlyingSocks
import MemoraSystem

/// A model server on 127.0.0.1 that speaks the real wire format of Ollama, OpenAI's
/// Chat Completions or Gemini's `generateContent`, replies from a script, and records
/// every request so tests can inspect exactly what was sent (headers, JSON, the image).
public actor LoopbackModelServer {
    /// The provider the server imitates.
    public enum Flavor: Sendable {
        /// `GET /api/tags`, `POST /api/chat`.
        case ollama
        /// `GET /v1/models`, `POST /v1/chat/completions`; the base URL ends in `/v1`.
        case openAI
        /// `GET /v1beta/models/{model}`, `POST /v1beta/models/{model}:generateContent`.
        case gemini
    }

    /// One scripted reply to a caption request.
    public indirect enum Reply: Sendable {
        /// A successful answer with this text, in the flavor's format.
        case caption(String)
        /// HTTP 429 with optional `Retry-After` and `retry-after-ms` headers.
        case rateLimited(retryAfter: String? = nil, retryAfterMilliseconds: String? = nil)
        /// HTTP 429 in Gemini's format with a `RetryInfo` delay such as `"7s"`, and optionally a per-day quota failure.
        case geminiResourceExhausted(retryDelay: String?, perDayQuota: Bool)
        /// An HTTP error status with a body in the flavor's error format.
        case error(status: Int, message: String)
        /// A safety block: Gemini's HTTP 200 with `promptFeedback.blockReason`, OpenAI's `finish_reason: content_filter`.
        case safetyBlock
        /// HTTP 200 with a body that is not JSON.
        case malformedJSON
        /// Waits, then sends the reply.
        case slow(seconds: Double, then: Reply)
    }

    /// A request the server received.
    public struct ReceivedRequest: Sendable {
        /// The HTTP method.
        public var method: String
        /// The path.
        public var path: String
        /// The headers, names lower-cased.
        public var headers: [String: String]
        /// The body.
        public var body: Data

        /// The body as a JSON object.
        public var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] }

        /// The image the request carried, decoded from base64 (any flavor).
        public var imageBytes: [UInt8]? {
            guard let text = Self.findImage(in: json as Any) else { return nil }
            let base64 = text.hasPrefix("data:") ? String(text.split(separator: ",", maxSplits: 1).last ?? "") : text
            return Data(base64Encoded: base64).map { [UInt8]($0) }
        }

        static func findImage(in value: Any) -> String? {
            if let object = value as? [String: Any] {
                if let images = object["images"] as? [String], let first = images.first { return first }
                if let inline = object["inline_data"] as? [String: Any], let data = inline["data"] as? String { return data }
                if let url = (object["image_url"] as? [String: Any])?["url"] as? String { return url }
                for (_, child) in object { if let found = findImage(in: child) { return found } }
            } else if let array = value as? [Any] {
                for child in array { if let found = findImage(in: child) { return found } }
            }
            return nil
        }
    }

    /// The flavor.
    public let flavor: Flavor
    /// Models the server lists (`/api/tags`, `/v1/models`, `GET models/{name}`).
    public let models: [String]
    /// The key the server requires (`Authorization: Bearer` or `x-goog-api-key`); nil accepts any.
    public let apiKey: String?
    /// What to answer once the script is used up.
    public var defaultReply: Reply

    private var script: [Reply] = []
    private var received: [ReceivedRequest] = []
    private var server: HTTPServer?
    private var task: Task<Void, any Error>?
    private var port: UInt16 = 0

    /// Creates a server (call ``start()``).
    public init(flavor: Flavor, models: [String] = ["llava:latest", "gpt-test", "gemini-2.5-flash"], apiKey: String? = nil,
                defaultReply: Reply = .caption("A red kite above a green hill.")) {
        self.flavor = flavor
        self.models = models
        self.apiKey = apiKey
        self.defaultReply = defaultReply
    }

    /// Starts listening on a free loopback port and returns the base URL a generator takes.
    @discardableResult
    public func start() async throws -> URL {
        let server = HTTPServer(address: try .inet(ip4: "127.0.0.1", port: 0), timeout: 120, logger: .disabled,
                                handler: Handler(owner: self))
        self.server = server
        task = Task { try await server.run() }
        // Generous: the server's task shares the cooperative pool (one thread per core) with
        // whatever else runs, and in a parallel test run on two cores, synchronous tests (decoding,
        // mutation rounds, exiftool processes) can hold both threads for many seconds; with 5 s,
        // a loaded machine failed every wire test here.
        try await server.waitUntilListening(timeout: 120)
        guard case .ip4(_, let port) = await server.listeningAddress else { throw URLError(.cannotConnectToHost) }
        self.port = port
        return baseURL
    }

    /// The base URL for the flavor (`…/v1` for OpenAI).
    public var baseURL: URL {
        URL(string: "http://127.0.0.1:\(port)" + (flavor == .openAI ? "/v1" : ""))!
    }

    /// Stops the server.
    public func stop() async {
        await server?.stop(timeout: 0)
        task?.cancel()
    }

    /// Queues replies for the next caption requests, in order.
    public func enqueue(_ replies: Reply...) {
        script += replies
    }

    /// Every request received so far.
    public var requests: [ReceivedRequest] { received }

    /// The caption requests received so far (not the availability checks).
    public var captionRequests: [ReceivedRequest] { received.filter { $0.method == "POST" } }

    /// A loopback URL on which nothing listens, for "connection refused". The port is held for the
    /// whole run without listening, so no server a parallel test starts can be given it.
    public static func refusedURL() throws -> URL {
        let port = try heldClosedPort.get()
        return URL(string: "http://127.0.0.1:\(port.port)")!
    }

    private static let heldClosedPort = Result { () throws(SystemError) in try ClosedPort() }

    struct Handler: HTTPHandler {
        let owner: LoopbackModelServer
        func handleRequest(_ request: HTTPRequest) async throws -> HTTPResponse {
            var headers: [String: String] = [:]
            for (name, value) in request.headers { headers[name.rawValue.lowercased()] = value }
            let body = try await request.bodyData
            return try await owner.respond(ReceivedRequest(method: request.method.rawValue, path: request.path, headers: headers, body: body))
        }
    }

    func respond(_ request: ReceivedRequest) async throws -> HTTPResponse {
        received.append(request)
        if let refusal = authorizationFailure(request) { return refusal }
        if request.method == "GET" { return listing(request) }
        let reply = script.isEmpty ? defaultReply : script.removeFirst()
        return try await render(reply)
    }

    private func authorizationFailure(_ request: ReceivedRequest) -> HTTPResponse? {
        guard let apiKey else { return nil }
        switch flavor {
        case .ollama: return nil
        case .openAI:
            guard request.headers["authorization"] != "Bearer " + apiKey else { return nil }
            return json(401, ["error": ["message": "Incorrect API key provided.", "type": "invalid_request_error", "code": "invalid_api_key"]])
        case .gemini:
            guard request.headers["x-goog-api-key"] != apiKey else { return nil }
            return json(400, ["error": ["code": 400, "message": "API key not valid. Please pass a valid API key.", "status": "INVALID_ARGUMENT",
                                        "details": [["@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID"]]]])
        }
    }

    private func listing(_ request: ReceivedRequest) -> HTTPResponse {
        switch flavor {
        case .ollama:
            return json(200, ["models": models.map { ["name": $0, "model": $0, "size": 4_700_000_000] }])
        case .openAI:
            return json(200, ["object": "list", "data": models.map { ["id": $0, "object": "model", "owned_by": "loopback"] }])
        case .gemini:
            let name = request.path.split(separator: "/").last.map(String.init) ?? ""
            guard models.contains(name) else { return json(404, ["error": ["code": 404, "message": "models/\(name) is not found", "status": "NOT_FOUND"]]) }
            return json(200, ["name": "models/" + name, "displayName": name, "supportedGenerationMethods": ["generateContent"]])
        }
    }

    private func render(_ reply: Reply) async throws -> HTTPResponse {
        switch reply {
        case .caption(let text):
            switch flavor {
            case .ollama:
                return json(200, ["model": models.first ?? "llava", "created_at": "2026-11-22T12:00:00Z",
                                  "message": ["role": "assistant", "content": text], "done": true, "done_reason": "stop"])
            case .openAI:
                return json(200, ["id": "chatcmpl-1", "object": "chat.completion", "model": models.first ?? "gpt-test",
                                  "choices": [["index": 0, "message": ["role": "assistant", "content": text, "refusal": NSNull()], "finish_reason": "stop"]]])
            case .gemini:
                return json(200, ["candidates": [["content": ["parts": [["text": text]], "role": "model"], "finishReason": "STOP", "index": 0]],
                                  "modelVersion": "gemini-2.5-flash-001"])
            }
        case .rateLimited(let after, let afterMilliseconds):
            var headers: [String: String] = [:]
            if let after { headers["Retry-After"] = after }
            if let afterMilliseconds { headers["retry-after-ms"] = afterMilliseconds }
            return json(429, errorBody(429, "Rate limit reached, slow down."), headers: headers)
        case .geminiResourceExhausted(let delay, let perDay):
            var details: [[String: Any]] = []
            if perDay {
                details.append(["@type": "type.googleapis.com/google.rpc.QuotaFailure",
                                "violations": [["quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests",
                                                "quotaId": "GenerateRequestsPerDayPerProjectPerModel-FreeTier"]]])
            }
            if let delay { details.append(["@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": delay]) }
            return json(429, ["error": ["code": 429, "message": "You exceeded your current quota.", "status": "RESOURCE_EXHAUSTED", "details": details]])
        case .error(let status, let message):
            return json(status, errorBody(status, message))
        case .safetyBlock:
            switch flavor {
            case .gemini:
                return json(200, ["promptFeedback": ["blockReason": "SAFETY", "safetyRatings": [["category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "HIGH"]]]])
            case .openAI:
                return json(200, ["id": "chatcmpl-2", "object": "chat.completion", "model": models.first ?? "gpt-test",
                                  "choices": [["index": 0, "message": ["role": "assistant", "content": ""], "finish_reason": "content_filter"]]])
            case .ollama:
                return json(400, ["error": "the request was refused"])
            }
        case .malformedJSON:
            return HTTPResponse(statusCode: HTTPStatusCode(200, phrase: "OK"), headers: HTTPHeaders([HTTPHeader("Content-Type"): "application/json"]),
                                body: Data("{\"candidates\": [ {\"content\": oops".utf8))
        case .slow(let seconds, let then):
            try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
            return try await render(then)
        }
    }

    private func errorBody(_ status: Int, _ message: String) -> [String: Any] {
        switch flavor {
        case .ollama: return ["error": message]
        case .openAI: return ["error": ["message": message, "type": status == 429 ? "rate_limit_exceeded" : "server_error", "code": NSNull()]]
        case .gemini: return ["error": ["code": status, "message": message, "status": status == 429 ? "RESOURCE_EXHAUSTED" : "UNAVAILABLE"]]
        }
    }

    private func json(_ status: Int, _ object: [String: Any], headers: [String: String] = [:]) -> HTTPResponse {
        var all: [HTTPHeader: String] = [HTTPHeader("Content-Type"): "application/json"]
        for (name, value) in headers { all[HTTPHeader(name)] = value }
        let body = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return HTTPResponse(statusCode: HTTPStatusCode(status, phrase: Self.phrase(status)), headers: HTTPHeaders(all), body: body)
    }

    static func phrase(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}
