// See include/CVisionKernels.h. The kernels compute a block of dot products between
// rows held in registers: 4 x 4 rows of 16 floats per step with AVX-512 (16 of the 32
// vector registers hold the sums), 2 x 4 rows of 8 floats with AVX2 (8 of 16). Each
// block's 16 (or 8) lane sums are reduced together by shuffles into one 4-float store
// per row, rather than one horizontal sum per pair.
#include "CVisionKernels.h"

#if defined(__x86_64__) && defined(__clang__)

typedef float v16f __attribute__((ext_vector_type(16)));
typedef float v8f __attribute__((ext_vector_type(8)));
typedef float v4f __attribute__((ext_vector_type(4)));

#define AVX512 __attribute__((target("avx512f")))
#define AVX2 __attribute__((target("avx2,fma")))
#define INLINE static inline __attribute__((always_inline))

int cvision_kernel_level(void) {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return 2;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return 1;
    return 0;
}

// The sums of four 16-lane vectors, as [sum a, sum b, sum c, sum d].
AVX512 INLINE v4f sum4x16(v16f a, v16f b, v16f c, v16f d) {
    v16f ab = __builtin_shufflevector(a, b, 0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30)
            + __builtin_shufflevector(a, b, 1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15, 31);
    v16f cd = __builtin_shufflevector(c, d, 0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30)
            + __builtin_shufflevector(c, d, 1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15, 31);
    // ab holds pair sums a b a b ..., cd holds c d c d ...: groups of four lanes become a b c d.
    v16f abcd = __builtin_shufflevector(ab, cd, 0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29)
              + __builtin_shufflevector(ab, cd, 2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31);
    v8f half = abcd.lo + abcd.hi;
    return half.lo + half.hi;
}

#define LOAD16(p) (*(const v16f *)(p))

AVX512 void cvision_dot_tile_avx512(const float *a, long aRows, const float *b, long bRows, long width, float *out, long outStride) {
    for (long i = 0; i < aRows; i += 4) {
        const float *a0 = a + i * width, *a1 = a0 + width, *a2 = a1 + width, *a3 = a2 + width;
        float *row = out + i * outStride;
        for (long j = 0; j < bRows; j += 4) {
            const float *b0 = b + j * width, *b1 = b0 + width, *b2 = b1 + width, *b3 = b2 + width;
            v16f s00 = 0, s01 = 0, s02 = 0, s03 = 0, s10 = 0, s11 = 0, s12 = 0, s13 = 0;
            v16f s20 = 0, s21 = 0, s22 = 0, s23 = 0, s30 = 0, s31 = 0, s32 = 0, s33 = 0;
            for (long k = 0; k < width; k += 16) {
                v16f y0 = LOAD16(b0 + k), y1 = LOAD16(b1 + k), y2 = LOAD16(b2 + k), y3 = LOAD16(b3 + k);
                v16f x = LOAD16(a0 + k);
                s00 = __builtin_elementwise_fma(x, y0, s00); s01 = __builtin_elementwise_fma(x, y1, s01);
                s02 = __builtin_elementwise_fma(x, y2, s02); s03 = __builtin_elementwise_fma(x, y3, s03);
                x = LOAD16(a1 + k);
                s10 = __builtin_elementwise_fma(x, y0, s10); s11 = __builtin_elementwise_fma(x, y1, s11);
                s12 = __builtin_elementwise_fma(x, y2, s12); s13 = __builtin_elementwise_fma(x, y3, s13);
                x = LOAD16(a2 + k);
                s20 = __builtin_elementwise_fma(x, y0, s20); s21 = __builtin_elementwise_fma(x, y1, s21);
                s22 = __builtin_elementwise_fma(x, y2, s22); s23 = __builtin_elementwise_fma(x, y3, s23);
                x = LOAD16(a3 + k);
                s30 = __builtin_elementwise_fma(x, y0, s30); s31 = __builtin_elementwise_fma(x, y1, s31);
                s32 = __builtin_elementwise_fma(x, y2, s32); s33 = __builtin_elementwise_fma(x, y3, s33);
            }
            float *o = row + j;
            *(v4f *)o = sum4x16(s00, s01, s02, s03); o += outStride;
            *(v4f *)o = sum4x16(s10, s11, s12, s13); o += outStride;
            *(v4f *)o = sum4x16(s20, s21, s22, s23); o += outStride;
            *(v4f *)o = sum4x16(s30, s31, s32, s33);
        }
    }
}

// The sums of four 8-lane vectors, as [sum a, sum b, sum c, sum d].
AVX2 INLINE v4f sum4x8(v8f a, v8f b, v8f c, v8f d) {
    v8f ab = __builtin_shufflevector(a, b, 0, 8, 2, 10, 4, 12, 6, 14) + __builtin_shufflevector(a, b, 1, 9, 3, 11, 5, 13, 7, 15);
    v8f cd = __builtin_shufflevector(c, d, 0, 8, 2, 10, 4, 12, 6, 14) + __builtin_shufflevector(c, d, 1, 9, 3, 11, 5, 13, 7, 15);
    v8f abcd = __builtin_shufflevector(ab, cd, 0, 1, 8, 9, 4, 5, 12, 13) + __builtin_shufflevector(ab, cd, 2, 3, 10, 11, 6, 7, 14, 15);
    return abcd.lo + abcd.hi;
}

#define LOAD8(p) (*(const v8f *)(p))

AVX2 void cvision_dot_tile_avx2(const float *a, long aRows, const float *b, long bRows, long width, float *out, long outStride) {
    for (long i = 0; i < aRows; i += 2) {
        const float *a0 = a + i * width, *a1 = a0 + width;
        float *row = out + i * outStride;
        for (long j = 0; j < bRows; j += 4) {
            const float *b0 = b + j * width, *b1 = b0 + width, *b2 = b1 + width, *b3 = b2 + width;
            v8f s00 = 0, s01 = 0, s02 = 0, s03 = 0, s10 = 0, s11 = 0, s12 = 0, s13 = 0;
            for (long k = 0; k < width; k += 8) {
                v8f x0 = LOAD8(a0 + k), x1 = LOAD8(a1 + k);
                v8f y = LOAD8(b0 + k);
                s00 = __builtin_elementwise_fma(x0, y, s00); s10 = __builtin_elementwise_fma(x1, y, s10);
                y = LOAD8(b1 + k);
                s01 = __builtin_elementwise_fma(x0, y, s01); s11 = __builtin_elementwise_fma(x1, y, s11);
                y = LOAD8(b2 + k);
                s02 = __builtin_elementwise_fma(x0, y, s02); s12 = __builtin_elementwise_fma(x1, y, s12);
                y = LOAD8(b3 + k);
                s03 = __builtin_elementwise_fma(x0, y, s03); s13 = __builtin_elementwise_fma(x1, y, s13);
            }
            float *o = row + j;
            *(v4f *)o = sum4x8(s00, s01, s02, s03); o += outStride;
            *(v4f *)o = sum4x8(s10, s11, s12, s13);
        }
    }
}

#else

int cvision_kernel_level(void) { return 0; }

void cvision_dot_tile_avx512(const float *a, long aRows, const float *b, long bRows, long width, float *out, long outStride) {
    (void)a; (void)aRows; (void)b; (void)bRows; (void)width; (void)out; (void)outStride;
}

void cvision_dot_tile_avx2(const float *a, long aRows, const float *b, long bRows, long width, float *out, long outStride) {
    (void)a; (void)aRows; (void)b; (void)bRows; (void)width; (void)out; (void)outStride;
}

#endif
