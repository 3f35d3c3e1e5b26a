/* AVX-512 column update of the supernodal LDL^T factorisation
 * (ldlt_kernels.h): the AVX2 update's scheme (ldlt_factor_avx2.c) eight
 * doubles wide, with a masked strip for the last rows instead of a scalar
 * loop. Its arithmetic is the portable kernel's, operation for operation
 * (each group of four sources summed as ((w0 x0 + w1 x1) + w2 x2) + w3 x3,
 * then subtracted; no fused multiply-adds), so the factor is the same to the
 * bit whichever kernel the CPU gets. Built with -mavx512f when the compiler
 * and the `simd` option allow; sn_ldlt_factor calls it only after checking
 * the CPU. */
#include "linalg/ldlt_kernels.h"

#if defined(__AVX512F__) && (defined(__GNUC__) || defined(__clang__))
#  include <immintrin.h>

#  define INLINE static inline __attribute__((always_inline))

/* One strip of up to eight rows (mask: the rows present) of a group of
 * four sources into NC targets. */
INLINE void strip4(double *c, size_t ldc, size_t NC, const double *x0, const double *x1, const double *x2,
                   const double *x3, const double *wt, __mmask8 mask)
{
    __m512d v0 = _mm512_maskz_loadu_pd(mask, x0), v1 = _mm512_maskz_loadu_pd(mask, x1);
    __m512d v2 = _mm512_maskz_loadu_pd(mask, x2), v3 = _mm512_maskz_loadu_pd(mask, x3);
    for (size_t j = 0; j < NC; ++j) {
        double *cj = c + j * ldc;
        __m512d sum = _mm512_mul_pd(_mm512_set1_pd(wt[j]), v0);
        sum = _mm512_add_pd(sum, _mm512_mul_pd(_mm512_set1_pd(wt[NC + j]), v1));
        sum = _mm512_add_pd(sum, _mm512_mul_pd(_mm512_set1_pd(wt[2 * NC + j]), v2));
        sum = _mm512_add_pd(sum, _mm512_mul_pd(_mm512_set1_pd(wt[3 * NC + j]), v3));
        _mm512_mask_storeu_pd(cj, mask, _mm512_sub_pd(_mm512_maskz_loadu_pd(mask, cj), sum));
    }
}

/* One group of four source columns (a, weights wt = w + t NC) into NC
 * target columns, down all len rows, as contiguous streams (see the AVX2
 * kernel for why not strips held in registers). */
INLINE void group4(double *c, size_t ldc, size_t len, size_t NC, const double *a, size_t lda, const double *wt)
{
    const double *x0 = a, *x1 = a + lda, *x2 = a + 2 * lda, *x3 = a + 3 * lda;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) strip4(c + i, ldc, NC, x0 + i, x1 + i, x2 + i, x3 + i, wt, 0xFF);
    if (i < len) strip4(c + i, ldc, NC, x0 + i, x1 + i, x2 + i, x3 + i, wt, (__mmask8)((1u << (len - i)) - 1u));
}

/* One strip of one source column. */
INLINE void strip1(double *c, size_t ldc, size_t NC, const double *x, const double *wt, __mmask8 mask)
{
    __m512d v0 = _mm512_maskz_loadu_pd(mask, x);
    for (size_t j = 0; j < NC; ++j) {
        double *cj = c + j * ldc;
        __m512d prod = _mm512_mul_pd(_mm512_set1_pd(wt[j]), v0);
        _mm512_mask_storeu_pd(cj, mask, _mm512_sub_pd(_mm512_maskz_loadu_pd(mask, cj), prod));
    }
}

/* One source column (the last one to three after the groups of four). */
INLINE void group1(double *c, size_t ldc, size_t len, size_t NC, const double *a, const double *wt)
{
    size_t i = 0;
    for (; i + 8 <= len; i += 8) strip1(c + i, ldc, NC, a + i, wt, 0xFF);
    if (i < len) strip1(c + i, ldc, NC, a + i, wt, (__mmask8)((1u << (len - i)) - 1u));
}

#  define SN_LDLT_UPDATE_NAME update_avx512
#  include "linalg/ldlt_update_panels.h"

sn_ldlt_update_fn sn_ldlt_update_avx512(void)
{
    if (__builtin_cpu_supports("avx512f")) return update_avx512;
    return NULL;
}

#else

sn_ldlt_update_fn sn_ldlt_update_avx512(void) { return NULL; }

#endif
