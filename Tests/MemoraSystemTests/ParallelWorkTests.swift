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
}
