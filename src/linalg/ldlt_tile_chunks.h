/*
 * The chunks of a supernodal solve's vector tile, for one value type and
 * one register width: the AVX-512 tiles (ldlt_tile_avx512.h, double and
 * single precision) and the AVX2 single-precision tile
 * (ldlt_solve_single_avx2.c) define the names below, then include this file
 * inside their ISA guard:
 *
 *   REAL, VEC, HALF, ONE   the value type, a full register, a half one and
 *                          an xmm of it
 *   LANES, HALF_LANES      values per full and per half register
 *   VEC_LOAD/STORE/SET1/FNMADD, HALF_LOAD/STORE/ZERO/FNMADD, TO_HALF (the
 *   low half of a full register), ONE_LOAD/STORE/SUB/MUL (one value)
 *
 * tile_nt(targets, NT, ...) runs NT targets (a constant after inlining)
 * over all right-hand sides: up to three full registers per target a pass,
 * then the rest in full and half registers, then the last columns one at a
 * time. No masked stores: a masked store blocks forwarding to the loads of
 * the next tile, which reads the rows just written.
 */
#define SOURCE(t) (base + (idx ? (size_t)idx[t] : (t)) * m + h)
#define INLINE static inline __attribute__((always_inline))

/* NZ full registers and H half registers per target from column h. */
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
 * last columns keep the bits of the portable order and of the AVX2 double
 * tile's tail. */
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

