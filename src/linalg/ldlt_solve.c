/*
 * Solves with the supernodal LDL^T (ldlt.h) for many right-hand sides at
 * once, in double precision: the portable tile, the pick of the fastest,
 * and the block loops of ldlt_solve_blocks.h.
 */
#include "linalg/ldlt.h"
#include "linalg/ldlt_kernels.h"

#include <string.h>

#define REAL double
#define TILE_FN sn_ldlt_tile_fn
#define BLOCKS(name) name##_double
#include "linalg/ldlt_solve_blocks.h"

sn_ldlt_tile_fn sn_ldlt_tile_portable(void) { return tile_portable_double; }

sn_ldlt_tile_fn sn_ldlt_tile_best(void)
{
    sn_ldlt_tile_fn tile = sn_ldlt_tile_avx512();
    if (!tile) tile = sn_ldlt_tile_avx2();
    return tile ? tile : tile_portable_double;
}

void sn_ldlt_solve(const sn_ldlt *f, double *x, size_t m, double *work)
{
    sn_ldlt_solve_with(f, x, m, work, sn_ldlt_tile_best());
}

void sn_ldlt_solve_with(const sn_ldlt *f, double *x, size_t m, double *work, sn_ldlt_tile_fn tile)
{
    size_t n = f->n;
    for (size_t k = 0; k < n; ++k) memcpy(work + k * m, x + (size_t)f->perm[k] * m, m * sizeof(double));
    solve_ordered_double(f, f->super_vals, f->diag, work, m, tile);
    for (size_t k = 0; k < n; ++k) memcpy(x + (size_t)f->perm[k] * m, work + k * m, m * sizeof(double));
}
