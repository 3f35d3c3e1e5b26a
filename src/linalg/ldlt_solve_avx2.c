/* AVX2 + FMA triangular solves of the LDL^T factor for many right-hand sides
 * (the bbw split pushes 20 handles through the factor every iteration, which
 * is most of its time). Built with -mavx2 -mfma when the compiler and the
 * `simd` option allow; sn_ldlt_solve calls it only after checking the CPU.
 * Each factor entry updates one row of m values: four at a time, the rest
 * one by one. */
#include <string.h>

#include "linalg/ldlt_kernels.h"

#if defined(__AVX2__) && defined(__FMA__) && (defined(__GNUC__) || defined(__clang__))
#  include <immintrin.h>

/* y -= l * x over m values. */
static inline void row_update(double *y, const double *x, double l, size_t m)
{
    __m256d lv = _mm256_set1_pd(l);
    size_t h = 0;
    for (; h + 4 <= m; h += 4)
        _mm256_storeu_pd(y + h, _mm256_fnmadd_pd(lv, _mm256_loadu_pd(x + h), _mm256_loadu_pd(y + h)));
    for (; h < m; ++h) y[h] -= l * x[h];
}

static void solve_avx2(const sn_ldlt *f, double *x, size_t m, double *work)
{
    size_t n = f->n;
    for (size_t k = 0; k < n; ++k) memcpy(work + k * m, x + (size_t)f->perm[k] * m, m * sizeof(double));
    for (size_t j = 0; j < n; ++j) {
        const double *yj = work + j * m;
        for (size_t p = f->colptr[j]; p < f->colptr[j + 1]; ++p)
            row_update(work + (size_t)f->rows[p] * m, yj, f->vals[p], m);
    }
    for (size_t j = 0; j < n; ++j) {
        double inv = 1.0 / f->diag[j];
        double *yj = work + j * m;
        for (size_t h = 0; h < m; ++h) yj[h] *= inv;
    }
    for (size_t j = n; j-- > 0;) {
        double *yj = work + j * m;
        for (size_t p = f->colptr[j]; p < f->colptr[j + 1]; ++p)
            row_update(yj, work + (size_t)f->rows[p] * m, f->vals[p], m);
    }
    for (size_t k = 0; k < n; ++k) memcpy(x + (size_t)f->perm[k] * m, work + k * m, m * sizeof(double));
}

sn_ldlt_solve_fn sn_ldlt_solve_avx2(void)
{
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return solve_avx2;
    return NULL;
}

#else

sn_ldlt_solve_fn sn_ldlt_solve_avx2(void) { return NULL; }

#endif
