/*
 * Sparse LDL^T factorisation of symmetric positive definite matrices:
 * nested-dissection ordering, elimination tree and column counts
 * (symbolic), then an up-looking numeric factorisation that can be repeated
 * for new values on the same pattern. Solves take many right-hand sides at
 * once, stored vertex-major, so one pass over the factor serves them all.
 */
#ifndef SN_LINALG_LDLT_H
#define SN_LINALG_LDLT_H

#include "linalg/sparse.h"

typedef struct sn_ldlt {
    size_t n;
    uint32_t *perm;     /* perm[new] = old */
    uint32_t *iperm;    /* iperm[old] = new */
    int32_t *parent;    /* elimination tree, -1 at roots */
    /* Upper triangle of the permuted matrix, by columns; src[p] is the
     * position of the value in the analysed matrix's vals. */
    size_t *up_colptr;
    uint32_t *up_rows;
    size_t *up_src;
    /* Strictly lower factor by columns, and the diagonal D. */
    size_t *colptr;
    uint32_t *rows;
    double *vals;
    double *diag;
} sn_ldlt;

/* Orders A and computes the factor's pattern. A is stored in full. coords
 * (3 doubles per row, may be NULL) lets a geometric dissection compete with
 * the graph one; the ordering with fewer factorisation operations wins. */
sinew_result sn_ldlt_analyse(const sn_env *env, const sn_sparse *a, const double *coords, sn_ldlt *out);

/* Numeric factorisation of A (same pattern as analysed). Fails with
 * SINEW_ERROR_DEGENERATE when a pivot is not positive (A not positive
 * definite); the message names the original row. */
sinew_result sn_ldlt_factor(const sn_env *env, sn_ldlt *f, const sn_sparse *a);

/* Solves A X = B in place for m right-hand sides: x holds n rows of m values
 * (row i = unknown i). work holds n * m doubles. */
void sn_ldlt_solve(const sn_ldlt *f, double *x, size_t m, double *work);

/* Entries of the strict lower factor (a measure of fill). */
size_t sn_ldlt_factor_nonzeros(const sn_ldlt *f);

void sn_ldlt_free(const sn_env *env, sn_ldlt *f);

#endif /* SN_LINALG_LDLT_H */
