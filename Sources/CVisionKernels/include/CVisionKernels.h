// PhotoVision's dot-product kernels for x86-64 CPUs with AVX2 and FMA, or AVX-512
// (used by Sources/PhotoVision/DotKernel.swift only). Swift compiles for the baseline
// of its target (SSE2 on x86-64) and cannot mark one function for a wider instruction
// set, and a library product cannot use unsafe compiler flags; so these few functions
// are C, each compiled for its instruction set by a target attribute, and chosen at run
// time from what the CPU reports. Elsewhere (arm64, older x86-64) they are absent and
// PhotoVision uses its Swift SIMD kernel.
#ifndef CVISION_KERNELS_H
#define CVISION_KERNELS_H

#ifdef __cplusplus
extern "C" {
#endif

/// The widest kernel this CPU (and its operating system) can run: 2 for AVX-512F,
/// 1 for AVX2 with FMA, 0 for none (and on every CPU that is not x86-64).
int cvision_kernel_level(void);

/// Dot products of rows: `out[i * outStride + j] = sum over k < width of a[i * width + k] * b[j * width + k]`
/// for `i < aRows` and `j < bRows`.
///
/// `a` and `b` are 64-byte aligned, `width` is a multiple of 16 (rows padded with zeros),
/// `aRows` and `bRows` are multiples of 4, `outStride` is a multiple of 4 and `out` is
/// 16-byte aligned. Products are fused multiply-adds, summed in 16 lanes (AVX-512) or
/// 8 lanes (AVX2) and then across lanes in a fixed order: the same inputs always give the
/// same bits on the same kernel. Call only when `cvision_kernel_level()` is at least 2.
void cvision_dot_tile_avx512(const float *a, long aRows, const float *b, long bRows, long width, float *out, long outStride);

/// The same, for AVX2 with FMA: call only when `cvision_kernel_level()` is at least 1.
void cvision_dot_tile_avx2(const float *a, long aRows, const float *b, long bRows, long width, float *out, long outStride);

#ifdef __cplusplus
}
#endif

#endif
