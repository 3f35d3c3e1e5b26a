/*
 * One level's solve (level.h): the splitting iteration (split.c) runs until
 * a duality gap certifies the weights' error (certificate.c), not until the
 * split's steps get small: on badly conditioned domains those are tiny
 * long before the weights are accurate. Along the way the active-set
 * polish (polish.c) and, once, the interior-point method (interior.c) try
 * to finish exactly, and the penalty's schedule (penalty.c) corrects the
 * penalty where the iteration shows it is off.
 */
#include <math.h>
#include <string.h>

#include "bbw/certificate.h"
#include "bbw/defaults.h"
#include "bbw/level.h"
#include "bbw/problem.h"

/* Splitting residual at which the first polish is tried, and the rounds a
 * polish may take before the split continues. */
#define SN_BBW_STAGE_TOL 1e-3
#define SN_BBW_POLISH_ROUNDS 8
/* Iteration of the first periodic polish: tuned so small or simple domains,
 * whose support settles within a few dozen iterations, finish there. */
#define SN_BBW_POLISH_FIRST 20
/* Iterations between two optimality certificates (each costs about an
 * iteration): at least MIN_GAP, at most MAX_GAP, and in between only when
 * the split's residual predicts success. */
#define SN_BBW_CERTIFY_MIN_GAP 2
#define SN_BBW_CERTIFY_MAX_GAP 25
/* The certificate is first taken when the split's residuals are below this
 * multiple of the tolerance (the error only gets near the tolerance well
 * after the residuals do). */
#define SN_BBW_CERTIFY_START 10.0

/* What a change of the split's state invalidates. Every reset drops
 * Anderson's history (its columns belong to the old map) and the residual
 * trend the extrapolation and the certificates' prediction read. */
enum {
    /* z was replaced (polish, coarse start): the next iteration starts from
     * s as it is; without it (a new penalty) it starts from the rescaled
     * last step, only without a new Anderson column. */
    RESET_NEW_ITERATE = 1,
    /* The certificates' schedule starts over (the next is taken as soon as
     * the residuals allow). */
    RESET_CERTIFICATES = 2,
    /* The stall reference is dropped, so the new state gets a whole span
     * before it is judged. A residual balancing keeps it: it acts only
     * while the residuals are above where certificates start. */
    RESET_STALL = 4,
    /* The polish's stages and periodic tries start over. */
    RESET_STAGES = 8,
};

static void reset_split(sn_bbw_level *lv, unsigned what)
{
    lv->aa.used = 0;
    lv->best_norm = lv->bound_per_norm = INFINITY;
    if (what & RESET_NEW_ITERATE) lv->restart = 1;
    else lv->fresh = 1;
    if (what & RESET_CERTIFICATES) lv->last_certificate = 0;
    if (what & RESET_STALL) lv->penalty.stall_ref = INFINITY;
    if (what & RESET_STAGES) {
        lv->next_polish = 0;
        lv->next_periodic = lv->it + SN_BBW_POLISH_FIRST;
        lv->stage_tol = fmax(lv->tolerance, SN_BBW_STAGE_TOL);
    }
}

sinew_result sn_bbw_level_begin(sn_bbw_level *lv, sinew_bbw *b, const sn_env *call, const sinew_bbw_solve_desc *d,
                                const float *start)
{
    memset(lv, 0, sizeof *lv);
    lv->tolerance = d->tolerance > 0 ? d->tolerance : SN_BBW_DEFAULT_TOLERANCE;
    lv->max_iterations = d->max_iterations ? d->max_iterations : SN_BBW_DEFAULT_MAX_ITERATIONS;
    lv->exact = d->partition == SINEW_BBW_PARTITION_EXACT;
    solve_state *s = &lv->s;
    s->b = b;
    s->call = call;
    s->best_bound = INFINITY;
    s->tasks = call->parallel_for && call->parallel_tasks > 1 ? call->parallel_tasks : 1;
    if (s->tasks > SN_BBW_MAX_TASKS) s->tasks = SN_BBW_MAX_TASKS;
    s->tolerance = lv->tolerance;
    s->exact = lv->exact;
    double rho = d->penalty > 0 ? d->penalty : SN_BBW_DEFAULT_PENALTY;
    sinew_result r = sn_bbw_problem_build(s, d, &rho);
    if (r != SINEW_OK) return r;
    sn_bbw_start_split(s, start, rho, lv->exact);
    sn_bbw_penalty_start(&lv->penalty, rho);
    lv->converged = s->nf == 0;
    lv->change = lv->best_norm = lv->bound = lv->bound_per_norm = INFINITY;
    /* The split runs to a loose stage tolerance, then the active-set polish
     * tries to finish exactly; if the support is not settled yet, the split
     * continues to a tighter stage tolerance and polishes again. */
    lv->stage_tol = fmax(lv->tolerance, SN_BBW_STAGE_TOL);
    lv->next_periodic = SN_BBW_POLISH_FIRST;
    lv->restart = 1;
    return SINEW_OK;
}

