import Foundation
import ImageKit
import MetadataKit
import Testing
@testable import MemoraCore
import MemoraTesting
import MemoraHTTP
import TestSupport

/// Every generator against a loopback server that speaks its provider's real wire format.
/// Generators get a 300 s timeout here: in a parallel run on two cores, synchronous tests can hold
/// the cooperative pool (and so the loopback server's task) for longer than the default 60 s.
@Suite("Caption generators on the wire")
struct GeneratorWireTests {
    /// Runs `body` with a started server and a camera JPEG, then cleans up.
    func withServer(_ flavor: LoopbackModelServer.Flavor, apiKey: String? = nil,
                    _ body: (LoopbackModelServer, URL, String) async throws -> Void) async throws {
        let server = LoopbackModelServer(flavor: flavor, apiKey: apiKey)
        let url = try await server.start()
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let photo = try makeCameraJPEG(in: folder, width: 2000, height: 1500)
        do {
            try await body(server, url, photo)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// The photo a server received carries no metadata at all and has the expected size.
    func expectCleanJPEG(_ bytes: [UInt8]?, longSide: Int) throws {
        let bytes = try #require(bytes)
        #expect(bytes.starts(with: [0xFF, 0xD8, 0xFF]))
        for (marker, payload) in jpegSegments(bytes) {
            // Only JFIF (APP0) is allowed: no EXIF/XMP (APP1), ICC (APP2) or IPTC (APP13).
            #expect(!(0xE1...0xEF).contains(marker), "metadata segment 0x\(String(marker, radix: 16)) of \(payload.count) bytes was sent")
            #expect(marker != 0xFE, "a comment segment was sent")
        }
        let metadata = try MetadataReader.read(bytes)
        #expect(metadata.gps == nil && metadata.make == nil && metadata.dateTaken == nil)
        let info = try ImageDecoder.info(of: bytes)
        #expect(max(info.width, info.height) == longSide)
        #expect(!String(decoding: bytes, as: UTF8.self).contains("TESTCAM"))
    }

    @Test("Ollama: /api/chat with the image in images[], stream false; the caption is post-processed")
    func ollama() async throws {
        try await withServer(.ollama) { server, url, photo in
            await server.enqueue(.caption("arafed red kite above a green hill"))
            let generator = OllamaCaptionGenerator(endpoint: url, model: "llava")
            #expect(generator.modelInfo.pixelsLeaveDevice == false)
            #expect(await generator.availability() == .available)
            let caption = try await generator.generateCaption(for: CaptionRequest(path: photo))
            #expect(caption.description == "Red kite above a green hill.")
            #expect(caption.model.identifier == "ollama:llava")
            let request = try #require(await server.captionRequests.first)
            #expect(request.path == "/api/chat")
            let json = try #require(request.json)
            #expect(json["stream"] as? Bool == false)
            #expect(json["model"] as? String == "llava")
            let message = try #require((json["messages"] as? [[String: Any]])?.first)
            #expect(message["content"] as? String == CaptionPrompt.text)
            try expectCleanJPEG(request.imageBytes, longSide: 384)
        }
    }

    @Test("Ollama: a model that is not pulled is unavailable, with the command that fixes it")
    func ollamaNotPulled() async throws {
        try await withServer(.ollama) { _, url, _ in
            let availability = await OllamaCaptionGenerator(endpoint: url, model: "moondream").availability()
            guard case .unavailable(let reason) = availability else { Issue.record("expected unavailable"); return }
            #expect(reason.contains("ollama pull moondream"))
        }
    }

    @Test("OpenAI-compatible: chat/completions with a data: URI and a Bearer key; a cloud host gets 1024 pixels")
    func openAI() async throws {
        try await withServer(.openAI, apiKey: "sk-test-123") { server, url, photo in
            let generator = OpenAICaptionGenerator(endpoint: url, model: "gpt-test", apiKey: APIKey("sk-test-123"), profile: .cloud, timeout: .seconds(300))
            #expect(await generator.availability() == .available)
            let caption = try await generator.generateCaption(for: CaptionRequest(path: photo))
            #expect(caption.description == "A red kite above a green hill.")
            let request = try #require(await server.captionRequests.first)
            #expect(request.path == "/v1/chat/completions")
            #expect(request.headers["authorization"] == "Bearer sk-test-123")
            let content = try #require(((request.json?["messages"] as? [[String: Any]])?.first?["content"]) as? [[String: Any]])
            let url = try #require((content.first { $0["type"] as? String == "image_url" }?["image_url"] as? [String: Any])?["url"] as? String)
            #expect(url.hasPrefix("data:image/jpeg;base64,"))
            try expectCleanJPEG(request.imageBytes, longSide: 1024)
        }
    }

    @Test("OpenAI-compatible: a wrong key is unauthorized, not retryable; content_filter is a safety block")
    func openAIErrors() async throws {
        try await withServer(.openAI, apiKey: "right") { server, url, photo in
            let wrong = OpenAICaptionGenerator(endpoint: url, model: "gpt-test", apiKey: APIKey("wrong"), timeout: .seconds(300))
            await #expect(throws: MemoraError.self) { try await wrong.generateCaption(for: CaptionRequest(path: photo)) }
            do throws(MemoraError) {
                _ = try await wrong.generateCaption(for: CaptionRequest(path: photo))
            } catch {
                guard error.code == .unauthorized else { Issue.record("expected unauthorized, got \(error)"); return }
                #expect(!error.isRetryable && error.provider != nil)
                #expect(!error.description.contains("wrong"))
            }
            let right = OpenAICaptionGenerator(endpoint: url, model: "gpt-test", apiKey: APIKey("right"), timeout: .seconds(300))
            await server.enqueue(.safetyBlock)
            do throws(MemoraError) {
                _ = try await right.generateCaption(for: CaptionRequest(path: photo))
                Issue.record("a content_filter finish must not become a caption")
            } catch {
                guard error.code == .safetyBlocked else { Issue.record("expected safetyBlocked, got \(error)"); return }
            }
        }
    }

    @Test("Gemini: generateContent with inline_data, the key in x-goog-api-key, thinking budget 0 on Flash")
    func gemini() async throws {
        try await withServer(.gemini, apiKey: "AIza-test") { server, url, photo in
            let generator = GeminiCaptionGenerator(endpoint: url, model: "gemini-2.5-flash", apiKey: APIKey("AIza-test"), timeout: .seconds(300))
            #expect(generator.modelInfo.pixelsLeaveDevice == false)  // loopback
            #expect(await generator.availability() == .available)
            let caption = try await generator.generateCaption(for: CaptionRequest(path: photo))
            #expect(caption.description == "A red kite above a green hill.")
            #expect(caption.model.version == "gemini-2.5-flash-001")
            let request = try #require(await server.captionRequests.first)
            #expect(request.path == "/v1beta/models/gemini-2.5-flash:generateContent")
            #expect(request.headers["x-goog-api-key"] == "AIza-test")
            let config = try #require(request.json?["generationConfig"] as? [String: Any])
            #expect((config["thinkingConfig"] as? [String: Any])?["thinkingBudget"] as? Int == 0)
            try expectCleanJPEG(request.imageBytes, longSide: 1024)
        }
    }

    @Test("Gemini: a safety block arriving as HTTP 200 is an error, not a caption")
    func geminiSafety() async throws {
        try await withServer(.gemini, apiKey: "k") { server, url, photo in
            await server.enqueue(.safetyBlock)
            let generator = GeminiCaptionGenerator(endpoint: url, apiKey: APIKey("k"), timeout: .seconds(300))
            do throws(MemoraError) {
                _ = try await generator.generateCaption(for: CaptionRequest(path: photo))
                Issue.record("a safety block must not become a caption")
            } catch {
                guard error.code == .safetyBlocked else { Issue.record("expected safetyBlocked, got \(error)"); return }
                #expect(error.message.contains("SAFETY"))
            }
        }
    }

    @Test("Gemini: an invalid key (HTTP 400 API_KEY_INVALID) is unauthorized; a per-day quota is exhausted, not retryable")
    func geminiKeyAndQuota() async throws {
        try await withServer(.gemini, apiKey: "right") { server, url, photo in
            let wrong = GeminiCaptionGenerator(endpoint: url, apiKey: APIKey("wrong"), timeout: .seconds(300))
            do throws(MemoraError) { _ = try await wrong.generateCaption(for: CaptionRequest(path: photo)) } catch {
                guard error.code == .unauthorized else { Issue.record("expected unauthorized, got \(error)"); return }
            }
            guard case .unavailable = await wrong.availability() else { Issue.record("a wrong key must make Gemini unavailable"); return }
            let right = GeminiCaptionGenerator(endpoint: url, apiKey: APIKey("right"), timeout: .seconds(300))
            await server.enqueue(.geminiResourceExhausted(retryDelay: "30s", perDayQuota: true))
            do throws(MemoraError) { _ = try await right.generateCaption(for: CaptionRequest(path: photo)) } catch {
                guard error.code == .quotaExhausted else { Issue.record("expected quotaExhausted, got \(error)"); return }
                #expect(!error.isRetryable)
            }
            await server.enqueue(.geminiResourceExhausted(retryDelay: "7s", perDayQuota: false))
            do throws(MemoraError) { _ = try await right.generateCaption(for: CaptionRequest(path: photo)) } catch {
                guard error.code == .rateLimited else { Issue.record("expected rateLimited, got \(error)"); return }
                #expect(error.retryAfter == .seconds(7) && error.isRetryable && error.status == 429)
            }
        }
    }

    @Test("429 with Retry-After and retry-after-ms, 503, malformed JSON: each is the right typed error")
    func errorReplies() async throws {
        try await withServer(.openAI) { server, url, photo in
            let generator = OpenAICaptionGenerator(endpoint: url, model: "gpt-test", apiKey: nil, timeout: .seconds(300))
            await server.enqueue(.rateLimited(retryAfter: "12"), .rateLimited(retryAfter: "5", retryAfterMilliseconds: "1500"),
                                 .error(status: 503, message: "overloaded"), .malformedJSON)
            var errors: [MemoraError] = []
            for _ in 0..<4 {
                do throws(MemoraError) { _ = try await generator.generateCaption(for: CaptionRequest(path: photo)) } catch { errors.append(error) }
            }
            #expect(errors.count == 4)
            #expect(errors[0].retryAfter == .seconds(12) && errors[0].isRetryable)
            #expect(errors[1].retryAfter == .milliseconds(1500))
            #expect(errors[2].code == .serverError && errors[2].status == 503 && errors[2].message.hasSuffix(": overloaded"), "\(errors[2])")
            #expect(errors[3].code == .malformedResponse && !errors[3].isRetryable, "\(errors[3])")
        }
    }

    @Test("a slow reply times out and a refused connection fails, both retryable")
    func slowAndRefused() async throws {
        try await withServer(.ollama) { server, url, photo in
            await server.enqueue(.slow(seconds: 3, then: .caption("late")))
            let generator = OllamaCaptionGenerator(endpoint: url, model: "llava", timeout: .seconds(1), transport: URLSessionTransport(timeout: .seconds(1)))
            do throws(MemoraError) {
                _ = try await generator.generateCaption(for: CaptionRequest(path: photo))
                Issue.record("a reply slower than the timeout must fail")
            } catch {
                #expect(error.isRetryable, "\(error)")
            }
            let refused = OllamaCaptionGenerator(endpoint: try LoopbackModelServer.refusedURL(), model: "llava")
            do throws(MemoraError) {
                _ = try await refused.generateCaption(for: CaptionRequest(path: photo))
                Issue.record("a refused connection must fail")
            } catch {
                guard error.code == .connectionFailed else { Issue.record("expected connectionFailed, got \(error)"); return }
                #expect(error.endpoint != nil && !error.message.contains("NSCocoaErrorDomain") && !error.message.contains("Error Domain"), "\(error)")
            }
            guard case .unavailable(let reason) = await refused.availability() else { Issue.record("expected unavailable"); return }
            #expect(reason.contains("ollama serve"))
        }
    }

    @Test("a non-loopback endpoint means pixels leave the device; no key for a cloud host is unavailable")
    func privacyFlags() async {
        let remote = OllamaCaptionGenerator(endpoint: URL(string: "http://192.168.1.20:11434")!)
        #expect(remote.modelInfo.pixelsLeaveDevice)
        let cloud = OpenAICaptionGenerator(apiKey: nil)
        #expect(cloud.modelInfo.pixelsLeaveDevice)
        #expect(cloud.profile == .cloud)
        guard case .unavailable(let reason) = await cloud.availability() else { Issue.record("expected unavailable"); return }
        #expect(reason.contains("OPENAI_API_KEY"))
        #expect(GeminiCaptionGenerator(apiKey: APIKey("x")).modelInfo.pixelsLeaveDevice)
    }
}
