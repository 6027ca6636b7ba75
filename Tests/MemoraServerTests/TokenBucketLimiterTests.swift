@testable import MemoraServer
import Testing

/// The rate limit's token buckets: `burst` requests at once, then `perSecond`; a refused request is
/// told the whole seconds to wait. Time is given to `take`, so nothing here sleeps.
@Suite("TokenBucketLimiter")
struct TokenBucketLimiterTests {
    @Test("a new key may make `burst` requests at once; the next is told to wait")
    func burst() {
        let limiter = TokenBucketLimiter(burst: 3, perSecond: 1)
        #expect((1...3).map { _ in limiter.take("10.0.0.1", now: 1000) } == [nil, nil, nil])
        #expect(limiter.take("10.0.0.1", now: 1000) == 1)
    }

    @Test("the wait is the whole seconds until one token is back, rounded up, and at least 1",
          arguments: [(0.25, 0.0, 4), (0.25, 2.0, 2), (0.25, 3.5, 1), (2.0, 0.0, 1), (100.0, 0.0, 1), (0.1, 0.0, 10), (0.1, 9.0, 1), (0.3, 0.0, 4)])
    func wait(perSecond: Double, elapsed: Double, expected: Int) {
        let limiter = TokenBucketLimiter(burst: 1, perSecond: perSecond)
        #expect(limiter.take("device", now: 50) == nil)
        #expect(limiter.take("device", now: 50 + elapsed) == expected)
    }

    @Test("an empty bucket refills at perSecond: one token after 1/perSecond seconds, not before")
    func refill() {
        let limiter = TokenBucketLimiter(burst: 2, perSecond: 0.5)
        #expect(limiter.take("a", now: 0) == nil)
        #expect(limiter.take("a", now: 0) == nil)
        #expect(limiter.take("a", now: 1) == 1, "half a token is not a request")
        #expect(limiter.take("a", now: 2) == nil, "one token two seconds after the drain")
        #expect(limiter.take("a", now: 2) == 2)
        #expect(limiter.take("a", now: 6) == nil)
        #expect(limiter.take("a", now: 6) == nil, "four seconds refill two tokens")
        #expect(limiter.take("a", now: 6) != nil)
    }

    @Test("a long idle refills the bucket to `burst`, never beyond")
    func refillStopsAtBurst() {
        let limiter = TokenBucketLimiter(burst: 2, perSecond: 10)
        #expect(limiter.take("a", now: 0) == nil)
        let afterAnHour = (1...3).map { _ in limiter.take("a", now: 3600) }
        #expect(afterAnHour == [nil, nil, 1])
    }

    @Test("refused requests take nothing: the wait does not grow while a client keeps asking")
    func refusedTakeNothing() {
        let limiter = TokenBucketLimiter(burst: 1, perSecond: 0.2)
        #expect(limiter.take("a", now: 0) == nil)
        #expect((0..<20).map { _ in limiter.take("a", now: 0) } == Array(repeating: 5, count: 20))
        #expect(limiter.take("a", now: 5) == nil)
    }

    @Test("each key has its own bucket")
    func keysApart() {
        let limiter = TokenBucketLimiter(burst: 1, perSecond: 1)
        #expect(limiter.take("10.0.0.1", now: 0) == nil)
        #expect(limiter.take("10.0.0.1", now: 0) == 1)
        #expect(limiter.take("10.0.0.2", now: 0) == nil)
        #expect(limiter.take("device-a", now: 0) == nil)
    }

    @Test("past 100,000 keys, the buckets idle for 600 seconds or more are dropped and the recent ones kept")
    func staleBucketsDropped() {
        let limiter = TokenBucketLimiter(burst: 5, perSecond: 1)
        for index in 0...100_000 { _ = limiter.take("old-\(index)", now: 0) }
        #expect(limiter.take("recent", now: 300) == nil)
        #expect(limiter.buckets.withLock { $0.count } == 100_002, "nothing is idle for 600 seconds yet")
        #expect(limiter.take("new", now: 700) == nil)
        #expect(limiter.buckets.withLock { $0.keys.sorted() } == ["new", "recent"])
    }

    @Test("a clock that steps back (the middleware reads the wall clock) does not empty a bucket")
    func clockStepsBack() {
        let limiter = TokenBucketLimiter(burst: 5, perSecond: 1)
        #expect(limiter.take("10.0.0.1", now: 1_700_000_000) == nil)
        // NTP or an operator sets the clock back an hour: the bucket still holds 4 tokens.
        #expect(limiter.take("10.0.0.1", now: 1_700_000_000 - 3600) == nil)
        for _ in 0..<3 { #expect(limiter.take("10.0.0.1", now: 1_700_000_000 - 3600) == nil) }
        #expect(limiter.take("10.0.0.1", now: 1_700_000_000 - 3600) == 1, "a request past the burst waits one second")
        #expect(limiter.take("10.0.0.1", now: 1_700_000_001) == nil, "a second after the last time seen, one token is back")
    }

    @Test("a bucket that never refills (perSecond 0) answers with a wait of a day, and does not crash")
    func neverRefills() {
        let limiter = TokenBucketLimiter(burst: 1, perSecond: 0)
        #expect(limiter.take("a", now: 10) == nil)
        #expect(limiter.take("a", now: 20) == 86_400)
    }

    @Test("on the server's own clock (monotonic, from the limiter's start) the burst is allowed and the next request waits")
    func monotonicClock() {
        let limiter = TokenBucketLimiter(burst: 2, perSecond: 0.01)
        #expect(limiter.take("b") == nil && limiter.take("b") == nil)
        let wait = limiter.take("b")
        #expect(wait != nil && wait! >= 99 && wait! <= 100, "one token at 0.01 a second is about 100 s away")
    }
}
