/* Portable C instance of the linear-blend kernel (kernel_body.h): the
 * reference every SIMD path is tested against, and the path on non-x86. */
#include <math.h>

#include "skin/skin_internal.h"

#define SN_ISA(name) name##_scalar

typedef struct sn_v {
    float x, y, z, w;
} sn_v;
typedef struct sn_m {
    sn_v c[4];
} sn_m;

SN_SKIN_INLINE sn_v sn_v_load(const float *p)
{
    sn_v r = {p[0], p[1], p[2], p[3]};
    return r;
}
SN_SKIN_INLINE sn_v sn_v_bcast(const float *p)
{
    sn_v r = {*p, *p, *p, *p};
    return r;
}
SN_SKIN_INLINE sn_v sn_v_mul(sn_v a, sn_v b)
{
    sn_v r = {a.x * b.x, a.y * b.y, a.z * b.z, a.w * b.w};
    return r;
}
SN_SKIN_INLINE sn_v sn_v_madd(sn_v a, sn_v b, sn_v c)
{
    sn_v r = {a.x * b.x + c.x, a.y * b.y + c.y, a.z * b.z + c.z, a.w * b.w + c.w};
    return r;
}
SN_SKIN_INLINE sn_v sn_v_neg(sn_v a)
{
    sn_v r = {-a.x, -a.y, -a.z, -a.w};
    return r;
}
SN_SKIN_INLINE sn_v sn_v_cross(sn_v a, sn_v b)
{
    sn_v r = {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x, 0.0f};
    return r;
}
SN_SKIN_INLINE float sn_v_dot3(sn_v a, sn_v b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
SN_SKIN_INLINE sn_v sn_v_len2(sn_v v)
{
    float d = v.x * v.x + v.y * v.y + v.z * v.z;
    sn_v r = {d, d, d, d};
    return r;
}
SN_SKIN_INLINE float sn_v_first(sn_v v)
{
    return v.x;
}
SN_SKIN_INLINE sn_v sn_v_scale_rsqrt(sn_v v, sn_v d2)
{
    float s = 1.0f / sqrtf(d2.x);
    sn_v r = {v.x * s, v.y * s, v.z * s, v.w * s};
    return r;
}
SN_SKIN_INLINE void sn_v_store3(float *p, sn_v v)
{
    p[0] = v.x, p[1] = v.y, p[2] = v.z;
}
SN_SKIN_INLINE sn_m sn_m_load(const float *rec)
{
    sn_m m = {{sn_v_load(rec), sn_v_load(rec + 4), sn_v_load(rec + 8), sn_v_load(rec + 12)}};
    return m;
}
SN_SKIN_INLINE sn_m sn_m_scaled(const float *rec, float w)
{
    sn_v s = sn_v_bcast(&w);
    sn_m m = {{sn_v_mul(sn_v_load(rec), s), sn_v_mul(sn_v_load(rec + 4), s), sn_v_mul(sn_v_load(rec + 8), s),
               sn_v_mul(sn_v_load(rec + 12), s)}};
    return m;
}
SN_SKIN_INLINE void sn_m_madd(sn_m *m, const float *rec, float w)
{
    sn_v s = sn_v_bcast(&w);
    for (int c = 0; c < 4; ++c) m->c[c] = sn_v_madd(sn_v_load(rec + 4 * c), s, m->c[c]);
}
#define sn_m_col(m, i) ((m).c[i])

#include "skin/kernel_body.h"
