import MemoraSystem
import Foundation
import Testing
@testable import MemoraCore
import MemoraTesting
import TestSupport

/// The selector's retries, fallbacks, cool-downs and privacy rule, against loopback servers
/// and a manual clock (no test sleeps).
@Suite("Model selector")
struct ModelSelectorTests {
    struct Setup {
        let ollama: LoopbackModelServer
        let gemini: LoopbackModelServer
        let openAI: LoopbackModelServer
        let local: OllamaCaptionGenerator
        let geminiGenerator: GeminiCaptionGenerator
        let gptGenerator: OpenAICaptionGenerator
        let folder: String
        let photo: String

        func stop() async {
            await ollama.stop()
            await gemini.stop()
            await openAI.stop()
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    /// Servers for all three providers. The tests wrap the cloud generators in ``CloudMarked``,
    /// because a loopback URL would otherwise (rightly) count as on-device.
    func setUp() async throws -> Setup {
        let ollama = LoopbackModelServer(flavor: .ollama)
        let gemini = LoopbackModelServer(flavor: .gemini, apiKey: "g")
        let openAI = LoopbackModelServer(flavor: .openAI, apiKey: "o")
        let folder = try temporaryFolder()
        return Setup(
            ollama: ollama, gemini: gemini, openAI: openAI,
            local: OllamaCaptionGenerator(endpoint: try await ollama.start(), model: "llava"),
            geminiGenerator: GeminiCaptionGenerator(endpoint: try await gemini.start(), apiKey: APIKey("g")),
            gptGenerator: OpenAICaptionGenerator(endpoint: try await openAI.start(), model: "gpt-test", apiKey: APIKey("o")),
            folder: folder, photo: try makeCameraJPEG(in: folder))
    }

    @Test("on-device mode never calls a cloud generator, even when every local one fails")
    func onDeviceNeverCallsCloud() async throws {
        let setup = try await setUp()
        await setup.ollama.enqueue(.error(status: 500, message: "boom"), .error(status: 500, message: "boom"), .error(status: 500, message: "boom"))
        let selector = ModelSelector(
            mode: .onDevice, local: [setup.local, CloudMarked(setup.gptGenerator)], gemini: CloudMarked(setup.geminiGenerator),
            gpt: CloudMarked(setup.gptGenerator), clock: ManualClock(), random: { 0.5 })
        #expect(selector.chain.map(\.provider) == [.ollama, .basicDescription])
        let selection = try await selector.caption(CaptionRequest(path: setup.photo))
        #expect(selection.caption.model.provider == .basicDescription)
        #expect(await setup.gemini.requests.isEmpty)
        #expect(await setup.openAI.requests.isEmpty)
        #expect(await setup.ollama.captionRequests.count == 3)
        await setup.stop()
    }

    @Test("gemini mode: Gemini first, then the local model; the GPT server the user did not choose is never called")
    func cloudModeFallsBackLocally() async throws {
        let setup = try await setUp()
        await setup.gemini.enqueue(.error(status: 400, message: "bad request"))
        let selector = ModelSelector(mode: .gemini, local: [setup.local, CloudMarked(setup.gptGenerator)], gemini: CloudMarked(setup.geminiGenerator),
                                     gpt: CloudMarked(setup.gptGenerator), clock: ManualClock())
        #expect(selector.chain.map(\.provider) == [.gemini, .ollama, .basicDescription])
        let selection = try await selector.caption(CaptionRequest(path: setup.photo))
        #expect(selection.caption.model.provider == .ollama)
        #expect(selection.attempts.map(\.outcome) == ["failed", "succeeded"])
        #expect(await setup.openAI.requests.isEmpty)
        await setup.stop()
    }

    @Test("retries honour Retry-After, retry-after-ms and Gemini's RetryInfo, then back off exponentially with jitter")
    func retryDelays() async throws {
        let setup = try await setUp()
        let clock = ManualClock()
        await setup.gemini.enqueue(.geminiResourceExhausted(retryDelay: "7s", perDayQuota: false), .error(status: 503, message: "busy"))
        let policy = RetryPolicy(maxAttempts: 3, baseDelay: 2, jitter: 0.2)
        let selector = ModelSelector(mode: .gemini, gemini: CloudMarked(setup.geminiGenerator), policy: policy, clock: clock, random: { 1.0 })
        let selection = try await selector.caption(CaptionRequest(path: setup.photo))
        #expect(selection.caption.model.provider == .gemini)
        // 7 s from RetryInfo, then the backoff of the second retry: 2 s x 2 x (1 + 0.2), the random value at its top.
        #expect(clock.sleeps.count == 2 && clock.sleeps[0] == .seconds(7) && abs(clock.sleeps[1] / .seconds(1) - 4.8) < 1e-9)
        #expect(abs(policy.backoff(retry: 1, random: 0) - 1.6) < 1e-9)
        #expect(policy.backoff(retry: 10, random: 0.5) == policy.maxDelay)

        let openClock = ManualClock()
        await setup.openAI.enqueue(.rateLimited(retryAfter: "3"), .rateLimited(retryAfter: "9", retryAfterMilliseconds: "250"))
        let gpt = ModelSelector(mode: .gpt, gpt: CloudMarked(setup.gptGenerator), policy: policy, clock: openClock)
        _ = try await gpt.caption(CaptionRequest(path: setup.photo))
        #expect(openClock.sleeps == [.seconds(3), .milliseconds(250)])
        await setup.stop()
    }

    @Test("a server asking to wait longer than the limit sends the photo to the next generator and cools that one down")
    func longRetryAfterCoolsDown() async throws {
        let setup = try await setUp()
        let clock = ManualClock()
        await setup.gemini.enqueue(.rateLimited(retryAfter: "3600"))
        let selector = ModelSelector(mode: .gemini, local: [setup.local], gemini: CloudMarked(setup.geminiGenerator),
                                     policy: RetryPolicy(maxServerDelay: 60), clock: clock)
        let first = try await selector.caption(CaptionRequest(path: setup.photo))
        #expect(first.caption.model.provider == .ollama)
        #expect(clock.sleeps.isEmpty)
        let second = try await selector.caption(CaptionRequest(path: setup.photo))
        #expect(second.attempts.first?.outcome == "skipped")
        #expect(await setup.gemini.captionRequests.count == 1)
        clock.advance(by: .seconds(3601))
        let third = try await selector.caption(CaptionRequest(path: setup.photo))
        #expect(third.caption.model.provider == .gemini)
        await setup.stop()
    }

    @Test("a generator failing several photos in a row is skipped for the cool-down, then tried again")
    func cooldownAfterFailures() async throws {
        let setup = try await setUp()
        let clock = ManualClock()
        for _ in 0..<2 { await setup.ollama.enqueue(.error(status: 404, message: "model 'llava' not found")) }
        let policy = RetryPolicy(failuresBeforeCooldown: 2, cooldown: 600)
        let selector = ModelSelector(mode: .onDevice, local: [setup.local], policy: policy, clock: clock)
        for _ in 0..<3 { _ = try await selector.caption(CaptionRequest(path: setup.photo)) }
        #expect(await setup.ollama.captionRequests.count == 2)
        clock.advance(by: .seconds(601))
        let selection = try await selector.caption(CaptionRequest(path: setup.photo))
        #expect(selection.caption.model.provider == .ollama)
        await setup.stop()
    }

    @Test("an exhausted quota moves on at once, without retrying")
    func quotaIsNotRetried() async throws {
        let setup = try await setUp()
        let clock = ManualClock()
        await setup.gemini.enqueue(.geminiResourceExhausted(retryDelay: "20s", perDayQuota: true))
        let selector = ModelSelector(mode: .gemini, local: [setup.local], gemini: CloudMarked(setup.geminiGenerator), clock: clock)
        let selection = try await selector.caption(CaptionRequest(path: setup.photo))
        #expect(selection.caption.model.provider == .ollama)
        #expect(clock.sleeps.isEmpty)
        #expect(await setup.gemini.captionRequests.count == 1)
        await setup.stop()
    }

    @Test("without the basic description, total failure lists every generator's error")
    func allFail() async throws {
        let setup = try await setUp()
        await setup.ollama.enqueue(.error(status: 400, message: "no vision"))
        let selector = ModelSelector(mode: .onDevice, local: [setup.local], basic: nil, clock: ManualClock())
        do throws(MemoraError) {
            _ = try await selector.caption(CaptionRequest(path: setup.photo))
            Issue.record("expected failure")
        } catch {
            guard error.code == .allGeneratorsFailed else { Issue.record("got \(error)"); return }
            #expect(error.message.contains("no vision"))
            #expect(!error.isRetryable, "a request every model rejected cannot succeed by trying the photo again")
        }
        await setup.stop()
    }
}

/// Presents a loopback generator as a cloud one (pixels leave the device), as it would be
/// with its real remote endpoint, so the privacy rule can be tested without the internet.
struct CloudMarked: CaptionGenerator {
    let base: any CaptionGenerator
    init(_ base: any CaptionGenerator) { self.base = base }
    var modelInfo: ModelInfo {
        var info = base.modelInfo
        info.pixelsLeaveDevice = true
        return info
    }
    func availability() async -> GeneratorAvailability { await base.availability() }
    func generateCaption(for request: CaptionRequest) async throws(MemoraError) -> GeneratedCaption {
        var caption = try await base.generateCaption(for: request)
        caption.model = modelInfo
        return caption
    }
}
