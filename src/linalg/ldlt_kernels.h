/*
 * ISA-specific variants of the LDL^T solve, built in their own static
 * libraries with their own flags (src/linalg/meson.build).
 */
#ifndef SN_LINALG_LDLT_KERNELS_H
#define SN_LINALG_LDLT_KERNELS_H

#include "linalg/ldlt.h"

typedef void (*sn_ldlt_solve_fn)(const sn_ldlt *f, double *x, size_t m, double *work);

/* The AVX2 + FMA solve when this build has it and the CPU runs it, else NULL. */
sn_ldlt_solve_fn sn_ldlt_solve_avx2(void);

#endif /* SN_LINALG_LDLT_KERNELS_H */
