/* The contraction of one point with one packed cubic cell (deform_kernels.h),
 * shared by the bound kernel (deform_avx2.c) and the one-shot path
 * (fill_avx2.c). Include only from units built with -mavx2 -mfma. */
#ifndef SINEW_LATTICE_CUBIC_AVX2_H
#define SINEW_LATTICE_CUBIC_AVX2_H

#include <immintrin.h>

/* Displacement (x, y, z, z) of a point from its cell's 64 packed
 * displacements cp: v01 = [bv_0 x4 | bv_1 x4], v23 = [bv_2 x4 | bv_3 x4],
 * wk[k] = bw_k in every lane, bu = the four u basis values. Per w-layer k the
 * rows j = 0, 1 and 2, 3 of each coordinate are scaled by v01 bw_k and
 * v23 bw_k; the u-basis is applied once at the end. */
static inline __m128 sn_lat_cubic_sum(const float *cp, __m256 v01, __m256 v23, const __m256 wk[4], __m128 bu)
{
    /* two accumulators per coordinate keep the FMA chains short */
    __m256 ax = _mm256_setzero_ps(), ay = ax, az = ax, bx = ax, by = ax, bz = ax;
    for (int k = 0; k < 4; ++k) {
        __m256 w01 = _mm256_mul_ps(v01, wk[k]), w23 = _mm256_mul_ps(v23, wk[k]);
        const float *q = cp + k * 48;
        ax = _mm256_fmadd_ps(w01, _mm256_load_ps(q), ax);
        bx = _mm256_fmadd_ps(w23, _mm256_load_ps(q + 8), bx);
        ay = _mm256_fmadd_ps(w01, _mm256_load_ps(q + 16), ay);
        by = _mm256_fmadd_ps(w23, _mm256_load_ps(q + 24), by);
        az = _mm256_fmadd_ps(w01, _mm256_load_ps(q + 32), az);
        bz = _mm256_fmadd_ps(w23, _mm256_load_ps(q + 40), bz);
    }
    ax = _mm256_add_ps(ax, bx);
    ay = _mm256_add_ps(ay, by);
    az = _mm256_add_ps(az, bz);
    __m128 sx = _mm_mul_ps(_mm_add_ps(_mm256_castps256_ps128(ax), _mm256_extractf128_ps(ax, 1)), bu);
    __m128 sy = _mm_mul_ps(_mm_add_ps(_mm256_castps256_ps128(ay), _mm256_extractf128_ps(ay, 1)), bu);
    __m128 sz = _mm_mul_ps(_mm_add_ps(_mm256_castps256_ps128(az), _mm256_extractf128_ps(az, 1)), bu);
    return _mm_hadd_ps(_mm_hadd_ps(sx, sy), _mm_hadd_ps(sz, sz)); /* x, y, z, z */
}

#endif /* SINEW_LATTICE_CUBIC_AVX2_H */
