public import Foundation

/// Time, injected so retries, cool-downs and pauses are tested without sleeping.
public protocol CaptionClock: Sendable {
    /// The current time.
    func now() -> Date
    /// Waits `seconds`; throws `CancellationError` when the task is cancelled.
    func sleep(seconds: Double) async throws
}

/// The real clock.
public struct SystemClock: CaptionClock {
    /// Creates the system clock.
    public init() {}

    public func now() -> Date { Date() }

    public func sleep(seconds: Double) async throws {
        guard seconds > 0 else { return try Task.checkCancellation() }
        try await Task.sleep(nanoseconds: UInt64(min(seconds, 86_400) * 1_000_000_000))
    }
}
