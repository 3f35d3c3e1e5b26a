/* AVX-512 tile of the single-precision solves (sn_ldlt_solve_single): the
 * scheme of the double AVX-512 tile (ldlt_solve_avx512.c) over floats, with
 * eight targets and up to 48 right-hand sides in registers (three zmm of 16
 * each, or two and a ymm of 8), so 40 handles take one pass over the
 * coefficients. Built with -mavx512f -mavx512vl when the compiler allows;
 * picked only after checking the CPU. */
#include "linalg/ldlt_kernels.h"

#if defined(__AVX512F__) && defined(__AVX512VL__) && defined(__FMA__) && (defined(__GNUC__) || defined(__clang__))
#  include <immintrin.h>

#  define SOURCE(t) (base + (idx ? (size_t)idx[t] : (t)) * m + h)
#  define INLINE static inline __attribute__((always_inline))

/* NZ zmm registers (16 right-hand sides each) and Y8 ymm registers (8) per
 * target from column h, NT targets: compile-time constants after inlining,
 * so the accumulators stay in registers. */
INLINE void chunk(float *const *targets, size_t NT, size_t NZ, size_t Y8, const float *base, const uint32_t *idx,
                  size_t ns, const float *coef, size_t ct, size_t ca, size_t m, size_t h)
{
    __m512 acc[SN_LDLT_TILE][3];
    __m256 acc8[SN_LDLT_TILE];
    for (size_t a = 0; a < NT; ++a) {
        for (size_t v = 0; v < NZ; ++v) acc[a][v] = _mm512_loadu_ps(targets[a] + h + 16 * v);
        if (Y8) acc8[a] = _mm256_loadu_ps(targets[a] + h + 16 * NZ);
    }
    for (size_t t = 0; t < ns; ++t) {
        const float *x = SOURCE(t);
        __m512 xv[3];
        __m256 x8 = _mm256_setzero_ps();
        for (size_t v = 0; v < NZ; ++v) xv[v] = _mm512_loadu_ps(x + 16 * v);
        if (Y8) x8 = _mm256_loadu_ps(x + 16 * NZ);
        const float *c = coef + t * ct;
        for (size_t a = 0; a < NT; ++a) {
            __m512 l = _mm512_set1_ps(c[a * ca]);
            for (size_t v = 0; v < NZ; ++v) acc[a][v] = _mm512_fnmadd_ps(l, xv[v], acc[a][v]);
            if (Y8) acc8[a] = _mm256_fnmadd_ps(_mm512_castps512_ps256(l), x8, acc8[a]);
        }
    }
    for (size_t a = 0; a < NT; ++a) {
        for (size_t v = 0; v < NZ; ++v) _mm512_storeu_ps(targets[a] + h + 16 * v, acc[a][v]);
        if (Y8) _mm256_storeu_ps(targets[a] + h + 16 * NZ, acc8[a]);
    }
}

/* The last one to seven right-hand sides, one at a time. */
INLINE void chunk1(float *const *targets, size_t NT, const float *base, const uint32_t *idx, size_t ns,
                   const float *coef, size_t ct, size_t ca, size_t m, size_t h)
{
    __m128 acc[SN_LDLT_TILE];
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
    for (; h + 48 <= m; h += 48) chunk(targets, NT, 3, 0, base, idx, ns, coef, ct, ca, m, h);
    size_t nz = (m - h) / 16, y8 = (m - h) % 16 >= 8;
    switch (nz * 2 + y8) {
    case 1: chunk(targets, NT, 0, 1, base, idx, ns, coef, ct, ca, m, h); break;
    case 2: chunk(targets, NT, 1, 0, base, idx, ns, coef, ct, ca, m, h); break;
    case 3: chunk(targets, NT, 1, 1, base, idx, ns, coef, ct, ca, m, h); break;
    case 4: chunk(targets, NT, 2, 0, base, idx, ns, coef, ct, ca, m, h); break;
    case 5: chunk(targets, NT, 2, 1, base, idx, ns, coef, ct, ca, m, h); break;
    default: break;
    }
    for (h += 16 * nz + 8 * y8; h < m; ++h) chunk1(targets, NT, base, idx, ns, coef, ct, ca, m, h);
}

static void tile_single_avx512(float *const *targets, size_t nt, const float *base, const uint32_t *idx, size_t ns,
                               const float *coef, size_t ct, size_t ca, size_t m)
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

sn_ldlt_tile_single_fn sn_ldlt_tile_single_avx512(void)
{
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl")) return tile_single_avx512;
    return NULL;
}

#else

sn_ldlt_tile_single_fn sn_ldlt_tile_single_avx512(void) { return NULL; }

#endif
