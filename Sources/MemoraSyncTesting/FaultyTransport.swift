internal import Foundation
public import MemoraHTTP
internal import MemoraSystem

/// An HTTP transport over real HTTP that, from a seed, loses requests before they are sent, loses
/// answers after the server acted, sends requests twice and delivers old requests late: the
/// network of the convergence property (Docs/Sync.md). Disabled, it passes everything through.
public final class FaultyTransport: HTTPTransport {
    private struct State {
        var random: SeededRandom
        var history: [HTTPRequest] = []
        var enabled = true
        var faults = 0
    }

    private let inner = URLSessionTransport(timeout: .seconds(20))
    private let state: Locked<State>

    /// A transport whose faults follow `seed`.
    public init(seed: UInt64) { state = Locked(State(random: SeededRandom(seed: seed))) }

    /// Turns the faults on or off.
    public func setEnabled(_ enabled: Bool) { state.withLock { $0.enabled = enabled } }

    /// How many faults were injected so far.
    public var faults: Int { state.withLock { $0.faults } }

    /// Sends `request`, perhaps with a fault.
    public func send(_ request: HTTPRequest, progress: HTTPProgress?) async throws(HTTPError) -> HTTPResponse {
        let (roll, replay): (Double, HTTPRequest?) = state.withLock { state in
            state.history.append(request)
            if state.history.count > 40 { state.history.removeFirst() }
            guard state.enabled else { return (1, nil) }
            let roll = Double(state.random.next() >> 11) * 0x1p-53
            let old = state.history[Int(state.random.next() % UInt64(state.history.count))]
            if roll < 0.4 { state.faults += 1 }
            return (roll, old)
        }
        let server = request.redactedURL
        switch roll {
        case ..<0.1:
            throw HTTPError(.connectionFailed, endpoint: server, reason: "dropped before it was sent (simulated)", isRetryable: true)
        case ..<0.2:
            _ = try await inner.send(request)
            throw HTTPError(.connectionFailed, endpoint: server, reason: "the answer was lost (simulated)", isRetryable: true)
        case ..<0.3:
            _ = try await inner.send(request)
            return try await inner.send(request)
        case ..<0.4:
            let answer = try await inner.send(request)
            if let replay { _ = try? await inner.send(replay) }  // an old request arrives late
            return answer
        default:
            return try await inner.send(request, progress: progress)
        }
    }
}
