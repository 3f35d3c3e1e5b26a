/* AVX2 column update of the supernodal LDL^T factorisation
 * (ldlt_kernels.h). The portable update runs one target column at a time,
 * two doubles wide, loading and storing the target once per group of four
 * sources; this one runs all (up to four) target columns of a panel
 * together, four doubles wide, so each source entry is loaded once per
 * panel instead of once per target column. Its arithmetic is the portable
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

/* One group of four source columns (a, weights wt = w + t NC) into NC
 * target columns, down all len rows: the sources and targets are read as
 * contiguous streams, which the prefetchers follow (holding a strip of rows
 * in registers across all sources instead read one cache line from each of
 * thousands of columns per strip, and ran at half the portable kernel's
 * speed on the separators of a voxel volume). Each source load serves the
 * NC targets. */
INLINE void group4(double *c, size_t ldc, size_t len, size_t NC, const double *a, size_t lda, const double *wt)
{
    const double *x0 = a, *x1 = a + lda, *x2 = a + 2 * lda, *x3 = a + 3 * lda;
    size_t i = 0;
    for (; i + 4 <= len; i += 4) {
        __m256d v0 = _mm256_loadu_pd(x0 + i), v1 = _mm256_loadu_pd(x1 + i);
        __m256d v2 = _mm256_loadu_pd(x2 + i), v3 = _mm256_loadu_pd(x3 + i);
        for (size_t j = 0; j < NC; ++j) {
            double *cj = c + j * ldc + i;
            __m256d sum = _mm256_mul_pd(_mm256_broadcast_sd(wt + j), v0);
            sum = _mm256_add_pd(sum, _mm256_mul_pd(_mm256_broadcast_sd(wt + NC + j), v1));
            sum = _mm256_add_pd(sum, _mm256_mul_pd(_mm256_broadcast_sd(wt + 2 * NC + j), v2));
            sum = _mm256_add_pd(sum, _mm256_mul_pd(_mm256_broadcast_sd(wt + 3 * NC + j), v3));
            _mm256_storeu_pd(cj, _mm256_sub_pd(_mm256_loadu_pd(cj), sum));
        }
    }
    for (; i < len; ++i) {
        __m128d v0 = _mm_load_sd(x0 + i), v1 = _mm_load_sd(x1 + i), v2 = _mm_load_sd(x2 + i), v3 = _mm_load_sd(x3 + i);
        for (size_t j = 0; j < NC; ++j) {
            double *cj = c + j * ldc + i;
            __m128d sum = _mm_mul_sd(_mm_load_sd(wt + j), v0);
            sum = _mm_add_sd(sum, _mm_mul_sd(_mm_load_sd(wt + NC + j), v1));
            sum = _mm_add_sd(sum, _mm_mul_sd(_mm_load_sd(wt + 2 * NC + j), v2));
            sum = _mm_add_sd(sum, _mm_mul_sd(_mm_load_sd(wt + 3 * NC + j), v3));
            _mm_store_sd(cj, _mm_sub_sd(_mm_load_sd(cj), sum));
        }
    }
}

/* One source column (the last one to three after the groups of four). */
INLINE void group1(double *c, size_t ldc, size_t len, size_t NC, const double *a, const double *wt)
{
    size_t i = 0;
    for (; i + 4 <= len; i += 4) {
        __m256d v0 = _mm256_loadu_pd(a + i);
        for (size_t j = 0; j < NC; ++j) {
            double *cj = c + j * ldc + i;
            _mm256_storeu_pd(cj, _mm256_sub_pd(_mm256_loadu_pd(cj), _mm256_mul_pd(_mm256_broadcast_sd(wt + j), v0)));
        }
    }
    for (; i < len; ++i) {
        __m128d v0 = _mm_load_sd(a + i);
        for (size_t j = 0; j < NC; ++j) {
            double *cj = c + j * ldc + i;
            _mm_store_sd(cj, _mm_sub_sd(_mm_load_sd(cj), _mm_mul_sd(_mm_load_sd(wt + j), v0)));
        }
    }
}

#  define SN_LDLT_UPDATE_NAME update_avx2
#  include "linalg/ldlt_update_panels.h"

sn_ldlt_update_fn sn_ldlt_update_avx2(void)
{
    if (__builtin_cpu_supports("avx2")) return update_avx2;
    return NULL;
}

#else

sn_ldlt_update_fn sn_ldlt_update_avx2(void) { return NULL; }

#endif
