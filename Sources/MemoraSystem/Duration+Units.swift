extension Duration {
    /// The duration in whole milliseconds (toward zero), saturating at Int64's bounds: what the
    /// server adds to an instant in milliseconds.
    public var wholeMilliseconds: Int64 {
        let (seconds, overflow) = components.seconds.multipliedReportingOverflow(by: 1000)
        if overflow { return components.seconds < 0 ? .min : .max }
        let (total, overflowed) = seconds.addingReportingOverflow(components.attoseconds / 1_000_000_000_000_000)
        return overflowed ? (seconds < 0 ? .min : .max) : total
    }

    /// The duration in whole seconds, a part of a second counted as one (saturating): a wait as a
    /// `Retry-After` header or a message says it, never shorter than asked.
    public var wholeSecondsRoundedUp: Int64 {
        let (seconds, attoseconds) = components
        return attoseconds > 0 && seconds < .max ? seconds + 1 : seconds
    }

    /// `seconds` as a wait: nothing for a negative or NaN, at most a year for a larger or infinite
    /// one (`Duration.seconds(_:)` traps on those), for a wait read from a configuration or a server.
    public static func wait(seconds: Double) -> Duration {
        guard seconds > 0 else { return .zero }
        return .seconds(min(seconds, 365 * 86_400))
    }
}
