internal import Dispatch
internal import Foundation

/// Every pair of points within epsilon of each other, as compact lists: point indices as
/// `UInt32`, interleaved (i, j), in chunks of at most a million pairs (so no list is ever
/// copied to grow past that), in no particular order. 8 bytes a pair, 12 with its distance.
struct NeighbourPairs: Sendable {
    /// Interleaved indices `i, j`: `i < j` from ``find(in:epsilon:groups:recordsDistances:kernel:threads:)``;
    /// `i` a row of `a` and `j` a row of `b` from ``find(between:and:epsilon:recordsDistances:kernel:threads:)``.
    var chunks: [[UInt32]] = []
    /// The distance of each pair, chunk for chunk, when they were asked for.
    var distances: [[Float]] = []
    /// How many neighbours each point has, itself not counted (the symmetric search only).
    var degrees: [UInt32] = []

    /// The number of pairs.
    var count: Int { chunks.reduce(0) { $0 + $1.count / 2 } }

    /// Calls `body(i, j)` for every pair.
    func forEach(_ body: (Int, Int) -> Void) {
        for chunk in chunks {
            chunk.withUnsafeBufferPointer { pairs in
                var index = 0
                while index < pairs.count {
                    body(Int(pairs[index]), Int(pairs[index + 1]))
                    index += 2
                }
            }
        }
    }

    /// Calls `body(i, j, distance)` for every pair (the distances must have been recorded).
    func forEachWithDistance(_ body: (Int, Int, Float) -> Void) {
        for (chunk, distances) in zip(chunks, distances) {
            chunk.withUnsafeBufferPointer { pairs in
                distances.withUnsafeBufferPointer { distances in
                    for pair in 0..<distances.count {
                        body(Int(pairs[2 * pair]), Int(pairs[2 * pair + 1]), distances[pair])
                    }
                }
            }
        }
    }

    /// The pairs within `epsilon` among the rows of `rows`, each pair once (`i < j`); points of
    /// the same group (when `groups` is given) are never paired.
    ///
    /// The similarity matrix is computed in tiles of ``tileRows`` x ``tileRows`` on or above
    /// the diagonal only (the distance is symmetric), by `threads` workers that take the next
    /// tile from a shared counter; each worker keeps one tile of dot products (256 KiB), its own
    /// pair lists and its own neighbour counts, never an n x n matrix.
    static func find(
        in rows: PaddedRows, epsilon: Double, groups: [Int]?, recordsDistances: Bool, kernel: DotKernel, threads: Int
    ) -> NeighbourPairs {
        let blocks = (rows.paddedCount + tileRows - 1) / tileRows
        var tiles: [(Int, Int)] = []
        tiles.reserveCapacity(blocks * (blocks + 1) / 2)
        for rowBlock in 0..<blocks {
            for columnBlock in rowBlock..<blocks { tiles.append((rowBlock, columnBlock)) }
        }
        let search = Search(
            a: rows, b: rows, symmetric: true, epsilon: epsilon, groupsA: groups, groupsB: groups,
            recordsDistances: recordsDistances, kernel: kernel)
        return search.run(tiles, threads: threads)
    }

    /// The pairs within `epsilon` between a row of `a` and a row of `b` (both prepared for the
    /// same metric, and centred alike under the euclidean one), with their distances when asked.
    static func find(
        between a: PaddedRows, and b: PaddedRows, epsilon: Double, recordsDistances: Bool, kernel: DotKernel, threads: Int
    ) -> NeighbourPairs {
        let rowBlocks = (a.paddedCount + tileRows - 1) / tileRows, columnBlocks = (b.paddedCount + tileRows - 1) / tileRows
        var tiles: [(Int, Int)] = []
        for rowBlock in 0..<rowBlocks {
            for columnBlock in 0..<columnBlocks { tiles.append((rowBlock, columnBlock)) }
        }
        let search = Search(
            a: a, b: b, symmetric: false, epsilon: epsilon, groupsA: nil, groupsB: nil,
            recordsDistances: recordsDistances, kernel: kernel)
        return search.run(tiles, threads: threads)
    }

