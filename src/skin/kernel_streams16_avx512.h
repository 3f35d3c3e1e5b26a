/*
 * Packed streams of a sixteen-vertex block in 512-bit registers, for the
 * AVX-512 kernel set (kernel_wide_avx512.h names them as kernel_wide_halves.h's
 * SN_W_LOAD3_PACKED16 and the like). Built with -mavx512f or wider.
 *
 * A block is two halves of eight consecutive vertices each, the second at b:
 * right after the first when the whole block is consecutive, elsewhere in
 * the stream when a real mesh's file order puts other groups' vertices
 * between them. The halves' 3-vectors (96 bytes each) fill the three
 * registers of sixteen packed vertices (48 floats in vertex order), and two
 * two-source permutes per component turn those into x, y and z of vertices
 * 0..15; 4-vectors (128 bytes a half) fill four registers and a two-stage
 * transpose. Stores run the same steps backwards and write exactly the
 * halves' bytes. Only values move, so every lane holds the bits the
 * eight-at-a-time moves (kernel_lanes8_avx2.h) give, in about a third of
 * their instructions.
 */
#ifndef SINEW_SKIN_KERNEL_STREAMS16_AVX512_H
#define SINEW_SKIN_KERNEL_STREAMS16_AVX512_H

#include <immintrin.h>

#include "skin/kernel_lanes8_avx512.h"
#include "skin/skin_internal.h"

/* x, y, z (v[0..2]) of the eight 3-vectors at a and the eight at b. */
SN_SKIN_INLINE void sn_load3_packed16_avx512(const float *a, const float *b, __m512 v[3])
{
    const __m512 l0 = _mm512_loadu_ps(a), l2 = _mm512_loadu_ps(b + 8);
    const __m512 l1 = b == a + 24 ? _mm512_loadu_ps(a + 16)
                                  : sn_join256_avx512(_mm256_loadu_ps(a + 16), _mm256_loadu_ps(b));
    /* Float 3 l + c of the 48 is component c of vertex l: the first permute
     * takes what l0 and l1 hold, the second the rest from l2. */
    v[0] = _mm512_permutex2var_ps(
        _mm512_permutex2var_ps(l0, _mm512_setr_epi32(0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 0, 0, 0, 0, 0), l1),
        _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 17, 20, 23, 26, 29), l2);
    v[1] = _mm512_permutex2var_ps(
        _mm512_permutex2var_ps(l0, _mm512_setr_epi32(1, 4, 7, 10, 13, 16, 19, 22, 25, 28, 31, 0, 0, 0, 0, 0), l1),
        _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 18, 21, 24, 27, 30), l2);
    v[2] = _mm512_permutex2var_ps(
        _mm512_permutex2var_ps(l0, _mm512_setr_epi32(2, 5, 8, 11, 14, 17, 20, 23, 26, 29, 0, 0, 0, 0, 0, 0), l1),
        _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 19, 22, 25, 28, 31), l2);
}

/* Stores x, y, z of vertices 0..7 as eight 3-vectors at a, of 8..15 at b. */
SN_SKIN_INLINE void sn_store3_packed16_avx512(float *a, float *b, __m512 x, __m512 y, __m512 z)
{
    /* Register r holds floats 16 r .. 16 r + 15 of the 48: x and y first,
     * then z (the zero indices are lanes the second permute replaces). */
    const __m512 s0 = _mm512_permutex2var_ps(
        _mm512_permutex2var_ps(x, _mm512_setr_epi32(0, 16, 0, 1, 17, 0, 2, 18, 0, 3, 19, 0, 4, 20, 0, 5), y),
        _mm512_setr_epi32(0, 1, 16, 3, 4, 17, 6, 7, 18, 9, 10, 19, 12, 13, 20, 15), z);
    const __m512 s1 = _mm512_permutex2var_ps(
        _mm512_permutex2var_ps(x, _mm512_setr_epi32(21, 0, 6, 22, 0, 7, 23, 0, 8, 24, 0, 9, 25, 0, 10, 26), y),
        _mm512_setr_epi32(0, 21, 2, 3, 22, 5, 6, 23, 8, 9, 24, 11, 12, 25, 14, 15), z);
    const __m512 s2 = _mm512_permutex2var_ps(
        _mm512_permutex2var_ps(x, _mm512_setr_epi32(0, 11, 27, 0, 12, 28, 0, 13, 29, 0, 14, 30, 0, 15, 31, 0), y),
        _mm512_setr_epi32(26, 1, 2, 27, 4, 5, 28, 7, 8, 29, 10, 11, 30, 13, 14, 31), z);
    _mm512_storeu_ps(a, s0);
    _mm512_storeu_ps(b + 8, s2);
    if (b == a + 24) {
        _mm512_storeu_ps(a + 16, s1);
    } else {
        _mm256_storeu_ps(a + 16, _mm512_castps512_ps256(s1));
        _mm256_storeu_ps(b, sn_hi256_avx512(s1));
    }
}

