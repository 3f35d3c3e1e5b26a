/*
 * The one inner kernel of the supernodal LDL^T solves, with ISA-specific
 * variants built in their own static libraries with their own flags
 * (src/linalg/meson.build).
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

/* The fastest tile this build and CPU offer. */
sn_ldlt_tile_fn sn_ldlt_tile_best(void);

#endif /* SN_LINALG_LDLT_KERNELS_H */
