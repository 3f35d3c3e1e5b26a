/*
 * Small dense systems (a few hundred unknowns at most): LU factorisation with
 * partial pivoting, in place, row-major. For the systems the sparse LDL^T
 * does not take: dense, symmetric but indefinite (an interpolation matrix
 * bordered by its polynomial constraints).
 */
#ifndef SN_LINALG_DENSE_H
#define SN_LINALG_DENSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Factors the n x n row-major matrix a in place into P a = L U (unit lower L
 * below the diagonal, U on and above it); pivot[i] receives the row swapped
 * with row i at step i. Returns false, with *step the column where it
 * stopped, when a pivot's magnitude is at most tolerance times the largest
 * entry of the matrix (relative: the matrix is singular to that precision). */
bool sn_dense_lu_factor(double *a, size_t n, uint32_t *pivot, double tolerance, size_t *step);

/* Solves a x = b for one right-hand side with the factors of
 * sn_dense_lu_factor; b is overwritten with x. */
void sn_dense_lu_solve(const double *lu, size_t n, const uint32_t *pivot, double *b);

#endif /* SN_LINALG_DENSE_H */
