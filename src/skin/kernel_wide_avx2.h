/*
 * AVX2+FMA vocabulary and pieces of the several-vertex linear-blend kernel
 * (kernel_wide_body.h): eight vertices per block. Included by kernel_avx2.c
 * and dq_avx2.c only (built with -mavx2 -mfma).
 *
 * A blended matrix is two 256-bit registers per vertex, (column 0 | column 1)
 * and (column 2 | column 3); pairing vertex l with vertex l + 4 in one
 * register lets every transpose after that stay inside 128-bit halves.
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

/* 4x4 transpose inside each 128-bit half: rows r0..r3 (x, y, z, w of vertices
 * l and l + 4) become x, y, z, w of vertices 0..3 and 4..7. Its own inverse. */
SN_SKIN_INLINE void sn_transpose4_avx2(__m256 r0, __m256 r1, __m256 r2, __m256 r3, __m256 *x, __m256 *y, __m256 *z,
                                       __m256 *w)
{
    const __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
    const __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
    *x = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
    *y = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
    *z = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
    *w = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
}

SN_SKIN_INLINE __m256 sn_pair_avx2(__m128 lo, __m128 hi)
{
    return _mm256_insertf128_ps(_mm256_castps128_ps256(lo), hi, 1);
}

/* Blended matrix of group position i as (column 0 | column 1), (column 2 |
 * column 3): the same arithmetic as sn_blend in kernel_body.h. */
SN_SKIN_INLINE void sn_blend_wide_avx2(const sn_skin_group *g, size_t i, const float *palette,
                                       const sn_skin_format format, const unsigned K, __m256 *c01, __m256 *c23)
{
    const unsigned k = K ? K : g->influences;
    const size_t base = i * k;
    const float *r0 = palette + SN_SKIN_RECORD_LINEAR * sn_skin_joint(g->joints, format, base);
    if (K == 1) {
        *c01 = _mm256_loadu_ps(r0);
        *c23 = _mm256_loadu_ps(r0 + 8);
        return;
    }
    const __m256 w0 = _mm256_set1_ps(sn_skin_weight(g->weights, format, base));
    __m256 a = _mm256_mul_ps(_mm256_loadu_ps(r0), w0), b = _mm256_mul_ps(_mm256_loadu_ps(r0 + 8), w0);
    for (unsigned s = 1; s < k; ++s) {
        const float *r = palette + SN_SKIN_RECORD_LINEAR * sn_skin_joint(g->joints, format, base + s);
        const __m256 w = _mm256_set1_ps(sn_skin_weight(g->weights, format, base + s));
        a = _mm256_fmadd_ps(_mm256_loadu_ps(r), w, a);
        b = _mm256_fmadd_ps(_mm256_loadu_ps(r + 8), w, b);
    }
    *c01 = a;
    *c23 = b;
}

/* All k slot weights of a full block of eight with float weights, k = 2 or
 * 4: the block's 8k consecutive weights transposed in registers. Returns
 * false (nothing written) for any other block. */
SN_SKIN_INLINE bool sn_block_weights_w(const sn_skin_group *g, size_t i, unsigned n, const sn_skin_format format,
                                       const unsigned K, __m256 *w)
{
    if (format != SN_SKIN_F32_J16 || n != 8 || (K != 2 && K != 4)) return false;
    const float *f = (const float *)g->weights + i * K;
    if (K == 2) {
        /* Halves hold vertices (0, 1, 4, 5) and (2, 3, 6, 7): reorder the 64-bit pairs. */
        const __m256 l0 = _mm256_loadu_ps(f), l1 = _mm256_loadu_ps(f + 8);
        const __m256 even = _mm256_shuffle_ps(l0, l1, _MM_SHUFFLE(2, 0, 2, 0));
        const __m256 odd = _mm256_shuffle_ps(l0, l1, _MM_SHUFFLE(3, 1, 3, 1));
        w[0] = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(even), _MM_SHUFFLE(3, 1, 2, 0)));
        w[1] = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(odd), _MM_SHUFFLE(3, 1, 2, 0)));
        return true;
    }
    /* l_j holds vertices 2j and 2j + 1; pair vertex l with l + 4, then transpose. */
    const __m256 l0 = _mm256_loadu_ps(f), l1 = _mm256_loadu_ps(f + 8), l2 = _mm256_loadu_ps(f + 16),
                 l3 = _mm256_loadu_ps(f + 24);
    sn_transpose4_avx2(_mm256_permute2f128_ps(l0, l2, 0x20), _mm256_permute2f128_ps(l0, l2, 0x31),
                       _mm256_permute2f128_ps(l1, l3, 0x20), _mm256_permute2f128_ps(l1, l3, 0x31), &w[0], &w[1],
                       &w[2], &w[3]);
    return true;
}