/* The certificate costs a product with Q and a solve, so it is taken once
 * the residuals are near the tolerance, and after that when the split's
 * residual, scaled by the ratio bound / residual the last certificate
 * found, predicts success (late in the iteration the two fall together;
 * the ratio drifts up, so a failed prediction corrects the next), and at
 * least every MAX_GAP iterations. */
static int certificate_due(const sn_bbw_level *lv, double norm)
{
    double near = SN_BBW_CERTIFY_START * lv->tolerance;
    if (!(lv->primal <= near) || !(lv->change <= near)) return 0;
    return !lv->last_certificate || lv->it >= lv->last_certificate + SN_BBW_CERTIFY_MAX_GAP ||
           (lv->it >= lv->last_certificate + SN_BBW_CERTIFY_MIN_GAP && norm * lv->bound_per_norm <= lv->tolerance);
}

/* The polish and, after the first polish that did not finish, on small
 * domains (exact partition) the interior-point method: where the split's
 * support is not nearly right yet the polish can take dozens of rounds,
 * and the method certifies in a few dozen factorisations whatever the
 * domain's shape, size or position. Its steps count as iterations; where it
 * is refused (too costly) or stops short (rounding), the split and the
 * polish carry on. Sets *done when the level is certified or the method
 * used the cap up. */
static sinew_result try_finish(sn_bbw_level *lv, int staged, int *done)
{
    solve_state *s = &lv->s;
    double rho = lv->penalty.rho;
    uint32_t rounds = 0, steps = 0;
    int moved = 0;
    sinew_result r = sn_bbw_polish(s, rho, lv->exact, SN_BBW_POLISH_ROUNDS, &rounds, &moved);
    lv->polish_rounds += rounds;
    if ((r == SINEW_OK || r == SINEW_ERROR_NOT_CONVERGED) && !sn_bbw_certified(s, s->best_bound, s->best_rounding) &&
        lv->exact && !lv->interior_tried) {
        lv->interior_tried = 1;
        r = sn_bbw_interior(s, rho, lv->max_iterations - lv->it, &steps);
        lv->it += steps;
    }
    if (r != SINEW_OK && r != SINEW_ERROR_NOT_CONVERGED) return r;
    if (sn_bbw_certified(s, s->best_bound, s->best_rounding)) {
        memcpy(s->z, s->best_z, s->nf * s->b->handle_count * sizeof(double));
        lv->bound = s->best_bound;
        lv->rounding = s->best_rounding;
        lv->converged = *done = 1;
        return SINEW_OK;
    }
    if (steps && lv->it >= lv->max_iterations) {
        *done = 1;
        return SINEW_OK;
    }
    /* A polish refused as unaffordable stops the periodic tries. */
    lv->next_periodic = rounds ? 2 * lv->it : UINT32_MAX;
    if (moved) {
        /* The polish's iterate has a lower energy than the split's: the
         * split carries on from it, with its fixed-point multiplier (z
         * alone would be recomputed from the old state at the next
         * projection). */
        sn_bbw_warm_start_multiplier(s, rho);
        reset_split(lv, RESET_NEW_ITERATE | RESET_CERTIFICATES | RESET_STALL);
    }
    if (staged) {
        /* Not settled (or not affordable): split on, polish again at a
         * tighter stage, and at the final stage only after twice the
         * iterations made so far. */
        if (lv->stage_tol <= lv->tolerance * 1.0001) lv->next_polish = 2 * lv->it;
        lv->stage_tol = fmax(lv->stage_tol * 0.1, lv->tolerance);
    }
    return SINEW_OK;
}

/* One iteration up to the penalty's schedule; *done when the level ends. */
static sinew_result iterate(sn_bbw_level *lv, int *done)
{
    solve_state *s = &lv->s;
    ++lv->it;
    double norm = sn_bbw_split_iterate(s, &lv->aa, lv->penalty.rho, lv->exact, lv->restart, lv->fresh, &lv->change,
                                       &lv->primal);
    lv->fresh = lv->restart = 0;
    if (certificate_due(lv, norm)) {
        lv->bound = sn_bbw_certify_split(s, lv->penalty.rho, lv->exact, &lv->rounding);
        lv->last_certificate = lv->it;
        lv->bound_per_norm = norm > 0.0 ? lv->bound / norm : INFINITY;
        if (sn_bbw_certified(s, lv->bound, lv->rounding)) {
            lv->converged = *done = 1;
            return SINEW_OK;
        }
    }
    /* The polish is tried when the split's residuals reach the next stage,
     * and also every so often regardless (POLISH_FIRST, then at doubling
     * intervals): on some domains the residuals stall far above any stage
     * while the zero pattern is already nearly right, and a round certified
     * near that pattern finishes the solve. */
    int staged = lv->primal <= lv->stage_tol && lv->change <= lv->stage_tol && lv->it >= lv->next_polish;
    if (staged || lv->it == lv->next_periodic) {
        sinew_result r = try_finish(lv, staged, done);
        if (r != SINEW_OK || *done) return r;
    }
    /* Extrapolation went astray: restart it from the newest column. */
    if (norm > 2.0 * lv->best_norm && lv->aa.used > 1) lv->aa.used = 1;
    if (norm < lv->best_norm) lv->best_norm = norm;
    return SINEW_OK;
}

