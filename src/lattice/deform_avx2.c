/* AVX2 + FMA bound deformation for cubic lattices. Built with -mavx2 -mfma
 * when the compiler and the `simd` option allow; the library calls it only
 * after checking the CPU.
 *
 * The cell's 64 displacements come packed (deform_kernels.h): per w-layer k
 * and coordinate, rows j = 0, 1 fill one 256-bit register and rows 2, 3 the
 * next. They are scaled by [bv_0 bw_k x4 | bv_1 bw_k x4] and
 * [bv_2 bw_k x4 | bv_3 bw_k x4]; the u-basis is applied once at the end. */
#include <string.h>

#include "lattice/deform_kernels.h"

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
        memcpy(&idx, r + 3, sizeof idx);
        if (idx == SN_LAT_LEAVE) {
            o[0] = r[0];
            o[1] = r[1];
            o[2] = r[2];
            continue;
        }
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

#endif
