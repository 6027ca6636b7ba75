/// Rows prepared for the dot-product kernels: copied once into a 64-byte aligned buffer, each
/// row padded with zeros to a multiple of 16 floats, the row count padded with zero rows to a
/// multiple of 4, and transformed for the metric so that a distance needs one dot product:
///
/// - cosine: each row divided by its length, so `distance = 1 - dot`;
/// - euclidean: each row minus a common centre (distances do not change, and smaller lengths
///   round less), its squared length kept, so `distance² = |a|² + |b|² - 2 dot`.
///
/// Immutable once made, so workers share it.
final class PaddedRows: Sendable {
    /// The real rows.
    let count: Int
    /// `count` rounded up to a multiple of 4.
    let paddedCount: Int
    /// Floats from one row to the next: the dimension rounded up to a multiple of 16.
    let width: Int
    let metric: DBSCAN.Metric
    /// The first float of row 0.
    // Unchecked: written only by init; the workers only read it.
    nonisolated(unsafe) let base: UnsafeMutablePointer<Float>
    /// Per row (`paddedCount` of them): the squared length under the euclidean metric, 0 under
    /// the cosine metric; `+infinity` for the padding rows, so that they never pass a threshold.
    let columnBias: [Float]

    /// `vectors` prepared for `metric`; under the euclidean metric, centred on `centre` (one
    /// value per column; the same centre for rows that will be compared with each other).
    /// A zero row under the cosine metric has no direction and is refused.
    init(_ vectors: EmbeddingMatrix, metric: DBSCAN.Metric, centre: [Double]? = nil) throws(VisionError) {
        let dimension = vectors.dimension, count = vectors.count
        let paddedCount = (count + 3) / 4 * 4, width = max(16, (dimension + 15) / 16 * 16)
        let total = max(1, paddedCount * width)
        let base = UnsafeMutableRawPointer.allocate(byteCount: total * MemoryLayout<Float>.stride, alignment: 64)
            .bindMemory(to: Float.self, capacity: total)
        base.initialize(repeating: 0, count: total)
        var bias = [Float](repeating: .infinity, count: paddedCount)
        var zeroRow: Int?
        vectors.values.withUnsafeBufferPointer { values in
            for row in 0..<count {
                let source = values.baseAddress! + row * dimension
                let target = base + row * width
                switch metric {
                case .cosine:
                    var squares = 0.0
                    for column in 0..<dimension { squares += Double(source[column]) * Double(source[column]) }
                    guard squares > 0 else {
                        if zeroRow == nil { zeroRow = row }
                        continue
                    }
                    let scale = 1 / squares.squareRoot()
                    for column in 0..<dimension { target[column] = Float(Double(source[column]) * scale) }
                    bias[row] = 0
                case .euclidean:
                    var squares = 0.0
                    for column in 0..<dimension {
                        let value = Float(Double(source[column]) - (centre?[column] ?? 0))
                        target[column] = value
                        squares += Double(value) * Double(value)
                    }
                    bias[row] = Float(squares)
                }
            }
        }
        self.count = count
        self.paddedCount = paddedCount
        self.width = width
        self.metric = metric
        self.base = base
        columnBias = bias
        if let zeroRow {
            throw .invalidEmbedding("row \(zeroRow) is all zeros: it has no direction, so its cosine distance is undefined")
        }
    }

    deinit {
        base.deallocate()
    }

    /// The first float of `row`.
    func row(_ row: Int) -> UnsafePointer<Float> {
        UnsafePointer(base + row * width)
    }

    /// The mean of each column of `vectors` (the euclidean centre).
    static func columnMeans(of vectors: EmbeddingMatrix) -> [Double] {
        var sums = [Double](repeating: 0, count: vectors.dimension)
        guard vectors.count > 0 else { return sums }
        vectors.values.withUnsafeBufferPointer { values in
            for row in 0..<vectors.count {
                for column in 0..<vectors.dimension { sums[column] += Double(values[row * vectors.dimension + column]) }
            }
        }
        return sums.map { $0 / Double(vectors.count) }
    }
}
