/*
 * The inner kernels of the supernodal LDL^T: the tile of the solves and the
 * column update of the factorisation, each with ISA-specific variants built
 * in their own static libraries with their own flags (src/linalg/meson.build)
 * and picked at run time by CPU detection.
 */
#ifndef SN_LINALG_LDLT_KERNELS_H
#define SN_LINALG_LDLT_KERNELS_H

#include "linalg/ldlt.h"

/* Targets updated together by one tile call (rows kept in registers): eight
 * rows of a column-major block share each cache line of coefficients. */
#define SN_LDLT_TILE 8

/* For a < nt (nt <= SN_LDLT_TILE): targets[a] -= sum over t < ns of
 * coef[t * ct + a * ca] * source_t, each row m values, where source_t is
 * the row base + idx[t] * m (idx given) or base + t * m (idx NULL). */
typedef void (*sn_ldlt_tile_fn)(double *const *targets, size_t nt, const double *base, const uint32_t *idx,
                                size_t ns, const double *coef, size_t ct, size_t ca, size_t m);

/* The portable tile (always available; tests compare the others with it). */
sn_ldlt_tile_fn sn_ldlt_tile_portable(void);

/* The AVX2 + FMA tile when this build has it and the CPU runs it, else NULL. */
sn_ldlt_tile_fn sn_ldlt_tile_avx2(void);

/* The AVX-512 (F + VL) tile when this build has it and the CPU runs it. */
sn_ldlt_tile_fn sn_ldlt_tile_avx512(void);

/* The fastest tile this build and CPU offer (what sn_ldlt_solve uses). */
sn_ldlt_tile_fn sn_ldlt_tile_best(void);

/* sn_ldlt_solve with the given tile kernel. */
void sn_ldlt_solve_with(const sn_ldlt *f, double *x, size_t m, double *work, sn_ldlt_tile_fn tile);

/* The single-precision tile (sn_ldlt_solve_single): the same contract over
 * floats. Its variants: the portable one (the tests' reference), AVX2 + FMA
 * and AVX-512 (NULL where the build or the CPU lacks them), and the fastest. */
typedef void (*sn_ldlt_tile_single_fn)(float *const *targets, size_t nt, const float *base, const uint32_t *idx,
                                       size_t ns, const float *coef, size_t ct, size_t ca, size_t m);
sn_ldlt_tile_single_fn sn_ldlt_tile_single_portable(void);
sn_ldlt_tile_single_fn sn_ldlt_tile_single_avx2(void);
sn_ldlt_tile_single_fn sn_ldlt_tile_single_avx512(void);
sn_ldlt_tile_single_fn sn_ldlt_tile_single_best(void);

/* sn_ldlt_solve_single with the given tile kernel. */
void sn_ldlt_solve_single_with(const sn_ldlt *f, const sn_ldlt_single *v, double *x, size_t m, float *work,
                               sn_ldlt_tile_single_fn tile);

/* Columns of the factor updated together by one update call: each source
 * entry loaded serves that many target columns. */
#define SN_LDLT_PANEL 4

/* For j < nc (nc <= SN_LDLT_PANEL), i < len: c[j * ldc + i] -= sum over
 * t < kk of w[t * nc + j] * a[t * lda + i]. The factorisation's update of nc
 * target columns by kk source columns (a, column-major), the weights
 * d_t L(target, t) packed source-major. */
typedef void (*sn_ldlt_update_fn)(double *c, size_t ldc, size_t len, size_t nc, const double *a, size_t lda,
                                  const double *w, size_t kk);

/* The portable update (always available; its sums are grouped four sources
 * at a time, whatever nc is, so a column's values do not depend on the
 * panel it was computed in). */
sn_ldlt_update_fn sn_ldlt_update_portable(void);

/* The AVX2 update when this build has it and the CPU runs it, else NULL. It
 * computes exactly what the portable one does, to the bit. */
sn_ldlt_update_fn sn_ldlt_update_avx2(void);
/* The AVX-512 update, likewise (NULL without it); the same bits too. */
sn_ldlt_update_fn sn_ldlt_update_avx512(void);

/* The fastest update this build and CPU offer (what sn_ldlt_factor uses). */
sn_ldlt_update_fn sn_ldlt_update_best(void);

/* sn_ldlt_factor with the given update kernel (tests and benchmarks compare
 * the kernels on one matrix). */
sinew_result sn_ldlt_factor_with(const sn_env *env, sn_ldlt *f, const sn_sparse *a, sn_ldlt_update_fn update);

#endif /* SN_LINALG_LDLT_KERNELS_H */
