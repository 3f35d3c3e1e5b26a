/*
 * The small QP of weights from example poses: minimise |A w - b|^2 over the
 * probability simplex (w >= 0, sum w = 1), given as its Gram form G = A^T A,
 * c = A^T b, bb = b^T b. A primal active-set method in double, and a KKT
 * check of the result that serves as its certificate.
 */
#ifndef SINEW_SKIN_TOOLS_EXAMPLE_WEIGHTS_QP_H
#define SINEW_SKIN_TOOLS_EXAMPLE_WEIGHTS_QP_H

#include <stddef.h>

#include "core/internal.h"

/* A problem of n variables: G is n * n (row-major, symmetric positive
 * semidefinite), c has n entries. */
typedef struct sn_simplex_qp {
    size_t n;
    const double *G;
    const double *c;
    double bb;
} sn_simplex_qp;

/* Scratch for problems of up to n variables: sn_simplex_qp_work_doubles(n)
 * doubles and n size_t. */
typedef struct sn_simplex_qp_work {
    double *doubles;
    size_t *indices;
} sn_simplex_qp_work;

size_t sn_simplex_qp_work_doubles(size_t n);

/* Solves the QP over the variables with allowed[i] != 0 (at least one); the
 * others stay 0. w receives n weights. Returns the certificate: the largest
 * KKT violation (|g_i - mu| on the support, mu - g_i where positive off it,
 * g = G w - c, mu the multiplier of sum w = 1) divided by the problem's scale
 * (max G_ii + sqrt(max G_ii * bb)); *objective receives |A w - b|^2. */
double sn_simplex_qp_solve(const sn_simplex_qp *qp, const unsigned char *allowed, sn_simplex_qp_work *work, double *w,
                           double *objective);


#endif /* SINEW_SKIN_TOOLS_EXAMPLE_WEIGHTS_QP_H */