    /// Rows (and columns) of one tile.
    static let tileRows = 256
    /// Pairs in one chunk.
    static let chunkPairs = 1 << 20
}

/// One search: the tiles, and how a dot product becomes a hit and a distance.
private struct Search: Sendable {
    let a: PaddedRows
    let b: PaddedRows
    let symmetric: Bool
    let groupsA: [Int]?
    let groupsB: [Int]?
    let recordsDistances: Bool
    let kernel: DotKernel
    /// A pair is a hit when `alpha * dot - columnBias[j] >= rowThreshold[i]`: under the cosine
    /// metric `dot >= 1 - epsilon`; under the euclidean one `2 dot - |b_j|² >= |a_i|² - epsilon²`,
    /// that is `|a_i - b_j|² <= epsilon²`.
    let alpha: Float
    let rowThreshold: [Float]
    /// `b.columnBias`, padded with `+infinity` to a multiple of 16 past the last tile's end.
    let columnBias: [Float]

    init(
        a: PaddedRows, b: PaddedRows, symmetric: Bool, epsilon: Double, groupsA: [Int]?, groupsB: [Int]?,
        recordsDistances: Bool, kernel: DotKernel
    ) {
        self.a = a
        self.b = b
        self.symmetric = symmetric
        self.groupsA = groupsA
        self.groupsB = groupsB
        self.recordsDistances = recordsDistances
        self.kernel = kernel
        switch a.metric {
        case .cosine:
            alpha = 1
            rowThreshold = [Float](repeating: Float(1 - epsilon), count: a.paddedCount)
        case .euclidean:
            alpha = 2
            rowThreshold = a.columnBias.map { Float(Double($0) - epsilon * epsilon) }
        }
        columnBias = b.columnBias + [Float](repeating: .infinity, count: NeighbourPairs.tileRows + 16)
    }

    func run(_ tiles: [(Int, Int)], threads: Int) -> NeighbourPairs {
        let workers = max(1, min(threads, tiles.count))
        let counter = TileCounter()
        let results = ResultSlots<Worker.Result>(count: workers)
        DispatchQueue.concurrentPerform(iterations: workers) { slot in
            var worker = Worker(search: self)
            while let tile = counter.next(below: tiles.count) {
                worker.process(rowBlock: tiles[tile].0, columnBlock: tiles[tile].1)
            }
            results[slot] = worker.finish()
        }
        var pairs = NeighbourPairs()
        if symmetric { pairs.degrees = [UInt32](repeating: 0, count: a.count) }
        for slot in 0..<workers {
            guard let result = results[slot] else { continue }
            pairs.chunks += result.chunks
            pairs.distances += result.distances
            if symmetric {
                for point in 0..<a.count { pairs.degrees[point] &+= result.degrees[point] }
            }
        }
        return pairs
    }

    /// Distance of a pair from its dot product.
    @inline(__always)
    func distance(_ dot: Float, _ i: Int, _ j: Int) -> Float {
        switch a.metric {
        case .cosine: 1 - dot
        case .euclidean: max(0, a.columnBias[i] + b.columnBias[j] - 2 * dot).squareRoot()
        }
    }
}

/// One worker's tile of dot products, pair lists and neighbour counts.
private struct Worker {
    struct Result: Sendable {
        var chunks: [[UInt32]]
        var distances: [[Float]]
        var degrees: [UInt32]
    }

    let search: Search
    let scratch: UnsafeMutablePointer<Float>
    var chunks: [[UInt32]] = []
    var distanceChunks: [[Float]] = []
    var current: [UInt32] = []
    var currentDistances: [Float] = []
    var degrees: [UInt32]

