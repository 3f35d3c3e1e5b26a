/* AVX2 + FMA tile kernel of the supernodal LDL^T solves (the bbw split
 * pushes every handle's column through the factor every iteration, which is
 * most of its time). Built with -mavx2 -mfma when the compiler and the `simd`
 * option allow; sn_ldlt_solve calls it only after checking the CPU. A tile's
 * targets go four at a time: four target rows stay in registers, twelve right-hand sides at a time, then
 * eight, then the last 1 to 7 together, while the sources stream past: each
 * source chunk is loaded once for all four targets and each coefficient once
 * per chunk. */
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

/* Twelve right-hand sides from column h: as chunk8, with one more register
 * per target, so each coefficient's broadcast serves twelve columns (the
 * accumulators, sources and coefficient fill the sixteen registers). */
static inline __attribute__((always_inline)) void chunk12(double *const *targets, size_t NT, const double *base,
                                                         const uint32_t *idx, size_t ns, const double *coef,
                                                         size_t ct, size_t ca, size_t m, size_t h)
{
    __m256d v0[4], v1[4], v2[4];
    for (size_t a = 0; a < NT; ++a) {
        v0[a] = _mm256_loadu_pd(targets[a] + h);
        v1[a] = _mm256_loadu_pd(targets[a] + h + 4);
        v2[a] = _mm256_loadu_pd(targets[a] + h + 8);
    }
    for (size_t t = 0; t < ns; ++t) {
        const double *x = SOURCE(t);
        __m256d x0 = _mm256_loadu_pd(x), x1 = _mm256_loadu_pd(x + 4), x2 = _mm256_loadu_pd(x + 8);
        const double *c = coef + t * ct;
        for (size_t a = 0; a < NT; ++a) {
            __m256d l = _mm256_broadcast_sd(c + a * ca);
            v0[a] = _mm256_fnmadd_pd(l, x0, v0[a]);
            v1[a] = _mm256_fnmadd_pd(l, x1, v1[a]);
            v2[a] = _mm256_fnmadd_pd(l, x2, v2[a]);
        }
    }
    for (size_t a = 0; a < NT; ++a) {
        _mm256_storeu_pd(targets[a] + h, v0[a]);
        _mm256_storeu_pd(targets[a] + h + 4, v1[a]);
        _mm256_storeu_pd(targets[a] + h + 8, v2[a]);
    }
}

/* The last 1 to 7 right-hand sides from column h in one pass over the
 * sources: Q4 (0 or 1) ymm registers, then R (0 to 3) more values in an xmm
 * register and a scalar. One pass matters: each pass streams the sources
 * and the coefficients again, and with six handles a pass of four columns
 * then one of two would double that traffic. */
static inline __attribute__((always_inline)) void chunk_tail(double *const *targets, size_t NT, size_t Q4, size_t R,
                                                            const double *base, const uint32_t *idx, size_t ns,
                                                            const double *coef, size_t ct, size_t ca, size_t m,
                                                            size_t h)
{
    const size_t hp = h + 4 * Q4, hs = hp + (R >= 2 ? 2 : 0);
    __m256d q[4];
    __m128d p[4], sc[4];
    for (size_t a = 0; a < NT; ++a) {
        if (Q4) q[a] = _mm256_loadu_pd(targets[a] + h);
        if (R >= 2) p[a] = _mm_loadu_pd(targets[a] + hp);
        if (R & 1) sc[a] = _mm_load_sd(targets[a] + hs);
    }
    for (size_t t = 0; t < ns; ++t) {
        const double *x = SOURCE(t) - h;
        __m256d xq = Q4 ? _mm256_loadu_pd(x + h) : _mm256_setzero_pd();
        __m128d xp = R >= 2 ? _mm_loadu_pd(x + hp) : _mm_setzero_pd();
        __m128d xs = R & 1 ? _mm_load_sd(x + hs) : _mm_setzero_pd();
        const double *c = coef + t * ct;
        for (size_t a = 0; a < NT; ++a) {
            __m256d l = _mm256_broadcast_sd(c + a * ca);
            if (Q4) q[a] = _mm256_fnmadd_pd(l, xq, q[a]);
            /* Multiply, then subtract: what the one-at-a-time tail did
             * before these columns joined the pass, so solves keep their
             * bits (the bbw split is sensitive to rounding). */
            if (R >= 2) p[a] = _mm_sub_pd(p[a], _mm_mul_pd(_mm256_castpd256_pd128(l), xp));
            if (R & 1) sc[a] = _mm_sub_sd(sc[a], _mm_mul_sd(_mm256_castpd256_pd128(l), xs));
        }
    }
    for (size_t a = 0; a < NT; ++a) {
        if (Q4) _mm256_storeu_pd(targets[a] + h, q[a]);
        if (R >= 2) _mm_storeu_pd(targets[a] + hp, p[a]);
        if (R & 1) _mm_store_sd(targets[a] + hs, sc[a]);
    }
}

