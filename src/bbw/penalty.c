/*
 * The penalty's schedule (penalty.h). The split converges to the same
 * minimiser for any penalty; the penalty decides how fast. The start
 * (problem.c) balances the operator's spectrum; these rules correct it
 * where the iteration shows it is off.
 */
#include <math.h>

#include "bbw/penalty.h"
#include "bbw/split.h"

/* Residual balancing: checked from iteration REBALANCE_START every
 * REBALANCE_EVERY_EARLY iterations before REBALANCE_EARLY, then every
 * REBALANCE_EVERY, acted on when the primal residual leads the dual one by
 * more than GAP^2, by at most LIMIT per step, at most REBALANCE_MAX times a
 * solve. Tuned so a well-scaled start is left alone while a start off by
 * two orders of magnitude is corrected within the first hundred
 * iterations. */
#define SN_BBW_REBALANCE_START 10
#define SN_BBW_REBALANCE_EVERY_EARLY 10
#define SN_BBW_REBALANCE_EARLY 100
#define SN_BBW_REBALANCE_EVERY 50
#define SN_BBW_REBALANCE_GAP 3.0
#define SN_BBW_REBALANCE_LIMIT 30.0
#define SN_BBW_REBALANCE_MAX 12
/* A stalled bound: every STALL_SPAN iterations the best certified bound is
 * compared with the one a span before; if it has not fallen to
 * STALL_FACTOR of it, the penalty is raised by STALL_RAISE or, when the
 * span's dual residual led the primal one by more than LOWER_GAP, divided
 * by the square root of that lead (at most STALL_LOWER_LIMIT); at most
 * STALL_CHANGES times a solve. Tuned for the end of a solve on badly
 * conditioned tet meshes, whose bound creeps while the residuals look
 * balanced. */
#define SN_BBW_STALL_SPAN 100
#define SN_BBW_STALL_FACTOR 0.5
#define SN_BBW_STALL_RAISE 16.0
#define SN_BBW_STALL_CHANGES 3
#define SN_BBW_STALL_LOWER_LIMIT 30.0
/* The late lowering: at a span's end, when the bound did halve but the
 * relative dual residual led the primal one by more than LOWER_GAP over the
 * whole span (geometric mean of the per-iteration ratios), the penalty is
 * divided by the square root of that lead (at most LOWER_LIMIT), once a
 * solve, and restored if the next span's bound falls more slowly than the
 * span's before it. Tuned for graded volumes whose early balancing left
 * the penalty too large for the end of the solve. */
#define SN_BBW_LOWER_GAP 100.0
#define SN_BBW_LOWER_LIMIT 4.0

void sn_bbw_penalty_start(sn_bbw_penalty *p, double rho)
{
    *p = (sn_bbw_penalty){.rho = rho, .stall_ref = INFINITY, .lowering = SN_BBW_LOWERING_NOT_TRIED};
}

sinew_result sn_bbw_penalty_rebalance(sn_bbw_penalty *p, solve_state *s, int exact, uint32_t it, int far,
                                      int *changed)
{
    *changed = 0;
    if (p->rebalances >= SN_BBW_REBALANCE_MAX || it < SN_BBW_REBALANCE_START || !far ||
        it % (it < SN_BBW_REBALANCE_EARLY ? SN_BBW_REBALANCE_EVERY_EARLY : SN_BBW_REBALANCE_EVERY) != 0)
        return SINEW_OK;
    /* The split's relative residuals should fall together; when the primal
     * one leads, rho moves by the square root of their ratio. */
    double primal, dual;
    if (!sn_bbw_relative_residuals(s, &primal, &dual)) return SINEW_OK;
    double factor = sqrt(primal / dual);
    if (factor < SN_BBW_REBALANCE_GAP) return SINEW_OK;
    sinew_result r = sn_bbw_change_penalty(s, &p->rho, exact, fmin(factor, SN_BBW_REBALANCE_LIMIT));
    if (r == SINEW_OK) {
        *changed = 1;
        ++p->rebalances;
    }
    return r;
}

/* Adds this iteration's ratio of the relative dual residual to the
 * relative primal one. */