SN_SKIN_INLINE sn_mv sn_matrices_w(const sn_skin_group *g, size_t i, unsigned n, const float *palette,
                                   const sn_skin_format format, const unsigned K)
{
    /* Neighbouring vertices often hang on the same joints (a rigid part, a
     * limb's middle): blend those blocks in place. */
    if (sn_shared_joints_w(g, i, n, format, K)) return sn_matrices_shared_w(g, i, n, palette, format, K);
    __m256 c01[8], c23[8];
    for (unsigned l = 0; l < 8; ++l)
        sn_blend_wide_avx2(g, i + (l < n ? l : n - 1), palette, format, K, &c01[l], &c23[l]);
    __m256 col[4][4];
    for (unsigned l = 0; l < 4; ++l) {
        col[0][l] = _mm256_permute2f128_ps(c01[l], c01[l + 4], 0x20);
        col[1][l] = _mm256_permute2f128_ps(c01[l], c01[l + 4], 0x31);
        col[2][l] = _mm256_permute2f128_ps(c23[l], c23[l + 4], 0x20);
        col[3][l] = _mm256_permute2f128_ps(c23[l], c23[l + 4], 0x31);
    }
    sn_mv m;
    __m256 unused;
    sn_transpose4_avx2(col[0][0], col[0][1], col[0][2], col[0][3], &m.a[0].x, &m.a[0].y, &m.a[0].z, &unused);
    for (int c = 1; c < 4; ++c)
        sn_transpose4_avx2(col[c][0], col[c][1], col[c][2], col[c][3], &m.a[c].x, &m.a[c].y, &m.a[c].z, &unused);
    return m;
}

/* x, y, z of one vertex in a 128-bit register (lane 3 zero), reading exactly
 * 12 bytes. */
SN_SKIN_INLINE __m128 sn_load3_lane_avx2(const char *p)
{
    const __m128 xy = _mm_loadl_pi(_mm_setzero_ps(), (const __m64 *)(const void *)p);
    return _mm_movelh_ps(xy, _mm_load_ss((const float *)(const void *)p + 2));
}

/* Eight 3-vectors from a stream: packed consecutive ones with three 256-bit
 * loads, any other stride, partial block or gathered block lane by lane. */
SN_SKIN_INLINE sn_xv sn_load3_w(const char *p, size_t stride, unsigned n, const uint32_t *lanes)
{
    sn_xv v;
    if (!lanes && n == 8 && stride == 3 * sizeof(float)) {
        const float *f = (const float *)(const void *)p;
        const __m256 l0 = _mm256_loadu_ps(f), l1 = _mm256_loadu_ps(f + 8), l2 = _mm256_loadu_ps(f + 16);
        /* In each half (vertices 0..3, 4..7): a = x0 y0 z0 x1, b = y1 z1 x2 y2, c = z2 x3 y3 z3. */
        const __m256 a = _mm256_blend_ps(l0, l1, 0xF0);
        const __m256 b = _mm256_permute2f128_ps(l0, l2, 0x21);
        const __m256 c = _mm256_blend_ps(l1, l2, 0xF0);
        const __m256 xy = _mm256_shuffle_ps(b, c, _MM_SHUFFLE(2, 1, 3, 2)); /* x2 y2 x3 y3 */
        const __m256 yz = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(1, 0, 2, 1)); /* y0 z0 y1 z1 */
        v.x = _mm256_shuffle_ps(a, xy, _MM_SHUFFLE(2, 0, 3, 0));
        v.y = _mm256_shuffle_ps(yz, xy, _MM_SHUFFLE(3, 1, 2, 0));
        v.z = _mm256_shuffle_ps(yz, c, _MM_SHUFFLE(3, 0, 3, 1));
        return v;
    }
    __m256 r[4], w;
    for (unsigned l = 0; l < 4; ++l) {
        const unsigned h = l + 4 < n ? l + 4 : n - 1, lo = l < n ? l : n - 1;
        r[l] = sn_pair_avx2(sn_load3_lane_avx2(p + SN_LANE(lanes, lo) * stride),
                            sn_load3_lane_avx2(p + SN_LANE(lanes, h) * stride));
    }
    sn_transpose4_avx2(r[0], r[1], r[2], r[3], &v.x, &v.y, &v.z, &w);
    return v;
}

