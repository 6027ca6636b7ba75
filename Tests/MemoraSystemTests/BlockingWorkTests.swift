import Foundation
import MemoraSystem
import Testing

@Suite("Blocking work off the cooperative pool")
struct BlockingWorkTests {
    struct Refused: Error, Equatable {}

    @Test("blocking work holds no thread of the cooperative pool: more pieces than it has threads wait, and a task on the pool still runs and releases them")
    func offThePool() async throws {
        // The pool has a thread per core. If the pieces ran on it, they would hold every thread, the
        // task that signals them could not run, and each wait would end by its timeout instead.
        let count = ProcessInfo.processInfo.activeProcessorCount + 2
        let work = BlockingWork(limit: count)
        let release = DispatchSemaphore(value: 0)
        let released = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<count {
                group.addTask { await work.run { release.wait(timeout: .now() + 20) == .success } }
            }
            let start = ContinuousClock.now
            while work.running < count {
                try #require(ContinuousClock.now - start < .seconds(20), "the pieces did not all start")
                try await Task.sleep(for: .milliseconds(10))
            }
            for _ in 0..<count { release.signal() }
            var released: [Bool] = []
            for try await outcome in group { released.append(outcome) }
            return released
        }
        #expect(released == Array(repeating: true, count: count))
        #expect(work.running == 0)
    }

    @Test("at most `limit` pieces run at once; the others wait their turn and all run")
    func limit() async {
        let work = BlockingWork(limit: 2)
        let counts = Locked((now: 0, most: 0))
        let results = await withTaskGroup(of: Int.self) { group in
            for index in 0..<8 {
                group.addTask {
                    await work.run {
                        counts.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
                        Thread.sleep(forTimeInterval: 0.03)
                        counts.withLock { $0.now -= 1 }
                        return index
                    }
                }
            }
            var results: [Int] = []
            for await index in group { results.append(index) }
            return results
        }
        #expect(results.sorted() == Array(0..<8))
        #expect(counts.withLock { $0.most } == 2)
        #expect(work.running == 0)
    }

    @Test("a piece's error comes back typed, and its place is freed")
    func error() async {
        let work = BlockingWork(limit: 1)
        await #expect(throws: Refused()) {
            try await work.run { () throws(Refused) -> Int in throw Refused() }
        }
        #expect(work.running == 0)
        #expect(await work.run { 42 } == 42)
        #expect(BlockingWork(limit: 0).limit == 1)
    }
}
