/*
 * Blocks of eight vertices in AVX2 registers: blend and transpose their
 * matrices, move their streams into and out of structure-of-arrays form.
 * Plain __m256 in and out, so that both the 8-lane kernel
 * (kernel_wide_avx2.h) and the 16-lane one (kernel_wide_halves.h, two blocks
 * of eight per block) use the same code. Built with -mavx2 -mfma or wider.
 *
 * n is the number of live lanes (1..8): dead lanes repeat lane n - 1 on load
 * and are never stored. lanes as SN_LANE: NULL means consecutive vertices
 * from p on, else p is the stream's origin and lane l is vertex lanes[l].
 * A blended matrix goes as (column 0 | column 1) and (column 2 | column 3);
 * pairing vertex l with vertex l + 4 in one register lets every transpose
 * after that stay inside 128-bit halves.
 */
#ifndef SINEW_SKIN_KERNEL_LANES8_AVX2_H
#define SINEW_SKIN_KERNEL_LANES8_AVX2_H

#include <immintrin.h>

#include "skin/skin_internal.h"

#ifndef SN_LANE
#  define SN_LANE(lanes, l) ((lanes) ? (size_t)(lanes)[l] : (size_t)(l))
#endif

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

/* Weight s of the group position whose first slot is at base: from wf (the
 * position's k weights, already floats) where given, else from the group's
 * storage. */
SN_SKIN_INLINE float sn_weight_of_avx2(const sn_skin_group *g, const sn_skin_format format, size_t base, unsigned s,
                                       const float *wf)
{
    return wf ? wf[s] : sn_skin_weight(g->weights, format, base + s);
}

/* The 8 K byte weights of a full block of eight at group position i, as
 * floats into wf: eight at a time, each (float)byte * (1 / 255), the bits of
 * sn_skin_weight, without its three scalar instructions per weight. For
 * K = 2..4 (a compile-time count); reads only the block's own bytes. */
SN_SKIN_INLINE void sn_block_byte_weights_avx2(const sn_skin_group *g, size_t i, const unsigned K, float *wf)
{
    const uint8_t *w = (const uint8_t *)g->weights + i * K;
    for (unsigned o = 0; o < 8 * K; o += 8) {
        const __m128i b = _mm_loadl_epi64((const __m128i *)(const void *)(w + o));
        _mm256_storeu_ps(wf + o,
                         _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(b)), _mm256_set1_ps(1.0f / 255.0f)));
    }
}

/* The weights of a full block of eight as floats, for sn_blend_wide_avx2 and
 * the like: converted into `scratch` (32 floats) where they are 8-bit and K
 * is 2..4, else NULL (the blend reads the group's storage). format and K are
 * compile-time constants in every kernel, so the choice costs nothing per
 * block. */
SN_SKIN_INLINE const float *sn_block_weights_as_floats_avx2(const sn_skin_group *g, size_t i,
                                                           const sn_skin_format format, const unsigned K,
                                                           float *scratch)
{
    if (format == SN_SKIN_F32_J16 || K < 2 || K > 4) return NULL;
    sn_block_byte_weights_avx2(g, i, K, scratch);
    return scratch;
}

/* Blended matrix of group position i as (column 0 | column 1), (column 2 |
 * column 3): the same arithmetic as sn_blend in kernel_body.h; wf as in
 * sn_weight_of_avx2. */
SN_SKIN_INLINE void sn_blend_wide_avx2(const sn_skin_group *g, size_t i, const float *palette,
                                       const sn_skin_format format, const unsigned K, const float *wf, __m256 *c01,
                                       __m256 *c23)
{
    const unsigned k = K ? K : g->influences;
    const size_t base = i * k;
    const float *r0 = palette + SN_SKIN_RECORD_LINEAR * sn_skin_joint(g->joints, format, base);
    if (K == 1) {
        *c01 = _mm256_loadu_ps(r0);
        *c23 = _mm256_loadu_ps(r0 + 8);
        return;
    }
    const __m256 w0 = _mm256_set1_ps(sn_weight_of_avx2(g, format, base, 0, wf));
    __m256 a = _mm256_mul_ps(_mm256_loadu_ps(r0), w0), b = _mm256_mul_ps(_mm256_loadu_ps(r0 + 8), w0);
    for (unsigned s = 1; s < k; ++s) {
        const float *r = palette + SN_SKIN_RECORD_LINEAR * sn_skin_joint(g->joints, format, base + s);
        const __m256 w = _mm256_set1_ps(sn_weight_of_avx2(g, format, base, s, wf));
        a = _mm256_fmadd_ps(_mm256_loadu_ps(r), w, a);
        b = _mm256_fmadd_ps(_mm256_loadu_ps(r + 8), w, b);
    }
    *c01 = a;
    *c23 = b;
}

