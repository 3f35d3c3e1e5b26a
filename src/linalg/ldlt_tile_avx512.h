/*
 * The AVX-512 tile of the supernodal solves, for one value type: the double
 * tile (ldlt_solve_avx512.c) and the single-precision one
 * (ldlt_solve_single_avx512.c) define the names below for their type, then
 * include this file inside their ISA guard, so both are compiled with their
 * unit's flags from one scheme:
 *
 *   REAL, VEC, HALF, ONE   the value type, a zmm, a ymm and an xmm of it
 *   LANES, HALF_LANES      values per zmm and per ymm
 *   VEC_LOAD/STORE/SET1/FNMADD, HALF_LOAD/STORE/FNMADD, TO_HALF (the low
 *   half of a zmm), ONE_LOAD/STORE/SUB/MUL (one value in an xmm)
 *   TILE_NAME, TILE_FN     the tile's name and its sn_ldlt_tile*_fn type
 *
 * Eight targets, each with up to three zmm of right-hand sides in
 * registers (or two and a ymm), so up to 3 x LANES handles take one pass
 * over the factor's coefficients (which stream from beyond L2). No masked
 * stores: a masked store blocks forwarding to the loads of the next tile,
 * which reads the rows just written.
 */
#define SOURCE(t) (base + (idx ? (size_t)idx[t] : (t)) * m + h)
#define INLINE static inline __attribute__((always_inline))

/* NZ zmm registers and H ymm registers per target from column h. */
INLINE void chunk(REAL *const *targets, size_t NT, size_t NZ, size_t H, const REAL *base, const uint32_t *idx,
                  size_t ns, const REAL *coef, size_t ct, size_t ca, size_t m, size_t h)
{
    VEC acc[SN_LDLT_TILE][3];
    HALF acc_half[SN_LDLT_TILE];
    for (size_t a = 0; a < NT; ++a) {
        for (size_t v = 0; v < NZ; ++v) acc[a][v] = VEC_LOAD(targets[a] + h + LANES * v);
        if (H) acc_half[a] = HALF_LOAD(targets[a] + h + LANES * NZ);
    }
    for (size_t t = 0; t < ns; ++t) {
        const REAL *x = SOURCE(t);
        VEC xv[3];
        HALF xh = HALF_ZERO();
        for (size_t v = 0; v < NZ; ++v) xv[v] = VEC_LOAD(x + LANES * v);
        if (H) xh = HALF_LOAD(x + LANES * NZ);
        const REAL *c = coef + t * ct;
        for (size_t a = 0; a < NT; ++a) {
            VEC l = VEC_SET1(c[a * ca]);
            for (size_t v = 0; v < NZ; ++v) acc[a][v] = VEC_FNMADD(l, xv[v], acc[a][v]);
            if (H) acc_half[a] = HALF_FNMADD(TO_HALF(l), xh, acc_half[a]);
        }
    }
    for (size_t a = 0; a < NT; ++a) {
        for (size_t v = 0; v < NZ; ++v) VEC_STORE(targets[a] + h + LANES * v, acc[a][v]);
        if (H) HALF_STORE(targets[a] + h + LANES * NZ, acc_half[a]);
    }
}

/* The last columns (fewer than HALF_LANES) one at a time. Multiply, then
 * subtract, in intrinsics: never fused, whatever the compiler's contraction
 * default (clang fuses `acc -= c * x` under -mfma), so the double tile's
 * last columns keep the bits of the portable order and of the AVX2 tile's
 * tail. */
INLINE void chunk1(REAL *const *targets, size_t NT, const REAL *base, const uint32_t *idx, size_t ns,
                   const REAL *coef, size_t ct, size_t ca, size_t m, size_t h)
{
    ONE acc[SN_LDLT_TILE];
    for (size_t a = 0; a < NT; ++a) acc[a] = ONE_LOAD(targets[a] + h);
    for (size_t t = 0; t < ns; ++t) {
        const ONE x0 = ONE_LOAD(SOURCE(t));
        const REAL *c = coef + t * ct;
        for (size_t a = 0; a < NT; ++a) acc[a] = ONE_SUB(acc[a], ONE_MUL(ONE_LOAD(c + a * ca), x0));
    }
    for (size_t a = 0; a < NT; ++a) ONE_STORE(targets[a] + h, acc[a]);
}

INLINE void tile_nt(REAL *const *targets, size_t NT, const REAL *base, const uint32_t *idx, size_t ns,
                    const REAL *coef, size_t ct, size_t ca, size_t m)
{
    size_t h = 0;
    for (; h + 3 * LANES <= m; h += 3 * LANES) chunk(targets, NT, 3, 0, base, idx, ns, coef, ct, ca, m, h);
    size_t nz = (m - h) / LANES, half = (m - h) % LANES >= HALF_LANES;
    switch (nz * 2 + half) {
    case 1: chunk(targets, NT, 0, 1, base, idx, ns, coef, ct, ca, m, h); break;
    case 2: chunk(targets, NT, 1, 0, base, idx, ns, coef, ct, ca, m, h); break;
    case 3: chunk(targets, NT, 1, 1, base, idx, ns, coef, ct, ca, m, h); break;
    case 4: chunk(targets, NT, 2, 0, base, idx, ns, coef, ct, ca, m, h); break;
    case 5: chunk(targets, NT, 2, 1, base, idx, ns, coef, ct, ca, m, h); break;
    default: break;
    }
    for (h += LANES * nz + HALF_LANES * half; h < m; ++h) chunk1(targets, NT, base, idx, ns, coef, ct, ca, m, h);
}

static void TILE_NAME(REAL *const *targets, size_t nt, const REAL *base, const uint32_t *idx, size_t ns,
                      const REAL *coef, size_t ct, size_t ca, size_t m)
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

TILE_FN TILE_LOOKUP(void)
{
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl")) return TILE_NAME;
    return NULL;
}
