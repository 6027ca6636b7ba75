/// `count` embedding vectors of `dimension` floats each, stored row-major in one contiguous
/// array: row `i` is `values[i * dimension ..< (i + 1) * dimension]`.
///
/// Every initialiser validates its input: all rows have the same, non-zero length, and every
/// value is finite. A violation is a ``VisionError/Code/invalidEmbedding`` error that names the
/// row. A matrix may have no rows (its dimension is then whatever was given, 0 from `[]`).
///
/// Half floats (IEEE 754 binary16, what the photo index stores) are given as their bit
/// patterns (`UInt16`) and widened exactly to `Float` once: Swift's `Float16` type does not
/// exist on macOS for Intel processors, bit patterns do everywhere.
public struct EmbeddingMatrix: Sendable, Hashable {
    /// The number of rows (vectors).
    public let count: Int
    /// The number of values in each row.
    public let dimension: Int
    /// The values, row after row (`count * dimension` of them).
    public let values: [Float]

    /// A matrix of `rows`, which must all have the same non-zero length and finite values.
    public init(_ rows: [[Float]]) throws(VisionError) {
        let dimension = try Self.commonLength(of: rows.map(\.count))
        var values: [Float] = []
        values.reserveCapacity(rows.count * dimension)
        for row in rows { values.append(contentsOf: row) }
        try self.init(validating: values, count: rows.count, dimension: dimension)
    }

    /// A matrix of half-float rows given as bit patterns; same rules as ``init(_:)``.
    public init(halfFloatRows rows: [[UInt16]]) throws(VisionError) {
        let dimension = try Self.commonLength(of: rows.map(\.count))
        var values: [Float] = []
        values.reserveCapacity(rows.count * dimension)
        for row in rows {
            for bits in row { values.append(Self.float(fromHalf: bits)) }
        }
        try self.init(validating: values, count: rows.count, dimension: dimension)
    }

    /// A matrix over `values`, row after row, each row `dimension` long.
    public init(values: [Float], dimension: Int) throws(VisionError) {
        guard dimension > 0 else { throw .invalidEmbedding("the dimension must be at least 1, not \(dimension)") }
        guard values.count % dimension == 0 else {
            throw .invalidEmbedding("\(values.count) values are not a whole number of rows of \(dimension)")
        }
        try self.init(validating: values, count: values.count / dimension, dimension: dimension)
    }

    /// A matrix over half-float bit patterns, row after row, each row `dimension` long.
    public init(halfFloats: [UInt16], dimension: Int) throws(VisionError) {
        try self.init(values: halfFloats.map(Self.float(fromHalf:)), dimension: dimension)
    }

    private init(validating values: [Float], count: Int, dimension: Int) throws(VisionError) {
        if let index = values.firstIndex(where: { !$0.isFinite }) {
            throw .invalidEmbedding("row \(index / dimension) holds \(values[index]) at column \(index % dimension); every value must be finite")
        }
        self.values = values
        self.count = count
        self.dimension = dimension
    }

    /// Row `index`.
    public subscript(index: Int) -> ArraySlice<Float> {
        precondition(index >= 0 && index < count, "row \(index) is outside 0..<\(count)")
        return values[index * dimension ..< (index + 1) * dimension]
    }

    /// The matrix of the rows at `indices`, in that order.
    public func rows(_ indices: some Sequence<Int>) -> EmbeddingMatrix {
        var subset: [Float] = []
        var rowCount = 0
        for index in indices {
            subset.append(contentsOf: self[index])
            rowCount += 1
        }
        return EmbeddingMatrix(trusted: subset, count: rowCount, dimension: dimension)
    }

    private init(trusted values: [Float], count: Int, dimension: Int) {
        self.values = values
        self.count = count
        self.dimension = dimension
    }

    /// The one length every row has; rows of different lengths or of none are refused.
    private static func commonLength(of lengths: [Int]) throws(VisionError) -> Int {
        guard let first = lengths.first else { return 0 }
        for (row, length) in lengths.enumerated() {
            if length == 0 { throw .invalidEmbedding("row \(row) is empty") }
            if length != first {
                throw .invalidEmbedding("row \(row) has \(length) values where row 0 has \(first); all rows must have the same length")
            }
        }
        return first
    }

    /// The exact `Float` value of an IEEE 754 half float's bit pattern (NaN and infinities kept).
    static func float(fromHalf bits: UInt16) -> Float {
        let sign = UInt32(bits & 0x8000) << 16
        let exponent = UInt32(bits >> 10) & 0x1F
        let fraction = UInt32(bits & 0x03FF)
        switch exponent {
        case 0:  // zero or subnormal: fraction · 2^-24
            let magnitude = Float(fraction) * 0x1p-24
            return sign == 0 ? magnitude : -magnitude
        case 0x1F:  // infinity or NaN
            return Float(bitPattern: sign | 0x7F80_0000 | fraction << 13)
        default:  // rebias the exponent from 15 to 127
            return Float(bitPattern: sign | (exponent + 112) << 23 | fraction << 13)
        }
    }
}