/* All k slot weights of a full block of eight with float weights, k = 2 or
 * 4: the block's 8k consecutive weights transposed in registers. Returns
 * false (nothing written) for any other block. */
SN_SKIN_INLINE bool sn_block_weights_avx2(const sn_skin_group *g, size_t i, unsigned n, const sn_skin_format format,
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

/* The n vertices at group positions i.. blended one by one, then transposed:
 * e[3 c + r] holds row r of column c, one vertex per lane. */
SN_SKIN_INLINE void sn_blended_avx2(const sn_skin_group *g, size_t i, unsigned n, const float *palette,
                                    const sn_skin_format format, const unsigned K, __m256 e[12])
{
    __m256 c01[8], c23[8];
    if (n == 8) {
        /* A full block, unrolled: each lane's joints and weights sit at a
         * constant offset from the block's, so the per-lane clamp, the loop
         * and most of the address arithmetic go (about a seventh of the
         * instructions of a four-influence vertex with normals and tangents). */
        float scratch[32];
        const float *wf = sn_block_weights_as_floats_avx2(g, i, format, K, scratch);
#pragma GCC unroll 8
        for (unsigned l = 0; l < 8; ++l)
            sn_blend_wide_avx2(g, i + l, palette, format, K, wf ? wf + l * K : NULL, &c01[l], &c23[l]);
    } else {
        for (unsigned l = 0; l < 8; ++l)
            sn_blend_wide_avx2(g, i + (l < n ? l : n - 1), palette, format, K, NULL, &c01[l], &c23[l]);
    }
    __m256 col[4][4];
    for (unsigned l = 0; l < 4; ++l) {
        col[0][l] = _mm256_permute2f128_ps(c01[l], c01[l + 4], 0x20);
        col[1][l] = _mm256_permute2f128_ps(c01[l], c01[l + 4], 0x31);
        col[2][l] = _mm256_permute2f128_ps(c23[l], c23[l + 4], 0x20);
        col[3][l] = _mm256_permute2f128_ps(c23[l], c23[l + 4], 0x31);
    }
    __m256 unused;
    for (int c = 0; c < 4; ++c)
        sn_transpose4_avx2(col[c][0], col[c][1], col[c][2], col[c][3], &e[3 * c], &e[3 * c + 1], &e[3 * c + 2],
                           &unused);
}

/* x, y, z of one vertex in a 128-bit register (lane 3 zero), reading exactly
 * 12 bytes. */
SN_SKIN_INLINE __m128 sn_load3_lane_avx2(const char *p)
{
    const __m128 xy = _mm_loadl_pi(_mm_setzero_ps(), (const __m64 *)(const void *)p);
    return _mm_movelh_ps(xy, _mm_load_ss((const float *)(const void *)p + 2));
}

/* Eight 3-vectors from a stream into v[0..2] (x, y, z): packed consecutive
 * ones with three 256-bit loads, any other stride, partial block or gathered
 * block lane by lane. */
SN_SKIN_INLINE void sn_load3_avx2(const char *p, size_t stride, unsigned n, const uint32_t *lanes, __m256 v[3])
{
    if (!lanes && n == 8 && stride == 3 * sizeof(float)) {
        const float *f = (const float *)(const void *)p;
        const __m256 l0 = _mm256_loadu_ps(f), l1 = _mm256_loadu_ps(f + 8), l2 = _mm256_loadu_ps(f + 16);
        /* In each half (vertices 0..3, 4..7): a = x0 y0 z0 x1, b = y1 z1 x2 y2, c = z2 x3 y3 z3. */
        const __m256 a = _mm256_blend_ps(l0, l1, 0xF0);
        const __m256 b = _mm256_permute2f128_ps(l0, l2, 0x21);
        const __m256 c = _mm256_blend_ps(l1, l2, 0xF0);
        const __m256 xy = _mm256_shuffle_ps(b, c, _MM_SHUFFLE(2, 1, 3, 2)); /* x2 y2 x3 y3 */
        const __m256 yz = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(1, 0, 2, 1)); /* y0 z0 y1 z1 */
        v[0] = _mm256_shuffle_ps(a, xy, _MM_SHUFFLE(2, 0, 3, 0));
        v[1] = _mm256_shuffle_ps(yz, xy, _MM_SHUFFLE(3, 1, 2, 0));
        v[2] = _mm256_shuffle_ps(yz, c, _MM_SHUFFLE(3, 0, 3, 1));
        return;
    }
    __m256 r[4], w;
    for (unsigned l = 0; l < 4; ++l) {
        const unsigned h = l + 4 < n ? l + 4 : n - 1, lo = l < n ? l : n - 1;
        r[l] = sn_pair_avx2(sn_load3_lane_avx2(p + SN_LANE(lanes, lo) * stride),
                            sn_load3_lane_avx2(p + SN_LANE(lanes, h) * stride));
    }
    sn_transpose4_avx2(r[0], r[1], r[2], r[3], &v[0], &v[1], &v[2], &w);
}

