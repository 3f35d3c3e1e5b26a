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

/*
 * Blended-matrix normals, one vertex at a time. That mode needs no cofactor,
 * so a vertex's work is its blended columns times three broadcasts per
 * stream, as in the one-vertex kernel: in SSE2 (no broadcast from memory,
 * two-operand instructions, sixteen registers) the four-vertex body's
 * transposes of the blended matrices cost more than that work itself (70
 * instructions a vertex against 54 for the ozz-style loop, with one
 * influence and P+N). Only what the renormalisation wants in lanes goes
 * through a transpose: the four transformed normals (and tangents), which
 * are then renormalised and stored as in kernel_wide_body.h. Per lane the
 * arithmetic is the wide body's, operation for operation (products in the
 * same order, no fused operations in SSE2), so the bits are those of the
 * four-vertex body and stay the same under any chunking.
 */

/* Unrolls the next loop: GCC keeps the per-vertex loop of sn_block_aos_sse2
 * rolled at two influences, with its results through the stack. */
#if defined(__GNUC__) && !defined(__clang__)
#  define SN_UNROLL4_SSE2 _Pragma("GCC unroll 4")
#elif defined(__clang__)
#  define SN_UNROLL4_SSE2 _Pragma("unroll 4")
#else
#  define SN_UNROLL4_SSE2
#endif

/* Lane l of v in every lane (one pshufd; l folds to a constant). */
SN_SKIN_INLINE __m128 sn_lane_sse2(__m128 v, unsigned l)
{
    const __m128i i = _mm_castps_si128(v);
    switch (l) {
    case 0: return _mm_castsi128_ps(_mm_shuffle_epi32(i, 0x00));
    case 1: return _mm_castsi128_ps(_mm_shuffle_epi32(i, 0x55));
    case 2: return _mm_castsi128_ps(_mm_shuffle_epi32(i, 0xAA));
    default: return _mm_castsi128_ps(_mm_shuffle_epi32(i, 0xFF));
    }
}

/* Blended columns of group position i (sn_blend_wide_sse2's arithmetic);
 * float weights of two or four slots come in one load. */
SN_SKIN_INLINE void sn_blend_aos_sse2(const sn_skin_group *g, size_t i, const float *palette,
                                      const sn_skin_format format, const unsigned K, __m128 c[4])
{
    if (format != SN_SKIN_F32_J16 || (K != 2 && K != 4)) {
        sn_blend_wide_sse2(g, i, palette, format, K, c);
        return;
    }
    const uint16_t *j = (const uint16_t *)g->joints + i * K;
    const float *f = (const float *)g->weights + i * K;
    const __m128 wv = K == 4 ? _mm_loadu_ps(f) : _mm_castpd_ps(_mm_load_sd((const double *)(const void *)f));
    const float *r = palette + SN_SKIN_RECORD_LINEAR * (size_t)j[0];
    __m128 w = sn_lane_sse2(wv, 0);
    for (int col = 0; col < 4; ++col) c[col] = _mm_mul_ps(_mm_loadu_ps(r + 4 * col), w);
    for (unsigned s = 1; s < K; ++s) {
        r = palette + SN_SKIN_RECORD_LINEAR * (size_t)j[s];
        w = sn_lane_sse2(wv, s);
        for (int col = 0; col < 4; ++col) c[col] = _mm_add_ps(_mm_mul_ps(_mm_loadu_ps(r + 4 * col), w), c[col]);
    }
}

/* Component f of a block's input floats held in registers in[f / 4]. */
#define SN_IN_SSE2(in, f) sn_lane_sse2((in)[(f) / 4], (f) % 4)

/* c0 x + c1 y + c2 z (+ c3 for a point), x, y, z the components f..f + 2 of
 * in, summed in the wide body's order. */
SN_SKIN_INLINE __m128 sn_transform_aos_sse2(const __m128 c[4], const __m128 *in, unsigned f, bool point)
{
    __m128 r = _mm_mul_ps(c[0], SN_IN_SSE2(in, f));
    if (point) r = _mm_add_ps(r, c[3]);
    r = _mm_add_ps(_mm_mul_ps(c[1], SN_IN_SSE2(in, f + 1)), r);
    return _mm_add_ps(_mm_mul_ps(c[2], SN_IN_SSE2(in, f + 2)), r);
}

/* The terms of det(c0, c1, c2) as the wide body sums them: lanes (z, x, y)
 * of c0 * (c1 x c2), unrotated. */
SN_SKIN_INLINE __m128 sn_det_terms_aos_sse2(const __m128 c[4])
{
    const __m128 x = _mm_sub_ps(_mm_mul_ps(c[1], SN_YZX(c[2])), _mm_mul_ps(SN_YZX(c[1]), c[2]));
    return _mm_mul_ps(_mm_shuffle_ps(c[0], c[0], _MM_SHUFFLE(3, 1, 0, 2)), x);
}

/* Input 3-vectors of a block: a packed one's 48 bytes in three registers
 * (components 3 l .. 3 l + 2 are lane l's), else lane l's x, y, z in in[l]
 * (from component 4 l on). */
