/*
 * The blend and transpose of a block of eight vertices (what
 * kernel_lanes8_avx2.h's sn_blended_avx2 does) in 512-bit registers, for the
 * AVX-512 kernel set (kernel_wide_avx512.h). A palette record (16 floats,
 * one cache line) fits one register, so each influence costs one load and
 * one FMA instead of two of each, and the transposes move two matrix columns
 * at a time. Per element the blend is the same operations in the same order
 * (w0 r0, then r_s w_s + acc slot by slot), and the rest only moves values,
 * so a vertex gets the same bits as from sn_blended_avx2 (8-bit weights
 * become floats a block at a time there and here, with sn_skin_weight's
 * bits). Built with -mavx512f or wider.
 */
#ifndef SINEW_SKIN_KERNEL_LANES8_AVX512_H
#define SINEW_SKIN_KERNEL_LANES8_AVX512_H

#include <immintrin.h>

#include "skin/kernel_lanes8_avx2.h"
#include "skin/skin_internal.h"

/* The blended record (four columns of four floats) of group position i;
 * wf as in sn_weight_of_avx2. */
SN_SKIN_INLINE __m512 sn_blend_record_avx512(const sn_skin_group *g, size_t i, const float *palette,
                                            const sn_skin_format format, const unsigned K, const float *wf)
{
    const unsigned k = K ? K : g->influences;
    const size_t base = i * k;
    const float *r0 = palette + SN_SKIN_RECORD_LINEAR * sn_skin_joint(g->joints, format, base);
    if (K == 1) return _mm512_loadu_ps(r0);
    __m512 a = _mm512_mul_ps(_mm512_loadu_ps(r0), _mm512_set1_ps(sn_weight_of_avx2(g, format, base, 0, wf)));
    for (unsigned s = 1; s < k; ++s) {
        const float *r = palette + SN_SKIN_RECORD_LINEAR * sn_skin_joint(g->joints, format, base + s);
        a = _mm512_fmadd_ps(_mm512_loadu_ps(r), _mm512_set1_ps(sn_weight_of_avx2(g, format, base, s, wf)), a);
    }
    return a;
}

/* 4x4 transposes inside each 128-bit quarter (sn_transpose4_avx2 at twice
 * the width). */
SN_SKIN_INLINE void sn_transpose4_avx512(__m512 r0, __m512 r1, __m512 r2, __m512 r3, __m512 *x, __m512 *y,
                                         __m512 *z)
{
    const __m512 t0 = _mm512_unpacklo_ps(r0, r1), t1 = _mm512_unpackhi_ps(r0, r1);
    const __m512 t2 = _mm512_unpacklo_ps(r2, r3), t3 = _mm512_unpackhi_ps(r2, r3);
    *x = _mm512_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
    *y = _mm512_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
    *z = _mm512_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
}

/* The high 256 bits (AVX-512F has no float extract of eight). */
SN_SKIN_INLINE __m256 sn_hi256_avx512(__m512 v)
{
    return _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1));
}

/* A 512-bit register from two 256-bit halves (nor a float insert of eight). */
SN_SKIN_INLINE __m512 sn_join256_avx512(__m256 lo, __m256 hi)
{
    return _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_castps_pd(lo)), _mm256_castps_pd(hi), 1));
}

/* The n vertices at group positions i.. blended one by one, then transposed:
 * e[3 c + r] holds row r of column c, one vertex per lane, vertices 0..3 in
 * the low half and 4..7 in the high one, as sn_blended_avx2 gives them. */
SN_SKIN_INLINE void sn_blended_avx512(const sn_skin_group *g, size_t i, unsigned n, const float *palette,
                                      const sn_skin_format format, const unsigned K, __m256 e[12])
{
    __m512 rec[8];
    if (n == 8) {
        float scratch[32];
        const float *wf = sn_block_weights_as_floats_avx2(g, i, format, K, scratch);
#pragma GCC unroll 8
        for (unsigned l = 0; l < 8; ++l)
            rec[l] = sn_blend_record_avx512(g, i + l, palette, format, K, wf ? wf + l * K : NULL);
    } else {
        for (unsigned l = 0; l < 8; ++l)
            rec[l] = sn_blend_record_avx512(g, i + (l < n ? l : n - 1), palette, format, K, NULL);
    }
    /* Quarters (vertex l's column c, vertex l + 4's column c, vertex l's
     * column c + 1, vertex l + 4's column c + 1), for c = 0 and c = 2. */
    const __m512i cols01 = _mm512_setr_epi32(0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23);
    const __m512i cols23 = _mm512_setr_epi32(8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31);
    __m512 p[4], q[4];
    for (unsigned l = 0; l < 4; ++l) {
        p[l] = _mm512_permutex2var_ps(rec[l], cols01, rec[l + 4]);
        q[l] = _mm512_permutex2var_ps(rec[l], cols23, rec[l + 4]);
    }
    __m512 t[3];
    sn_transpose4_avx512(p[0], p[1], p[2], p[3], &t[0], &t[1], &t[2]);
    for (int r = 0; r < 3; ++r) e[r] = _mm512_castps512_ps256(t[r]), e[3 + r] = sn_hi256_avx512(t[r]);
    sn_transpose4_avx512(q[0], q[1], q[2], q[3], &t[0], &t[1], &t[2]);
    for (int r = 0; r < 3; ++r) e[6 + r] = _mm512_castps512_ps256(t[r]), e[9 + r] = sn_hi256_avx512(t[r]);
}

#endif /* SINEW_SKIN_KERNEL_LANES8_AVX512_H */
