/*
 * The penalty's schedule (penalty.c): the split's penalty and every rule
 * that moves it during a level solve, residual balancing while the split
 * is far from the tolerance, a change when the certified bound stalls, and
 * one judged lowering when the dual residual leads far. Uses the split
 * (which refactorises and rescales its state); used by the level solve.
 */
#ifndef SN_BBW_PENALTY_H
#define SN_BBW_PENALTY_H

#include "bbw/solve_state.h"

typedef enum {
    SN_BBW_LOWERING_NOT_TRIED,
    SN_BBW_LOWERING_ON_TRIAL,
    SN_BBW_LOWERING_DECIDED
} sn_bbw_lowering_state;

typedef struct sn_bbw_penalty {
    double rho;                 /* the penalty on s->a's diagonal now */
    uint32_t rebalances;        /* residual balancings made */
    uint32_t stall_changes;     /* changes made for a stalled bound */
    double stall_ref;           /* best bound at the last span's end; INFINITY = none yet */
    /* The span's running sum of the log dual/primal residual ratio. */
    double ratio_log_sum;
    uint32_t ratio_count;
    /* The late lowering, and while it is on trial its factor, the bound it
     * started from and the rate it has to beat. */
    sn_bbw_lowering_state lowering;
    double lower_factor, lower_start_bound, rate_before;
} sn_bbw_penalty;

/* The schedule at the start of a solve, with the penalty rho (already on
 * the split's diagonal). */
void sn_bbw_penalty_start(sn_bbw_penalty *p, double rho);

/* Residual balancing after iteration `it`, when far (the split's residual
 * still above where certificates start) and at one of the checkpoints:
 * moves the penalty when the relative residuals are far apart. Sets
 * *changed when the penalty moved. */
sinew_result sn_bbw_penalty_rebalance(sn_bbw_penalty *p, solve_state *s, int exact, uint32_t it, int far,
                                      int *changed);

/* After every iteration: tracks the residuals' ratio, and at the end of a
 * span judges the best certified bound s->best_bound: raises or lowers the
 * penalty when it stalled, tries or judges the late lowering. Sets
 * *changed when the penalty moved (the caller then resets the split's
 * history and the stall reference). */
sinew_result sn_bbw_penalty_after_iteration(sn_bbw_penalty *p, solve_state *s, int exact, uint32_t it,
                                            int *changed);

#endif /* SN_BBW_PENALTY_H */
