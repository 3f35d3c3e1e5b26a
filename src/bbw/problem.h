/*
 * Building and freeing the state a level solve works on (problem.c): the
 * reduced system over the free vertices, its factorisations, the split's
 * metric, the certified smallest eigenvalue and the unconstrained start
 * in s->z. Uses the certificate and the linear algebra.
 */
#ifndef SN_BBW_PROBLEM_H
#define SN_BBW_PROBLEM_H

#include "bbw/solve_state.h"

/* Builds s (s->b, s->call, s->tasks and s->tolerance set by the caller)
 * for the solve desc d (checked): on return s->a holds Q_FF + rho W,
 * factorised, and *rho (the relative penalty on entry) is scaled to the
 * operator's spectrum. s->nf == 0 (every vertex fixed) returns early with
 * nothing else built. On failure s holds what was built: free it. */
sinew_result sn_bbw_problem_build(solve_state *s, const sinew_bbw_solve_desc *d, double *rho);
/* Frees every array of s (s itself is the caller's). */
void sn_bbw_problem_free(solve_state *s);

#endif /* SN_BBW_PROBLEM_H */
