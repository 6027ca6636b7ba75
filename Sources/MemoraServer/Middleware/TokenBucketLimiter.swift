internal import MemoraSystem

/// Token buckets by key (an IP address, a device): each holds up to `burst` requests and refills at
/// `perSecond`. A request that finds its bucket empty is told how long to wait (`429`, `Retry-After`).
/// The server's requests are timed on the monotonic clock (``take(_:)``): setting the wall clock
/// neither refills nor drains a bucket.
final class TokenBucketLimiter: Sendable {
    struct Bucket { var tokens: Double; var updated: Double }

    let burst: Double
    let perSecond: Double
    let buckets = Locked<[String: Bucket]>([:])

    /// When the limiter was made: ``take(_:)`` measures time from here, on the monotonic clock.
    private let origin = ContinuousClock.now

    init(burst: Int, perSecond: Double) {
        self.burst = Double(burst)
        self.perSecond = perSecond
    }

    /// Takes a token from `key`'s bucket now, on the monotonic clock; nil when allowed, otherwise
    /// the whole seconds to wait.
    func take(_ key: String) -> Int? {
        let elapsed = (ContinuousClock.now - origin).components
        return take(key, now: Double(elapsed.seconds) + Double(elapsed.attoseconds) * 1e-18)
    }

    /// Takes a token from `key`'s bucket at `now` (seconds on any clock that does not go back; a
    /// step back counts as no time); nil when allowed, otherwise the whole seconds to wait.
    func take(_ key: String, now: Double) -> Int? {
        buckets.withLock { (table: inout [String: Bucket]) -> Int? in
            if table.count > 100_000 { table = table.filter { now - $0.value.updated < 600 } }
            var bucket = table[key] ?? Bucket(tokens: burst, updated: now)
            // A wall clock stepped back refills nothing and drains nothing.
            bucket.tokens = min(burst, bucket.tokens + max(0, now - bucket.updated) * perSecond)
            bucket.updated = max(bucket.updated, now)
            var wait: Int?
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
            } else {
                // At most a day (a bucket that never refills, perSecond 0, waits a day, not forever).
                let seconds = perSecond > 0 ? (1 - bucket.tokens) / perSecond : .infinity
                wait = max(1, Int(min(seconds, 86_400).rounded(.up)))
            }
            table[key] = bucket
            return wait
        }
    }
}
