/*
 * The AVX2 tiles' walk over a tile's targets (ldlt_solve_avx2.c in double,
 * ldlt_solve_single_avx2.c in single precision): sixteen ymm registers hold
 * four targets' accumulators at most, so the targets go four at a time,
 * each group with its count as a constant. Each unit defines REAL and its
 * tile_nt(targets, NT, ...) inside its ISA guard, then includes this file.
 */
static inline __attribute__((always_inline)) void tile_targets(REAL *const *targets, size_t nt, const REAL *base,
                                                              const uint32_t *idx, size_t ns, const REAL *coef,
                                                              size_t ct, size_t ca, size_t m)
{
    for (; nt > 4; nt -= 4, targets += 4, coef += 4 * ca) tile_nt(targets, 4, base, idx, ns, coef, ct, ca, m);
    switch (nt) {
    case 4: tile_nt(targets, 4, base, idx, ns, coef, ct, ca, m); break;
    case 3: tile_nt(targets, 3, base, idx, ns, coef, ct, ca, m); break;
    case 2: tile_nt(targets, 2, base, idx, ns, coef, ct, ca, m); break;
    case 1: tile_nt(targets, 1, base, idx, ns, coef, ct, ca, m); break;
    default: break;
    }
}
