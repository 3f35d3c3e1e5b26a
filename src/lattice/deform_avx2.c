/* AVX2 + FMA bound deformation: packed cubic lattices, and a row kernel for
 * any orders. Built with -mavx2 -mfma when the compiler and the `simd`
 * option allow; the library calls them only after checking the CPU.
 *
 * The cell's 64 displacements come packed (deform_kernels.h): per w-layer k
 * and coordinate, rows j = 0, 1 fill one 256-bit register and rows 2, 3 the
 * next. They are scaled by [bv_0 bw_k x4 | bv_1 bw_k x4] and
 * [bv_2 bw_k x4 | bv_3 bw_k x4]; the u-basis is applied once at the end. */
#include <string.h>

#include "lattice/deform_kernels.h"
#include "lattice/lattice_internal.h"

#if defined(__AVX2__) && defined(__FMA__) && (defined(__GNUC__) || defined(__clang__))
#  include "lattice/cubic_avx2.h"

static void deform_cubic_avx2(const float *records, size_t record, const uint32_t *cells, const float *packed,
                              float *out, size_t stride, size_t first, size_t count)
{
    const __m256i lo_pair = _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1);
    const __m256i hi_pair = _mm256_setr_epi32(2, 2, 2, 2, 3, 3, 3, 3);
    for (size_t i = first; i < first + count; ++i) {
        const float *r = records + i * record;
        float *o = (float *)((char *)out + i * stride);
        uint32_t idx;
        if (sn_lat_record_left(r, o, &idx)) continue;
        const float *cp = packed + (size_t)cells[i] * SN_LAT_PACKED_CELL;
        __m256 bv = _mm256_castps128_ps256(_mm_loadu_ps(r + 8));
        __m256 v01 = _mm256_permutevar8x32_ps(bv, lo_pair), v23 = _mm256_permutevar8x32_ps(bv, hi_pair);
        const __m256 wk[4] = {_mm256_broadcast_ss(r + 12), _mm256_broadcast_ss(r + 13), _mm256_broadcast_ss(r + 14),
                              _mm256_broadcast_ss(r + 15)};
        __m128 sum = sn_lat_cubic_sum(cp, v01, v23, wk, _mm_loadu_ps(r + 4));
        float s[4];
        _mm_storeu_ps(s, sum);
        o[0] = r[0] + s[0];
        o[1] = r[1] + s[1];
        o[2] = r[2] + s[2];
    }
}

/* Any orders (sn_lat_rows_fn): per (j, k) row, the order-u neighbours of
 * each coordinate in one masked load, scaled by bv_j bw_k; the u-basis is
 * applied once at the end. Masked-off lanes are not read. */
static void deform_rows_avx2(const sinew_lattice *lat, const float *records, size_t record, float *out,
                             size_t stride, size_t first, size_t count)
{
    const uint32_t ou = lat->axis[0].order, ov = lat->axis[1].order, ow = lat->axis[2].order;
    const size_t nu = lat->axis[0].count, slab = nu * lat->axis[1].count;
    const float *dx = lat->disp[0], *dy = lat->disp[1], *dz = lat->disp[2];
    const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)ou), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    for (size_t i = first; i < first + count; ++i) {
        const float *r = records + i * record;
        float *o = (float *)((char *)out + i * stride);
        uint32_t idx;
        if (sn_lat_record_left(r, o, &idx)) continue;
        const float *bu = r + 4, *bv = bu + ou, *bw = bv + ov;
        __m256 ax = _mm256_setzero_ps(), ay = ax, az = ax;
        for (uint32_t k = 0; k < ow; ++k) {
            const size_t layer = idx + k * slab;
            for (uint32_t j = 0; j < ov; ++j) {
                const __m256 w = _mm256_set1_ps(bv[j] * bw[k]);
                const size_t at = layer + j * nu;
                ax = _mm256_fmadd_ps(w, _mm256_maskload_ps(dx + at, mask), ax);
                ay = _mm256_fmadd_ps(w, _mm256_maskload_ps(dy + at, mask), ay);
                az = _mm256_fmadd_ps(w, _mm256_maskload_ps(dz + at, mask), az);
            }
        }
        const __m256 u = _mm256_maskload_ps(bu, mask);
        ax = _mm256_mul_ps(ax, u);
        ay = _mm256_mul_ps(ay, u);
        az = _mm256_mul_ps(az, u);
        __m128 sx = _mm_add_ps(_mm256_castps256_ps128(ax), _mm256_extractf128_ps(ax, 1));
        __m128 sy = _mm_add_ps(_mm256_castps256_ps128(ay), _mm256_extractf128_ps(ay, 1));
        __m128 sz = _mm_add_ps(_mm256_castps256_ps128(az), _mm256_extractf128_ps(az, 1));
        float s[4];
        _mm_storeu_ps(s, _mm_hadd_ps(_mm_hadd_ps(sx, sy), _mm_hadd_ps(sz, sz)));
        o[0] = r[0] + s[0];
        o[1] = r[1] + s[1];
        o[2] = r[2] + s[2];
    }
}

sn_lat_rows_fn sn_lat_rows_avx2_kernel(void)
{
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return deform_rows_avx2;
    return NULL;
}

sn_lat_kernel_fn sn_lat_cubic_avx2_kernel(void)
{
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return deform_cubic_avx2;
    return NULL;
}

#else

sn_lat_kernel_fn sn_lat_cubic_avx2_kernel(void)
{
    return NULL; /* this build has no AVX2 kernel */
}

sn_lat_rows_fn sn_lat_rows_avx2_kernel(void)
{
    return NULL;
}

#endif
