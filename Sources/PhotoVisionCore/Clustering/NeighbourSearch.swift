internal import Dispatch
internal import Foundation
internal import MemoraSystem

/// What a worker does with each pair of points found within epsilon.
protocol PairSink {
    /// Called once for each pair within epsilon (`i` a row of the first set, `j` of the second;
    /// `i < j` in the symmetric search), with its distance.
    mutating func add(_ i: Int, _ j: Int, distance: Float)
}

/// The pairs of points within epsilon, found tile by tile on every core, never holding an
/// n x n matrix: each worker takes the next tile of ``tileRows`` x ``tileRows`` rows from a shared
/// counter, computes its dot products with the ``DotKernel`` into one 256 KiB buffer, compares
/// them with the threshold 16 at a time, and hands each pair within epsilon to its own
/// ``PairSink``. In the symmetric search only tiles on or above the diagonal are computed.
struct NeighbourSearch: Sendable {
    /// Rows (and columns) of one tile.
    static let tileRows = 256

    let a: PaddedRows
    let b: PaddedRows
    let symmetric: Bool
    /// One group per row of `a` (and of `b`, the same rows) in the symmetric search: pairs of
    /// the same group are skipped.
    let groups: [Int]?
    let kernel: DotKernel
    /// A pair is within epsilon when `alpha * dot - columnBias[j] >= rowThreshold[i]`: under the
    /// cosine metric `dot >= 1 - epsilon`; under the euclidean one `2 dot - |b_j|² >= |a_i|² - epsilon²`,
    /// that is `|a_i - b_j|² <= epsilon²`.
    let alpha: Float
    let rowThreshold: [Float]
    /// `b.columnBias`, padded with `+infinity` past the last tile's end.
    let columnBias: [Float]

    /// The search among the rows of `rows`, each pair once.
    init(among rows: PaddedRows, epsilon: Double, groups: [Int]?, kernel: DotKernel) {
        self.init(a: rows, b: rows, symmetric: true, epsilon: epsilon, groups: groups, kernel: kernel)
    }

    /// The search between the rows of `a` and those of `b` (prepared for the same metric, and
    /// centred alike under the euclidean one).
    init(between a: PaddedRows, and b: PaddedRows, epsilon: Double, kernel: DotKernel) {
        self.init(a: a, b: b, symmetric: false, epsilon: epsilon, groups: nil, kernel: kernel)
    }

    private init(a: PaddedRows, b: PaddedRows, symmetric: Bool, epsilon: Double, groups: [Int]?, kernel: DotKernel) {
        self.a = a
        self.b = b
        self.symmetric = symmetric
        self.groups = groups
        self.kernel = kernel
        switch a.metric {
        case .cosine:
            alpha = 1
            rowThreshold = [Float](repeating: Float(1 - epsilon), count: a.paddedCount)
        case .euclidean:
            alpha = 2
            rowThreshold = a.columnBias.map { Float(Double($0) - epsilon * epsilon) }
        }
        columnBias = b.columnBias + [Float](repeating: .infinity, count: Self.tileRows + 16)
    }

    /// Runs the search on at most `threads` workers, each with the sink `makeSink` returns;
    /// returns the sinks. Which worker sees which pair depends on timing; the pairs do not.
    func run<Sink: PairSink & Sendable>(threads: Int, makeSink: @Sendable () -> Sink) -> [Sink] {
        let rowBlocks = (a.paddedCount + Self.tileRows - 1) / Self.tileRows
        let columnBlocks = (b.paddedCount + Self.tileRows - 1) / Self.tileRows
        var tiles: [(Int, Int)] = []
        tiles.reserveCapacity(symmetric ? rowBlocks * (rowBlocks + 1) / 2 : rowBlocks * columnBlocks)
        for rowBlock in 0..<rowBlocks {
            for columnBlock in (symmetric ? rowBlock : 0)..<columnBlocks { tiles.append((rowBlock, columnBlock)) }
        }
        let workers = max(1, min(threads, tiles.count))
        let counter = WorkCounter()
        let results = ResultSlots<Sink>(count: workers)
        let tileList = tiles
        DispatchQueue.concurrentPerform(iterations: workers) { slot in
            let dots = UnsafeMutableRawPointer.allocate(
                byteCount: Self.tileRows * Self.tileRows * MemoryLayout<Float>.stride, alignment: 64
            ).bindMemory(to: Float.self, capacity: Self.tileRows * Self.tileRows)
            dots.initialize(repeating: 0, count: Self.tileRows * Self.tileRows)
            defer { dots.deallocate() }
            var sink = makeSink()
            while let tile = counter.next(below: tileList.count) {
                scan(rowBlock: tileList[tile].0, columnBlock: tileList[tile].1, dots: dots, into: &sink)
            }
            results[slot] = sink
        }
        return (0..<workers).compactMap { results[$0] }
    }

    /// The distance of a pair from its dot product.
    @inline(__always)
    func distance(_ dot: Float, _ i: Int, _ j: Int) -> Float {
        switch a.metric {
        case .cosine: 1 - dot
        case .euclidean: max(0, a.columnBias[i] + b.columnBias[j] - 2 * dot).squareRoot()
        }
    }

    private func scan<Sink: PairSink>(rowBlock: Int, columnBlock: Int, dots: UnsafeMutablePointer<Float>, into sink: inout Sink) {
        let tile = Self.tileRows
        let rowStart = rowBlock * tile, columnStart = columnBlock * tile
        let rows = min(tile, a.paddedCount - rowStart), columns = min(tile, b.paddedCount - columnStart)
        kernel.tile(a.row(rowStart), rows: rows, b.row(columnStart), rows: columns, width: a.width, into: dots, stride: tile)

        let diagonal = symmetric && rowBlock == columnBlock
        let alpha = alpha
        columnBias.withUnsafeBufferPointer { bias in
            for row in 0..<rows {
                let i = rowStart + row
                guard i < a.count else { break }
                let threshold = SIMD16(repeating: rowThreshold[i])
                let rowDots = dots + row * tile
                // On the diagonal, columns below it are skipped in whole groups of 16, then one by one.
                var column = diagonal ? (row + 1) / 16 * 16 : 0
                while column < columns {
                    // Past `columns`, the buffer holds an earlier tile's values, and the biases are +infinity.
                    let values = UnsafeRawPointer(rowDots + column).loadUnaligned(as: SIMD16<Float>.self)
                    let biases = UnsafeRawPointer(bias.baseAddress! + columnStart + column).loadUnaligned(as: SIMD16<Float>.self)
                    let hits = values * alpha - biases .>= threshold
                    if any(hits) {
                        for lane in 0..<16 where hits[lane] {
                            let j = columnStart + column + lane
                            if diagonal && j <= i { continue }
                            if let groups, groups[i] == groups[j] { continue }
                            sink.add(i, j, distance: distance(values[lane], i, j))
                        }
                    }
                    column += 16
                }
            }
        }
    }
}
