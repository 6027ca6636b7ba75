import Foundation
import Testing
@testable import PhotoVision

@Suite("Work shared between threads")
struct WorkSharingTests {
    @Test("every index runs once, the results come back in the indices' order, on one worker or several")
    func order() throws {
        let ran = ResultSlots<Int>(count: 500)
        for workers in [1, 2, 8] {
            let squares = try inParallel(500, workers: workers) { (index: Int) throws(VisionError) -> Int in
                ran[index] = (ran[index] ?? 0) + 1
                return index * index
            }
            #expect(squares == (0..<500).map { $0 * $0 })
        }
        #expect((0..<500).allSatisfy { ran[$0] == 3 })
        #expect(try inParallel(0, workers: 4) { (index: Int) throws(VisionError) -> Int in index }.isEmpty)
    }

    @Test("the error of the lowest index that failed is thrown, whichever worker met it first")
    func firstError() {
        for workers in [1, 2, 8] {
            #expect(throws: VisionError.inferenceFailed("batch 17")) {
                _ = try inParallel(100, workers: workers) { (index: Int) throws(VisionError) -> Int in
                    if index == 17 || index == 60 { throw .inferenceFailed("batch \(index)") }
                    return index
                }
            }
        }
    }
}
