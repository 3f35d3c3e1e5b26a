/* Reading eight points and the box map in AVX2, shared by the one-shot units
 * (fill_avx2.c, fits_avx2.c). Include only from units built with -mavx2
 * -mfma. */
#ifndef SINEW_LATTICE_POINTS_AVX2_H
#define SINEW_LATTICE_POINTS_AVX2_H

#include <immintrin.h>
#include <stddef.h>

/* The coordinates of points in + k * in_stride, k < n (1..8), one register
 * per coordinate; the unused lanes repeat the last point. Eight packed points
 * are three loads and a shuffle. */
static inline void load8(const char *in, size_t in_stride, size_t n, __m256 xyz[3])
{
    if (n == 8 && in_stride == 3 * sizeof(float)) {
        const float *f = (const float *)(const void *)in;
        __m256 a = _mm256_loadu_ps(f), b = _mm256_loadu_ps(f + 8), c = _mm256_loadu_ps(f + 16);
        /* a = x0 y0 z0 x1 y1 z1 x2 y2, b = z2 x3 y3 z3 x4 y4 z4 x5, c = y5 z5 x6 y6 z6 x7 y7 z7 */
        __m256 x = _mm256_blend_ps(_mm256_blend_ps(a, b, 0x92), c, 0x24); /* a0 b1 c2 a3 b4 c5 a6 b7 */
        __m256 y = _mm256_blend_ps(_mm256_blend_ps(a, b, 0x24), c, 0x49); /* c0 a1 b2 c3 a4 b5 c6 a7 */
        __m256 z = _mm256_blend_ps(_mm256_blend_ps(a, b, 0x49), c, 0x92); /* b0 c1 a2 b3 c4 a5 b6 c7 */
        xyz[0] = _mm256_permutevar8x32_ps(x, _mm256_setr_epi32(0, 3, 6, 1, 4, 7, 2, 5));
        xyz[1] = _mm256_permutevar8x32_ps(y, _mm256_setr_epi32(1, 4, 7, 2, 5, 0, 3, 6));
        xyz[2] = _mm256_permutevar8x32_ps(z, _mm256_setr_epi32(2, 5, 0, 3, 6, 1, 4, 7));
        return;
    }
    _Alignas(32) float p[3][8];
    for (size_t k = 0; k < 8; ++k) {
        const float *q = (const float *)(const void *)(in + (k < n ? k : n - 1) * in_stride);
        p[0][k] = q[0], p[1][k] = q[1], p[2][k] = q[2];
    }
    for (int c = 0; c < 3; ++c) xyz[c] = _mm256_load_ps(p[c]);
}

/* out[c] = a[c] + m[c] x0 + m[3 + c] x1 + m[6 + c] x2 for c = 0..2, four lanes,
 * without fused multiply-adds (the scalar code's rounding). */
static inline void affine4(const double a[3], const double m[9], const __m256d x[3], __m256d out[3])
{
    for (int c = 0; c < 3; ++c) {
        __m256d s = _mm256_add_pd(_mm256_set1_pd(a[c]), _mm256_mul_pd(_mm256_set1_pd(m[c]), x[0]));
        s = _mm256_add_pd(s, _mm256_mul_pd(_mm256_set1_pd(m[3 + c]), x[1]));
        out[c] = _mm256_add_pd(s, _mm256_mul_pd(_mm256_set1_pd(m[6 + c]), x[2]));
    }
}

#endif /* SINEW_LATTICE_POINTS_AVX2_H */
