/*
 * Compressed sparse column matrices in double precision, built from triplets.
 * Symmetric matrices are stored in full (both triangles), which keeps graph
 * traversals (orderings, adjacency) simple; the factorisation reads only the
 * half it needs.
 */
#ifndef SN_LINALG_SPARSE_H
#define SN_LINALG_SPARSE_H

#include <stddef.h>
#include <stdint.h>

#include "core/internal.h"

typedef struct sn_sparse {
    size_t n;          /* square: n rows, n columns */
    size_t *colptr;    /* n + 1 offsets into rows/vals */
    uint32_t *rows;    /* row indices, ascending within a column */
    double *vals;
} sn_sparse;

/* Builds an n x n matrix from count triplets (rows[k], cols[k], vals[k]),
 * summing duplicates. Indices must be < n (the callers guarantee it). */
sinew_result sn_sparse_from_triplets(const sn_env *env, size_t n, size_t count, const uint32_t *rows,
                                     const uint32_t *cols, const double *vals, sn_sparse *out);

/* Frees the arrays of A (a zeroed A is fine) and zeroes it. */
void sn_sparse_free(const sn_env *env, sn_sparse *a);

/* out = A diag(d) A for a symmetric A: the biharmonic operator L M^-1 L when
 * d holds the inverse lumped masses. */
sinew_result sn_sparse_sandwich(const sn_env *env, const sn_sparse *a, const double *d, sn_sparse *out);

/* out = A + alpha B (patterns merged). */
sinew_result sn_sparse_add(const sn_env *env, const sn_sparse *a, double alpha, const sn_sparse *b,
                           sn_sparse *out);

/* out = A restricted to the rows and columns i with map[i] != UINT32_MAX,
 * renumbered to map[i]; sub_n is the number of kept indices. */
sinew_result sn_sparse_restrict(const sn_env *env, const sn_sparse *a, const uint32_t *map, size_t sub_n,
                                sn_sparse *out);

/* y = A x. */
void sn_sparse_multiply(const sn_sparse *a, const double *x, double *y);

/* Y = A X for a symmetric A and m columns stored row-major (row i of X is
 * x[i * m .. i * m + m - 1]), as the factor's solves take them. */
void sn_sparse_multiply_columns(const sn_sparse *a, const double *x, size_t m, double *y);

/* Value A(i, j) (0 when not stored); binary search in column j. */
double sn_sparse_get(const sn_sparse *a, uint32_t i, uint32_t j);

#endif /* SN_LINALG_SPARSE_H */
