/// A small, documented, portable pseudo-random generator: SplitMix64
/// (Steele, Lea and Flood, 2014), as published by Sebastiano Vigna.
///
/// Collage selection, the sync convergence simulation, the tests and the benchmarks use it, so a
/// seed gives the same sequence on every run and every platform; the system generator gives no
/// such promise. Not for cryptography.
package struct SeededRandom: RandomNumberGenerator, Sendable, Hashable {
    /// The generator's whole state.
    package private(set) var state: UInt64

    /// Creates a generator; the same seed always yields the same sequence.
    package init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in `0..<upperBound` without modulo bias (Lemire's method), identical on every platform.
    package mutating func next(below upperBound: UInt64) -> UInt64 {
        precondition(upperBound > 0, "the upper bound must be positive")
        var product = next().multipliedFullWidth(by: upperBound)
        if product.low < upperBound {
            let threshold = (0 &- upperBound) % upperBound
            while product.low < threshold {
                product = next().multipliedFullWidth(by: upperBound)
            }
        }
        return product.high
    }

    /// `elements` in a Fisher-Yates order driven only by this generator.
    package mutating func shuffled<Element>(_ elements: [Element]) -> [Element] {
        var result = elements
        guard result.count > 1 else { return result }
        for index in stride(from: result.count - 1, to: 0, by: -1) {
            let other = Int(next(below: UInt64(index + 1)))
            result.swapAt(index, other)
        }
        return result
    }
}
