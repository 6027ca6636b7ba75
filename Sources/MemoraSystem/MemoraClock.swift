public import Foundation

/// Where Memora reads the time: the wall time it records (a caption's date, a row's `updated_at`, a
/// token's expiry) and the waits it makes (retries, pauses, polling), measured on the monotonic
/// clock. Injected wherever time is read, so tests and simulations move time instead of sleeping
/// (``ManualClock``); ``SystemClock`` is the real one.
public protocol MemoraClock: Sendable {
    /// The wall time now.
    func now() -> Date
    /// Waits `duration` on the monotonic clock (a wall clock stepped back or forward does not change
    /// it); throws `CancellationError` when the task is cancelled.
    func sleep(for duration: Duration) async throws
}

extension MemoraClock {
    /// The wall time now, in milliseconds since 1970 UTC, to the nearest: how Memora's databases and
    /// its sync protocol keep an instant.
    public func milliseconds() -> Int64 { Int64((now().timeIntervalSince1970 * 1000).rounded()) }
}

/// The real clock: `Date()` for the wall time, `ContinuousClock` for waits (at most a day at a time).
public struct SystemClock: MemoraClock {
    /// The system's clock.
    public init() {}

    public func now() -> Date { Date() }

    public func sleep(for duration: Duration) async throws {
        guard duration > .zero else { return try Task.checkCancellation() }
        try await Task.sleep(for: min(duration, Duration.seconds(86_400)), clock: .continuous)
    }
}

/// A clock moved by hand: `sleep` records the wait and moves time forward at once, and ``advance(by:)``
/// moves it without one, so retries, cool-downs, pauses and token lifetimes are tested in
/// microseconds, and a simulation runs days of a device's life in seconds.
public final class ManualClock: MemoraClock {
    /// The current time and every wait asked for so far.
    private let state: Locked<State>
    private let onSleep: (@Sendable (Duration) -> Void)?

    private struct State {
        var current: Date
        var sleeps: [Duration] = []
    }

    /// A clock starting at `start`; `onSleep` runs after each sleep (to change the world mid-pause).
    public init(start: Date = Date(timeIntervalSince1970: 1_800_000_000), onSleep: (@Sendable (Duration) -> Void)? = nil) {
        state = Locked(State(current: start))
        self.onSleep = onSleep
    }

    public func now() -> Date { state.withLock { $0.current } }

    public func sleep(for duration: Duration) async throws {
        try Task.checkCancellation()
        state.withLock { state in
            state.sleeps.append(duration)
            state.current = state.current.addingTimeInterval(max(0, duration / .seconds(1)))
        }
        onSleep?(duration)
    }

    /// Moves time forward (or back, with a negative duration: a wall clock stepped back) without a sleep.
    public func advance(by duration: Duration) {
        state.withLock { $0.current = $0.current.addingTimeInterval(duration / .seconds(1)) }
    }

    /// Every wait asked for, in order.
    public var sleeps: [Duration] { state.withLock { $0.sleeps } }
}
