/*
 * The state one level's weight solve works on, shared by its parts: the
 * problem (problem.c builds it), the splitting iteration (split.c), the
 * certificates (certificate.c), and the exact finishes, the active-set
 * polish (polish.c) and the interior-point method (interior.c).
 */
#ifndef SN_BBW_SOLVE_STATE_H
#define SN_BBW_SOLVE_STATE_H

#include "bbw/bbw_internal.h"
#include "linalg/ldlt.h"

/* Columns of Anderson's history (steps remembered). */
#define SN_BBW_ANDERSON 10
/* Tasks a parallel pass is split into at most. */
#define SN_BBW_MAX_TASKS 64

typedef struct solve_state {
    sinew_bbw *b;
    const sn_env *call;      /* the handle's allocator and this call's progress */
    sn_sparse q, a;          /* full operator, reduced system */
    sn_ldlt factor;
    /* The x-step's single-precision solves (split.c): the factor's values
     * rounded (refilled after each factorisation of Q + rho W), their
     * workspace (sn_bbw_single_group_width floats per free vertex and column
     * group), the right-hand side and solution of the last step, and the
     * single-precision steps left before the next double one (0: the next
     * step is solved in double). */
    sn_ldlt_single factor_single;
    float *work_single;
    double *rhs_prev, *x_prev;
    uint32_t single_steps_left;
    uint32_t *map;           /* vertex -> free index or UINT32_MAX */
    uint32_t *free_vertex;   /* free index -> vertex */
    size_t *diag_pos;        /* position of each diagonal entry of a */
    double *base;            /* rhs from the fixed vertices, nf x m */
    /* The split's metric per free vertex, W = M^1/2 diag(Q)^1/2 scaled to
     * M's size (see split_metric): the penalty on the diagonal is rho W. */
    double *metric;
    double *x, *z, *s, *rhs, *work;
    /* The last step g = T(s) and residual f = g - s, and Anderson's history
     * of their differences: a ring of SN_BBW_ANDERSON columns each, in single
     * precision (they only steer the extrapolation, and the passes that
     * read them are memory-bound). */
    double *g, *f;
    float *df, *dg;
    double *row;             /* one vertex's weights (handle_count) per task */
    /* The iterate with the smallest certified bound so far, and that bound:
     * a solve that stops at its cap keeps these, not its last iterate. */
    double *best_z, best_bound;
    double best_rounding;    /* best_z's rounding to the float output (sn_bbw_output_rounding) */
    double tolerance;        /* asked of the weights (see sn_bbw_certified) */
    int exact;               /* exact partition (rows on the simplex), else the box */
    /* Squared W-norms of the last iteration, for the penalty's balance:
     * the step of z and the scaled multiplier u = s - z (projection pass),
     * the split x - z and the weights z (residual pass). */
    double step_sq, dual_sq, split_sq, weight_sq;
    double *q_diagonal;      /* Q_FF's diagonal (s->a's holds Q + rho W) */
    /* Tasks the parallel passes are split into (1 without a parallel hook;
     * row and scratch hold one slice per task), and the x-step's gathered
     * column groups (NULL when serial). */
    uint32_t tasks;
    double *columns;
    uint32_t *scratch;
    size_t nf;
    /* Smallest eigenvalue of Q_FF relative to the mass (Q v = lambda M v),
     * and the free vertices' total mass: they turn the optimality gap into a
     * bound on the weights' error. */
    double lambda_min, free_mass;
    double *q_vals, *q_diag; /* numeric factor of Q_FF unshifted (factor's pattern) */
} solve_state;

/* Column groups the x-step's solves are split into: one per task, at most
 * one per handle. */
static inline uint32_t sn_bbw_solve_groups(const solve_state *s)
{
    size_t m = s->b->handle_count;
    return s->tasks < m ? s->tasks : m ? (uint32_t)m : 1;
}

/* Floats per free vertex of one column group's slice of work_single: the
 * largest group's handles, padded to whole registers. */
static inline size_t sn_bbw_single_group_width(const solve_state *s)
{
    size_t g = sn_bbw_solve_groups(s);
    return sn_ldlt_single_width((s->b->handle_count + g - 1) / g);
}


/* Active-set polish of s->z: takes the support the splitting iteration
 * found, solves the equality-constrained problem exactly, and moves a
 * feasible iterate toward that solution by a projected search, reading the
 * next support from it, until the KKT conditions hold. rho is the penalty
 * currently on the diagonal of s->a (removed again to recover Q). On success
 * writes the exact weights into s->z and returns SINEW_OK, also as soon as a
 * round's solution (projected) is certified within s->tolerance; returns
 * SINEW_ERROR_NOT_CONVERGED when neither happens within max_rounds (or the
 * system is too costly), with the iterate in s->z if it moved. *moved says
 * whether s->z was replaced (the split's state must then be rebuilt from
 * it); a failure leaves z untouched. Every round's certified candidate
 * competes for s->best_z. *rounds gets the rounds made. */
sinew_result sn_bbw_polish(solve_state *s, double rho, int exact, uint32_t max_rounds, uint32_t *rounds, int *moved);

/* Whether an exact finish's system of `unknowns` unknowns, or its factor
 * of `fill` entries, costs more than the splitting it would replace
 * (polish.c's budget, shared by both finishes). */
int sn_bbw_polish_over_budget_unknowns(const solve_state *s, size_t unknowns);
int sn_bbw_polish_over_budget(const solve_state *s, size_t fill);
/* Interior-point solve (exact partition only; interior.c) from the
 * split's start s->z: a primal-dual path-following method on the whole
 * problem, at most max_steps factorisations of one pattern. Returns
 * SINEW_OK as soon as an iterate is certified within s->tolerance (it is
 * then in s->best_z); SINEW_ERROR_NOT_CONVERGED when the system breaks the
 * budget or the method stops short (rounding, max_steps). Certified
 * iterates still compete for s->best_z; s->z is never touched. *steps gets
 * the factorisations made. */
sinew_result sn_bbw_interior(solve_state *s, double rho, uint32_t max_steps, uint32_t *steps);
#endif /* SN_BBW_SOLVE_STATE_H */
