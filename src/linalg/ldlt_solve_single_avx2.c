/* AVX2 + FMA tile of the single-precision solves (sn_ldlt_solve_single):
 * four targets at a time, each with up to three ymm registers of eight
 * right-hand sides (twelve accumulators, three sources and a coefficient
 * fill the sixteen registers), 24 columns a pass, then 8 or 16, then the
 * last one to seven one at a time. Built with -mavx2 -mfma when the
 * compiler and the `simd` option allow; picked only after checking the CPU. */
#include "linalg/ldlt_kernels.h"

#if defined(__AVX2__) && defined(__FMA__) && (defined(__GNUC__) || defined(__clang__))
#  include <immintrin.h>

#  define SOURCE(t) (base + (idx ? (size_t)idx[t] : (t)) * m + h)
#  define INLINE static inline __attribute__((always_inline))

/* NY ymm registers per target from column h, NT targets (compile-time
 * constants after inlining). */
INLINE void chunk(float *const *targets, size_t NT, size_t NY, const float *base, const uint32_t *idx, size_t ns,
                  const float *coef, size_t ct, size_t ca, size_t m, size_t h)
{
    __m256 acc[4][3];
    for (size_t a = 0; a < NT; ++a)
        for (size_t v = 0; v < NY; ++v) acc[a][v] = _mm256_loadu_ps(targets[a] + h + 8 * v);
    for (size_t t = 0; t < ns; ++t) {
        const float *x = SOURCE(t);
        __m256 xv[3];
        for (size_t v = 0; v < NY; ++v) xv[v] = _mm256_loadu_ps(x + 8 * v);
        const float *c = coef + t * ct;
        for (size_t a = 0; a < NT; ++a) {
            __m256 l = _mm256_broadcast_ss(c + a * ca);
            for (size_t v = 0; v < NY; ++v) acc[a][v] = _mm256_fnmadd_ps(l, xv[v], acc[a][v]);
        }
    }
    for (size_t a = 0; a < NT; ++a)
        for (size_t v = 0; v < NY; ++v) _mm256_storeu_ps(targets[a] + h + 8 * v, acc[a][v]);
}

/* One right-hand side from column h. */
INLINE void chunk1(float *const *targets, size_t NT, const float *base, const uint32_t *idx, size_t ns,
                   const float *coef, size_t ct, size_t ca, size_t m, size_t h)
{
    __m128 acc[4];
    for (size_t a = 0; a < NT; ++a) acc[a] = _mm_load_ss(targets[a] + h);
    for (size_t t = 0; t < ns; ++t) {
        const __m128 x0 = _mm_load_ss(SOURCE(t));
        const float *c = coef + t * ct;
        for (size_t a = 0; a < NT; ++a) acc[a] = _mm_sub_ss(acc[a], _mm_mul_ss(_mm_load_ss(c + a * ca), x0));
    }
    for (size_t a = 0; a < NT; ++a) _mm_store_ss(targets[a] + h, acc[a]);
}

INLINE void tile_nt(float *const *targets, size_t NT, const float *base, const uint32_t *idx, size_t ns,
                    const float *coef, size_t ct, size_t ca, size_t m)
{
    size_t h = 0;
    for (; h + 24 <= m; h += 24) chunk(targets, NT, 3, base, idx, ns, coef, ct, ca, m, h);
    switch ((m - h) / 8) {
    case 2: chunk(targets, NT, 2, base, idx, ns, coef, ct, ca, m, h); break;
    case 1: chunk(targets, NT, 1, base, idx, ns, coef, ct, ca, m, h); break;
    default: break;
    }
    for (h += (m - h) / 8 * 8; h < m; ++h) chunk1(targets, NT, base, idx, ns, coef, ct, ca, m, h);
}

#  define REAL float
#  include "linalg/ldlt_tile_avx2_targets.h"

static void tile_single_avx2(float *const *targets, size_t nt, const float *base, const uint32_t *idx, size_t ns,
                             const float *coef, size_t ct, size_t ca, size_t m)
{
    tile_targets(targets, nt, base, idx, ns, coef, ct, ca, m);
}

sn_ldlt_tile_single_fn sn_ldlt_tile_single_avx2(void)
{
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return tile_single_avx2;
    return NULL;
}

#else

sn_ldlt_tile_single_fn sn_ldlt_tile_single_avx2(void) { return NULL; }

#endif
