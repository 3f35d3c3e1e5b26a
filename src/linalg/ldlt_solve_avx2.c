/* AVX2 + FMA tile kernel of the supernodal LDL^T solves (the bbw split
 * pushes 20 handles through the factor every iteration, which is most of
 * its time). Built with -mavx2 -mfma when the compiler and the `simd` option
 * allow; sn_ldlt_solve calls it only after checking the CPU. Four target
 * rows at a time stay in registers, eight right-hand sides at a time, while
 * the sources stream past: each source chunk is loaded once for all four
 * targets and each coefficient once per chunk. */
#include "linalg/ldlt_kernels.h"

#if defined(__AVX2__) && defined(__FMA__) && (defined(__GNUC__) || defined(__clang__))
#  include <immintrin.h>

#  define SOURCE(t) (base + (idx ? (size_t)idx[t] : (t)) * m + h)

/* Eight right-hand sides from column h, NT targets (a compile-time constant
 * after inlining, so the accumulators are registers). */
static inline __attribute__((always_inline)) void chunk8(double *const *targets, size_t NT, const double *base,
                                                        const uint32_t *idx, size_t ns, const double *coef,
                                                        size_t ct, size_t ca, size_t m, size_t h)
{
    __m256d lo[4], hi[4];
    for (size_t a = 0; a < NT; ++a) {
        lo[a] = _mm256_loadu_pd(targets[a] + h);
        hi[a] = _mm256_loadu_pd(targets[a] + h + 4);
    }
    for (size_t t = 0; t < ns; ++t) {
        const double *x = SOURCE(t);
        __m256d x0 = _mm256_loadu_pd(x), x1 = _mm256_loadu_pd(x + 4);
        const double *c = coef + t * ct;
        for (size_t a = 0; a < NT; ++a) {
            __m256d l = _mm256_broadcast_sd(c + a * ca);
            lo[a] = _mm256_fnmadd_pd(l, x0, lo[a]);
            hi[a] = _mm256_fnmadd_pd(l, x1, hi[a]);
        }
    }
    for (size_t a = 0; a < NT; ++a) {
        _mm256_storeu_pd(targets[a] + h, lo[a]);
        _mm256_storeu_pd(targets[a] + h + 4, hi[a]);
    }
}

/* Four right-hand sides from column h. */
static inline __attribute__((always_inline)) void chunk4(double *const *targets, size_t NT, const double *base,
                                                        const uint32_t *idx, size_t ns, const double *coef,
                                                        size_t ct, size_t ca, size_t m, size_t h)
{
    __m256d acc[4];
    for (size_t a = 0; a < NT; ++a) acc[a] = _mm256_loadu_pd(targets[a] + h);
    for (size_t t = 0; t < ns; ++t) {
        __m256d x0 = _mm256_loadu_pd(SOURCE(t));
        const double *c = coef + t * ct;
        for (size_t a = 0; a < NT; ++a) acc[a] = _mm256_fnmadd_pd(_mm256_broadcast_sd(c + a * ca), x0, acc[a]);
    }
    for (size_t a = 0; a < NT; ++a) _mm256_storeu_pd(targets[a] + h, acc[a]);
}

/* The remaining right-hand sides one at a time. */
static inline __attribute__((always_inline)) void chunk1(double *const *targets, size_t NT, const double *base,
                                                        const uint32_t *idx, size_t ns, const double *coef,
                                                        size_t ct, size_t ca, size_t m, size_t h)
{
    double acc[4];
    for (size_t a = 0; a < NT; ++a) acc[a] = targets[a][h];
    for (size_t t = 0; t < ns; ++t) {
        double x0 = *SOURCE(t);
        const double *c = coef + t * ct;
        for (size_t a = 0; a < NT; ++a) acc[a] -= c[a * ca] * x0;
    }
    for (size_t a = 0; a < NT; ++a) targets[a][h] = acc[a];
}

static inline __attribute__((always_inline)) void tile_nt(double *const *targets, size_t NT, const double *base,
                                                         const uint32_t *idx, size_t ns, const double *coef,
                                                         size_t ct, size_t ca, size_t m)
{
    size_t h = 0;
    for (; h + 8 <= m; h += 8) chunk8(targets, NT, base, idx, ns, coef, ct, ca, m, h);
    for (; h + 4 <= m; h += 4) chunk4(targets, NT, base, idx, ns, coef, ct, ca, m, h);
    for (; h < m; ++h) chunk1(targets, NT, base, idx, ns, coef, ct, ca, m, h);
}

static void tile_avx2(double *const *targets, size_t nt, const double *base, const uint32_t *idx, size_t ns,
                      const double *coef, size_t ct, size_t ca, size_t m)
{
    /* Sixteen ymm registers hold four targets' accumulators at most. */
    for (; nt > 4; nt -= 4, targets += 4, coef += 4 * ca) tile_nt(targets, 4, base, idx, ns, coef, ct, ca, m);
    switch (nt) {
    case 4: tile_nt(targets, 4, base, idx, ns, coef, ct, ca, m); break;
    case 3: tile_nt(targets, 3, base, idx, ns, coef, ct, ca, m); break;
    case 2: tile_nt(targets, 2, base, idx, ns, coef, ct, ca, m); break;
    case 1: tile_nt(targets, 1, base, idx, ns, coef, ct, ca, m); break;
    default: break;
    }
}

sn_ldlt_tile_fn sn_ldlt_tile_avx2(void)
{
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return tile_avx2;
    return NULL;
}

#else

sn_ldlt_tile_fn sn_ldlt_tile_avx2(void) { return NULL; }

#endif
