/*
 * One-vertex vocabulary of kernel_body.h for AVX2+FMA (kernel_avx2.c,
 * kernel_avx512.c): a palette record is one 64-byte line, so a blend is two
 * 256-bit FMAs per influence, (column 0 | column 1) and (column 2 |
 * column 3).
 */
#ifndef SINEW_SKIN_KERNEL_VERTEX_AVX2_H
#define SINEW_SKIN_KERNEL_VERTEX_AVX2_H

#include <immintrin.h>

#include "skin/skin_internal.h"

typedef __m128 sn_v;
typedef struct sn_m {
    __m256 c01, c23;
} sn_m;

SN_SKIN_INLINE sn_v sn_v_bcast(const float *p)
{
    return _mm_broadcast_ss(p);
}
SN_SKIN_INLINE sn_v sn_v_mul(sn_v a, sn_v b)
{
    return _mm_mul_ps(a, b);
}
SN_SKIN_INLINE sn_v sn_v_madd(sn_v a, sn_v b, sn_v c)
{
    return _mm_fmadd_ps(a, b, c);
}
SN_SKIN_INLINE sn_v sn_v_neg(sn_v a)
{
    return _mm_xor_ps(a, _mm_set1_ps(-0.0f));
}
#define SN_YZX(v) _mm_permute_ps((v), _MM_SHUFFLE(3, 0, 2, 1))
SN_SKIN_INLINE sn_v sn_v_cross(sn_v a, sn_v b)
{
    sn_v r = _mm_fmsub_ps(a, SN_YZX(b), _mm_mul_ps(SN_YZX(a), b));
    return SN_YZX(r);
}
SN_SKIN_INLINE float sn_v_dot3(sn_v a, sn_v b)
{
    return _mm_cvtss_f32(_mm_dp_ps(a, b, 0x71));
}
/* x^2 + y^2 + z^2 in lanes 0..2 (lane 3 holds junk): two rotations instead
 * of dpps, which is slow on some cores. */
SN_SKIN_INLINE sn_v sn_v_len2(sn_v v)
{
    __m128 q = _mm_mul_ps(v, v);
    return _mm_add_ps(_mm_add_ps(q, _mm_permute_ps(q, _MM_SHUFFLE(3, 0, 2, 1))),
                      _mm_permute_ps(q, _MM_SHUFFLE(3, 1, 0, 2)));
}
SN_SKIN_INLINE float sn_v_first(sn_v v)
{
    return _mm_cvtss_f32(v);
}
SN_SKIN_INLINE sn_v sn_v_scale_rsqrt(sn_v v, sn_v d)
{
    __m128 y = _mm_rsqrt_ps(d);
    /* y * (1.5 - 0.5 d y^2) */
    __m128 hy = _mm_mul_ps(_mm_set1_ps(0.5f), y);
    y = _mm_mul_ps(hy, _mm_fnmadd_ps(_mm_mul_ps(d, y), y, _mm_set1_ps(3.0f)));
    return _mm_mul_ps(v, y);
}
SN_SKIN_INLINE void sn_v_store3(float *p, sn_v v)
{
    _mm_storel_pi((__m64 *)(void *)p, v);
    _mm_store_ss(p + 2, _mm_movehl_ps(v, v));
}
SN_SKIN_INLINE sn_m sn_m_load(const float *rec)
{
    sn_m m = {_mm256_loadu_ps(rec), _mm256_loadu_ps(rec + 8)};
    return m;
}
SN_SKIN_INLINE sn_m sn_m_scaled(const float *rec, float w)
{
    __m256 s = _mm256_set1_ps(w);
    sn_m m = {_mm256_mul_ps(_mm256_loadu_ps(rec), s), _mm256_mul_ps(_mm256_loadu_ps(rec + 8), s)};
    return m;
}
SN_SKIN_INLINE void sn_m_madd(sn_m *m, const float *rec, float w)
{
    __m256 s = _mm256_set1_ps(w);
    m->c01 = _mm256_fmadd_ps(_mm256_loadu_ps(rec), s, m->c01);
    m->c23 = _mm256_fmadd_ps(_mm256_loadu_ps(rec + 8), s, m->c23);
}
SN_SKIN_INLINE sn_v sn_m_col_avx2(sn_m m, int c)
{
    switch (c) {
    case 0: return _mm256_castps256_ps128(m.c01);
    case 1: return _mm256_extractf128_ps(m.c01, 1);
    case 2: return _mm256_castps256_ps128(m.c23);
    default: return _mm256_extractf128_ps(m.c23, 1);
    }
}
#define sn_m_col(m, i) sn_m_col_avx2((m), (i))

#endif /* SINEW_SKIN_KERNEL_VERTEX_AVX2_H */
