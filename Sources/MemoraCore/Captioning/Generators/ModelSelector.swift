import Foundation
public import MemoraSystem

/// Chooses which generator captions a photo, following the user's ``CaptionMode``,
/// retrying and falling back along a chain.
///
/// The chain for each mode:
/// - `on-device`: the local generators (those whose pixels stay on this machine), then
///   the basic description. **No generator that sends pixels off the device is ever
///   called**, not even as a fallback: such generators are removed from the chain.
/// - `gemini` / `gpt`: the chosen cloud generator, then the local generators, then the
///   basic description. A cloud provider the user did not choose is never used.
///
/// Per generator: retryable errors (429, 5xx, timeouts, dropped connections) are retried
/// with exponential backoff and jitter, or after the server's `Retry-After`,
/// `retry-after-ms` or Gemini `RetryInfo` delay when it gave one; non-retryable errors
/// (bad key, exhausted quota, safety block, rejected request) move straight to the next
/// generator. A generator that is unavailable, or fails ``RetryPolicy/failuresBeforeCooldown``
/// photos in a row, is skipped for ``RetryPolicy/cooldown`` seconds. When every generator
/// fails, the ``MemoraError/Code/allGeneratorsFailed`` error is retryable only if one of them
/// may succeed later (it was skipped, or its failure was retryable), so the pipeline does not
/// try again a photo that every model refused.
public actor ModelSelector {
    /// What happened with one generator while captioning one photo.
    public struct Attempt: Sendable, Hashable, Codable {
        /// The generator's identifier (`provider:name`).
        public var model: String
        /// `succeeded`, `failed`, `retrying`, `skipped`.
        public var outcome: String
        /// The error or the reason for skipping.
        public var detail: String?
        /// Seconds waited before the next try.
        public var waited: Double
    }

    /// A caption and how it was obtained.
    public struct Selection: Sendable {
        /// The caption.
        public var caption: GeneratedCaption
        /// Every try, in order.
        public var attempts: [Attempt]
    }

    struct GeneratorState {
        var consecutiveFailures = 0
        var coolingDownUntil: Date?
        var checkedAvailability = false
    }

    /// The user's mode.
    public nonisolated let mode: CaptionMode
    let generators: [any CaptionGenerator]
    let policy: RetryPolicy
    let clock: any MemoraClock
    let random: @Sendable () -> Double
    var states: [Int: GeneratorState] = [:]
    var unavailableReasons: [String: String] = [:]

    /// Builds the chain for `mode` from the configured generators.
    /// - Parameters:
    ///   - mode: the user's mode (on-device, gemini or gpt).
    ///   - local: generators that run on this device (Ollama, a local OpenAI-compatible server), in order of preference.
    ///   - gemini: the Gemini generator, used only in `gemini` mode.
    ///   - gpt: the OpenAI-compatible cloud generator, used only in `gpt` mode.
    ///   - basic: the last resort (nil to fail instead of describing).
    ///   - policy: retries and backoff for failures that may pass.
    ///   - clock: the clock backoff waits on (a test clock in tests).
    ///   - random: the jitter source for backoff.
    public init(mode: CaptionMode, local: [any CaptionGenerator] = [], gemini: (any CaptionGenerator)? = nil,
                gpt: (any CaptionGenerator)? = nil, basic: (any CaptionGenerator)? = BasicDescriptionGenerator(),
                policy: RetryPolicy = RetryPolicy(), clock: any MemoraClock = SystemClock(),
                random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        var chain: [any CaptionGenerator] = []
        switch mode {
        case .onDevice: break
        case .gemini: if let gemini { chain.append(gemini) }
        case .gpt: if let gpt { chain.append(gpt) }
        }
        chain += local
        if let basic { chain.append(basic) }
        // The privacy rule: only the cloud generator the user chose may send pixels away.
        let chosenCloud = chain.first.flatMap { mode.isCloud && $0.modelInfo.pixelsLeaveDevice ? $0.modelInfo.identifier : nil }
        self.generators = chain.enumerated().filter { index, generator in
            !generator.modelInfo.pixelsLeaveDevice || (index == 0 && generator.modelInfo.identifier == chosenCloud)
        }.map(\.element)
        self.mode = mode
        self.policy = policy
        self.clock = clock
        self.random = random
    }

    /// The generators in the order they are tried.
    public nonisolated var chain: [ModelInfo] { generators.map(\.modelInfo) }

    /// Whether the chain ends with the basic description (the fallback the user allowed).
    public nonisolated var allowsBasicDescription: Bool { generators.contains { $0.modelInfo.provider == .basicDescription } }

    /// Checks, before anything is written, that a model can run: the first generator other than
    /// the basic description that says it is available. Returns it (nil when none is and the chain
    /// allows the basic description); throws ``MemoraError/Code/noModel`` with each generator's
    /// reason when none is and the basic description is not allowed.
    @discardableResult
    public func requireModel() async throws(MemoraError) -> ModelInfo? {
        var reasons: [String] = []
        for (index, generator) in generators.enumerated() where generator.modelInfo.provider != .basicDescription {
            var state = states[index] ?? GeneratorState()
            switch await generator.availability() {
            case .available:
                state.checkedAvailability = true
                states[index] = state
                return generator.modelInfo
            case .unavailable(let reason):
                unavailableReasons[generator.modelInfo.displayName] = reason
                reasons.append("\(generator.modelInfo.displayName): \(reason)")
            }
        }
        guard allowsBasicDescription else {
            throw .noModel(reasons.isEmpty ? ["the mode \(mode.rawValue) has no model configured"] : reasons)
        }
        return nil
    }

    /// The generators found unavailable so far, with the reason (to tell the user why a model was not used).
    public var unavailable: [String: String] { unavailableReasons }

    /// Captions `request` with the first generator in the chain that succeeds.
    public func caption(_ request: CaptionRequest) async throws(MemoraError) -> Selection {
        var attempts: [Attempt] = []
        var errors: [String] = []
        // Whether a generator may succeed with this photo later: it was skipped (unavailable, cooling
        // down) or its failure was retryable. Otherwise trying the photo again cannot help.
        var mayLaterSucceed = false
        for (index, generator) in generators.enumerated() {
            let id = generator.modelInfo.identifier
            var state = states[index] ?? GeneratorState()
            if let until = state.coolingDownUntil, clock.now() < until {
                attempts.append(Attempt(model: id, outcome: "skipped", detail: "cooling down until \(until)", waited: 0))
                mayLaterSucceed = true
                continue
            }
            if state.coolingDownUntil != nil {
                state = GeneratorState()  // the cool-down is over: check again from scratch
            }
            if !state.checkedAvailability {
                if case .unavailable(let reason) = await generator.availability() {
                    unavailableReasons[generator.modelInfo.displayName] = reason
                    state.coolingDownUntil = clock.now().addingTimeInterval(policy.cooldown)
                    states[index] = state
                    attempts.append(Attempt(model: id, outcome: "skipped", detail: reason, waited: 0))
                    errors.append("\(generator.modelInfo.displayName): \(reason)")
                    mayLaterSucceed = true
                    continue
                }
                state.checkedAvailability = true
            }
            var attempt = 1
            while true {
                if Task.isCancelled { states[index] = state; throw .cancelled }
                do {
                    let caption = try await generator.generateCaption(for: request)
                    state.consecutiveFailures = 0
                    states[index] = state
                    attempts.append(Attempt(model: id, outcome: "succeeded", detail: nil, waited: 0))
                    return Selection(caption: caption, attempts: attempts)
                } catch {
                    if error.code == .imageUnreadable || error.code == .cancelled { states[index] = state; throw error }
                    let serverDelay = error.retryAfter.map { $0 / .seconds(1) }  // the policy counts seconds
                    if error.isRetryable, attempt < policy.maxAttempts, (serverDelay ?? 0) <= policy.maxServerDelay {
                        let wait = serverDelay ?? policy.backoff(retry: attempt, random: random())
                        attempts.append(Attempt(model: id, outcome: "retrying", detail: error.description, waited: wait))
                        do { try await clock.sleep(for: .wait(seconds: wait)) } catch { states[index] = state; throw .cancelled }
                        attempt += 1
                        continue
                    }
                    attempts.append(Attempt(model: id, outcome: "failed", detail: error.description, waited: 0))
                    errors.append(error.description)
                    mayLaterSucceed = mayLaterSucceed || error.isRetryable
                    state.consecutiveFailures += 1
                    if let serverDelay, serverDelay > policy.maxServerDelay {
                        state.coolingDownUntil = clock.now().addingTimeInterval(serverDelay)
                    } else if state.consecutiveFailures >= policy.failuresBeforeCooldown || !error.isRecoverableForNextPhoto {
                        state.coolingDownUntil = clock.now().addingTimeInterval(policy.cooldown)
                    }
                    states[index] = state
                    break
                }
            }
        }
        throw .allGeneratorsFailed(errors, isRetryable: mayLaterSucceed)
    }
}

extension MemoraError {
    /// Errors that concern the generator rather than the photo: the next photo would fail the same way.
    var isRecoverableForNextPhoto: Bool {
        ![.unauthorized, .quotaExhausted, .unavailable].contains(code)
    }
}
