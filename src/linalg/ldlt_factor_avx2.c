/* AVX2 column update of the supernodal LDL^T factorisation
 * (ldlt_kernels.h). The portable update runs one target column at a time,
 * two doubles wide, loading and storing the target once per group of four
 * sources; this one holds four rows of all (up to four) target columns in
 * registers while the sources stream past, so each source entry is loaded
 * once per panel, four doubles wide. Its arithmetic is the portable
 * kernel's, operation for operation (each group of four sources summed as
 * ((w0 x0 + w1 x1) + w2 x2) + w3 x3, then subtracted; no fused
 * multiply-adds), so the factor is the same to the bit whichever kernel the
 * CPU gets: the bbw split, which is sensitive to rounding, then takes the
 * same path everywhere. Built with -mavx2 when the compiler and the `simd`
 * option allow; sn_ldlt_factor calls it only after checking the CPU. */
#include "linalg/ldlt_kernels.h"

#if defined(__AVX2__) && (defined(__GNUC__) || defined(__clang__))
#  include <immintrin.h>

#  define INLINE static inline __attribute__((always_inline))

/* Four rows from row i of NC columns (a compile-time constant after
 * inlining, so the accumulators are registers). */
INLINE void strip4(double *c, size_t ldc, size_t NC, const double *a, size_t lda, const double *w, size_t kk,
                   size_t i)
{
    __m256d acc[SN_LDLT_PANEL];
    for (size_t j = 0; j < NC; ++j) acc[j] = _mm256_loadu_pd(c + j * ldc + i);
    size_t t = 0;
    for (; t + 4 <= kk; t += 4) {
        const double *x = a + t * lda + i, *wt = w + t * NC;
        __m256d x0 = _mm256_loadu_pd(x), x1 = _mm256_loadu_pd(x + lda);
        __m256d x2 = _mm256_loadu_pd(x + 2 * lda), x3 = _mm256_loadu_pd(x + 3 * lda);
        for (size_t j = 0; j < NC; ++j) {
            __m256d sum = _mm256_mul_pd(_mm256_broadcast_sd(wt + j), x0);
            sum = _mm256_add_pd(sum, _mm256_mul_pd(_mm256_broadcast_sd(wt + NC + j), x1));
            sum = _mm256_add_pd(sum, _mm256_mul_pd(_mm256_broadcast_sd(wt + 2 * NC + j), x2));
            sum = _mm256_add_pd(sum, _mm256_mul_pd(_mm256_broadcast_sd(wt + 3 * NC + j), x3));
            acc[j] = _mm256_sub_pd(acc[j], sum);
        }
    }
    for (; t < kk; ++t) {
        __m256d x0 = _mm256_loadu_pd(a + t * lda + i);
        for (size_t j = 0; j < NC; ++j)
            acc[j] = _mm256_sub_pd(acc[j], _mm256_mul_pd(_mm256_broadcast_sd(w + t * NC + j), x0));
    }
    for (size_t j = 0; j < NC; ++j) _mm256_storeu_pd(c + j * ldc + i, acc[j]);
}

/* One row (the last one to three), the same operations on scalars. */
INLINE void strip1(double *c, size_t ldc, size_t NC, const double *a, size_t lda, const double *w, size_t kk,
                   size_t i)
{
    __m128d acc[SN_LDLT_PANEL];
    for (size_t j = 0; j < NC; ++j) acc[j] = _mm_load_sd(c + j * ldc + i);
    size_t t = 0;
    for (; t + 4 <= kk; t += 4) {
        const double *x = a + t * lda + i, *wt = w + t * NC;
        __m128d x0 = _mm_load_sd(x), x1 = _mm_load_sd(x + lda), x2 = _mm_load_sd(x + 2 * lda);
        __m128d x3 = _mm_load_sd(x + 3 * lda);
        for (size_t j = 0; j < NC; ++j) {
            __m128d sum = _mm_mul_sd(_mm_load_sd(wt + j), x0);
            sum = _mm_add_sd(sum, _mm_mul_sd(_mm_load_sd(wt + NC + j), x1));
            sum = _mm_add_sd(sum, _mm_mul_sd(_mm_load_sd(wt + 2 * NC + j), x2));
            sum = _mm_add_sd(sum, _mm_mul_sd(_mm_load_sd(wt + 3 * NC + j), x3));
            acc[j] = _mm_sub_sd(acc[j], sum);
        }
    }
    for (; t < kk; ++t) {
        __m128d x0 = _mm_load_sd(a + t * lda + i);
        for (size_t j = 0; j < NC; ++j) acc[j] = _mm_sub_sd(acc[j], _mm_mul_sd(_mm_load_sd(w + t * NC + j), x0));
    }
    for (size_t j = 0; j < NC; ++j) _mm_store_sd(c + j * ldc + i, acc[j]);
}

INLINE void update_nc(double *c, size_t ldc, size_t len, size_t NC, const double *a, size_t lda, const double *w,
                      size_t kk)
{
    size_t i = 0;
    for (; i + 4 <= len; i += 4) strip4(c, ldc, NC, a, lda, w, kk, i);
    for (; i < len; ++i) strip1(c, ldc, NC, a, lda, w, kk, i);
}

static void update_avx2(double *c, size_t ldc, size_t len, size_t nc, const double *a, size_t lda, const double *w,
                        size_t kk)
{
    switch (nc) {
    case 4: update_nc(c, ldc, len, 4, a, lda, w, kk); break;
    case 3: update_nc(c, ldc, len, 3, a, lda, w, kk); break;
    case 2: update_nc(c, ldc, len, 2, a, lda, w, kk); break;
    case 1: update_nc(c, ldc, len, 1, a, lda, w, kk); break;
    default: break;
    }
}

sn_ldlt_update_fn sn_ldlt_update_avx2(void)
{
    if (__builtin_cpu_supports("avx2")) return update_avx2;
    return NULL;
}

#else

sn_ldlt_update_fn sn_ldlt_update_avx2(void) { return NULL; }

#endif