SN_SKIN_INLINE void sn_in3_aos_sse2(const char *p, size_t stride, unsigned n, const uint32_t *lanes, bool packed,
                                    __m128 in[4])
{
    if (packed) {
        const float *f = (const float *)(const void *)p;
        in[0] = _mm_loadu_ps(f), in[1] = _mm_loadu_ps(f + 4), in[2] = _mm_loadu_ps(f + 8);
        return;
    }
    for (unsigned l = 0; l < 4; ++l) in[l] = sn_load3_lane_sse2(p + SN_LANE(lanes, l < n ? l : n - 1) * stride);
}

/* Deforms the n (1..4) vertices at group positions i.. with blended-matrix
 * normals. packed: n == 4, consecutive vertices, 12-byte positions and
 * normals, 16-byte tangents (then strides and lanes fold away). */
SN_SKIN_INLINE void sn_block_aos_sse2(const sn_skin_group *g, size_t i, unsigned n, const float *palette,
                                      const sn_skin_io *io, const sn_wide_at *at, const sn_skin_format format,
                                      const unsigned K, const unsigned mask, const bool packed)
{
    const uint32_t *lanes = packed ? NULL : at->lanes;
    const unsigned nn = packed ? 4u : n;
    const size_t ps = packed ? 12u : io->pin_stride, pos = packed ? 12u : io->pout_stride;
    const size_t ns = packed ? 12u : io->nin_stride, nos = packed ? 12u : io->nout_stride;
    const size_t ts = packed ? 16u : io->tin_stride, tos = packed ? 16u : io->tout_stride;
    /* Zeroed only to quiet maybe-uninitialized: a stream not in the mask
     * neither writes nor reads its entries. */
    __m128 nr[4] = {0}, tr[4] = {0}, dt[4] = {0}, tw01 = _mm_setzero_ps(), tw23 = _mm_setzero_ps();
    /* All position inputs are read before any position is written (in
     * place is allowed). */
    __m128 pin[4] = {0}, nin[4] = {0};
    if (mask & SN_SKIN_P) sn_in3_aos_sse2(at->pin, ps, nn, lanes, packed, pin);
    if (mask & SN_SKIN_N) sn_in3_aos_sse2(at->nin, ns, nn, lanes, packed, nin);
    SN_UNROLL4_SSE2
    for (unsigned l = 0; l < 4; ++l) {
        const unsigned ll = l < nn ? l : nn - 1;
        __m128 c[4];
        sn_blend_aos_sse2(g, i + ll, palette, format, K, c);
        const unsigned f = packed ? 3 * l : 4 * l;
        if (mask & SN_SKIN_P) {
            const __m128 r = sn_transform_aos_sse2(c, pin, f, true);
            float *o = (float *)(void *)(at->pout + SN_LANE(lanes, l) * pos);
            /* In a packed block a whole register goes out but for the last
             * vertex: its fourth float lands on the next vertex's x, which
             * that vertex's store then writes (the inputs are all read). */
            if (packed && l < 3) _mm_storeu_ps(o, r);
            else if (l < nn) {
                _mm_storel_pi((__m64 *)(void *)o, r);
                _mm_store_ss(o + 2, _mm_movehl_ps(r, r));
            }
        }
        if (mask & SN_SKIN_N) nr[l] = sn_transform_aos_sse2(c, nin, f, false);
        if (mask & SN_SKIN_T) {
            const __m128 v = _mm_loadu_ps((const float *)(const void *)(at->tin + SN_LANE(lanes, ll) * ts));
            tr[l] = sn_transform_aos_sse2(c, &v, 0, false);
            dt[l] = sn_det_terms_aos_sse2(c);
            /* w of lanes 0, 1 and 2, 3 in the upper halves */
            if (l == 1) tw01 = _mm_unpackhi_ps(tw01, v);
            else if (l == 3) tw23 = _mm_unpackhi_ps(tw23, v);
            else if (l == 0) tw01 = v;
            else tw23 = v;
        }
    }
    if (mask & SN_SKIN_N) {
        sn_xv r;
        __m128 unused;
        sn_transpose4_sse2(nr[0], nr[1], nr[2], nr[3], &r.x, &r.y, &r.z, &unused);
        const unsigned good = sn_normalise_w(&r);
        if (SN_UNLIKELY(good != SN_W_ALL))
            sn_patch_vanished_w(&r, good, nn, g, i, palette, SN_SKIN_RECORD_LINEAR, format, at->nin, ns, lanes, false);
        sn_store3_w(at->nout, nos, nn, lanes, r);
    }
    if (mask & SN_SKIN_T) {
        sn_xv r;
        __m128 unused, dz, dx, dy;
        sn_transpose4_sse2(tr[0], tr[1], tr[2], tr[3], &r.x, &r.y, &r.z, &unused);
        sn_transpose4_sse2(dt[0], dt[1], dt[2], dt[3], &dz, &dx, &dy, &unused);
        const __m128 det = _mm_add_ps(_mm_add_ps(dx, dy), dz);
        const __m128 w = _mm_movehl_ps(tw23, tw01);
        const unsigned good = sn_normalise_w(&r);
        if (SN_UNLIKELY(good != SN_W_ALL))
            sn_patch_vanished_w(&r, good, nn, g, i, palette, SN_SKIN_RECORD_LINEAR, format, at->tin, ts, lanes, false);
        /* Handedness flips where the blend mirrors. */
        sn_store4_w(at->tout, tos, nn, lanes, r, sn_negate_where_w(w, _mm_cmplt_ps(det, _mm_setzero_ps())));
    }
}

