/*
 * SSE2 vocabulary and pieces of the several-vertex linear-blend kernel
 * (kernel_wide_body.h): four vertices per block. Included by kernel_sse2.c
 * only. SSE2 has no FMA: it is written as separate multiplies and adds.
 */
#ifndef SINEW_SKIN_KERNEL_WIDE_SSE2_H
#define SINEW_SKIN_KERNEL_WIDE_SSE2_H

#include <emmintrin.h>

typedef __m128 sn_w;
#define SN_W_LANES 4u
#define SN_W_ALL 0xFu
#define sn_w_add _mm_add_ps
#define sn_w_mul _mm_mul_ps
#define sn_w_xor _mm_xor_ps
#define sn_w_and _mm_and_ps
#define sn_w_set1 _mm_set1_ps
#define sn_w_zero _mm_setzero_ps
#define sn_w_rsqrt _mm_rsqrt_ps
#define sn_w_fmadd(a, b, c) _mm_add_ps(_mm_mul_ps((a), (b)), (c))
#define sn_w_fmsub(a, b, c) _mm_sub_ps(_mm_mul_ps((a), (b)), (c))
#define sn_w_fnmadd(a, b, c) _mm_sub_ps((c), _mm_mul_ps((a), (b)))
#define sn_w_gt _mm_cmpgt_ps
#define sn_w_lt _mm_cmplt_ps
#define sn_w_movemask _mm_movemask_ps
#define sn_w_load _mm_load_ps
#define sn_w_store _mm_store_ps
#define sn_w_lanes(f) _mm_setr_ps((f)[0], (f)[1], (f)[2], (f)[3])

#include "skin/kernel_wide_body.h"

/* 4x4 transpose: rows r0..r3 (x, y, z, w of vertices 0..3) become x, y, z,
 * w of vertices 0..3. Its own inverse. */
SN_SKIN_INLINE void sn_transpose4_sse2(__m128 r0, __m128 r1, __m128 r2, __m128 r3, __m128 *x, __m128 *y, __m128 *z,
                                       __m128 *w)
{
    const __m128 t0 = _mm_unpacklo_ps(r0, r1), t1 = _mm_unpackhi_ps(r0, r1);
    const __m128 t2 = _mm_unpacklo_ps(r2, r3), t3 = _mm_unpackhi_ps(r2, r3);
    *x = _mm_movelh_ps(t0, t2);
    *y = _mm_movehl_ps(t2, t0);
    *z = _mm_movelh_ps(t1, t3);
    *w = _mm_movehl_ps(t3, t1);
}

/* Blended matrix of group position i, one register per column: the same
 * arithmetic as sn_blend in kernel_body.h. */
SN_SKIN_INLINE void sn_blend_wide_sse2(const sn_skin_group *g, size_t i, const float *palette,
                                       const sn_skin_format format, const unsigned K, __m128 c[4])
{
    const unsigned k = K ? K : g->influences;
    const size_t base = i * k;
    const float *r0 = palette + SN_SKIN_RECORD_LINEAR * sn_skin_joint(g->joints, format, base);
    if (K == 1) {
        for (int col = 0; col < 4; ++col) c[col] = _mm_loadu_ps(r0 + 4 * col);
        return;
    }
    const __m128 w0 = _mm_set1_ps(sn_skin_weight(g->weights, format, base));
    for (int col = 0; col < 4; ++col) c[col] = _mm_mul_ps(_mm_loadu_ps(r0 + 4 * col), w0);
    for (unsigned s = 1; s < k; ++s) {
        const float *r = palette + SN_SKIN_RECORD_LINEAR * sn_skin_joint(g->joints, format, base + s);
        const __m128 w = _mm_set1_ps(sn_skin_weight(g->weights, format, base + s));
        for (int col = 0; col < 4; ++col) c[col] = _mm_add_ps(_mm_mul_ps(_mm_loadu_ps(r + 4 * col), w), c[col]);
    }
}

/* Slot weights of a full block of four with float weights, k = 2 or 4. */
SN_SKIN_INLINE bool sn_block_weights_w(const sn_skin_group *g, size_t i, unsigned n, const sn_skin_format format,
                                       const unsigned K, __m128 *w)
{
    if (format != SN_SKIN_F32_J16 || n != 4 || (K != 2 && K != 4)) return false;
    const float *f = (const float *)g->weights + i * K;
    if (K == 2) {
        const __m128 l0 = _mm_loadu_ps(f), l1 = _mm_loadu_ps(f + 4); /* vertices 0, 1 and 2, 3 */
        w[0] = _mm_shuffle_ps(l0, l1, _MM_SHUFFLE(2, 0, 2, 0));
        w[1] = _mm_shuffle_ps(l0, l1, _MM_SHUFFLE(3, 1, 3, 1));
        return true;
    }
    sn_transpose4_sse2(_mm_loadu_ps(f), _mm_loadu_ps(f + 4), _mm_loadu_ps(f + 8), _mm_loadu_ps(f + 12), &w[0], &w[1],
                       &w[2], &w[3]);
    return true;
}