/* Eight 4-vectors (tangents) into v[0..3]: one 16-byte load per vertex, any
 * stride. */
SN_SKIN_INLINE void sn_load4_avx2(const char *p, size_t stride, unsigned n, const uint32_t *lanes, __m256 v[4])
{
    __m256 r[4];
    for (unsigned l = 0; l < 4; ++l) {
        const unsigned h = l + 4 < n ? l + 4 : n - 1, lo = l < n ? l : n - 1;
        r[l] = sn_pair_avx2(_mm_loadu_ps((const float *)(const void *)(p + SN_LANE(lanes, lo) * stride)),
                            _mm_loadu_ps((const float *)(const void *)(p + SN_LANE(lanes, h) * stride)));
    }
    sn_transpose4_avx2(r[0], r[1], r[2], r[3], &v[0], &v[1], &v[2], &v[3]);
}

/* Stores lanes 0..n-1 as 3-vectors, exactly 12 bytes each. Packed full blocks
 * store three 32-byte pieces. */
SN_SKIN_INLINE void sn_store3_avx2(char *p, size_t stride, unsigned n, const uint32_t *lanes, __m256 x, __m256 y,
                                   __m256 z)
{
    if (!lanes && n == 8 && stride == 3 * sizeof(float)) {
        float *f = (float *)(void *)p;
        const __m256 rxy = _mm256_shuffle_ps(x, y, _MM_SHUFFLE(2, 0, 2, 0)); /* x0 x2 y0 y2 */
        const __m256 ryz = _mm256_shuffle_ps(y, z, _MM_SHUFFLE(3, 1, 3, 1)); /* y1 y3 z1 z3 */
        const __m256 rzx = _mm256_shuffle_ps(z, x, _MM_SHUFFLE(3, 1, 2, 0)); /* z0 z2 x1 x3 */
        const __m256 a = _mm256_shuffle_ps(rxy, rzx, _MM_SHUFFLE(2, 0, 2, 0)); /* x0 y0 z0 x1 */
        const __m256 b = _mm256_shuffle_ps(ryz, rxy, _MM_SHUFFLE(3, 1, 2, 0)); /* y1 z1 x2 y2 */
        const __m256 c = _mm256_shuffle_ps(rzx, ryz, _MM_SHUFFLE(3, 1, 3, 1)); /* z2 x3 y3 z3 */
        /* (a.lo b.lo), (c.lo a.hi), (b.hi c.hi): vertices 0..7 in order. */
        _mm256_storeu_ps(f, _mm256_permute2f128_ps(a, b, 0x20));
        _mm256_storeu_ps(f + 8, _mm256_permute2f128_ps(c, a, 0x30));
        _mm256_storeu_ps(f + 16, _mm256_permute2f128_ps(b, c, 0x31));
        return;
    }
    __m256 r[4];
    sn_transpose4_avx2(x, y, z, _mm256_setzero_ps(), &r[0], &r[1], &r[2], &r[3]);
    for (unsigned l = 0; l < n; ++l) {
        const __m128 q = l < 4 ? _mm256_castps256_ps128(r[l]) : _mm256_extractf128_ps(r[l - 4], 1);
        float *f = (float *)(void *)(p + SN_LANE(lanes, l) * stride);
        _mm_storel_pi((__m64 *)(void *)f, q);
        _mm_store_ss(f + 2, _mm_movehl_ps(q, q));
    }
}

/* Stores lanes 0..n-1 as 4-vectors (x, y, z, w). */
SN_SKIN_INLINE void sn_store4_avx2(char *p, size_t stride, unsigned n, const uint32_t *lanes, __m256 x, __m256 y,
                                   __m256 z, __m256 w)
{
    __m256 r[4];
    sn_transpose4_avx2(x, y, z, w, &r[0], &r[1], &r[2], &r[3]);
    for (unsigned l = 0; l < n; ++l) {
        const __m128 q = l < 4 ? _mm256_castps256_ps128(r[l]) : _mm256_extractf128_ps(r[l - 4], 1);
        _mm_storeu_ps((float *)(void *)(p + SN_LANE(lanes, l) * stride), q);
    }
}

#endif /* SINEW_SKIN_KERNEL_LANES8_AVX2_H */
