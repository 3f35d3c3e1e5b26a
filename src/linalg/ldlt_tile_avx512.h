/*
 * The AVX-512 tile of the supernodal solves, for one value type: the double
 * tile (ldlt_solve_avx512.c) and the single-precision one
 * (ldlt_solve_single_avx512.c) define the vocabulary of ldlt_tile_chunks.h
 * for their type, and TILE_NAME, TILE_FN (the tile's name and its
 * sn_ldlt_tile*_fn type) and TILE_LOOKUP, then include this file inside
 * their ISA guard, so both are compiled with their unit's flags from one
 * scheme. Eight targets, each with up to three zmm of right-hand sides in
 * registers (or two and a ymm), so up to 3 x LANES handles take one pass
 * over the factor's coefficients (which stream from beyond L2).
 */
#include "linalg/ldlt_tile_chunks.h"

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