/* The penalty's schedule after an iteration: residual balancing only while
 * the residuals are far from where certificates start (a well-chosen start
 * loses iterations to balancing), then the stall and lowering checks. */
static sinew_result adapt_penalty(sn_bbw_level *lv)
{
    int changed = 0;
    int far = lv->primal > SN_BBW_CERTIFY_START * lv->tolerance;
    sinew_result r = sn_bbw_penalty_rebalance(&lv->penalty, &lv->s, lv->exact, lv->it, far, &changed);
    if (r != SINEW_OK) return r;
    if (changed) reset_split(lv, 0);
    if ((r = sn_bbw_penalty_after_iteration(&lv->penalty, &lv->s, lv->exact, lv->it, &changed)) != SINEW_OK)
        return r;
    if (changed) reset_split(lv, RESET_STALL);
    return SINEW_OK;
}

/* The iteration's end: the next extrapolation's coefficients and the
 * progress report. */
static sinew_result end_iteration(sn_bbw_level *lv)
{
    lv->paused = 0;
    if (lv->aa.used) sn_bbw_anderson_coefficients(&lv->aa);
    if (lv->it % 16 == 0)
        return sn_progress(lv->s.call, "bbw: iterate", (float)lv->it / (float)lv->max_iterations);
    return SINEW_OK;
}

sinew_result sn_bbw_level_run(sn_bbw_level *lv, uint32_t pause_at)
{
    sinew_result r;
    if (lv->paused && (r = end_iteration(lv)) != SINEW_OK) return r;
    while (!lv->converged && lv->it < lv->max_iterations) {
        int done = 0;
        if ((r = iterate(lv, &done)) != SINEW_OK) return r;
        if (done) break;
        if ((r = adapt_penalty(lv)) != SINEW_OK) return r;
        if (pause_at && lv->it >= pause_at) { /* >=: interior-point steps may step over it */
            lv->paused = 1;
            return SINEW_OK;
        }
        if ((r = end_iteration(lv)) != SINEW_OK) return r;
    }
    return SINEW_OK;
}

void sn_bbw_level_restart(sn_bbw_level *lv, const float *start)
{
    sn_bbw_start_split(&lv->s, start, lv->penalty.rho, lv->exact);
    reset_split(lv, RESET_NEW_ITERATE | RESET_CERTIFICATES | RESET_STALL | RESET_STAGES);
    lv->paused = 0;
}

void sn_bbw_level_weights(sn_bbw_level *lv, float *out)
{
    solve_state *s = &lv->s;
    const sinew_bbw *b = s->b;
    size_t n = b->vertex_count, m = b->handle_count;
    if (!lv->converged && s->nf) {
        /* Stopped by the cap: the last iterate or the best certified one,
         * whichever has the smaller bound. */
        lv->bound = sn_bbw_certify_split(s, lv->penalty.rho, lv->exact, &lv->rounding);
        if (s->best_bound < lv->bound) {
            memcpy(s->z, s->best_z, s->nf * m * sizeof(double));
            lv->bound = s->best_bound;
            lv->rounding = s->best_rounding;
        }
        /* The cap can come before a certificate was due: the one just made
         * may already meet the tolerance, and then the solve has. */
        if (sn_bbw_certified(s, lv->bound, lv->rounding)) lv->converged = 1;
    }
    for (size_t v = 0; v < n; ++v) {
        float *row = out + v * m;
        if (b->state[v] == SN_BBW_FIXED) {
            for (size_t j = 0; j < m; ++j) row[j] = (float)b->fixed[v * m + j];
        } else if (b->state[v] == SN_BBW_UNREACHED) {
            for (size_t j = 0; j < m; ++j) row[j] = 0.0f;
        } else {
            const double *zb = s->z + (size_t)s->map[v] * m;
            double sum = 0.0;
            for (size_t j = 0; j < m; ++j) sum += zb[j];
            /* Exact mode is already on the simplex; the per-handle variant
             * normalises here (a row of zeros stays zero). The arithmetic
             * is sn_bbw_output_rounding's. */
            double scale = lv->exact || sum <= 0.0 ? 1.0 : 1.0 / sum;
            for (size_t j = 0; j < m; ++j) row[j] = (float)(zb[j] * scale);
        }
    }
}

void sn_bbw_level_free(sn_bbw_level *lv)
{
    sn_bbw_problem_free(&lv->s);
}
