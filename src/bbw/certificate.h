/*
 * The certified error bound (certificate.c): the smallest eigenvalue of
 * Q_FF relative to the mass, and duality gaps of feasible weights turned
 * into a bound on their mass-weighted RMS error. Used by the problem's
 * setup, the level solve, the polish and the interior-point finish; uses
 * only the linear algebra.
 */
#ifndef SN_BBW_CERTIFICATE_H
#define SN_BBW_CERTIFICATE_H

#include "bbw/solve_state.h"

/* Estimate of s->lambda_min by the Lanczos iteration (an upper bound), and
 * s->free_mass; called while s->a and s->factor hold Q_FF unshifted. Uses
 * s->x, s->g, s->rhs and s->work. */
void sn_bbw_estimate_lambda_min(solve_state *s);
/* Replaces the estimate s->lambda_min by a certified lower bound (0 when
 * none is found); overwrites s->factor's values, s->a holds Q_FF unshifted
 * on entry and on return. */
sinew_result sn_bbw_certify_lambda_min(solve_state *s);


/* Certifies the split's current weights s->z with its own multiplier and
 * with the gradient (the smaller bound), remembers them when the bound is
 * the best so far (s->best_z), and returns the bound; *rounding gets their
 * rounding to the float output. rho: the shift on s->a's diagonal. Uses
 * s->x, s->rhs, s->row and s->work. */
double sn_bbw_certify_split(solve_state *s, double rho, int exact, double *rounding);


/* Whether weights with the certified bound (on the doubles) and the
 * rounding of their float output meet s->tolerance: bound + rounding, so
 * the float weights a caller reads are certified; tolerances below the
 * float resolution (SN_BBW_FLOAT_RESOLUTION) are asked of the doubles
 * alone, as no solve can reduce the rounding. */
int sn_bbw_certified(const solve_state *s, double bound, double rounding);

/* Certified bound for feasible weights z with the dual point y = base - Q x
 * of any x (the gap E(z) - d(y)). rho: the shift on s->a's diagonal. g and
 * d: nf * m doubles of scratch. */
double sn_bbw_certify_with(solve_state *s, double rho, int exact, const double *z, const double *x, double *g,
                           double *d);

/* Certified bound for feasible weights z (exact partition: rows on the
 * simplex) with the multiplier y (nf * m). g and x: nf * m doubles of
 * scratch; uses s->work. */
double sn_bbw_certify_multiplier(solve_state *s, double rho, const double *z, const double *y, double *g, double *x);

/* Remembers z as the best certified weights when bound beats s->best_bound
 * (with its rounding in s->best_rounding). */
void sn_bbw_keep_if_best(solve_state *s, const double *z, double bound);

#endif /* SN_BBW_CERTIFICATE_H */