/* x, y, z, w (v[0..3]) of the eight 4-vectors at a and the eight at b. */
SN_SKIN_INLINE void sn_load4_packed16_avx512(const float *a, const float *b, __m512 v[4])
{
    /* Each register holds four vertices; first x and y, then z and w, of
     * eight vertices per register, then sixteen. */
    const __m512i xy = _mm512_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28, 1, 5, 9, 13, 17, 21, 25, 29);
    const __m512i zw = _mm512_setr_epi32(2, 6, 10, 14, 18, 22, 26, 30, 3, 7, 11, 15, 19, 23, 27, 31);
    const __m512i lo = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23);
    const __m512i hi = _mm512_setr_epi32(8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31);
    const __m512 l0 = _mm512_loadu_ps(a), l1 = _mm512_loadu_ps(a + 16);
    const __m512 l2 = _mm512_loadu_ps(b), l3 = _mm512_loadu_ps(b + 16);
    const __m512 a0 = _mm512_permutex2var_ps(l0, xy, l1), a1 = _mm512_permutex2var_ps(l0, zw, l1);
    const __m512 b0 = _mm512_permutex2var_ps(l2, xy, l3), b1 = _mm512_permutex2var_ps(l2, zw, l3);
    v[0] = _mm512_permutex2var_ps(a0, lo, b0);
    v[1] = _mm512_permutex2var_ps(a0, hi, b0);
    v[2] = _mm512_permutex2var_ps(a1, lo, b1);
    v[3] = _mm512_permutex2var_ps(a1, hi, b1);
}

/* Stores x, y, z, w of vertices 0..7 as eight 4-vectors at a, of 8..15 at b. */
SN_SKIN_INLINE void sn_store4_packed16_avx512(float *a, float *b, __m512 x, __m512 y, __m512 z, __m512 w)
{
    const __m512i lo = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23);
    const __m512i hi = _mm512_setr_epi32(8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31);
    /* Vertices 0..3 (then 4..7) as x y z w each, from (x, y) and (z, w) of eight. */
    const __m512i v03 = _mm512_setr_epi32(0, 8, 16, 24, 1, 9, 17, 25, 2, 10, 18, 26, 3, 11, 19, 27);
    const __m512i v47 = _mm512_setr_epi32(4, 12, 20, 28, 5, 13, 21, 29, 6, 14, 22, 30, 7, 15, 23, 31);
    const __m512 a0 = _mm512_permutex2var_ps(x, lo, y), a1 = _mm512_permutex2var_ps(z, lo, w);
    const __m512 b0 = _mm512_permutex2var_ps(x, hi, y), b1 = _mm512_permutex2var_ps(z, hi, w);
    _mm512_storeu_ps(a, _mm512_permutex2var_ps(a0, v03, a1));
    _mm512_storeu_ps(a + 16, _mm512_permutex2var_ps(a0, v47, a1));
    _mm512_storeu_ps(b, _mm512_permutex2var_ps(b0, v03, b1));
    _mm512_storeu_ps(b + 16, _mm512_permutex2var_ps(b0, v47, b1));
}

#endif /* SINEW_SKIN_KERNEL_STREAMS16_AVX512_H */
