/*
 * Positions alone, four consecutive vertices at a time, for the AVX-512
 * kernel set (kernel_avx512.c; kernel_body.h calls it as SN_SKIN_POSITIONS4
 * inside a run of consecutive vertex numbers). A one-vertex loop spends
 * most of its instructions moving one matrix's columns and one position's
 * components into place; here each vertex's blended record is one 512-bit
 * register, the four records are transposed by 128-bit quarters (column c
 * of vertex l in quarter l of register c), and one register holds each
 * component of the four positions, so the transform is three FMAs for four
 * vertices. Per lane it is kernel_body.h's operations in its order,
 * fma(c2, z, fma(c1, y, fma(c0, x, c3))), on the same blended record
 * (sn_blend_record_avx512), so a vertex gets the same bits whichever loop
 * reaches it.
 */
#ifndef SINEW_SKIN_KERNEL_POSITIONS_AVX512_H
#define SINEW_SKIN_KERNEL_POSITIONS_AVX512_H

#include <immintrin.h>

#include "skin/kernel_lanes8_avx512.h"

/* x, y, z of four positions (vertex l in quarter l; a quarter's lane 3 is
 * not used). */
SN_SKIN_INLINE __m512 sn_positions4_load_avx512(const float *p, size_t stride)
{
    if (stride == 3 * sizeof(float)) {
        /* x0 y0 z0 x1 ... z3 in two plain loads (nothing read past z3). */
        const __m512 lo = _mm512_castps256_ps512(_mm256_loadu_ps(p));
        const __m512 hi = _mm512_castps128_ps512(_mm_loadu_ps(p + 8));
        const __m512i spread = _mm512_setr_epi32(0, 1, 2, 0, 3, 4, 5, 0, 6, 7, 16, 0, 17, 18, 19, 0);
        return _mm512_permutex2var_ps(lo, spread, hi);
    }
    /* Plain loads: masked ones from lines not in cache are much slower. A
     * vertex's 16 bytes stay inside its own stride (at least 16 bytes when
     * not packed), except the last vertex's, read as 8 + 4. */
    const char *c = (const char *)p;
    const __m128 last = _mm_movelh_ps(_mm_loadl_pi(_mm_setzero_ps(), (const __m64 *)(const void *)(c + 3 * stride)),
                                      _mm_load_ss((const float *)(const void *)(c + 3 * stride) + 2));
    __m512 q = _mm512_castps128_ps512(_mm_loadu_ps((const float *)(const void *)c));
    q = _mm512_insertf32x4(q, _mm_loadu_ps((const float *)(const void *)(c + stride)), 1);
    q = _mm512_insertf32x4(q, _mm_loadu_ps((const float *)(const void *)(c + 2 * stride)), 2);
    return _mm512_insertf32x4(q, last, 3);
}

/* Stores x, y, z of the four quarters of r (nothing else written). */
SN_SKIN_INLINE void sn_positions4_store_avx512(float *p, size_t stride, __m512 r)
{
    if (stride == 3 * sizeof(float)) {
        /* Plain stores: a masked one into lines not in cache is slower. */
        const __m512i pack = _mm512_setr_epi32(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 0, 0, 0, 0);
        const __m512 packed = _mm512_permutexvar_ps(pack, r);
        _mm256_storeu_ps(p, _mm512_castps512_ps256(packed));
        _mm_storeu_ps(p + 8, _mm512_extractf32x4_ps(packed, 2));
        return;
    }
    char *c = (char *)p;
    const __m128 v[4] = {_mm512_castps512_ps128(r), _mm512_extractf32x4_ps(r, 1), _mm512_extractf32x4_ps(r, 2),
                         _mm512_extractf32x4_ps(r, 3)};
    for (int l = 0; l < 4; ++l) {
        float *o = (float *)(void *)(c + (size_t)l * stride);
        _mm_storel_pi((__m64 *)(void *)o, v[l]);
        _mm_store_ss(o + 2, _mm_movehl_ps(v[l], v[l]));
    }
}

/* Positions of group positions i..i + 3, whose vertex numbers are
 * consecutive: read from pin, written to pout (strides in bytes). */
SN_SKIN_INLINE void sn_positions4_avx512(const sn_skin_group *g, size_t i, const float *palette, const float *pin,
                                         size_t pin_stride, float *pout, size_t pout_stride,
                                         const sn_skin_format format, const unsigned K)
{
    const __m512 r0 = sn_blend_record_avx512(g, i, palette, format, K, NULL);
    const __m512 r1 = sn_blend_record_avx512(g, i + 1, palette, format, K, NULL);
    const __m512 r2 = sn_blend_record_avx512(g, i + 2, palette, format, K, NULL);
    const __m512 r3 = sn_blend_record_avx512(g, i + 3, palette, format, K, NULL);
    /* Quarters (columns 0, 1 of vertex 0, then of vertex 1), (columns 2, 3 of
     * vertices 0, 1), and the same for vertices 2, 3; then column c of every
     * vertex. */
    const __m512 t0 = _mm512_shuffle_f32x4(r0, r1, _MM_SHUFFLE(1, 0, 1, 0));
    const __m512 t1 = _mm512_shuffle_f32x4(r0, r1, _MM_SHUFFLE(3, 2, 3, 2));
    const __m512 t2 = _mm512_shuffle_f32x4(r2, r3, _MM_SHUFFLE(1, 0, 1, 0));
    const __m512 t3 = _mm512_shuffle_f32x4(r2, r3, _MM_SHUFFLE(3, 2, 3, 2));
    const __m512 c0 = _mm512_shuffle_f32x4(t0, t2, _MM_SHUFFLE(2, 0, 2, 0));
    const __m512 c1 = _mm512_shuffle_f32x4(t0, t2, _MM_SHUFFLE(3, 1, 3, 1));
    const __m512 c2 = _mm512_shuffle_f32x4(t1, t3, _MM_SHUFFLE(2, 0, 2, 0));
    const __m512 c3 = _mm512_shuffle_f32x4(t1, t3, _MM_SHUFFLE(3, 1, 3, 1));
    const __m512 p = sn_positions4_load_avx512(pin, pin_stride);
    const __m512 x = _mm512_permute_ps(p, _MM_SHUFFLE(0, 0, 0, 0));
    const __m512 y = _mm512_permute_ps(p, _MM_SHUFFLE(1, 1, 1, 1));
    const __m512 z = _mm512_permute_ps(p, _MM_SHUFFLE(2, 2, 2, 2));
    const __m512 r = _mm512_fmadd_ps(c2, z, _mm512_fmadd_ps(c1, y, _mm512_fmadd_ps(c0, x, c3)));
    sn_positions4_store_avx512(pout, pout_stride, r);
}

#define SN_SKIN_POSITIONS4 sn_positions4_avx512

#endif /* SINEW_SKIN_KERNEL_POSITIONS_AVX512_H */
