/*
 * AVX-512F vocabulary of the several-vertex linear-blend kernel
 * (kernel_wide_body.h): sixteen vertices per block, the arithmetic in 512-bit
 * registers, the pieces two blocks of eight (kernel_wide_halves.h) except
 * packed streams, which move sixteen vertices in whole registers
 * (kernel_streams16_avx512.h). Included by kernel_avx512.c only (built with
 * -mavx512f -mavx512vl -mavx2 -mfma).
 *
 * Each definition is one AVX-512F instruction (or a cast) doing what the
 * AVX2 vocabulary's does on 8 lanes; everything above it also runs on AVX2
 * machines through the emulated vocabulary of the tests. Comparisons give
 * a mask register: sn_w_gt and sn_w_lt turn it into all-ones lanes, as the
 * body expects, and sn_w_movemask reads those back as bits. AVX-512F has no
 * float and/xor (those are DQ): they go through the integer ones.
 */
#ifndef SINEW_SKIN_KERNEL_WIDE_AVX512_H
#define SINEW_SKIN_KERNEL_WIDE_AVX512_H

#include <immintrin.h>

#include "skin/kernel_lanes8_avx512.h"
#include "skin/kernel_streams16_avx512.h"

typedef __m512 sn_w;
#define SN_W_LANES 16u
#define SN_W_ALL 0xFFFFu
#define sn_w_add _mm512_add_ps
#define sn_w_mul _mm512_mul_ps
#define sn_w_set1 _mm512_set1_ps
#define sn_w_zero _mm512_setzero_ps
/* 14-bit estimate; the body's Newton step makes it full precision. */
#define sn_w_rsqrt _mm512_rsqrt14_ps
#define sn_w_fmadd _mm512_fmadd_ps
#define sn_w_fmsub _mm512_fmsub_ps
#define sn_w_fnmadd _mm512_fnmadd_ps
#define sn_w_load _mm512_load_ps
#define sn_w_store _mm512_store_ps
SN_SKIN_INLINE __m512 sn_w_xor(__m512 a, __m512 b)
{
    return _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(a), _mm512_castps_si512(b)));
}
SN_SKIN_INLINE __m512 sn_w_and(__m512 a, __m512 b)
{
    return _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(a), _mm512_castps_si512(b)));
}
/* All-ones in the lanes of mask m, zero elsewhere. */
SN_SKIN_INLINE __m512 sn_w_from_mask(__mmask16 m)
{
    return _mm512_castsi512_ps(_mm512_maskz_set1_epi32(m, -1));
}
#define sn_w_gt(a, b) sn_w_from_mask(_mm512_cmp_ps_mask((a), (b), _CMP_GT_OQ))
#define sn_w_lt(a, b) sn_w_from_mask(_mm512_cmp_ps_mask((a), (b), _CMP_LT_OQ))
/* Bit l set where lane l is nonzero (the body's masks are all-ones or zero). */
SN_SKIN_INLINE int sn_w_movemask(__m512 v)
{
    return (int)_mm512_test_epi32_mask(_mm512_castps_si512(v), _mm512_castps_si512(v));
}
#define sn_w_lanes(f)                                                                                               \
    _mm512_setr_ps((f)[0], (f)[1], (f)[2], (f)[3], (f)[4], (f)[5], (f)[6], (f)[7], (f)[8], (f)[9], (f)[10], (f)[11], \
                   (f)[12], (f)[13], (f)[14], (f)[15])
#define sn_w_join sn_join256_avx512
SN_SKIN_INLINE __m256 sn_w_lo(__m512 v)
{
    return _mm512_castps512_ps256(v);
}
#define sn_w_hi sn_hi256_avx512

#include "skin/kernel_wide_body.h"

#define SN_BLENDED8 sn_blended_avx512
/* Blocks of two packed halves move in whole 512-bit registers. */
#define SN_W_LOAD3_PACKED16 sn_load3_packed16_avx512
#define SN_W_LOAD4_PACKED16 sn_load4_packed16_avx512
#define SN_W_STORE3_PACKED16 sn_store3_packed16_avx512
#define SN_W_STORE4_PACKED16 sn_store4_packed16_avx512
#include "skin/kernel_wide_halves.h"

#endif /* SINEW_SKIN_KERNEL_WIDE_AVX512_H */
