internal import CVisionKernels

/// The dot products of a block of rows against another: the one computation that dominates
/// DBSCAN. The only file that imports CVisionKernels.
///
/// Three kernels compute the same thing. The portable one is Swift SIMD (`SIMD8<Float>`, 2 x 2
/// rows per step: 4 sums in registers), compiled for the target's baseline: NEON on arm64,
/// SSE2 on x86-64. Swift cannot compile one function for a wider instruction set, and a library
/// product cannot pass unsafe flags, so on x86-64 two C kernels compiled for AVX2 with FMA and for
/// AVX-512 (4 x 4 rows of 16 floats, 16 sums in registers) are chosen at run time by what the
/// CPU reports: 3 to 5 times the portable kernel's speed. Kernels may round differently (fused
/// multiply-adds, lane counts); each one always gives the same bits for the same rows.
enum DotKernel: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Swift SIMD, any CPU.
    case portable
    /// C, x86-64 with AVX2 and FMA.
    case avx2
    /// C, x86-64 with AVX-512F.
    case avx512

    /// The fastest kernel this CPU runs.
    static let best: DotKernel = {
        switch cvision_kernel_level() {
        case 2...: .avx512
        case 1: .avx2
        default: .portable
        }
    }()

    /// The kernels this CPU runs.
    static var available: [DotKernel] {
        allCases.filter { kernel in
            switch kernel {
            case .portable: true
            case .avx2: cvision_kernel_level() >= 1
            case .avx512: cvision_kernel_level() >= 2
            }
        }
    }

    var description: String {
        switch self {
        case .portable: "Swift SIMD"
        case .avx2: "AVX2"
        case .avx512: "AVX-512"
        }
    }

    /// `out[i * outStride + j]` = the dot product of row `i` of `a` and row `j` of `b`, over
    /// `width` floats. Rows are `width` apart and 64-byte aligned, `width` is a multiple of 16,
    /// `aRows`, `bRows` and `outStride` are multiples of 4 (``PaddedRows`` guarantees all of it).
    func tile(
        _ a: UnsafePointer<Float>, rows aRows: Int, _ b: UnsafePointer<Float>, rows bRows: Int, width: Int,
        into out: UnsafeMutablePointer<Float>, stride outStride: Int
    ) {
        switch self {
        case .avx512: cvision_dot_tile_avx512(a, aRows, b, bRows, width, out, outStride)
        case .avx2: cvision_dot_tile_avx2(a, aRows, b, bRows, width, out, outStride)
        case .portable: Self.portableTile(a, rows: aRows, b, rows: bRows, width: width, into: out, stride: outStride)
        }
    }

    private static func portableTile(
        _ a: UnsafePointer<Float>, rows aRows: Int, _ b: UnsafePointer<Float>, rows bRows: Int, width: Int,
        into out: UnsafeMutablePointer<Float>, stride outStride: Int
    ) {
        @inline(__always) func load(_ pointer: UnsafePointer<Float>) -> SIMD8<Float> {
            UnsafeRawPointer(pointer).loadUnaligned(as: SIMD8<Float>.self)
        }
        // Separate multiplies and adds: `addProduct` is a library call per lane on a CPU without FMA.
        var i = 0
        while i < aRows {
            let a0 = a + i * width, a1 = a0 + width
            var j = 0
            while j < bRows {
                let b0 = b + j * width, b1 = b0 + width
                var s00 = SIMD8<Float>(), s01 = SIMD8<Float>(), s10 = SIMD8<Float>(), s11 = SIMD8<Float>()
                var k = 0
                while k < width {
                    let x0 = load(a0 + k), x1 = load(a1 + k), y0 = load(b0 + k), y1 = load(b1 + k)
                    s00 += x0 * y0
                    s01 += x0 * y1
                    s10 += x1 * y0
                    s11 += x1 * y1
                    k += 8
                }
                let o = out + i * outStride + j
                o[0] = s00.sum()
                o[1] = s01.sum()
                o[outStride] = s10.sum()
                o[outStride + 1] = s11.sum()
                j += 2
            }
            i += 2
        }
    }
}
