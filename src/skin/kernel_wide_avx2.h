/*
 * AVX2+FMA vocabulary and pieces of the several-vertex linear-blend kernel
 * (kernel_wide_body.h): eight vertices per block. Included by kernel_avx2.c
 * and dq_avx2.c only (built with -mavx2 -mfma).
 *
 * The pieces are kernel_lanes8_avx2.h's, wrapped in the body's types.
 */
#ifndef SINEW_SKIN_KERNEL_WIDE_AVX2_H
#define SINEW_SKIN_KERNEL_WIDE_AVX2_H

#include <immintrin.h>

typedef __m256 sn_w;
#define SN_W_LANES 8u
#define SN_W_ALL 0xFFu
#define sn_w_add _mm256_add_ps
#define sn_w_mul _mm256_mul_ps
#define sn_w_xor _mm256_xor_ps
#define sn_w_and _mm256_and_ps
#define sn_w_set1 _mm256_set1_ps
#define sn_w_zero _mm256_setzero_ps
#define sn_w_rsqrt _mm256_rsqrt_ps
#define sn_w_fmadd _mm256_fmadd_ps
#define sn_w_fmsub _mm256_fmsub_ps
#define sn_w_fnmadd _mm256_fnmadd_ps
#define sn_w_gt(a, b) _mm256_cmp_ps((a), (b), _CMP_GT_OQ)
#define sn_w_lt(a, b) _mm256_cmp_ps((a), (b), _CMP_LT_OQ)
#define sn_w_movemask _mm256_movemask_ps
#define sn_w_load _mm256_load_ps
#define sn_w_store _mm256_store_ps
#define sn_w_lanes(f) _mm256_setr_ps((f)[0], (f)[1], (f)[2], (f)[3], (f)[4], (f)[5], (f)[6], (f)[7])

#include "skin/kernel_wide_body.h"

#include "skin/kernel_lanes8_avx2.h"

SN_SKIN_INLINE bool sn_block_weights_w(const sn_skin_group *g, size_t i, unsigned n, const sn_skin_format format,
                                       const unsigned K, __m256 *w)
{
    return sn_block_weights_avx2(g, i, n, format, K, w);
}

SN_SKIN_INLINE sn_mv sn_matrices_w(const sn_skin_group *g, size_t i, unsigned n, const float *palette,
                                   const sn_skin_format format, const unsigned K)
{
    /* Neighbouring vertices often hang on the same joints (a rigid part, a
     * limb's middle): blend those blocks in place. */
    if (sn_shared_joints_w(g, i, n, format, K)) return sn_matrices_shared_w(g, i, n, palette, format, K);
    __m256 e[12];
    sn_blended_avx2(g, i, n, palette, format, K, e);
    sn_mv m;
    for (int c = 0; c < 4; ++c) m.a[c].x = e[3 * c], m.a[c].y = e[3 * c + 1], m.a[c].z = e[3 * c + 2];
    return m;
}

SN_SKIN_INLINE sn_xv sn_load3_w(const char *p, size_t stride, unsigned n, const uint32_t *lanes)
{
    __m256 r[3];
    sn_load3_avx2(p, stride, n, lanes, r);
    const sn_xv v = {r[0], r[1], r[2]};
    return v;
}

SN_SKIN_INLINE sn_xv sn_load4_w(const char *p, size_t stride, unsigned n, const uint32_t *lanes, __m256 *w)
{
    __m256 r[4];
    sn_load4_avx2(p, stride, n, lanes, r);
    const sn_xv v = {r[0], r[1], r[2]};
    *w = r[3];
    return v;
}

SN_SKIN_INLINE void sn_store3_w(char *p, size_t stride, unsigned n, const uint32_t *lanes, sn_xv v)
{
    sn_store3_avx2(p, stride, n, lanes, v.x, v.y, v.z);
}

SN_SKIN_INLINE void sn_store4_w(char *p, size_t stride, unsigned n, const uint32_t *lanes, sn_xv v, __m256 w)
{
    sn_store4_avx2(p, stride, n, lanes, v.x, v.y, v.z, w);
}

#endif /* SINEW_SKIN_KERNEL_WIDE_AVX2_H */