SN_SKIN_INLINE sn_mv sn_matrices_w(const sn_skin_group *g, size_t i, unsigned n, const float *palette,
                                   const sn_skin_format format, const unsigned K)
{
    /* Neighbouring vertices often hang on the same joints: see
     * sn_matrices_shared_w. */
    if (sn_shared_joints_w(g, i, n, format, K)) return sn_matrices_shared_w(g, i, n, palette, format, K);
    __m128 c[4][4]; /* [vertex][column] */
    for (unsigned l = 0; l < 4; ++l) sn_blend_wide_sse2(g, i + (l < n ? l : n - 1), palette, format, K, c[l]);
    sn_mv m;
    __m128 unused;
    sn_transpose4_sse2(c[0][0], c[1][0], c[2][0], c[3][0], &m.a[0].x, &m.a[0].y, &m.a[0].z, &unused);
    for (int col = 1; col < 4; ++col)
        sn_transpose4_sse2(c[0][col], c[1][col], c[2][col], c[3][col], &m.a[col].x, &m.a[col].y, &m.a[col].z,
                           &unused);
    return m;
}

/* x, y, z of one vertex (lane 3 zero), reading exactly 12 bytes. */
SN_SKIN_INLINE __m128 sn_load3_lane_sse2(const char *p)
{
    const __m128 xy = _mm_loadl_pi(_mm_setzero_ps(), (const __m64 *)(const void *)p);
    return _mm_movelh_ps(xy, _mm_load_ss((const float *)(const void *)p + 2));
}

SN_SKIN_INLINE sn_xv sn_load3_w(const char *p, size_t stride, unsigned n, const uint32_t *lanes)
{
    sn_xv v;
    if (!lanes && n == 4 && stride == 3 * sizeof(float)) {
        const float *f = (const float *)(const void *)p;
        /* a = x0 y0 z0 x1, b = y1 z1 x2 y2, c = z2 x3 y3 z3 */
        const __m128 a = _mm_loadu_ps(f), b = _mm_loadu_ps(f + 4), c = _mm_loadu_ps(f + 8);
        const __m128 xy = _mm_shuffle_ps(b, c, _MM_SHUFFLE(2, 1, 3, 2)); /* x2 y2 x3 y3 */
        const __m128 yz = _mm_shuffle_ps(a, b, _MM_SHUFFLE(1, 0, 2, 1)); /* y0 z0 y1 z1 */
        v.x = _mm_shuffle_ps(a, xy, _MM_SHUFFLE(2, 0, 3, 0));
        v.y = _mm_shuffle_ps(yz, xy, _MM_SHUFFLE(3, 1, 2, 0));
        v.z = _mm_shuffle_ps(yz, c, _MM_SHUFFLE(3, 0, 3, 1));
        return v;
    }
    __m128 r[4], w;
    for (unsigned l = 0; l < 4; ++l) r[l] = sn_load3_lane_sse2(p + SN_LANE(lanes, l < n ? l : n - 1) * stride);
    sn_transpose4_sse2(r[0], r[1], r[2], r[3], &v.x, &v.y, &v.z, &w);
    return v;
}

SN_SKIN_INLINE sn_xv sn_load4_w(const char *p, size_t stride, unsigned n, const uint32_t *lanes, __m128 *w)
{
    sn_xv v;
    __m128 r[4];
    for (unsigned l = 0; l < 4; ++l)
        r[l] = _mm_loadu_ps((const float *)(const void *)(p + SN_LANE(lanes, l < n ? l : n - 1) * stride));
    sn_transpose4_sse2(r[0], r[1], r[2], r[3], &v.x, &v.y, &v.z, w);
    return v;
}

SN_SKIN_INLINE void sn_store3_w(char *p, size_t stride, unsigned n, const uint32_t *lanes, sn_xv v)
{
    if (!lanes && n == 4 && stride == 3 * sizeof(float)) {
        float *f = (float *)(void *)p;
        const __m128 rxy = _mm_shuffle_ps(v.x, v.y, _MM_SHUFFLE(2, 0, 2, 0)); /* x0 x2 y0 y2 */
        const __m128 ryz = _mm_shuffle_ps(v.y, v.z, _MM_SHUFFLE(3, 1, 3, 1)); /* y1 y3 z1 z3 */
        const __m128 rzx = _mm_shuffle_ps(v.z, v.x, _MM_SHUFFLE(3, 1, 2, 0)); /* z0 z2 x1 x3 */
        _mm_storeu_ps(f, _mm_shuffle_ps(rxy, rzx, _MM_SHUFFLE(2, 0, 2, 0)));     /* x0 y0 z0 x1 */
        _mm_storeu_ps(f + 4, _mm_shuffle_ps(ryz, rxy, _MM_SHUFFLE(3, 1, 2, 0))); /* y1 z1 x2 y2 */
        _mm_storeu_ps(f + 8, _mm_shuffle_ps(rzx, ryz, _MM_SHUFFLE(3, 1, 3, 1))); /* z2 x3 y3 z3 */
        return;
    }
    __m128 r[4];
    sn_transpose4_sse2(v.x, v.y, v.z, _mm_setzero_ps(), &r[0], &r[1], &r[2], &r[3]);
    for (unsigned l = 0; l < n; ++l) {
        float *f = (float *)(void *)(p + SN_LANE(lanes, l) * stride);
        _mm_storel_pi((__m64 *)(void *)f, r[l]);
        _mm_store_ss(f + 2, _mm_movehl_ps(r[l], r[l]));
    }
}

SN_SKIN_INLINE void sn_store4_w(char *p, size_t stride, unsigned n, const uint32_t *lanes, sn_xv v, __m128 w)
{
    __m128 r[4];
    sn_transpose4_sse2(v.x, v.y, v.z, w, &r[0], &r[1], &r[2], &r[3]);
    for (unsigned l = 0; l < n; ++l) _mm_storeu_ps((float *)(void *)(p + SN_LANE(lanes, l) * stride), r[l]);
}

#endif /* SINEW_SKIN_KERNEL_WIDE_SSE2_H */
