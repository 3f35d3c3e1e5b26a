/*
 * The splitting iteration on the state of solve_state.h (split.c): ADMM in
 * Douglas-Rachford form on s, z = P(s), u = s - z,
 * x = F^-1 (base + rho W (2z - s)) with F = Q + rho W, and
 * T(s) = s + relax (x - z), accelerated by Anderson's extrapolation of T.
 * Uses the projections and the linear algebra; used by the penalty
 * schedule and the level solve.
 */
#ifndef SN_BBW_SPLIT_H
#define SN_BBW_SPLIT_H

#include "bbw/solve_state.h"

/* Anderson acceleration (type II) of the fixed-point map T: with g = T(s)
 * and f = g - s, the next s is g - dG gamma, where gamma minimises the mass
 * norm of f - dF gamma over the remembered differences dF, dG of successive
 * f and g (a tiny Tikhonov term keeps it stable). The Gram matrix dF' M dF
 * of the normal equations persists across iterations: each iteration adds
 * one column, so only that column's dot products are new, and they are
 * taken in the residual pass that makes the column. The columns themselves
 * are s->df and s->dg. used = 0 drops the history. */
typedef struct sn_bbw_anderson {
    size_t used;                                   /* columns remembered */
    size_t head;                                   /* slot of the newest column */
    size_t slot[SN_BBW_ANDERSON];                  /* active slots, newest first */
    double gram[SN_BBW_ANDERSON][SN_BBW_ANDERSON]; /* dF' M dF, by slot */
    double fdot[SN_BBW_ANDERSON];                  /* dF' M f, by slot */
    double gamma[SN_BBW_ANDERSON];                 /* by position in slot[] */
} sn_bbw_anderson;

/* One iteration: the z-step from s (restart: s as it is, without
 * extrapolation, and *change = INFINITY; otherwise s = g - dG gamma), the
 * x-step, and the residual pass (restart or fresh: no new Anderson column,
 * the last step belonging to another state or penalty). *change gets the
 * largest change of z, *primal the largest entry of x - z; returns the mass
 * norm of x - z. Leaves the W-norms for sn_bbw_relative_residuals in s. */
double sn_bbw_split_iterate(solve_state *s, sn_bbw_anderson *aa, double rho, int exact, int restart, int fresh,
                            double *change, double *primal);
/* Solves for the next gamma from the remembered columns (aa->used > 0). */
void sn_bbw_anderson_coefficients(sn_bbw_anderson *aa);

/* The split's starting state from given weights (vertex-major over every
 * vertex; NULL = the z already there): rows projected onto the feasible
 * set, s = z + u with the multiplier of sn_bbw_warm_start_multiplier
 * (u = 0 without a start). */
void sn_bbw_start_split(solve_state *s, const float *start, double rho, int exact);
/* s = z + u with the multiplier that makes z a fixed point of the x-step. */
void sn_bbw_warm_start_multiplier(solve_state *s, double rho);

/* Multiplies the penalty *rho by factor: refactorises Q + rho W and
 * rescales the last step so the multiplier rho W u is kept. The caller
 * drops Anderson's history (its columns belong to the old map). */
sinew_result sn_bbw_change_penalty(solve_state *s, double *rho, int exact, double factor);
/* The last iteration's relative primal residual |x - z|_W / |z|_W and dual
 * residual |z - z_prev|_W / |u|_W; 0 when either is not positive. */
int sn_bbw_relative_residuals(const solve_state *s, double *primal, double *dual);

#endif /* SN_BBW_SPLIT_H */
