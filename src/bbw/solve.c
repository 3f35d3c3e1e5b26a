/*
 * The weight solve's driver: sinew_bbw_solve checks its desc, runs the
 * coarse-to-fine start where it applies (coarser levels solved by this
 * same driver, recursively), runs the level solve (level.c) and keeps its
 * weights and figures in the handle.
 *
 * The problem is the quadratic program
 *
 *   minimise  sum_j 1/2 w_j' Q w_j   over the free vertices' weights,
 *
 * with Q = K M^-1 K (+ the shape term), handle vertices fixed, and every
 * vertex's weight row in the probability simplex (exact partition of unity)
 * or in the box [0, 1] (per-handle variant). The parts, each with its
 * header, depend on each other one way:
 *
 *   solve.c  ->  level.c  ->  penalty.c  ->  split.c  ->  project.c
 *                    |  \->  problem.c  ->  certificate.c
 *                    \---->  polish.c, interior.c  ->  certificate.c
 *   solve.c  ->  cascade.c (coarser volumes: build and sample, no solve)
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bbw/bbw_internal.h"
#include "bbw/level.h"
#include "bbw/quality.h"

/* Automatic coarse-to-fine start (coarse_levels 0): the iteration after
 * which an unfinished solve restarts from coarser volumes. By then the
 * polish has had two tries, which is where small or simple volumes finish,
 * and a restart costs only those iterations. */
#define SN_BBW_COARSE_PROBE 40

static sinew_result check_options(const sinew_bbw *b, const sinew_bbw_solve_desc *d)
{
    if (d->partition != SINEW_BBW_PARTITION_EXACT && d->partition != SINEW_BBW_PARTITION_NORMALISE)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "unknown partition mode %d", (int)d->partition);
    if (!(d->tolerance >= 0.0) || !isfinite(d->tolerance))
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "tolerance %g is not a finite value >= 0", d->tolerance);
    if (!(d->penalty >= 0.0) || !isfinite(d->penalty))
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "penalty %g is not a finite value >= 0", d->penalty);
    if (!(d->shape_strength >= 0.0) || !isfinite(d->shape_strength))
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "shape strength %g is not a finite value >= 0",
                       d->shape_strength);
    if (d->initial_weights || d->initial_weights_count) {
        size_t m = b->handle_count, cells = b->vertex_count * m;
        if (!d->initial_weights || d->initial_weights_count != cells)
            return sn_fail(SINEW_ERROR_MISMATCH,
                           "initial weights have %zu entries%s, the domain needs %zu (%zu vertices x %zu handles)",
                           d->initial_weights_count, d->initial_weights ? "" : " and no array", cells, b->vertex_count,
                           m);
        for (size_t k = 0; k < cells; ++k)
            if (!isfinite(d->initial_weights[k]))
                return sn_fail(SINEW_ERROR_NON_FINITE, "initial weight of vertex %zu, handle %zu is %g", k / m, k % m,
                               (double)d->initial_weights[k]);
    }
    if (d->shape_mask) {
        if (d->shape_mask_count != b->element_count)
            return sn_fail(SINEW_ERROR_MISMATCH, "shape mask has %zu entries, the domain has %zu elements",
                           d->shape_mask_count, b->element_count);
        sinew_result r = sn_check_float_array(d->shape_mask, 0, 1, d->shape_mask_count, "shape mask");
        if (r != SINEW_OK) return r;
        for (size_t e = 0; e < b->element_count; ++e)
            if (!(d->shape_mask[e] >= 0.0f) || !isfinite(d->shape_mask[e]))
                return sn_fail(isfinite(d->shape_mask[e]) ? SINEW_ERROR_INVALID_ARGUMENT : SINEW_ERROR_NON_FINITE,
                               "shape mask of element %zu is %g (must be finite and >= 0)", e,
                               (double)d->shape_mask[e]);
    }
    return SINEW_OK;
}


static sinew_result solve_level(sinew_context *ctx, sinew_bbw *b, const sinew_bbw_solve_desc *d);

/* The coarse-to-fine start (cascade.c builds the level and samples it):
 * *start = weights at b's vertices, or NULL when no level applies or the
 * coarse solve fails short of cancellation or memory; *levels = the levels
 * used. */
static sinew_result coarse_start(sinew_context *ctx, const sinew_bbw *b, const sinew_bbw_solve_desc *d, float **start,
                                 uint32_t *levels)
{
    *start = NULL;
    *levels = 0;
    sinew_bbw *c = NULL;
    sinew_bbw_solve_desc cd;
    sinew_result r = sn_bbw_coarse_level(ctx, b, d, &c, &cd);
    if (r != SINEW_OK || !c) return r;
    r = solve_level(ctx, c, &cd);
    if (r != SINEW_OK && r != SINEW_ERROR_NOT_CONVERGED) {
        sinew_bbw_destroy(c);
        return sn_bbw_coarse_failure_is_fatal(r) ? r : SINEW_OK;
    }
    r = sn_bbw_coarse_sample(b, c, start);
    if (r == SINEW_OK) *levels = 1 + c->info.coarse_levels_used;
    sinew_bbw_destroy(c);
    return r;
}

