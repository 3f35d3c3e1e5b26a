/* SSE2 linear-blend kernels, the x86-64 baseline: the 4-vertex
 * structure-of-arrays kernel (kernel_wide_body.h) for inverse-transpose
 * normals, a one-vertex-at-a-time block with four-lane renormalisation
 * (sn_wide_sse2 in kernel_wide_sse2.h) for blended-matrix normals, and the
 * one-vertex instance of kernel_body.h (one column per register) for
 * positions alone and for largest-weight normals. */
#include <emmintrin.h>

#include "skin/skin_internal.h"

#define SN_ISA(name) name##_sse2

typedef __m128 sn_v;
typedef struct sn_m {
    __m128 c[4];
} sn_m;

SN_SKIN_INLINE sn_v sn_v_bcast(const float *p)
{
    return _mm_load1_ps(p);
}
SN_SKIN_INLINE sn_v sn_v_mul(sn_v a, sn_v b)
{
    return _mm_mul_ps(a, b);
}
SN_SKIN_INLINE sn_v sn_v_madd(sn_v a, sn_v b, sn_v c)
{
    return _mm_add_ps(_mm_mul_ps(a, b), c);
}
SN_SKIN_INLINE sn_v sn_v_neg(sn_v a)
{
    return _mm_xor_ps(a, _mm_set1_ps(-0.0f));
}
#define SN_YZX(v) _mm_shuffle_ps((v), (v), _MM_SHUFFLE(3, 0, 2, 1))
SN_SKIN_INLINE sn_v sn_v_cross(sn_v a, sn_v b)
{
    /* (a * b.yzx - a.yzx * b).yzx */
    sn_v r = _mm_sub_ps(_mm_mul_ps(a, SN_YZX(b)), _mm_mul_ps(SN_YZX(a), b));
    return SN_YZX(r);
}
SN_SKIN_INLINE float sn_v_dot3(sn_v a, sn_v b)
{
    sn_v p = _mm_mul_ps(a, b);
    sn_v s = _mm_add_ss(p, _mm_shuffle_ps(p, p, _MM_SHUFFLE(1, 1, 1, 1)));
    s = _mm_add_ss(s, _mm_movehl_ps(p, p));
    return _mm_cvtss_f32(s);
}
/* x^2 + y^2 + z^2 in lanes 0..2 (lane 3 holds junk): two rotations, no
 * horizontal instructions. */
SN_SKIN_INLINE sn_v sn_v_len2(sn_v v)
{
    __m128 q = _mm_mul_ps(v, v);
    return _mm_add_ps(_mm_add_ps(q, _mm_shuffle_ps(q, q, _MM_SHUFFLE(3, 0, 2, 1))),
                      _mm_shuffle_ps(q, q, _MM_SHUFFLE(3, 1, 0, 2)));
}
SN_SKIN_INLINE float sn_v_first(sn_v v)
{
    return _mm_cvtss_f32(v);
}
SN_SKIN_INLINE sn_v sn_v_scale_rsqrt(sn_v v, sn_v d)
{
    /* rsqrt estimate refined by one Newton step: ~23 bits. */
    __m128 y = _mm_rsqrt_ps(d);
    y = _mm_mul_ps(_mm_mul_ps(_mm_set1_ps(0.5f), y), _mm_sub_ps(_mm_set1_ps(3.0f), _mm_mul_ps(_mm_mul_ps(d, y), y)));
    return _mm_mul_ps(v, y);
}
SN_SKIN_INLINE void sn_v_store3(float *p, sn_v v)
{
    _mm_storel_pi((__m64 *)(void *)p, v);
    _mm_store_ss(p + 2, _mm_movehl_ps(v, v));
}
SN_SKIN_INLINE sn_m sn_m_load(const float *rec)
{
    sn_m m = {{_mm_loadu_ps(rec), _mm_loadu_ps(rec + 4), _mm_loadu_ps(rec + 8), _mm_loadu_ps(rec + 12)}};
    return m;
}
SN_SKIN_INLINE sn_m sn_m_scaled(const float *rec, float w)
{
    __m128 s = _mm_set1_ps(w);
    sn_m m = {{_mm_mul_ps(_mm_loadu_ps(rec), s), _mm_mul_ps(_mm_loadu_ps(rec + 4), s),
               _mm_mul_ps(_mm_loadu_ps(rec + 8), s), _mm_mul_ps(_mm_loadu_ps(rec + 12), s)}};
    return m;
}
SN_SKIN_INLINE void sn_m_madd(sn_m *m, const float *rec, float w)
{
    __m128 s = _mm_set1_ps(w);
    for (int c = 0; c < 4; ++c) m->c[c] = _mm_add_ps(_mm_mul_ps(_mm_loadu_ps(rec + 4 * c), s), m->c[c]);
}
#define sn_m_col(m, i) ((m).c[i])

/* Four vertices at a time when normals or tangents are wanted. */
#include "skin/kernel_wide_sse2.h"
#define SN_SKIN_WIDE sn_wide_sse2

#include "skin/kernel_body.h"
