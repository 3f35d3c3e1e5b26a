/* The AVX-512 kernel set's logic on a machine without AVX-512: the body
 * (kernel_wide_body.h) and its 16-lane pieces (kernel_wide_halves.h), the
 * very code kernel_avx512.c builds, over a 16-lane vocabulary of two AVX2
 * registers. Only kernel_wide_avx512.h's one-instruction definitions differ.
 * Built with -mavx2 -mfma into the white-box test that swaps this table into
 * a skin (test_skin_order.c, SKIN_ORDER_LANES16). */
#include "skin/kernel_vertex_avx2.h"

#include "kernel_lanes16_emulated.h"

#define SN_ISA(name) name##_lanes16

typedef struct sn_w16 {
    __m256 lo, hi;
} sn_w;
#define SN_W_LANES 16u
#define SN_W_ALL 0xFFFFu

/* Each operation on both halves (the body need not use every one). */
#define SN_W16_FN static inline __attribute__((always_inline, unused))
#define SN_W16_UNARY(name, op)                                                                                     \
    SN_W16_FN sn_w name(sn_w a)                                                                                    \
    {                                                                                                              \
        const sn_w r = {op(a.lo), op(a.hi)};                                                                       \
        return r;                                                                                                  \
    }
#define SN_W16_BINARY(name, op)                                                                                    \
    SN_W16_FN sn_w name(sn_w a, sn_w b)                                                                            \
    {                                                                                                              \
        const sn_w r = {op(a.lo, b.lo), op(a.hi, b.hi)};                                                           \
        return r;                                                                                                  \
    }
#define SN_W16_TERNARY(name, op)                                                                                   \
    SN_W16_FN sn_w name(sn_w a, sn_w b, sn_w c)                                                                    \
    {                                                                                                              \
        const sn_w r = {op(a.lo, b.lo, c.lo), op(a.hi, b.hi, c.hi)};                                               \
        return r;                                                                                                  \
    }
#define SN_CMP_GT(a, b) _mm256_cmp_ps((a), (b), _CMP_GT_OQ)
#define SN_CMP_LT(a, b) _mm256_cmp_ps((a), (b), _CMP_LT_OQ)
SN_W16_BINARY(sn_w_add, _mm256_add_ps)
SN_W16_BINARY(sn_w_mul, _mm256_mul_ps)
SN_W16_BINARY(sn_w_xor, _mm256_xor_ps)
SN_W16_BINARY(sn_w_and, _mm256_and_ps)
SN_W16_BINARY(sn_w_gt, SN_CMP_GT)
SN_W16_BINARY(sn_w_lt, SN_CMP_LT)
SN_W16_UNARY(sn_w_rsqrt, _mm256_rsqrt_ps)
SN_W16_TERNARY(sn_w_fmadd, _mm256_fmadd_ps)
SN_W16_TERNARY(sn_w_fmsub, _mm256_fmsub_ps)
SN_W16_TERNARY(sn_w_fnmadd, _mm256_fnmadd_ps)

SN_SKIN_INLINE sn_w sn_w_join(__m256 lo, __m256 hi)
{
    const sn_w r = {lo, hi};
    return r;
}
#define sn_w_lo(v) ((v).lo)
#define sn_w_hi(v) ((v).hi)
SN_SKIN_INLINE sn_w sn_w_set1(float f)
{
    return sn_w_join(_mm256_set1_ps(f), _mm256_set1_ps(f));
}
SN_SKIN_INLINE sn_w sn_w_zero(void)
{
    return sn_w_join(_mm256_setzero_ps(), _mm256_setzero_ps());
}
SN_SKIN_INLINE int sn_w_movemask(sn_w v)
{
    return _mm256_movemask_ps(v.lo) | _mm256_movemask_ps(v.hi) << 8;
}
SN_SKIN_INLINE sn_w sn_w_load(const float *f)
{
    return sn_w_join(_mm256_load_ps(f), _mm256_load_ps(f + 8));
}
SN_SKIN_INLINE void sn_w_store(float *f, sn_w v)
{
    _mm256_store_ps(f, v.lo);
    _mm256_store_ps(f + 8, v.hi);
}
#define sn_w_lanes(f) \
    sn_w_join(_mm256_setr_ps((f)[0], (f)[1], (f)[2], (f)[3], (f)[4], (f)[5], (f)[6], (f)[7]), \
              _mm256_setr_ps((f)[8], (f)[9], (f)[10], (f)[11], (f)[12], (f)[13], (f)[14], (f)[15]))

#include "skin/kernel_wide_body.h"

#include "skin/kernel_wide_halves.h"

#define SN_SKIN_WIDE sn_wide_w

#include "skin/kernel_body.h"

void skin_test_use_lanes16(sinew_skin *skin)
{
    sn_skin_kernel_fn table[SN_SKIN_FORMAT_COUNT][SN_SKIN_CLASS_COUNT];
    sn_skin_kernels_lanes16(table);
    for (int c = 0; c < SN_SKIN_CLASS_COUNT; ++c) skin->kernels[c] = table[skin->format][c];
}