    init(search: Search) {
        self.search = search
        let tile = NeighbourPairs.tileRows
        scratch = UnsafeMutableRawPointer.allocate(byteCount: tile * tile * MemoryLayout<Float>.stride, alignment: 64)
            .bindMemory(to: Float.self, capacity: tile * tile)
        scratch.initialize(repeating: 0, count: tile * tile)
        degrees = [UInt32](repeating: 0, count: search.symmetric ? search.a.count : 0)
    }

    mutating func finish() -> Result {
        scratch.deallocate()
        if !current.isEmpty {
            chunks.append(current)
            distanceChunks.append(currentDistances)
        }
        return Result(chunks: chunks, distances: search.recordsDistances ? distanceChunks : [], degrees: degrees)
    }

    mutating func process(rowBlock: Int, columnBlock: Int) {
        let tile = NeighbourPairs.tileRows
        let a = search.a, b = search.b
        let rowStart = rowBlock * tile, columnStart = columnBlock * tile
        let rows = min(tile, a.paddedCount - rowStart), columns = min(tile, b.paddedCount - columnStart)
        search.kernel.tile(a.row(rowStart), rows: rows, b.row(columnStart), rows: columns, width: a.width, into: scratch, stride: tile)

        let diagonal = search.symmetric && rowBlock == columnBlock
        let alpha = search.alpha
        let groupsA = search.groupsA, groupsB = search.groupsB
        search.columnBias.withUnsafeBufferPointer { bias in
            for row in 0..<rows {
                let i = rowStart + row
                guard i < a.count else { break }
                let threshold = search.rowThreshold[i]
                let dots = scratch + row * tile
                // Columns below the diagonal are skipped in whole groups of 16, then one by one.
                var column = diagonal ? (row + 1) / 16 * 16 : 0
                while column < columns {
                    let values = UnsafeRawPointer(dots + column).loadUnaligned(as: SIMD16<Float>.self)
                    let biases = UnsafeRawPointer(bias.baseAddress! + columnStart + column).loadUnaligned(as: SIMD16<Float>.self)
                    let hits = values * alpha - biases .>= SIMD16(repeating: threshold)
                    if any(hits) {
                        for lane in 0..<16 where hits[lane] {
                            let j = columnStart + column + lane
                            if diagonal && j <= i { continue }
                            if let groupsA, let groupsB, groupsA[i] == groupsB[j] { continue }
                            record(i, j, dot: values[lane])
                        }
                    }
                    column += 16
                }
            }
        }
    }

    @inline(__always)
    mutating func record(_ i: Int, _ j: Int, dot: Float) {
        if current.count == 2 * NeighbourPairs.chunkPairs {
            chunks.append(current)
            distanceChunks.append(currentDistances)
            current = []
            current.reserveCapacity(2 * NeighbourPairs.chunkPairs)
            currentDistances = []
            if search.recordsDistances { currentDistances.reserveCapacity(NeighbourPairs.chunkPairs) }
        }
        current.append(UInt32(truncatingIfNeeded: i))
        current.append(UInt32(truncatingIfNeeded: j))
        if search.recordsDistances { currentDistances.append(search.distance(dot, i, j)) }
        if search.symmetric {
            degrees[i] &+= 1
            degrees[j] &+= 1
        }
    }
}

/// The next tile for whichever worker asks first.
private final class TileCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var nextTile = 0

    func next(below limit: Int) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard nextTile < limit else { return nil }
        nextTile += 1
        return nextTile - 1
    }
}

/// One result per worker, each written by its worker only.
final class ResultSlots<Value: Sendable>: @unchecked Sendable {
    private let slots: UnsafeMutablePointer<Value?>
    private let count: Int

    init(count: Int) {
        self.count = count
        slots = .allocate(capacity: count)
        slots.initialize(repeating: nil, count: count)
    }

    deinit {
        slots.deinitialize(count: count)
        slots.deallocate()
    }

    subscript(slot: Int) -> Value? {
        get { slots[slot] }
        set { slots[slot] = newValue }
    }
}