static inline __attribute__((always_inline)) void tile_nt(double *const *targets, size_t NT, const double *base,
                                                         const uint32_t *idx, size_t ns, const double *coef,
                                                         size_t ct, size_t ca, size_t m)
{
    size_t h = 0;
    for (; h + 12 <= m; h += 12) chunk12(targets, NT, base, idx, ns, coef, ct, ca, m, h);
    for (; h + 8 <= m; h += 8) chunk8(targets, NT, base, idx, ns, coef, ct, ca, m, h);
    switch (m - h) {
    case 7: chunk_tail(targets, NT, 1, 3, base, idx, ns, coef, ct, ca, m, h); break;
    case 6: chunk_tail(targets, NT, 1, 2, base, idx, ns, coef, ct, ca, m, h); break;
    case 5: chunk_tail(targets, NT, 1, 1, base, idx, ns, coef, ct, ca, m, h); break;
    case 4: chunk_tail(targets, NT, 1, 0, base, idx, ns, coef, ct, ca, m, h); break;
    case 3: chunk_tail(targets, NT, 0, 3, base, idx, ns, coef, ct, ca, m, h); break;
    case 2: chunk_tail(targets, NT, 0, 2, base, idx, ns, coef, ct, ca, m, h); break;
    case 1: chunk_tail(targets, NT, 0, 1, base, idx, ns, coef, ct, ca, m, h); break;
    default: break;
    }
}

/* One right-hand side (the interior-point method's and the certificates'
 * solves): all targets of the tile in one pass, so up to eight independent
 * chains hide the subtraction's latency instead of four; in the forward
 * solve, where a source's coefficients for consecutive targets are
 * contiguous (ca == 1), four targets share each vector operation. Every
 * target still takes, source by source, a multiply then a subtract: the
 * bits of the one-at-a-time path. */
static void single_rhs(double *const *targets, size_t nt, const double *base, const uint32_t *idx, size_t ns,
                       const double *coef, size_t ct, size_t ca)
{
    if (ca == 1 && nt == 8) {
        __m256d lo = _mm256_set_pd(*targets[3], *targets[2], *targets[1], *targets[0]);
        __m256d hi = _mm256_set_pd(*targets[7], *targets[6], *targets[5], *targets[4]);
        for (size_t t = 0; t < ns; ++t) {
            __m256d x = _mm256_broadcast_sd(base + (idx ? (size_t)idx[t] : t));
            const double *c = coef + t * ct;
            lo = _mm256_sub_pd(lo, _mm256_mul_pd(_mm256_loadu_pd(c), x));
            hi = _mm256_sub_pd(hi, _mm256_mul_pd(_mm256_loadu_pd(c + 4), x));
        }
        double out[8];
        _mm256_storeu_pd(out, lo);
        _mm256_storeu_pd(out + 4, hi);
        for (size_t a = 0; a < 8; ++a) *targets[a] = out[a];
        return;
    }
    __m128d acc[SN_LDLT_TILE];
    for (size_t a = 0; a < nt; ++a) acc[a] = _mm_load_sd(targets[a]);
    for (size_t t = 0; t < ns; ++t) {
        __m128d x = _mm_load_sd(base + (idx ? (size_t)idx[t] : t));
        const double *c = coef + t * ct;
        for (size_t a = 0; a < nt; ++a) acc[a] = _mm_sub_sd(acc[a], _mm_mul_sd(_mm_load_sd(c + a * ca), x));
    }
    for (size_t a = 0; a < nt; ++a) _mm_store_sd(targets[a], acc[a]);
}

#  define REAL double
#  include "linalg/ldlt_tile_avx2_targets.h"

static void tile_avx2(double *const *targets, size_t nt, const double *base, const uint32_t *idx, size_t ns,
                      const double *coef, size_t ct, size_t ca, size_t m)
{
    if (m == 1) single_rhs(targets, nt, base, idx, ns, coef, ct, ca);
    else tile_targets(targets, nt, base, idx, ns, coef, ct, ca, m);
}

sn_ldlt_tile_fn sn_ldlt_tile_avx2(void)
{
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return tile_avx2;
    return NULL;
}

#else

sn_ldlt_tile_fn sn_ldlt_tile_avx2(void) { return NULL; }

#endif
