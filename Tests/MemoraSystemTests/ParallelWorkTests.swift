import Foundation
import MemoraSystem
import Testing

@Suite("Work shared between threads")
struct ParallelWorkTests {
    struct Stop: Error, Equatable { var index: Int }

    @Test("every index runs once, the results come back in the indices' order, on one worker or several")
    func order() {
        let ran = ResultSlots<Int>(count: 500)
        for workers in [1, 2, 8] {
            let squares = ParallelWork.map(500, workers: workers) { (index: Int) -> Int in
                ran[index] = (ran[index] ?? 0) + 1
                return index * index
            }
            #expect(squares == (0..<500).map { $0 * $0 })
        }
        #expect((0..<500).allSatisfy { ran[$0] == 3 })
        #expect(ParallelWork.map(0, workers: 4) { $0 }.isEmpty)
    }

    @Test("the error of the lowest index that failed is thrown, whichever worker met it first")
    func firstError() {
        for workers in [1, 2, 8] {
            #expect(throws: Stop(index: 17)) {
                _ = try ParallelWork.map(100, workers: workers) { (index: Int) throws(Stop) -> Int in
                    if index == 17 || index == 60 { throw Stop(index: index) }
                    return index
                }
            }
        }
    }

    @Test("a map inside another runs its work one at a time (so work that should use every core runs outside any other map)")
    func nested() {
        let running = Locked((now: 0, most: 0))
        let inner = ParallelWork.map(2, workers: 2) { (outer: Int) -> [Int] in
            guard outer == 1 else { return [] }
            return ParallelWork.map(4, workers: 4) { (index: Int) -> Int in
                running.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
                usleep(50_000)
                running.withLock { $0.now -= 1 }
                return index
            }
        }
        #expect(inner[1] == [0, 1, 2, 3])
        #expect(running.withLock { $0.most } == 1)
    }
}
