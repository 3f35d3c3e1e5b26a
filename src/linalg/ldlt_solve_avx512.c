/* AVX-512 tile kernel of the supernodal LDL^T solves: the AVX2 kernel's
 * scheme (ldlt_solve_avx2.c) with eight targets and up to 24 right-hand
 * sides in registers, so 20 handles take one pass over the factor's
 * coefficients (which stream from beyond L2) instead of three. Built with -mavx512f -mavx512vl
 * when the compiler allows; sn_ldlt_solve calls it only after checking the
 * CPU. */
#include "linalg/ldlt_kernels.h"

#if defined(__AVX512F__) && defined(__AVX512VL__) && defined(__FMA__) && (defined(__GNUC__) || defined(__clang__))
#  include <immintrin.h>

#  define SOURCE(t) (base + (idx ? (size_t)idx[t] : (t)) * m + h)
#  define INLINE static inline __attribute__((always_inline))

/* NZ zmm registers (8 right-hand sides each) and Y4 ymm registers (4) per
 * target from column h: one pass over the coefficients serves up to 24
 * right-hand sides, with 8 targets x 3 registers of accumulators. No masked
 * stores: a masked store blocks forwarding to the loads of the next tile,
 * which reads the rows just written. */
INLINE void chunk(double *const *targets, size_t NT, size_t NZ, size_t Y4, const double *base,
                  const uint32_t *idx, size_t ns, const double *coef, size_t ct, size_t ca, size_t m, size_t h)
{
    __m512d acc[SN_LDLT_TILE][3];
    __m256d acc4[SN_LDLT_TILE];
    for (size_t a = 0; a < NT; ++a) {
        for (size_t v = 0; v < NZ; ++v) acc[a][v] = _mm512_loadu_pd(targets[a] + h + 8 * v);
        if (Y4) acc4[a] = _mm256_loadu_pd(targets[a] + h + 8 * NZ);
    }
    for (size_t t = 0; t < ns; ++t) {
        const double *x = SOURCE(t);
        __m512d xv[3];
        __m256d x4 = _mm256_setzero_pd();
        for (size_t v = 0; v < NZ; ++v) xv[v] = _mm512_loadu_pd(x + 8 * v);
        if (Y4) x4 = _mm256_loadu_pd(x + 8 * NZ);
        const double *c = coef + t * ct;
        for (size_t a = 0; a < NT; ++a) {
            __m512d l = _mm512_set1_pd(c[a * ca]);
            for (size_t v = 0; v < NZ; ++v) acc[a][v] = _mm512_fnmadd_pd(l, xv[v], acc[a][v]);
            if (Y4) acc4[a] = _mm256_fnmadd_pd(_mm512_castpd512_pd256(l), x4, acc4[a]);
        }
    }
    for (size_t a = 0; a < NT; ++a) {
        for (size_t v = 0; v < NZ; ++v) _mm512_storeu_pd(targets[a] + h + 8 * v, acc[a][v]);
        if (Y4) _mm256_storeu_pd(targets[a] + h + 8 * NZ, acc4[a]);
    }
}

/* The last one to three right-hand sides one at a time. Multiply, then
 * subtract, in intrinsics: never fused, whatever the compiler's contraction
 * default (clang fuses `acc -= c * x` under -mfma), so these columns keep the
 * bits of the portable order and of the AVX2 tile's tail. */
INLINE void chunk1(double *const *targets, size_t NT, const double *base, const uint32_t *idx, size_t ns,
                   const double *coef, size_t ct, size_t ca, size_t m, size_t h)
{
    __m128d acc[SN_LDLT_TILE];
    for (size_t a = 0; a < NT; ++a) acc[a] = _mm_load_sd(targets[a] + h);
    for (size_t t = 0; t < ns; ++t) {
        const __m128d x0 = _mm_load_sd(SOURCE(t));
        const double *c = coef + t * ct;
        for (size_t a = 0; a < NT; ++a) acc[a] = _mm_sub_sd(acc[a], _mm_mul_sd(_mm_load_sd(c + a * ca), x0));
    }
    for (size_t a = 0; a < NT; ++a) _mm_store_sd(targets[a] + h, acc[a]);
}

INLINE void tile_nt(double *const *targets, size_t NT, const double *base, const uint32_t *idx, size_t ns,
                    const double *coef, size_t ct, size_t ca, size_t m)
{
    size_t h = 0;
    for (; h + 24 <= m; h += 24) chunk(targets, NT, 3, 0, base, idx, ns, coef, ct, ca, m, h);
    size_t nz = (m - h) / 8, y4 = (m - h) % 8 >= 4;
    switch (nz * 2 + y4) {
    case 1: chunk(targets, NT, 0, 1, base, idx, ns, coef, ct, ca, m, h); break;
    case 2: chunk(targets, NT, 1, 0, base, idx, ns, coef, ct, ca, m, h); break;
    case 3: chunk(targets, NT, 1, 1, base, idx, ns, coef, ct, ca, m, h); break;
    case 4: chunk(targets, NT, 2, 0, base, idx, ns, coef, ct, ca, m, h); break;
    case 5: chunk(targets, NT, 2, 1, base, idx, ns, coef, ct, ca, m, h); break;
    default: break;
    }
    for (h += 8 * nz + 4 * y4; h < m; ++h) chunk1(targets, NT, base, idx, ns, coef, ct, ca, m, h);
}

static void tile_avx512(double *const *targets, size_t nt, const double *base, const uint32_t *idx, size_t ns,
                        const double *coef, size_t ct, size_t ca, size_t m)
{
    switch (nt) {
    case 8: tile_nt(targets, 8, base, idx, ns, coef, ct, ca, m); break;
    case 7: tile_nt(targets, 7, base, idx, ns, coef, ct, ca, m); break;
    case 6: tile_nt(targets, 6, base, idx, ns, coef, ct, ca, m); break;
    case 5: tile_nt(targets, 5, base, idx, ns, coef, ct, ca, m); break;
    case 4: tile_nt(targets, 4, base, idx, ns, coef, ct, ca, m); break;
    case 3: tile_nt(targets, 3, base, idx, ns, coef, ct, ca, m); break;
    case 2: tile_nt(targets, 2, base, idx, ns, coef, ct, ca, m); break;
    case 1: tile_nt(targets, 1, base, idx, ns, coef, ct, ca, m); break;
    default: break;
    }
}

sn_ldlt_tile_fn sn_ldlt_tile_avx512(void)
{
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl")) return tile_avx512;
    return NULL;
}

#else

sn_ldlt_tile_fn sn_ldlt_tile_avx512(void) { return NULL; }

#endif
