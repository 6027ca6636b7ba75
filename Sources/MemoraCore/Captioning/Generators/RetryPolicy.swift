/// How the model selector retries and when it gives up on a generator for a while.
public struct RetryPolicy: Sendable, Hashable {
    /// Attempts per generator for one photo (the first try included).
    public var maxAttempts: Int
    /// The first backoff delay, in seconds; it doubles with each retry.
    public var baseDelay: Double
    /// The longest backoff delay, in seconds.
    public var maxDelay: Double
    /// The jitter, as a fraction: a delay d becomes a random value in d·(1−jitter)...d·(1+jitter).
    public var jitter: Double
    /// The longest server-requested wait (`Retry-After`) Memora honours; beyond it the
    /// selector moves on to the next generator and cools this one down for the requested time.
    public var maxServerDelay: Double
    /// Photos in a row a generator may fail before it is skipped for ``cooldown`` seconds.
    public var failuresBeforeCooldown: Int
    /// How long a failing or unavailable generator is skipped, in seconds.
    public var cooldown: Double

    /// Creates a policy; the defaults suit the public APIs' documented limits.
    public init(maxAttempts: Int = 3, baseDelay: Double = 1, maxDelay: Double = 30, jitter: Double = 0.2,
                maxServerDelay: Double = 60, failuresBeforeCooldown: Int = 3, cooldown: Double = 300) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = max(0, baseDelay)
        self.maxDelay = max(0, maxDelay)
        self.jitter = min(max(jitter, 0), 1)
        self.maxServerDelay = max(0, maxServerDelay)
        self.failuresBeforeCooldown = max(1, failuresBeforeCooldown)
        self.cooldown = max(0, cooldown)
    }

    /// The backoff before retry number `retry` (1 for the first retry), with `random` in 0..<1 choosing the jitter.
    public func backoff(retry: Int, random: Double) -> Double {
        let exponent = Double(max(0, retry - 1))
        let plain = min(maxDelay, baseDelay * pow2(exponent))
        return plain * (1 - jitter + 2 * jitter * min(max(random, 0), 1))
    }

    private func pow2(_ exponent: Double) -> Double {
        var result = 1.0
        for _ in 0..<Int(min(exponent, 62)) { result *= 2 }
        return result
    }
}