/* Eight 4-vectors (tangents): one 16-byte load per vertex, any stride. */
SN_SKIN_INLINE sn_xv sn_load4_w(const char *p, size_t stride, unsigned n, const uint32_t *lanes, __m256 *w)
{
    sn_xv v;
    __m256 r[4];
    for (unsigned l = 0; l < 4; ++l) {
        const unsigned h = l + 4 < n ? l + 4 : n - 1, lo = l < n ? l : n - 1;
        r[l] = sn_pair_avx2(_mm_loadu_ps((const float *)(const void *)(p + SN_LANE(lanes, lo) * stride)),
                            _mm_loadu_ps((const float *)(const void *)(p + SN_LANE(lanes, h) * stride)));
    }
    sn_transpose4_avx2(r[0], r[1], r[2], r[3], &v.x, &v.y, &v.z, w);
    return v;
}

/* Stores lanes 0..n-1 as 3-vectors, exactly 12 bytes each. Packed full blocks
 * store three 32-byte pieces. */
SN_SKIN_INLINE void sn_store3_w(char *p, size_t stride, unsigned n, const uint32_t *lanes, sn_xv v)
{
    if (!lanes && n == 8 && stride == 3 * sizeof(float)) {
        float *f = (float *)(void *)p;
        const __m256 rxy = _mm256_shuffle_ps(v.x, v.y, _MM_SHUFFLE(2, 0, 2, 0)); /* x0 x2 y0 y2 */
        const __m256 ryz = _mm256_shuffle_ps(v.y, v.z, _MM_SHUFFLE(3, 1, 3, 1)); /* y1 y3 z1 z3 */
        const __m256 rzx = _mm256_shuffle_ps(v.z, v.x, _MM_SHUFFLE(3, 1, 2, 0)); /* z0 z2 x1 x3 */
        const __m256 a = _mm256_shuffle_ps(rxy, rzx, _MM_SHUFFLE(2, 0, 2, 0));   /* x0 y0 z0 x1 */
        const __m256 b = _mm256_shuffle_ps(ryz, rxy, _MM_SHUFFLE(3, 1, 2, 0));   /* y1 z1 x2 y2 */
        const __m256 c = _mm256_shuffle_ps(rzx, ryz, _MM_SHUFFLE(3, 1, 3, 1));   /* z2 x3 y3 z3 */
        /* (a.lo b.lo), (c.lo a.hi), (b.hi c.hi): vertices 0..7 in order. */
        _mm256_storeu_ps(f, _mm256_permute2f128_ps(a, b, 0x20));
        _mm256_storeu_ps(f + 8, _mm256_permute2f128_ps(c, a, 0x30));
        _mm256_storeu_ps(f + 16, _mm256_permute2f128_ps(b, c, 0x31));
        return;
    }
    __m256 r[4];
    sn_transpose4_avx2(v.x, v.y, v.z, _mm256_setzero_ps(), &r[0], &r[1], &r[2], &r[3]);
    for (unsigned l = 0; l < n; ++l) {
        const __m128 q = l < 4 ? _mm256_castps256_ps128(r[l]) : _mm256_extractf128_ps(r[l - 4], 1);
        float *f = (float *)(void *)(p + SN_LANE(lanes, l) * stride);
        _mm_storel_pi((__m64 *)(void *)f, q);
        _mm_store_ss(f + 2, _mm_movehl_ps(q, q));
    }
}

/* Stores lanes 0..n-1 as 4-vectors (xyz from v, w). */
SN_SKIN_INLINE void sn_store4_w(char *p, size_t stride, unsigned n, const uint32_t *lanes, sn_xv v, __m256 w)
{
    __m256 r[4];
    sn_transpose4_avx2(v.x, v.y, v.z, w, &r[0], &r[1], &r[2], &r[3]);
    for (unsigned l = 0; l < n; ++l) {
        const __m128 q = l < 4 ? _mm256_castps256_ps128(r[l]) : _mm256_extractf128_ps(r[l - 4], 1);
        _mm_storeu_ps((float *)(void *)(p + SN_LANE(lanes, l) * stride), q);
    }
}

#endif /* SINEW_SKIN_KERNEL_WIDE_AVX2_H */