/* Keeps the level's weights and figures in b. */
static void keep_result(sinew_bbw *b, sn_bbw_level *lv, const sinew_bbw_solve_desc *d, float *out, uint32_t levels,
                        double t0)
{
    sn_free(&b->env, b->weights);
    b->weights = out;
    b->info.solved = 1;
    b->partition = d->partition;
    b->info.iterations = lv->it;
    b->info.polish_rounds = lv->polish_rounds;
    b->info.coarse_levels_used = levels;
    /* The float weights' error: the doubles' bound plus their rounding. */
    b->info.error_bound = lv->s.nf ? lv->bound + lv->rounding : 0.0;
    b->info.primal_residual = lv->primal;
    b->info.change_residual = lv->change;
    b->info.factor_nonzeros = sn_ldlt_factor_nonzeros(&lv->s.factor);
    b->info.seconds_solve = sn_bbw_seconds() - t0;
}

/* The solve of b for the checked desc d (also each coarser level's). */
static sinew_result solve_level(sinew_context *ctx, sinew_bbw *b, const sinew_bbw_solve_desc *d)
{
    sn_env call;
    sn_env_for_call(&call, &b->env, ctx);
    /* A loaded handle builds its operators at its first solve. */
    sinew_result r = sn_bbw_ensure_operators(b);
    if (r != SINEW_OK) return r;
    double t0 = sn_bbw_seconds();
    /* Levels asked for run first: their memory is gone before this level's.
     * Automatic ones wait for the probe. */
    float *coarse = NULL;
    uint32_t levels = 0;
    if (d->coarse_levels && (r = coarse_start(ctx, b, d, &coarse, &levels)) != SINEW_OK) return r;
    uint32_t probe = !d->coarse_levels && !d->initial_weights && sn_bbw_coarse_possible(b) ? SN_BBW_COARSE_PROBE : 0;
    float *out = sn_alloc_array(&b->env, b->vertex_count, b->handle_count * sizeof(float), "weights");
    if (!out) {
        sn_free(&b->env, coarse);
        return sn_alloc_failure();
    }
    sn_bbw_level lv;
    r = sn_bbw_level_begin(&lv, b, &call, d, d->initial_weights ? d->initial_weights : coarse);
    sn_free(&b->env, coarse);
    if (r == SINEW_OK) r = sn_bbw_level_run(&lv, probe);
    if (r == SINEW_OK && lv.paused) {
        /* The automatic coarse-to-fine start: a solve still running at the
         * probe is one the polish does not finish soon, where the split's
         * smooth modes dominate; the coarser volumes resolve those, and the
         * split restarts from their weights (the best certificate so far
         * is kept). */
        float *start = NULL;
        r = coarse_start(ctx, b, d, &start, &levels);
        if (r == SINEW_OK && start) sn_bbw_level_restart(&lv, start);
        sn_free(&b->env, start);
        if (r == SINEW_OK) r = sn_bbw_level_run(&lv, 0);
    }
    if (r != SINEW_OK) {
        sn_bbw_level_free(&lv);
        sn_free(&b->env, out);
        return r;
    }
    sn_bbw_level_weights(&lv, out);
    keep_result(b, &lv, d, out, levels, t0);
    int converged = lv.converged;
    uint32_t it = lv.it;
    double bound = b->info.error_bound, primal = lv.primal, change = lv.change;
    sn_bbw_level_free(&lv);
    if (converged) return SINEW_OK;
    /* Ill-shaped elements are the usual reason a given mesh does not
     * converge: name the worst, so the user knows where to remesh. */
    char shape[256] = "";
    sn_bbw_quality_summary qs = sn_bbw_quality_summary_of(b);
    if (qs.poor_count)
        snprintf(shape, sizeof shape,
                 ". Ill-conditioned by %zu ill-shaped elements (under %g of a regular one's measure): worst %s %zu "
                 "at %.3g; remesh them",
                 qs.poor_count, SN_BBW_POOR_QUALITY, b->dim == 3 ? "tet" : "triangle", qs.worst, qs.worst_quality);
    return sn_fail(SINEW_ERROR_NOT_CONVERGED,
                   "bbw solve stopped at its cap of %u iterations: the best certified error bound reached is "
                   "%.3g (tolerance %.3g; split residuals %.3g, change %.3g); kept the weights of that bound. "
                   "Try a larger max_iterations, a looser tolerance, or another penalty (0 = automatic)%s",
                   it, bound, lv.tolerance, primal, change, shape);
}

sinew_result sinew_bbw_solve(sinew_context *ctx, sinew_bbw *b, const sinew_bbw_solve_desc *desc)
{
    sn_clear_error();
    if (!b) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "bbw is NULL");
    sinew_bbw_solve_desc d;
    memset(&d, 0, sizeof d);
    sinew_result r = SINEW_OK;
    if (desc && (r = sn_read_struct(&d, sizeof d, desc, "solve desc")) != SINEW_OK) return r;
    if ((r = check_options(b, &d)) != SINEW_OK) return r;
    return solve_level(ctx, b, &d);
}