static void track_ratio(sn_bbw_penalty *p, const solve_state *s)
{
    double primal, dual;
    if (!sn_bbw_relative_residuals(s, &primal, &dual)) return;
    double ratio = dual / primal;
    if (!isfinite(ratio)) return;
    p->ratio_log_sum += log(ratio);
    ++p->ratio_count;
}

/* The span's lead of the dual residual over the primal one (geometric mean
 * of the ratios tracked, 1 if none); starts the next span's. */
static double span_lead(sn_bbw_penalty *p)
{
    double lead = p->ratio_count ? exp(p->ratio_log_sum / p->ratio_count) : 1.0;
    p->ratio_log_sum = 0.0;
    p->ratio_count = 0;
    return lead;
}

/* At a span's end, with the best bound now (bound), a span before
 * (previous) and the span's lead: judges a lowering on trial (restoring the
 * penalty if the bound fell more slowly than in the span before the
 * lowering), or, where may_lower, lowers the penalty when the dual residual
 * led by more than LOWER_GAP. Sets *changed when the penalty moved. */
static sinew_result lowering_checkpoint(sn_bbw_penalty *p, solve_state *s, int exact, double bound, double previous,
                                        double lead, int may_lower, int *changed)
{
    *changed = 0;
    sinew_result r = SINEW_OK;
    if (p->lowering == SN_BBW_LOWERING_ON_TRIAL) {
        p->lowering = SN_BBW_LOWERING_DECIDED;
        if (!(bound / p->lower_start_bound <= p->rate_before) &&
            (r = sn_bbw_change_penalty(s, &p->rho, exact, p->lower_factor)) == SINEW_OK)
            *changed = 1;
        return r;
    }
    if (!may_lower || p->lowering != SN_BBW_LOWERING_NOT_TRIED || !isfinite(previous) || !isfinite(bound) ||
        !(lead > SN_BBW_LOWER_GAP))
        return SINEW_OK;
    p->lower_factor = fmin(sqrt(lead), SN_BBW_LOWER_LIMIT);
    if ((r = sn_bbw_change_penalty(s, &p->rho, exact, 1.0 / p->lower_factor)) != SINEW_OK) return r;
    p->lowering = SN_BBW_LOWERING_ON_TRIAL;
    p->lower_start_bound = bound;
    p->rate_before = bound / previous;
    *changed = 1;
    return SINEW_OK;
}

/* Near the end the support is settled, and what is left converges at a
 * rate the penalty chosen for the start may no longer suit; residual
 * balancing does not see it, so the stalled bound itself is the signal. A
 * stall with the dual residual far ahead is a penalty too large (raising
 * it there multiplies the lead), so such a stall lowers. A bound that still
 * halves but whose dual residual leads far is the late lowering's; it is
 * not tried once the penalty has been changed for a stall, and while it is
 * on trial a slow span restores it instead of raising. */
sinew_result sn_bbw_penalty_after_iteration(sn_bbw_penalty *p, solve_state *s, int exact, uint32_t it,
                                            int *changed)
{
    *changed = 0;
    track_ratio(p, s);
    if (it % SN_BBW_STALL_SPAN != 0) return SINEW_OK;
    int stalled = isfinite(p->stall_ref) && !(s->best_bound <= SN_BBW_STALL_FACTOR * p->stall_ref);
    int on_trial = p->lowering == SN_BBW_LOWERING_ON_TRIAL;
    double lead = span_lead(p);
    sinew_result r = lowering_checkpoint(p, s, exact, s->best_bound, p->stall_ref, lead,
                                         !stalled && !p->stall_changes, changed);
    if (r != SINEW_OK) return r;
    if (on_trial) stalled = 0; /* judged by the trial instead */
    p->stall_ref = s->best_bound;
    if (stalled && p->stall_changes < SN_BBW_STALL_CHANGES) {
        double factor = lead > SN_BBW_LOWER_GAP ? 1.0 / fmin(sqrt(lead), SN_BBW_STALL_LOWER_LIMIT)
                                                 : SN_BBW_STALL_RAISE;
        if ((r = sn_bbw_change_penalty(s, &p->rho, exact, factor)) != SINEW_OK) return r;
        ++p->stall_changes;
        *changed = 1;
    }
    return SINEW_OK;
}