/* The blocks of group positions [begin, end) in blended-matrix mode, as
 * SN_WIDE_RUNS_FUNCTION walks them; a block of four consecutive vertices on
 * packed streams takes the packed instance, whose addresses are one
 * multiply by a constant. */
SN_SKIN_INLINE void sn_aos_loop_sse2(const sn_skin_group *g, size_t begin, size_t end, const float *palette,
                                     const sn_skin_io *io, const sn_skin_format format, const unsigned K,
                                     const unsigned mask)
{
    /* Local copies tell the compiler no output store can change the streams
     * or the group's arrays. */
    const sn_skin_io local = *io;
    const sn_skin_group group = *g;
    g = &group;
    const bool P = mask & SN_SKIN_P, N = mask & SN_SKIN_N, T = mask & SN_SKIN_T;
    const bool packed = (!P || (local.pin_stride == 12 && local.pout_stride == 12)) &&
                        (!N || (local.nin_stride == 12 && local.nout_stride == 12)) &&
                        (!T || (local.tin_stride == 16 && local.tout_stride == 16));
    for (size_t i = begin; i < end;) {
        const unsigned n = end - i >= 4 ? 4u : (unsigned)(end - i);
        const uint32_t *vx = g->vertex + i;
        /* Vertex numbers increase within a group: a span of n - 1 means consecutive. */
        const bool whole = vx[n - 1] - vx[0] == n - 1;
        const size_t v = whole ? vx[0] : 0;
        /* Streams not in the mask are NULL: never offset them. */
        if (packed && whole && n == 4) {
            /* A run of packed blocks: the pointers step on while the next
             * block's four vertices follow this one's (eight positions
             * spanning seven vertex numbers). */
            sn_wide_at at = {P ? local.pin + v * 12 : NULL,  N ? local.nin + v * 12 : NULL,
                             T ? local.tin + v * 16 : NULL,  P ? local.pout + v * 12 : NULL,
                             N ? local.nout + v * 12 : NULL, T ? local.tout + v * 16 : NULL,
                             NULL};
            for (;;) {
                if (local.prefetch) sn_prefetch_ahead_w(g, i, &local, format, K, mask);
                sn_block_aos_sse2(g, i, 4, palette, &local, &at, format, K, mask, true);
                i += 4;
                if (end - i < 4 || g->vertex[i + 3] - g->vertex[i - 4] != 7) break;
                if (P) at.pin += 48, at.pout += 48;
                if (N) at.nin += 48, at.nout += 48;
                if (T) at.tin += 64, at.tout += 64;
            }
            continue;
        }
        const sn_wide_at at = {P ? local.pin + v * local.pin_stride : NULL,
                               N ? local.nin + v * local.nin_stride : NULL,
                               T ? local.tin + v * local.tin_stride : NULL,
                               P ? local.pout + v * local.pout_stride : NULL,
                               N ? local.nout + v * local.nout_stride : NULL,
                               T ? local.tout + v * local.tout_stride : NULL,
                               whole ? NULL : vx};
        if (local.prefetch) sn_prefetch_ahead_w(g, i, &local, format, K, mask);
        sn_block_aos_sse2(g, i, n, palette, &local, &at, format, K, mask, false);
        i += n;
    }
}

/* SN_SKIN_WIDE of the SSE2 set: blended-matrix normals one vertex at a time
 * (above), the inverse-transpose ones in the four-vertex body. */
SN_SKIN_INLINE void sn_wide_sse2(const sn_skin_group *g, size_t begin, size_t end, const float *palette,
                                 const sn_skin_io *io, const sn_skin_format format, const unsigned K)
{
    if (io->normals != SINEW_SKIN_NORMALS_BLENDED_MATRIX) {
        sn_wide_w(g, begin, end, palette, io, format, K);
        return;
    }
    switch (io->mask) {
    case SN_SKIN_P | SN_SKIN_N: sn_aos_loop_sse2(g, begin, end, palette, io, format, K, SN_SKIN_P | SN_SKIN_N); break;
    case SN_SKIN_P | SN_SKIN_N | SN_SKIN_T:
        sn_aos_loop_sse2(g, begin, end, palette, io, format, K, SN_SKIN_P | SN_SKIN_N | SN_SKIN_T);
        break;
    default: sn_aos_loop_sse2(g, begin, end, palette, io, format, K, io->mask); break;
    }
}

#endif /* SINEW_SKIN_KERNEL_WIDE_SSE2_H */
