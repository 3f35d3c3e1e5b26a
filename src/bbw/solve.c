/*
 * The quadratic program, by ADMM (alternating direction method of
 * multipliers) on the split x = z:
 *
 *   minimise  sum_j 1/2 x_j' Q x_j   subject to z in C,  x = z,
 *
 * with Q = K M^-1 K (+ the shape term) over the free vertices, handle
 * vertices fixed, and C = every vertex's weight row in the probability
 * simplex (exact partition of unity) or in the box [0, 1] (per-handle
 * variant). The x-step is the linear system (Q + rho M) x = b + rho M (z - u):
 * its matrix is the same for every handle and every iteration, so it is
 * factorised once and all handles are solved together as columns of one
 * right-hand side. The z-step is an independent projection per vertex. The
 * split is measured in the mass metric, which keeps rho's meaning
 * independent of the mesh's resolution and units. The solve stops when a
 * duality gap certifies the weights' error (certify), not when the split's
 * steps get small: on badly conditioned domains those are tiny long before
 * the weights are accurate.
 */
#include <math.h>
#include <string.h>

#include "bbw/bbw_internal.h"
#include "bbw/solve_state.h"

/* Parallel passes: at most MAX_TASKS tasks, each of at least TASK_MIN
 * free vertices (below that a task costs more to hand out than to run). */
#define SN_BBW_MAX_TASKS 64
#define SN_BBW_TASK_MIN 256
/* Over-relaxation of the x-step (1.5-1.8 is the usual sweet spot). */
#define SN_BBW_RELAX 1.6
/* Splitting residual at which the first polish is tried, and the rounds a
 * polish may take before the split continues. */
#define SN_BBW_STAGE_TOL 1e-3
#define SN_BBW_POLISH_ROUNDS 8
/* Iteration of the first periodic polish (see the iteration). */
#define SN_BBW_POLISH_FIRST 20
/* Automatic coarse-to-fine start (coarse_levels 0): the iteration after
 * which an unfinished solve restarts from coarser volumes. By then the
 * polish has had two tries (iterations 20 and 40), which is where small
 * or simple volumes finish (the test box, the data set's cube and bumpy
 * sphere: 2-40 iterations), and a restart costs only those iterations. */
#define SN_BBW_COARSE_PROBE 40
/* Residual balancing (rebalance): checked from iteration REBALANCE_START
 * every REBALANCE_EVERY iterations (before REBALANCE_EARLY every
 * REBALANCE_EVERY_EARLY) while the split's residual is still above the
 * certificates' start, acted
 * on when the residuals' ratio is off by more than GAP^2, by at most LIMIT
 * per step, at most REBALANCE_MAX times a solve. */
#define SN_BBW_REBALANCE_START 10
#define SN_BBW_REBALANCE_EVERY_EARLY 10
#define SN_BBW_REBALANCE_EARLY 100
#define SN_BBW_REBALANCE_EVERY 50
#define SN_BBW_REBALANCE_GAP 3.0
#define SN_BBW_REBALANCE_LIMIT 30.0
#define SN_BBW_REBALANCE_MAX 12
/* A stalled split (see the iteration): every STALL_SPAN iterations, once
 * certificates run, the best certified bound is compared with the one a
 * span before; if it has not fallen to STALL_FACTOR of it, the penalty is
 * raised by STALL_RAISE (change_penalty), or, when the span's dual residual
 * led the primal one by more than LOWER_GAP (below), divided by the square
 * root of that lead, at most STALL_LOWER_LIMIT; at most STALL_CHANGES times
 * a solve. Chosen on the octopus with nine points at 18 scalings and two
 * tolerances (whose stalls all have leads under 10), the lowering on the
 * open camel's volume; checked on the domain and volume sets
 * (docs/bbw.md). */
#define SN_BBW_STALL_SPAN 100
#define SN_BBW_STALL_FACTOR 0.5
#define SN_BBW_STALL_RAISE 16.0
#define SN_BBW_STALL_CHANGES 3
#define SN_BBW_STALL_LOWER_LIMIT 30.0
/* A penalty too large for the end of the solve (penalty_lowering): at the
 * same checkpoints, when the certified bound did halve but the split's
 * relative dual residual led its primal one by more than LOWER_GAP over the
 * whole span (geometric mean of the per-iteration ratios), the penalty is
 * divided by the square root of that lead, at most LOWER_LIMIT, once a
 * solve, and restored if the next span's bound falls more slowly than the
 * span's before it. Chosen on the volume set at two coarse-level settings
 * (docs/bbw.md, item 3). */
#define SN_BBW_LOWER_GAP 100.0
#define SN_BBW_LOWER_LIMIT 4.0
/* Anderson acceleration memory (steps remembered). */
#define SN_BBW_ANDERSON 10
/* Inverse iteration for the smallest eigenvalue: steps at most, and the
 * relative change of the estimate that ends it. */
#define SN_BBW_EIGEN_STEPS 40
#define SN_BBW_EIGEN_TOL 1e-4
/* The Rayleigh quotient approaches lambda_min from above, so the bound uses
 * a value certified below it: SAFETY times the estimate, accepted only when
 * Q_FF - sigma M factorises with positive pivots (then v'Qv > sigma v'Mv for
 * every v, Sylvester's law of inertia); otherwise sigma shrinks by SHRINK,
 * at most TRIES times. */
#define SN_BBW_EIGEN_SAFETY 0.9
#define SN_BBW_EIGEN_SHRINK 0.25
#define SN_BBW_EIGEN_TRIES 6
/* Default penalty relative to sqrt(lambda_min mean(diag(Q)/M)) (see
 * prepare), with the split metric of split_metric. Hand: 0.025 -> 102
 * iterations, 0.03 -> 98, 0.035 -> 98, 0.04 -> 106, 0.05 -> 119. */
#define SN_BBW_DEFAULT_PENALTY 0.03
/* Iterations between two optimality certificates (each costs about an
 * iteration): at least MIN_GAP, at most MAX_GAP, and in between only when
 * the split's residual predicts success (see the iteration). */
#define SN_BBW_CERTIFY_MIN_GAP 2
#define SN_BBW_CERTIFY_MAX_GAP 25
/* The certificate is first taken when the split's residuals are below this
 * multiple of the tolerance (on the meshes measured, the error only gets
 * near the tolerance well after the residuals do). */
#define SN_BBW_CERTIFY_START 10.0

void sn_bbw_project_simplex(double *v, size_t m, uint32_t *idx)
{
    /* Michelot's algorithm: drop entries below the running threshold until
     * none drops; the threshold then makes the kept entries sum to one. */
    size_t n = m;
    double sum = 0.0;
    for (size_t j = 0; j < m; ++j) {
        idx[j] = (uint32_t)j;
        sum += v[j];
    }
    double tau = (sum - 1.0) / (double)n;
    for (;;) {
        size_t w = 0;
        sum = 0.0;
        for (size_t k = 0; k < n; ++k) {
            if (v[idx[k]] > tau) {
                idx[w++] = idx[k];
                sum += v[idx[k]];
            }
        }
        if (w == n || w == 0) break;
        n = w;
        tau = (sum - 1.0) / (double)n;
    }
    for (size_t j = 0; j < m; ++j) v[j] = v[j] > tau ? v[j] - tau : 0.0;
}

/* Projection onto the simplex from a guess of the support, the row's
 * previous one (late in the iteration it nearly always still holds): the
 * threshold that guess implies is the projection's exactly when it keeps
 * that same support (the projection's threshold is unique); otherwise
 * Michelot's algorithm decides. */
static void project_simplex_near(double *v, const double *previous, size_t m, uint32_t *idx)
{
    double sum = 0.0;
    size_t n = 0;
    for (size_t j = 0; j < m; ++j)
        if (previous[j] > 0.0) {
            sum += v[j];
            ++n;
        }
    if (n) {
        double tau = (sum - 1.0) / (double)n;
        size_t j = 0;
        while (j < m && (previous[j] > 0.0) == (v[j] > tau)) ++j;
        if (j == m) {
            for (j = 0; j < m; ++j) v[j] = v[j] > tau ? v[j] - tau : 0.0;
            return;
        }
    }
    sn_bbw_project_simplex(v, m, idx);
}

/* Plain comparisons, not fmin/fmax: those are library calls unless the
 * compiler may ignore NaN, and this runs on every cell every iteration. */
static void project_box(double *v, size_t m)
{
    for (size_t j = 0; j < m; ++j) v[j] = v[j] < 0.0 ? 0.0 : v[j] > 1.0 ? 1.0 : v[j];
}

void sn_bbw_project_row(double *v, size_t m, int exact, uint32_t *idx)
{
    if (exact) sn_bbw_project_simplex(v, m, idx);
    else project_box(v, m);
}

static void solve_state_free(solve_state *s)
{
    const sn_env *env = &s->b->env;
    sn_sparse_free(env, &s->q);
    sn_sparse_free(env, &s->a);
    sn_ldlt_free(env, &s->factor);
    sn_free(env, s->map);
    sn_free(env, s->free_vertex);
    sn_free(env, s->diag_pos);
    sn_free(env, s->base);
    sn_free(env, s->metric);
    sn_free(env, s->x);
    sn_free(env, s->z);
    sn_free(env, s->s);
    sn_free(env, s->g);
    sn_free(env, s->df);
    sn_free(env, s->dg);
    sn_free(env, s->f);
    sn_free(env, s->row);
    sn_free(env, s->best_z);
    sn_free(env, s->columns);
    sn_free(env, s->q_diagonal);
    sn_free(env, s->rhs);
    sn_free(env, s->work);
    sn_free(env, s->scratch);
    sn_free(env, s->q_vals);
    sn_free(env, s->q_diag);
}

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

/* Q = K M^-1 K, plus alpha K_mask for shape preservation. */
static sinew_result build_operator(solve_state *s, const sinew_bbw_solve_desc *d)
{
    sinew_bbw *b = s->b;
    double *inv_mass = sn_alloc_array(&b->env, b->vertex_count, sizeof(double), "inverse mass");
    if (!inv_mass) return sn_alloc_failure();
    for (size_t v = 0; v < b->vertex_count; ++v) inv_mass[v] = b->mass[v] > 0 ? 1.0 / b->mass[v] : 0.0;
    sinew_result r = sn_sparse_sandwich(&b->env, &b->stiffness, inv_mass, &s->q);
    sn_free(&b->env, inv_mass);
    if (r != SINEW_OK || !d->shape_mask) return r;
    sn_sparse masked = {0}, sum = {0};
    if ((r = sn_bbw_stiffness(b, d->shape_mask, &masked, NULL)) != SINEW_OK) return r;
    /* Relative strength: alpha makes strength 1 mean "as stiff as the
     * biharmonic term at the scale of one element". */
    double tq = 0.0, tk = 0.0;
    for (size_t v = 0; v < b->vertex_count; ++v) {
        tq += sn_sparse_get(&s->q, (uint32_t)v, (uint32_t)v);
        tk += sn_sparse_get(&b->stiffness, (uint32_t)v, (uint32_t)v);
    }
    double strength = d->shape_strength > 0 ? d->shape_strength : 1.0;
    double alpha = tk > 0 ? strength * tq / tk : 0.0;
    r = sn_sparse_add(&b->env, &s->q, alpha, &masked, &sum);
    sn_sparse_free(&b->env, &masked);
    if (r != SINEW_OK) return r;
    sn_sparse_free(&b->env, &s->q);
    s->q = sum;
    return SINEW_OK;
}

/* Smallest eigenvalue of Q_FF v = lambda M_FF v by inverse iteration with
 * the factor of Q_FF (called while s->a and s->factor hold Q_FF unshifted),
 * Rayleigh quotient of the last iterate. The lowest mode is smooth and of one
 * sign, so the constant vector is a good start and a few steps settle it; the
 * quotient approaches lambda_min from above, and the steps stop once it
 * changes by less than SN_BBW_EIGEN_TOL. Uses s->x, s->g and s->work. */
static void estimate_lambda_min(solve_state *s)
{
    const sinew_bbw *b = s->b;
    size_t nf = s->nf;
    double *v = s->x, *qv = s->g, last = INFINITY;
    s->free_mass = 0.0;
    for (size_t f = 0; f < nf; ++f) {
        v[f] = 1.0;
        s->free_mass += b->mass[s->free_vertex[f]];
    }
    s->lambda_min = 0.0;
    for (int step = 0; step < SN_BBW_EIGEN_STEPS; ++step) {
        for (size_t f = 0; f < nf; ++f) v[f] *= b->mass[s->free_vertex[f]];
        sn_ldlt_solve(&s->factor, v, 1, s->work);
        sn_sparse_multiply(&s->a, v, qv);
        double vqv = 0.0, vmv = 0.0;
        for (size_t f = 0; f < nf; ++f) {
            vqv += v[f] * qv[f];
            vmv += v[f] * v[f] * b->mass[s->free_vertex[f]];
        }
        double scale = 1.0 / sqrt(vmv);
        for (size_t f = 0; f < nf; ++f) v[f] *= scale;
        s->lambda_min = vqv / vmv;
        if (fabs(last - s->lambda_min) <= SN_BBW_EIGEN_TOL * s->lambda_min) break;
        last = s->lambda_min;
    }
}

/* Replaces the estimate s->lambda_min (an upper bound, see above) by a
 * certified lower bound: the largest sigma = SAFETY * estimate * SHRINK^k
 * for which the numeric factorisation of Q_FF - sigma M (same pattern as
 * s->factor, overwritten) has only positive pivots, which proves Q_FF -
 * sigma M positive definite, so every v has v'Q v > sigma v'M v. The proof
 * holds up to the factorisation's own rounding (backward error of order
 * machine epsilon times Q's entries), far below the 10% margin. Costs one
 * numeric factorisation (rarely more). lambda_min 0 (no bound) if none
 * passes. s->a holds Q_FF unshifted on entry and on return. */
static sinew_result certify_lambda_min(solve_state *s)
{
    const sinew_bbw *b = s->b;
    size_t nf = s->nf;
    double estimate = s->lambda_min, *diagonal = s->work;
    s->lambda_min = 0.0;
    if (!(estimate > 0.0) || !isfinite(estimate)) return SINEW_OK;
    for (size_t f = 0; f < nf; ++f) diagonal[f] = s->a.vals[s->diag_pos[f]];
    double sigma = SN_BBW_EIGEN_SAFETY * estimate;
    sinew_result r = SINEW_OK;
    for (int attempt = 0; attempt < SN_BBW_EIGEN_TRIES; ++attempt, sigma *= SN_BBW_EIGEN_SHRINK) {
        for (size_t f = 0; f < nf; ++f) s->a.vals[s->diag_pos[f]] = diagonal[f] - sigma * b->mass[s->free_vertex[f]];
        r = sn_ldlt_factor(&b->env, &s->factor, &s->a);
        if (r == SINEW_OK) {
            s->lambda_min = sigma;
            break;
        }
        if (r != SINEW_ERROR_DEGENERATE) break;
        sn_clear_error(); /* not positive definite: a smaller sigma is tried */
        r = SINEW_OK;
    }
    for (size_t f = 0; f < nf; ++f) s->a.vals[s->diag_pos[f]] = diagonal[f];
    return r;
}

/* min over the feasible row v of v . c: the smallest entry (simplex), or the
 * sum of the negative entries (box). */
static double row_minimum(const double *c, size_t m, int exact)
{
    double best = exact ? INFINITY : 0.0;
    for (size_t j = 0; j < m; ++j) {
        if (exact) best = c[j] < best ? c[j] : best;
        else best += c[j] < 0.0 ? c[j] : 0.0;
    }
    return best;
}

/* One row's part of a duality gap, z . c - min over the row v of v . c: not
 * negative for a feasible z, but z's row sums to one only to rounding, and
 * near the optimum the two terms cancel to rounding of either sign. A
 * negative part would cancel other rows' real gap (the 2D example moved 1e3
 * from the origin certified an error bound of exactly 0), so the part's size
 * is counted. */
static double row_gap(double zc, double row_min)
{
    return fabs(zc - row_min);
}

/* The split's scaled multiplier of one row, u = s - z, made exactly what it
 * is in exact arithmetic: the simplex projection z = max(s - tau, 0) leaves
 * u = tau on the row's support and u <= tau off it, but s - z rounds at the
 * size of s, and rho W times that rounding is the floor of the split
 * certificate (it grows with the penalty). Any multiplier gives a valid
 * bound, so this one is used: the support's largest u on the support, and
 * at most that off it. Box rows are used as they are (u is exactly 0 on a
 * free weight there). */
static void clean_multiplier(const double *z, const double *st, size_t m, int exact, double *u)
{
    double top = -INFINITY;
    for (size_t j = 0; j < m; ++j) {
        u[j] = st[j] - z[j];
        if (exact && z[j] > 0.0 && u[j] > top) top = u[j];
    }
    if (!exact || top == -INFINITY) return;
    for (size_t j = 0; j < m; ++j) u[j] = z[j] > 0.0 || u[j] > top ? top : u[j];
}

/* x <- Q_FF^-1 x for the nf x m columns x (the unshifted factor in the
 * split factor's pattern); uses s->work. */
static void solve_q(solve_state *s, double *x)
{
    sn_ldlt q_factor = s->factor;
    q_factor.super_vals = s->q_vals;
    q_factor.diag = s->q_diag;
    sn_ldlt_solve(&q_factor, x, s->b->handle_count, s->work);
}

/* Optimality certificate of the split's current weights z (feasible: rows
 * on the simplex or in the box), by weak duality. With E(w) = 1/2 w'Q w -
 * base'w the energy over the free vertices and y a multiplier for x = z,
 *
 *   d(y) = -1/2 (base - y)' Q^-1 (base - y) + sum_f min over row v of -y_f . v
 *
 * is at most E's constrained minimum E*, so the duality gap E(z) - d(y)
 * bounds E(z) - E* >= 1/2 |z - z*|_Q^2 >= lambda_min/2 |z - z*|_M^2. With
 * x = Q^-1 (base - y), so that Q (z - x) = g + y for the gradient
 * g = Q z - base, the gap is the sum of two non-negative parts,
 *
 *   1/2 (z - x)'(g + y)  +  sum_f (max over row v of y_f . v - y_f . z_f),
 *
 * computed as such because the energies themselves are large and their
 * difference would drown in rounding. Two multipliers are tried: the split's
 * (y = rho M u, which converges with it) and minus the gradient (x = z: the
 * Frank-Wolfe gap, zero at an exact polish). Returns sqrt(2 gap /
 * (lambda_min total mass)): a bound on the mass-weighted root mean square,
 * over the domain, of each vertex's weight error (Euclidean over handles).
 * The split's multiplier is read through clean_multiplier. Uses s->x,
 * s->rhs, s->row and s->work. */
static double certify(solve_state *s, double rho, int exact)
{
    const sinew_bbw *b = s->b;
    size_t m = b->handle_count, nf = s->nf;
    double *g = s->x, *xv = s->rhs, *u = s->row;
    sn_sparse_multiply_columns(&s->a, s->z, m, g);
    double wolfe = 0.0, split = 0.0;
    for (size_t f = 0; f < nf; ++f) {
        double rm = rho * s->metric[f];
        const double *z = s->z + f * m, *bs = s->base + f * m;
        double *gf = g + f * m, *xf = xv + f * m, zg = 0.0, zy = 0.0, top = -INFINITY;
        clean_multiplier(z, s->s + f * m, m, exact, u);
        for (size_t j = 0; j < m; ++j) {
            gf[j] -= rm * z[j] + bs[j]; /* remove the split's shift: Q z - base */
            zg += z[j] * gf[j];
            xf[j] = rm * u[j]; /* y, for now */
            zy += z[j] * xf[j];
            top = fmax(top, xf[j]);
        }
        wolfe += row_gap(zg, row_minimum(gf, m, exact));
        if (exact) {
            /* max over the row of y . v, less y . z, as the non-negative
             * sum of z_j (y_max - y_j) (see sn_bbw_certify_multiplier): the
             * cleaned multiplier makes it exactly 0, where y_max (1 - sum z)
             * would leave the row sum's rounding times the multiplier. */
            for (size_t j = 0; j < m; ++j) split += z[j] * (top - xf[j]);
        } else {
            for (size_t j = 0; j < m; ++j) xf[j] = -xf[j];
            split += row_gap(-zy, row_minimum(xf, m, exact)); /* max over the box of y . v, less y . z */
            for (size_t j = 0; j < m; ++j) xf[j] = -xf[j];
        }
        /* r = g + y: Q (z - x) = r, so the second part is r' Q^-1 r / 2,
         * solved for directly rather than formed from z - x (whose solve
         * error is relative to x, not to the small difference). */
        for (size_t j = 0; j < m; ++j) xf[j] += gf[j];
    }
    solve_q(s, xv);
    double quad = 0.0;
    for (size_t f = 0; f < nf; ++f) {
        double rm = rho * s->metric[f];
        clean_multiplier(s->z + f * m, s->s + f * m, m, exact, u);
        for (size_t j = 0; j < m; ++j) {
            size_t k = f * m + j;
            quad += xv[k] * (g[k] + rm * u[j]);
        }
    }
    split += 0.5 * fabs(quad);
    return sn_bbw_bound_from_gap(s, fmin(wolfe, split));
}

double sn_bbw_bound_from_gap(const solve_state *s, double gap)
{
    if (!(s->lambda_min > 0.0) || !(s->free_mass > 0.0) || isnan(gap)) return INFINITY;
    return sqrt(fmax(gap, 0.0) * 2.0 / (s->lambda_min * s->free_mass));
}

double sn_bbw_certify_with(solve_state *s, double rho, int exact, const double *z, const double *x, double *g,
                           double *d)
{
    /* The dual point y = base - Q x gives d(y) = -1/2 x'Q x + sum_f min_v
     * v . g_f with g = Q x - base, and E(z) - d(y) regroups into
     *   sum_f (z_f . g_f - min over row v of v . g_f) + 1/2 (z - x)'Q (z - x),
     * two non-negative parts (no large energies subtracted). */
    const sinew_bbw *b = s->b;
    size_t m = b->handle_count, nf = s->nf, cells = nf * m;
    sn_sparse_multiply_columns(&s->a, x, m, g);
    for (size_t k = 0; k < cells; ++k) d[k] = z[k] - x[k];
    double first = 0.0;
    for (size_t f = 0; f < nf; ++f) {
        double rm = rho * s->metric[f], zg = 0.0;
        const double *xf = x + f * m, *zf = z + f * m, *bs = s->base + f * m;
        double *gf = g + f * m;
        for (size_t j = 0; j < m; ++j) {
            gf[j] -= rm * xf[j] + bs[j];
            zg += zf[j] * gf[j];
        }
        first += row_gap(zg, row_minimum(gf, m, exact));
    }
    sn_sparse_multiply_columns(&s->a, d, m, g);
    double quad = 0.0;
    for (size_t f = 0; f < nf; ++f) {
        double rm = rho * s->metric[f];
        for (size_t j = 0; j < m; ++j) {
            size_t k = f * m + j;
            quad += d[k] * (g[k] - rm * d[k]);
        }
    }
    return sn_bbw_bound_from_gap(s, first + 0.5 * quad);
}

double sn_bbw_certify_multiplier(solve_state *s, double rho, const double *z, const double *y, double *g, double *x)
{
    /* The gap of certify() with x = Q^-1 (base - y): Q (z - x) = g + y, so
     * its second part is r' Q^-1 r / 2 with r = g + y, solved for directly
     * (z - x formed as a difference would carry the solve's error relative
     * to x, not to the small z - x). */
    const sinew_bbw *b = s->b;
    size_t m = b->handle_count, nf = s->nf;
    sn_sparse_multiply_columns(&s->a, z, m, g);
    double rows = 0.0;
    for (size_t f = 0; f < nf; ++f) {
        double rm = rho * s->metric[f];
        const double *zf = z + f * m, *yf = y + f * m, *bs = s->base + f * m;
        double *gf = g + f * m, *xf = x + f * m;
        /* max over the row v of y . v, less y . z, as the non-negative sum
         * of z_j (y_max - y_j): z's row sums to one only to rounding, and
         * that rounding times a multiplier of the gradient's size (1e3 on
         * the octopus) would be the gap's floor. */
        double top = -INFINITY;
        for (size_t j = 0; j < m; ++j) top = fmax(top, yf[j]);
        for (size_t j = 0; j < m; ++j) {
            gf[j] -= rm * zf[j] + bs[j];
            rows += zf[j] * (top - yf[j]);
            xf[j] = gf[j] + yf[j];
        }
    }
    solve_q(s, x);
    double quad = 0.0;
    for (size_t k = 0; k < nf * m; ++k) quad += x[k] * (g[k] + y[k]);
    return sn_bbw_bound_from_gap(s, rows + 0.5 * fabs(quad));
}

void sn_bbw_keep_if_best(solve_state *s, const double *z, double bound)
{
    if (bound < s->best_bound) {
        s->best_bound = bound;
        memcpy(s->best_z, z, s->nf * s->b->handle_count * sizeof(double));
    }
}

/* Certifies the current weights (certify) and remembers them when their
 * bound is the best so far. Returns the bound. */
static double certify_and_keep(solve_state *s, double rho, int exact)
{
    double bound = certify(s, rho, exact);
    sn_bbw_keep_if_best(s, s->z, bound);
    return bound;
}

/* The split's metric: W_f = M_f (r_f / r_geo)^1/2 with r_f = Q_ff / M_f
 * and r_geo their geometric mean, i.e. the geometric mean of the vertex's
 * mass and stiffness, scaled so a uniform mesh keeps W = M. On graded
 * meshes r_f spans orders of magnitude (10^6 to 10^16 on the hand): with W
 * = M, one penalty cannot suit the small and the large elements at once,
 * and the split crawls where it is off; W puts each vertex's penalty
 * between its two ends (hand: 227 -> 98 iterations). The split converges
 * to the same minimiser for any positive W; the certificate holds for any. */
static sinew_result split_metric(solve_state *s)
{
    const sinew_bbw *b = s->b;
    s->metric = sn_alloc_array(&b->env, s->nf, sizeof(double), "split metric");
    if (!s->metric) return sn_alloc_failure();
    /* A vertex whose ratio is not a positive number (a zero stiffness row)
     * keeps W = M. */
    double log_mean = 0.0;
    size_t counted = 0;
    for (size_t f = 0; f < s->nf; ++f) {
        double ratio = s->a.vals[s->diag_pos[f]] / b->mass[s->free_vertex[f]];
        s->metric[f] = ratio > 0.0 && isfinite(ratio) ? log(ratio) : NAN;
        if (!isnan(s->metric[f])) {
            log_mean += s->metric[f];
            ++counted;
        }
    }
    if (counted) log_mean /= (double)counted;
    for (size_t f = 0; f < s->nf; ++f) {
        double mass = b->mass[s->free_vertex[f]];
        s->metric[f] = isnan(s->metric[f]) ? mass : mass * exp(0.5 * (s->metric[f] - log_mean));
    }
    return SINEW_OK;
}

/* Reduced system, right-hand side of the fixed vertices, factorisation. */
static sinew_result prepare(solve_state *s, double *rho)
{
    sinew_bbw *b = s->b;
    size_t n = b->vertex_count, m = b->handle_count;
    s->map = sn_alloc_array(&b->env, n, sizeof(uint32_t), "free vertex map");
    if (!s->map) return sn_alloc_failure();
    s->nf = 0;
    for (size_t v = 0; v < n; ++v) s->map[v] = b->state[v] == SN_BBW_FREE ? (uint32_t)s->nf++ : UINT32_MAX;
    if (s->nf == 0) return SINEW_OK;
    size_t nf = s->nf, cells;
    if (!sn_mul_size(nf, m, &cells)) return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "too many unknowns");
    s->free_vertex = sn_alloc_array(&b->env, nf, sizeof(uint32_t), "free vertices");
    s->diag_pos = sn_alloc_array(&b->env, nf, sizeof(size_t), "diagonal positions");
    s->base = sn_calloc_array(&b->env, cells, sizeof(double), "fixed right-hand side");
    s->x = sn_alloc_array(&b->env, cells, sizeof(double), "admm x");
    s->z = sn_calloc_array(&b->env, cells, sizeof(double), "admm z");
    s->s = sn_alloc_array(&b->env, cells, sizeof(double), "admm state");
    s->g = sn_alloc_array(&b->env, cells, sizeof(double), "admm step");
    s->df = sn_alloc_array(&b->env, cells, SN_BBW_ANDERSON * sizeof(float), "anderson residuals");
    s->dg = sn_alloc_array(&b->env, cells, SN_BBW_ANDERSON * sizeof(float), "anderson steps");
    s->f = sn_alloc_array(&b->env, cells, sizeof(double), "admm residual");
    s->rhs = sn_alloc_array(&b->env, cells, sizeof(double), "certificate right-hand side");
    s->row = sn_alloc_array(&b->env, m, s->tasks * sizeof(double), "projection rows");
    s->columns = s->tasks > 1 ? sn_alloc_array(&b->env, cells, sizeof(double), "solve column groups") : NULL;
    s->best_z = sn_alloc_array(&b->env, cells, sizeof(double), "best certified weights");
    s->work = sn_alloc_array(&b->env, cells, sizeof(double), "solve workspace");
    s->scratch = sn_alloc_array(&b->env, m, s->tasks * sizeof(uint32_t), "projection scratch");
    if (!s->free_vertex || !s->diag_pos || !s->base || !s->x || !s->z || !s->s || !s->g || !s->df || !s->dg || !s->f ||
        !s->rhs || !s->row || !s->best_z || !s->work || !s->scratch || (s->tasks > 1 && !s->columns))
        return sn_alloc_failure();
    for (size_t v = 0; v < n; ++v)
        if (s->map[v] != UINT32_MAX) s->free_vertex[s->map[v]] = (uint32_t)v;
    /* base = -Q_FC W_C: each fixed column pushes its row into its free
     * neighbours. */
    for (size_t c = 0; c < n; ++c) {
        if (b->state[c] != SN_BBW_FIXED) continue;
        const double *wc = b->fixed + c * m;
        for (size_t p = s->q.colptr[c]; p < s->q.colptr[c + 1]; ++p) {
            uint32_t f = s->map[s->q.rows[p]];
            if (f == UINT32_MAX) continue;
            double qv = s->q.vals[p];
            double *row = s->base + (size_t)f * m;
            for (size_t j = 0; j < m; ++j) row[j] -= qv * wc[j];
        }
    }
    sinew_result r = sn_sparse_restrict(&b->env, &s->q, s->map, nf, &s->a);
    if (r != SINEW_OK) return r;
    double ratio = 0.0;
    for (size_t f = 0; f < nf; ++f) {
        size_t p = s->a.colptr[f];
        while (p < s->a.colptr[f + 1] && s->a.rows[p] != f) ++p;
        /* Every free vertex lies in an element, so Q's diagonal is stored. */
        s->diag_pos[f] = p;
        ratio += s->a.vals[p] / b->mass[s->free_vertex[f]];
    }
    ratio /= (double)nf;
    if ((r = split_metric(s)) != SINEW_OK) return r;
    if ((r = sn_progress(s->call, "bbw: factorise", 0.0f)) != SINEW_OK) return r;
    double *coords = sn_alloc_array(&b->env, nf, 3 * sizeof(double), "free vertex positions");
    if (!coords) return sn_alloc_failure();
    for (size_t f = 0; f < nf; ++f) memcpy(coords + 3 * f, b->positions + 3 * (size_t)s->free_vertex[f], 3 * sizeof(double));
    r = sn_ldlt_analyse(&b->env, &s->a, coords, &s->factor);
    sn_free(&b->env, coords);
    if (r != SINEW_OK) return r;
    /* Warm start: the unconstrained biharmonic weights. They already sum to
     * one (Q annihilates constants), and the bounded weights differ from them
     * only around their negative lobes, so the split starts close to the
     * answer instead of at the uniform point. */
    if ((r = sn_ldlt_factor(&b->env, &s->factor, &s->a)) != SINEW_OK) return r;
    memcpy(s->z, s->base, cells * sizeof(double));
    sn_ldlt_solve(&s->factor, s->z, m, s->work);
    estimate_lambda_min(s);
    /* The penalty's scale: the geometric mean of the spectrum's ends (the
     * smallest eigenvalue, and the mean of diag(Q)/M standing for the
     * largest), the choice that balances the split's slowest modes at both
     * ends. It adapts to the mesh: coarse meshes have a narrow spectrum. */
    *rho *= s->lambda_min > 0.0 ? sqrt(s->lambda_min * ratio) : ratio;
    /* Q_FF's own factor stays for the certificate's dual (same pattern). */
    size_t entries = sn_ldlt_block_values(&s->factor);
    s->q_vals = sn_alloc_array(&b->env, entries + 1, sizeof(double), "biharmonic factor values");
    s->q_diag = sn_alloc_array(&b->env, nf, sizeof(double), "biharmonic factor diagonal");
    if (!s->q_vals || !s->q_diag) return sn_alloc_failure();
    memcpy(s->q_vals, s->factor.super_vals, entries * sizeof(double));
    memcpy(s->q_diag, s->factor.diag, nf * sizeof(double));
    if ((r = certify_lambda_min(s)) != SINEW_OK) return r;
    if ((r = sn_progress(s->call, "bbw: factorise", 0.5f)) != SINEW_OK) return r;
    s->q_diagonal = sn_alloc_array(&b->env, nf, sizeof(double), "biharmonic diagonal");
    if (!s->q_diagonal) return sn_alloc_failure();
    for (size_t f = 0; f < nf; ++f) {
        s->q_diagonal[f] = s->a.vals[s->diag_pos[f]];
        s->a.vals[s->diag_pos[f]] += *rho * s->metric[f];
    }
    if ((r = sn_ldlt_factor(&b->env, &s->factor, &s->a)) != SINEW_OK) return r;
    return sn_progress(s->call, "bbw: factorise", 1.0f);
}

/* Anderson acceleration (type II) of the fixed-point map T: with g = T(s)
 * and f = g - s, the next s is g - dG gamma, where gamma minimises the mass
 * norm of f - dF gamma over the remembered differences dF, dG of successive
 * f and g (a tiny Tikhonov term keeps it stable). The Gram matrix dF' M dF
 * of the normal equations persists across iterations: each iteration adds
 * one column, so only that column's dot products are new, and they are
 * taken in the residual pass that makes the column (residual_pass). */
typedef struct anderson {
    size_t used;                                   /* columns remembered */
    size_t head;                                   /* slot of the newest column */
    size_t slot[SN_BBW_ANDERSON];                  /* active slots, newest first */
    double gram[SN_BBW_ANDERSON][SN_BBW_ANDERSON]; /* dF' M dF, by slot */
    double fdot[SN_BBW_ANDERSON];                  /* dF' M f, by slot */
    double gamma[SN_BBW_ANDERSON];                 /* by position in slot[] */
} anderson;

/* Solves the small normal equations for gamma (Gaussian elimination; the
 * matrix is symmetric positive definite). */
static void anderson_coefficients(anderson *aa)
{
    size_t h = aa->used;
    double a[SN_BBW_ANDERSON][SN_BBW_ANDERSON + 1], scale = 0.0;
    for (size_t i = 0; i < h; ++i) {
        for (size_t j = 0; j < h; ++j) a[i][j] = aa->gram[aa->slot[i]][aa->slot[j]];
        a[i][h] = aa->fdot[aa->slot[i]];
        if (a[i][i] > scale) scale = a[i][i];
    }
    for (size_t i = 0; i < h; ++i) a[i][i] += 1e-10 * scale + 1e-300;
    for (size_t p = 0; p < h; ++p)
        for (size_t i = p + 1; i < h; ++i) {
            double l = a[i][p] / a[p][p];
            for (size_t j = p; j <= h; ++j) a[i][j] -= l * a[p][j];
        }
    for (size_t i = h; i-- > 0;) {
        double v = a[i][h];
        for (size_t j = i + 1; j < h; ++j) v -= a[i][j] * aa->gamma[j];
        aa->gamma[i] = v / a[i][i];
    }
}

/* Sums one task of a per-vertex pass contributes; combined in task order so
 * the result does not depend on how the tasks were run. */
typedef struct pass_sums {
    double change, step_sq, dual_sq;                          /* projection pass */
    double worst, norm, split_sq, weight_sq;                  /* residual pass */
    double gram[SN_BBW_ANDERSON], fdot[SN_BBW_ANDERSON];
} pass_sums;

/* One per-vertex pass split into tasks over ranges of free vertices. */
typedef struct pass_job {
    solve_state *st;
    const anderson *aa;
    double rho;
    int exact, first;
    size_t h;                                 /* Anderson columns in use */
    const float *cols[SN_BBW_ANDERSON];       /* dG (projection) or dF (residual), newest first */
    float *dfn, *dgn;                         /* residual pass: the new column */
    uint32_t tasks;
    pass_sums *sums;                          /* one per task */
} pass_job;

static void task_range(const pass_job *job, uint32_t task, size_t *f0, size_t *f1)
{
    size_t nf = job->st->nf;
    *f0 = nf * task / job->tasks;
    *f1 = nf * (task + 1) / job->tasks;
}

/* z-step, fused with Anderson's extrapolation and the x-step's right-hand
 * side, for one task's vertices: s = g - dG gamma (unless first), z = P(s),
 * x = base + rho W (2z - s); sums the largest change of z and the W-norms of
 * the step and of u = s - z. */
static void projection_task(void *user, uint32_t task)
{
    const pass_job *job = user;
    solve_state *st = job->st;
    size_t m = st->b->handle_count, f0, f1;
    task_range(job, task, &f0, &f1);
    double *v = st->row + (size_t)task * m;
    uint32_t *scratch = st->scratch + (size_t)task * m;
    pass_sums *sum = &job->sums[task];
    memset(sum, 0, sizeof *sum);
    for (size_t f = f0; f < f1; ++f) {
        size_t o = f * m;
        double *sb = st->s + o, *zb = st->z + o, *xb = st->x + o;
        if (!job->first) {
            const double *gb = st->g + o;
            for (size_t j = 0; j < m; ++j) sb[j] = gb[j];
            for (size_t i = 0; i < job->h; ++i) {
                double c = job->aa->gamma[i];
                const float *d = job->cols[i] + o;
                for (size_t j = 0; j < m; ++j) sb[j] -= c * d[j];
            }
        }
        memcpy(v, sb, m * sizeof(double));
        if (job->exact) project_simplex_near(v, zb, m, scratch);
        else project_box(v, m);
        double rm = job->rho * st->metric[f];
        const double *bb = st->base + o;
        double step = 0.0, dual = 0.0;
        for (size_t j = 0; j < m; ++j) {
            double c = fabs(v[j] - zb[j]), u = sb[j] - v[j];
            if (c > sum->change) sum->change = c;
            step += c * c;
            dual += u * u;
            zb[j] = v[j];
            xb[j] = bb[j] + rm * (2.0 * v[j] - sb[j]);
        }
        sum->step_sq += st->metric[f] * step;
        sum->dual_sq += st->metric[f] * dual;
    }
}

/* Tasks a pass is split into: the context's parallel_tasks, at most one per
 * SN_BBW_TASK_MIN vertices and at most SN_BBW_MAX_TASKS. */
static uint32_t pass_tasks(const solve_state *st)
{
    uint32_t t = st->tasks;
    size_t most = st->nf / SN_BBW_TASK_MIN;
    if (t > most) t = most ? (uint32_t)most : 1;
    return t;
}

/* The z-step over every free vertex (projection_task). Returns the largest
 * change of z; leaves the W-norms in st->step_sq, st->dual_sq. */
static double projection_pass(solve_state *st, const anderson *aa, double rho, int exact, int first)
{
    size_t cells = st->nf * st->b->handle_count;
    pass_job job = {.st = st, .aa = aa, .rho = rho, .exact = exact, .first = first, .h = first ? 0 : aa->used};
    for (size_t i = 0; i < job.h; ++i) job.cols[i] = st->dg + aa->slot[i] * cells;
    pass_sums sums[SN_BBW_MAX_TASKS];
    job.tasks = pass_tasks(st);
    job.sums = sums;
    sn_parallel_for(st->call, projection_task, &job, job.tasks);
    double change = 0.0;
    st->step_sq = st->dual_sq = 0.0;
    for (uint32_t t = 0; t < job.tasks; ++t) {
        if (sums[t].change > change) change = sums[t].change;
        st->step_sq += sums[t].step_sq;
        st->dual_sq += sums[t].dual_sq;
    }
    return change;
}

/* After the x-step, one task's vertices: the split's residual d = x - z,
 * g = T(s) = s + relax d and f = relax d, and (unless first) Anderson's new
 * difference column with its dot products against the remembered ones. */
static void residual_task(void *user, uint32_t task)
{
    const pass_job *job = user;
    solve_state *st = job->st;
    const sinew_bbw *b = st->b;
    size_t m = b->handle_count, h = job->h, f0, f1;
    task_range(job, task, &f0, &f1);
    pass_sums *sum = &job->sums[task];
    memset(sum, 0, sizeof *sum);
    for (size_t f = f0; f < f1; ++f) {
        size_t o = f * m;
        const double *xb = st->x + o, *zb = st->z + o, *sb = st->s + o;
        double *gb = st->g + o, *fb = st->f + o, row = 0.0;
        for (size_t j = 0; j < m; ++j) {
            double d = xb[j] - zb[j], ad = fabs(d);
            if (ad > sum->worst) sum->worst = ad;
            row += d * d;
            double gn = sb[j] + SN_BBW_RELAX * d, fn = SN_BBW_RELAX * d;
            if (!job->first) {
                job->dfn[o + j] = (float)(fn - fb[j]);
                job->dgn[o + j] = (float)(gn - gb[j]);
            }
            gb[j] = gn;
            fb[j] = fn;
        }
        double w = b->mass[st->free_vertex[f]], zz = 0.0;
        sum->norm += w * row;
        for (size_t j = 0; j < m; ++j) zz += zb[j] * zb[j];
        sum->split_sq += st->metric[f] * row;
        sum->weight_sq += st->metric[f] * zz;
        for (size_t i = 0; i < h; ++i) {
            const float *di = job->cols[i] + o, *dn = job->dfn + o;
            double dd = 0.0, dfv = 0.0;
            for (size_t j = 0; j < m; ++j) {
                dd += (double)di[j] * dn[j];
                dfv += di[j] * fb[j];
            }
            sum->gram[i] += w * dd;
            sum->fdot[i] += w * dfv;
        }
    }
}

/* The residual pass over every free vertex (residual_task): largest entry
 * of x - z into *primal, its mass norm returned, the W-norms into st, and
 * Anderson's Gram matrix extended by the new column. */
static double residual_pass(solve_state *st, anderson *aa, int first, double *primal)
{
    size_t cells = st->nf * st->b->handle_count;
    pass_job job = {.st = st, .first = first};
    if (!first) {
        /* The new column takes the next slot (dropping the oldest when the
         * ring is full); the active slots are listed newest first. */
        aa->head = (aa->head + 1) % SN_BBW_ANDERSON;
        job.h = aa->used < SN_BBW_ANDERSON ? aa->used + 1 : SN_BBW_ANDERSON;
        for (size_t i = 0; i < job.h; ++i) {
            aa->slot[i] = (aa->head + SN_BBW_ANDERSON - i) % SN_BBW_ANDERSON;
            job.cols[i] = st->df + aa->slot[i] * cells;
        }
        job.dfn = st->df + aa->head * cells;
        job.dgn = st->dg + aa->head * cells;
    }
    pass_sums sums[SN_BBW_MAX_TASKS];
    job.tasks = pass_tasks(st);
    job.sums = sums;
    sn_parallel_for(st->call, residual_task, &job, job.tasks);
    double worst = 0.0, norm = 0.0, gram[SN_BBW_ANDERSON] = {0}, fdot[SN_BBW_ANDERSON] = {0};
    st->split_sq = st->weight_sq = 0.0;
    for (uint32_t t = 0; t < job.tasks; ++t) {
        if (sums[t].worst > worst) worst = sums[t].worst;
        norm += sums[t].norm;
        st->split_sq += sums[t].split_sq;
        st->weight_sq += sums[t].weight_sq;
        for (size_t i = 0; i < job.h; ++i) {
            gram[i] += sums[t].gram[i];
            fdot[i] += sums[t].fdot[i];
        }
    }
    for (size_t i = 0; i < job.h; ++i) {
        aa->gram[aa->slot[i]][aa->head] = aa->gram[aa->head][aa->slot[i]] = gram[i];
        aa->fdot[aa->slot[i]] = fdot[i];
    }
    aa->used = job.h;
    *primal = worst;
    return sqrt(norm);
}

/* The x-step's solve of all handles. With several tasks the handles are
 * split into column groups, each gathered, solved and scattered back by one
 * task (the factor is shared read-only; each group has its own slice of
 * st->work and st->columns). */
typedef struct solve_job {
    solve_state *st;
    uint32_t groups;
} solve_job;

static void solve_group(void *user, uint32_t group)
{
    const solve_job *job = user;
    solve_state *st = job->st;
    size_t m = st->b->handle_count, nf = st->nf;
    size_t j0 = m * group / job->groups, j1 = m * (group + 1) / job->groups, mg = j1 - j0;
    double *buf = st->columns + nf * j0, *work = st->work + nf * j0;
    for (size_t f = 0; f < nf; ++f) memcpy(buf + f * mg, st->x + f * m + j0, mg * sizeof(double));
    sn_ldlt_solve(&st->factor, buf, mg, work);
    for (size_t f = 0; f < nf; ++f) memcpy(st->x + f * m + j0, buf + f * mg, mg * sizeof(double));
}

static void x_step(solve_state *st)
{
    size_t m = st->b->handle_count;
    uint32_t groups = st->tasks < m ? st->tasks : (uint32_t)m;
    if (groups <= 1 || !st->columns) {
        sn_ldlt_solve(&st->factor, st->x, m, st->work);
        return;
    }
    solve_job job = {st, groups};
    sn_parallel_for(st->call, solve_group, &job, groups);
}

/* A given start z carries no multiplier; the one that makes z a fixed point
 * of the x-step, u = (base - Q z) / (rho W) (i.e. s = 2z + (base - F z) /
 * (rho W) with F = Q + rho W), is the gradient's information the split
 * would otherwise spend its first hundreds of iterations rebuilding: with
 * u = 0 a good start is pulled back toward the unconstrained solution. */
static void warm_start_multiplier(solve_state *s, double rho)
{
    size_t m = s->b->handle_count;
    sn_sparse_multiply_columns(&s->a, s->z, m, s->x);
    for (size_t f = 0; f < s->nf; ++f) {
        double scale = 1.0 / (rho * s->metric[f]);
        for (size_t j = 0; j < m; ++j) {
            size_t k = f * m + j;
            s->s[k] = 2.0 * s->z[k] + (s->base[k] - s->x[k]) * scale;
        }
    }
}

/* The split's starting state from given weights (vertex-major over every
 * vertex; NULL = keep z, the unconstrained start): z = the rows projected
 * onto the feasible set, and the iteration's state s = z + u with the
 * multiplier of warm_start_multiplier (u = 0 from the unconstrained
 * start). The iteration runs on s
 * (Douglas-Rachford form): z = P(s), u = s - z, x = F^-1 (base + rho W
 * (2z - s)), T(s) = s + relax (x - z); Anderson acceleration extrapolates T
 * from its last few steps. */
static void start_split(solve_state *s, const float *start, double rho, int exact)
{
    size_t m = s->b->handle_count;
    for (size_t f = 0; f < s->nf; ++f) {
        double *zb = s->z + f * m;
        if (start)
            for (size_t j = 0; j < m; ++j) zb[j] = start[(size_t)s->free_vertex[f] * m + j];
        sn_bbw_project_row(zb, m, exact, s->scratch);
    }
    if (s->nf) memcpy(s->s, s->z, s->nf * m * sizeof(double));
    if (start) warm_start_multiplier(s, rho);
}

/* Multiplies the penalty by factor: Q + rho W is factorised again, and the
 * state s (via the last step g) is rescaled around its projection so the
 * multiplier rho W u is kept. Anderson's history must be dropped by the
 * caller (its columns belong to the old map). */
static sinew_result change_penalty(solve_state *s, double *rho, int exact, double factor)
{
    const sinew_bbw *b = s->b;
    size_t m = b->handle_count, nf = s->nf;
    double next = *rho * factor;
    for (size_t f = 0; f < nf; ++f) s->a.vals[s->diag_pos[f]] = s->q_diagonal[f] + next * s->metric[f];
    sinew_result r = sn_ldlt_factor(&b->env, &s->factor, &s->a);
    if (r != SINEW_OK) return r;
    for (size_t f = 0; f < nf; ++f) {
        double *g = s->g + f * m, *v = s->row;
        memcpy(v, g, m * sizeof(double));
        sn_bbw_project_row(v, m, exact, s->scratch);
        for (size_t j = 0; j < m; ++j) g[j] = v[j] + (g[j] - v[j]) / factor;
    }
    *rho = next;
    return SINEW_OK;
}

/* The split's relative primal residual |x - z|_W / |z|_W and dual residual
 * |z - z_prev|_W / |u|_W (u = s - z, the scaled multiplier) of the last
 * iteration. Returns 0 when either is not positive (nothing to compare). */
static int relative_residuals(const solve_state *s, double *primal, double *dual)
{
    if (!(s->weight_sq > 0.0) || !(s->dual_sq > 0.0) || !(s->step_sq > 0.0)) return 0;
    *primal = sqrt(s->split_sq / s->weight_sq);
    *dual = sqrt(s->step_sq / s->dual_sq);
    return *primal > 0.0 && *dual > 0.0;
}

/* Residual balancing of the penalty. The split's relative residuals
 * (relative_residuals) should fall together; when the primal one leads by
 * more than REBALANCE_GAP, rho moves by the square root of their ratio (at
 * most REBALANCE_LIMIT at once). Sets *changed; the iteration's other state
 * carries on. */
static sinew_result rebalance(solve_state *s, double *rho, int exact, int *changed)
{
    *changed = 0;
    double primal, dual;
    if (!relative_residuals(s, &primal, &dual)) return SINEW_OK;
    double factor = sqrt(primal / dual);
    if (factor < SN_BBW_REBALANCE_GAP) return SINEW_OK;
    sinew_result r = change_penalty(s, rho, exact, fmin(factor, SN_BBW_REBALANCE_LIMIT));
    if (r == SINEW_OK) *changed = 1;
    return r;
}

/* The late penalty lowering's state: the span's running sum of the log
 * dual/primal residual ratio, and, while a lowering is on trial, its
 * factor, the bound it started from and the rate it has to beat. */
typedef enum { LOWERING_NOT_TRIED, LOWERING_ON_TRIAL, LOWERING_DECIDED } lowering_state;
typedef struct penalty_lowering {
    double ratio_log_sum;
    uint32_t ratio_count;
    lowering_state state;
    double factor, start_bound, rate_before;
} penalty_lowering;

/* Adds this iteration's ratio of the relative dual residual to the
 * relative primal one (relative_residuals). */
static void lowering_track(penalty_lowering *l, const solve_state *s)
{
    double primal, dual;
    if (!relative_residuals(s, &primal, &dual)) return;
    double ratio = dual / primal;
    if (!isfinite(ratio)) return;
    l->ratio_log_sum += log(ratio);
    ++l->ratio_count;
}

/* The span's lead of the dual residual over the primal one (geometric mean
 * of the ratios tracked, 1 if none); starts the next span's. */
static double span_lead(penalty_lowering *l)
{
    double lead = l->ratio_count ? exp(l->ratio_log_sum / l->ratio_count) : 1.0;
    l->ratio_log_sum = 0.0;
    l->ratio_count = 0;
    return lead;
}

/* At a span's end, with the best bound now (bound), a span before
 * (previous) and the span's lead: judges a lowering on trial (restoring the
 * penalty if the bound fell more slowly than in the span before the
 * lowering), or, where may_lower, lowers the penalty when the dual residual
 * led by more than LOWER_GAP. Sets *changed when the penalty moved. */
static sinew_result lowering_checkpoint(penalty_lowering *l, solve_state *s, double *rho, int exact, double bound,
                                        double previous, double lead, int may_lower, int *changed)
{
    *changed = 0;
    sinew_result r = SINEW_OK;
    if (l->state == LOWERING_ON_TRIAL) {
        l->state = LOWERING_DECIDED;
        if (!(bound / l->start_bound <= l->rate_before) && (r = change_penalty(s, rho, exact, l->factor)) == SINEW_OK)
            *changed = 1;
        return r;
    }
    if (!may_lower || l->state != LOWERING_NOT_TRIED || !isfinite(previous) || !isfinite(bound) || !(lead > SN_BBW_LOWER_GAP)) return SINEW_OK;
    l->factor = fmin(sqrt(lead), SN_BBW_LOWER_LIMIT);
    if ((r = change_penalty(s, rho, exact, 1.0 / l->factor)) != SINEW_OK) return r;
    l->state = LOWERING_ON_TRIAL;
    l->start_bound = bound;
    l->rate_before = bound / previous;
    *changed = 1;
    return SINEW_OK;
}

sinew_result sinew_bbw_solve(sinew_context *ctx, sinew_bbw *b, const sinew_bbw_solve_desc *desc)
{
    sn_clear_error();
    if (!b) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "bbw is NULL");
    sn_env call;
    sn_env_for_call(&call, &b->env, ctx);
    sinew_bbw_solve_desc d;
    memset(&d, 0, sizeof d);
    sinew_result r = SINEW_OK;
    if (desc && (r = sn_read_struct(&d, sizeof d, desc, "solve desc")) != SINEW_OK) return r;
    r = check_options(b, &d);
    if (r != SINEW_OK) return r;
    /* A loaded handle builds its operators at its first solve. */
    if ((r = sn_bbw_ensure_operators(b)) != SINEW_OK) return r;
    double t0 = sn_bbw_seconds();
    /* Levels asked for run first: their memory is gone before this level's.
     * Automatic ones wait for the probe (see the iteration). */
    float *coarse = NULL;
    uint32_t coarse_levels = 0;
    if (d.coarse_levels && (r = sn_bbw_coarse_start(ctx, b, &d, &coarse, &coarse_levels)) != SINEW_OK) return r;
    uint32_t probe = !d.coarse_levels && !d.initial_weights && sn_bbw_coarse_possible(b) ? SN_BBW_COARSE_PROBE : 0;
    const float *start = d.initial_weights ? d.initial_weights : coarse;
    double tol = d.tolerance > 0 ? d.tolerance : 1e-4;
    uint32_t max_it = d.max_iterations ? d.max_iterations : 5000;
    double rho = d.penalty > 0 ? d.penalty : SN_BBW_DEFAULT_PENALTY;
    int exact = d.partition == SINEW_BBW_PARTITION_EXACT;
    size_t n = b->vertex_count, m = b->handle_count;

    solve_state s;
    memset(&s, 0, sizeof s);
    s.b = b;
    s.best_bound = INFINITY;
    s.tasks = call.parallel_for && call.parallel_tasks > 1 ? call.parallel_tasks : 1;
    if (s.tasks > SN_BBW_MAX_TASKS) s.tasks = SN_BBW_MAX_TASKS;
    s.tolerance = tol;
    s.call = &call;
    float *out = sn_alloc_array(&b->env, n, m * sizeof(float), "weights");
    if (!out) {
        sn_free(&b->env, coarse);
        return sn_alloc_failure();
    }
    if ((r = build_operator(&s, &d)) != SINEW_OK) goto fail;
    if ((r = prepare(&s, &rho)) != SINEW_OK) goto fail;

    size_t nf = s.nf, cells = nf * m;
    start_split(&s, start, rho, exact);
    sn_free(&b->env, coarse);
    coarse = NULL;
    uint32_t it = 0;
    double primal = 0.0, change = INFINITY, best_norm = INFINITY;
    int converged = nf == 0;
    /* The split runs to a loose stage tolerance, then the active-set polish
     * tries to finish exactly; if the support is not settled yet, the split
     * continues to a tighter stage tolerance and polishes again. */
    double stage_tol = fmax(tol, SN_BBW_STAGE_TOL);
    int fresh = 0;
    uint32_t rebalances = 0;
    uint32_t polish_rounds = 0, next_polish = 0, last_certificate = 0, next_periodic = SN_BBW_POLISH_FIRST;
    int interior_tried = 0;
    uint32_t stall_changes = 0;
    penalty_lowering lowering;
    memset(&lowering, 0, sizeof lowering);
    double bound = INFINITY, bound_per_norm = INFINITY, stall_ref = INFINITY;
    anderson aa;
    memset(&aa, 0, sizeof aa);
    int restart = 1;
    while (!converged && it < max_it) {
        ++it;
        change = projection_pass(&s, &aa, rho, exact, restart);
        if (restart) change = INFINITY;
        x_step(&s);
        double norm = residual_pass(&s, &aa, restart || fresh, &primal);
        fresh = restart = 0;
        /* The split's residuals only say the iteration has slowed down; the
         * certificate says how far the weights are from the minimiser. It
         * costs a product with Q and a solve, so it is taken once the
         * residuals are near the tolerance, and after that when the split's
         * residual, scaled by the ratio bound / residual the last
         * certificate found, predicts success (late in the iteration the
         * two fall together; the ratio drifts up, so a failed prediction
         * corrects the next), and at least every MAX_GAP iterations. */
        if (primal <= SN_BBW_CERTIFY_START * tol && change <= SN_BBW_CERTIFY_START * tol &&
            (!last_certificate || it >= last_certificate + SN_BBW_CERTIFY_MAX_GAP ||
             (it >= last_certificate + SN_BBW_CERTIFY_MIN_GAP && norm * bound_per_norm <= tol))) {
            bound = certify_and_keep(&s, rho, exact);
            last_certificate = it;
            bound_per_norm = norm > 0.0 ? bound / norm : INFINITY;
            if (bound <= tol) {
                converged = 1;
                break;
            }
        }
        /* The polish is tried when the split's residuals reach the next
         * stage, and also every so often regardless (POLISH_FIRST, then at
         * doubling intervals): on some domains the residuals stall far
         * above any stage while the zero pattern is already nearly right,
         * and a round certified near that pattern finishes the solve. A
         * polish refused as unaffordable stops the periodic tries. */
        int staged = primal <= stage_tol && change <= stage_tol && it >= next_polish;
        if (staged || it == next_periodic) {
            uint32_t rounds = 0, steps = 0;
            int moved = 0;
            r = sn_bbw_polish(&s, rho, exact, SN_BBW_POLISH_ROUNDS, &rounds, &moved);
            polish_rounds += rounds;
            /* After the first polish that did not finish, small domains
             * (exact partition) get the interior-point method
             * (interior.c): where the split's support is not nearly right
             * yet the polish can take 40-60 rounds (the octopus), and the
             * method certifies in 20-40 factorisations whatever the
             * domain's shape, size or position. Its steps count as
             * iterations; where it is refused (too costly) or stops short
             * (rounding), the split and the polish carry on as before. */
            if ((r == SINEW_OK || r == SINEW_ERROR_NOT_CONVERGED) && s.best_bound > tol && exact && !interior_tried) {
                interior_tried = 1;
                r = sn_bbw_interior(&s, rho, max_it - it, &steps);
                it += steps;
            }
            if (r != SINEW_OK && r != SINEW_ERROR_NOT_CONVERGED) goto fail;
            r = SINEW_OK;
            if (s.best_bound <= tol) {
                memcpy(s.z, s.best_z, cells * sizeof(double));
                bound = s.best_bound;
                converged = 1;
                break;
            }
            if (steps && it >= max_it) break; /* the method used the cap up */
            next_periodic = rounds ? 2 * it : UINT32_MAX;
            if (moved) {
                /* The polish's iterate (or its settled solution, when the
                 * certificate's floor keeps it from the tolerance) has a
                 * lower energy than the split's: the split carries on from
                 * it, with its fixed-point multiplier (z alone would be
                 * recomputed from the old state at the next projection). */
                warm_start_multiplier(&s, rho);
                restart = 1;
                aa.used = 0;
                best_norm = bound_per_norm = INFINITY;
                last_certificate = 0;
                stall_ref = INFINITY;
            }
            if (staged) {
                /* Not settled (or not affordable): split on, polish again at
                 * a tighter stage, and at the final stage only after twice
                 * the iterations made so far. */
                if (stage_tol <= tol * 1.0001) next_polish = 2 * it;
                stage_tol = fmax(stage_tol * 0.1, tol);
            }
        }
        /* Extrapolation went astray: restart it from the newest column. */
        if (norm > 2.0 * best_norm && aa.used > 1) aa.used = 1;
        if (norm < best_norm) best_norm = norm;
        /* Only a split that stalls is rebalanced: at the checkpoints, when
         * its residuals are still far from where certificates start (the
         * tuned penalty suits the hand, and balancing there costs a factor
         * 3 in iterations; on the octopus it is a factor 100 off). */
        if (rebalances < SN_BBW_REBALANCE_MAX && it >= SN_BBW_REBALANCE_START &&
            primal > SN_BBW_CERTIFY_START * tol &&
            it % (it < SN_BBW_REBALANCE_EARLY ? SN_BBW_REBALANCE_EVERY_EARLY : SN_BBW_REBALANCE_EVERY) == 0) {
            int changed = 0;
            if ((r = rebalance(&s, &rho, exact, &changed)) != SINEW_OK) goto fail;
            if (changed) {
                ++rebalances;
                aa.used = 0;
                fresh = 1;
                best_norm = INFINITY;
                bound_per_norm = INFINITY;
            }
        }
        /* A split whose certified bound has stalled: near the end the
         * support is settled, and what is left converges at a rate the
         * penalty chosen for the start no longer suits (the octopus with
         * nine points: a bound falling 5% per 100 iterations for thousands
         * of iterations while its residuals look balanced; with the penalty
         * 16 times larger it finished 3,000 iterations sooner). Residual
         * balancing does not see it, so the stall itself is the signal.
         * Raising further at once (64x, with stalls judged by a quarter)
         * left 5 of 12 scaled octopuses at the cap: docs/bbw.md. A stall
         * with the dual residual far ahead is a penalty too large, and
         * raising it there is what sent the open camel's restart to the cap
         * (each raise multiplied the lead by 30-50), so such a stall lowers.
         * A bound that still halves but would fall faster with a smaller
         * penalty (the elephant's volume: the balancing raised it
         * 144x early on, and from then its dual residual led the primal one
         * 100-1,000x), is the lowering's (lowering_checkpoint); it is not
         * tried once the penalty has been changed for a stall, and while it
         * is on trial a slow span restores it instead of raising. */
        lowering_track(&lowering, &s);
        if (it % SN_BBW_STALL_SPAN == 0) {
            int stalled = isfinite(stall_ref) && !(s.best_bound <= SN_BBW_STALL_FACTOR * stall_ref);
            int changed = 0;
            int on_trial = lowering.state == LOWERING_ON_TRIAL;
            double lead = span_lead(&lowering);
            if ((r = lowering_checkpoint(&lowering, &s, &rho, exact, s.best_bound, stall_ref, lead,
                                         !stalled && !stall_changes, &changed)) != SINEW_OK)
                goto fail;
            if (on_trial) stalled = 0; /* judged by the trial instead */
            stall_ref = s.best_bound;
            if (stalled && stall_changes < SN_BBW_STALL_CHANGES) {
                double factor = lead > SN_BBW_LOWER_GAP ? 1.0 / fmin(sqrt(lead), SN_BBW_STALL_LOWER_LIMIT)
                                                         : SN_BBW_STALL_RAISE;
                if ((r = change_penalty(&s, &rho, exact, factor)) != SINEW_OK) goto fail;
                ++stall_changes;
                changed = 1;
            }
            if (changed) {
                aa.used = 0;
                fresh = 1;
                best_norm = bound_per_norm = INFINITY;
                stall_ref = INFINITY; /* the new penalty gets a whole span */
            }
        }
        /* The automatic coarse-to-fine start: a solve still running at the
         * probe is one the polish does not finish soon, where the split's
         * smooth modes dominate; the coarser volumes resolve those, and the
         * split restarts from their weights with the multiplier that makes
         * them a fixed point (the best certificate so far is kept). */
        if (probe && it >= probe) { /* >=: the interior-point steps may step over it */
            probe = 0;
            float *start = NULL;
            if ((r = sn_bbw_coarse_start(ctx, b, &d, &start, &coarse_levels)) != SINEW_OK) goto fail;
            if (start) {
                start_split(&s, start, rho, exact);
                sn_free(&b->env, start);
                restart = 1;
                aa.used = 0;
                best_norm = bound_per_norm = INFINITY;
                last_certificate = next_polish = 0;
                stall_ref = INFINITY;
                next_periodic = it + SN_BBW_POLISH_FIRST;
                stage_tol = fmax(tol, SN_BBW_STAGE_TOL);
                continue;
            }
        }
        if (aa.used) anderson_coefficients(&aa);
        if (it % 16 == 0 && (r = sn_progress(s.call, "bbw: iterate", (float)it / (float)max_it)) != SINEW_OK)
            goto fail;
    }

    if (!converged && nf) {
        /* Stopped by the cap: the last iterate or the best certified one,
         * whichever has the smaller bound. */
        bound = certify_and_keep(&s, rho, exact);
        if (s.best_bound < bound) {
            memcpy(s.z, s.best_z, cells * sizeof(double));
            bound = s.best_bound;
        }
    }
    for (size_t v = 0; v < n; ++v) {
        float *row = out + v * m;
        if (b->state[v] == SN_BBW_FIXED) {
            for (size_t j = 0; j < m; ++j) row[j] = (float)b->fixed[v * m + j];
        } else if (b->state[v] == SN_BBW_UNREACHED) {
            for (size_t j = 0; j < m; ++j) row[j] = 0.0f;
        } else {
            const double *zb = s.z + (size_t)s.map[v] * m;
            double sum = 0.0;
            for (size_t j = 0; j < m; ++j) sum += zb[j];
            /* Exact mode is already on the simplex; the per-handle variant
             * normalises here (a row of zeros stays zero). */
            double scale = exact || sum <= 0.0 ? 1.0 : 1.0 / sum;
            for (size_t j = 0; j < m; ++j) row[j] = (float)(zb[j] * scale);
        }
    }
    sn_free(&b->env, b->weights);
    b->weights = out;
    b->info.solved = 1;
    b->partition = d.partition;
    b->info.iterations = it;
    b->info.polish_rounds = polish_rounds;
    b->info.coarse_levels_used = coarse_levels;
    b->info.error_bound = nf ? bound : 0.0;
    b->info.primal_residual = primal;
    b->info.change_residual = change;
    b->info.factor_nonzeros = sn_ldlt_factor_nonzeros(&s.factor);
    b->info.seconds_solve = sn_bbw_seconds() - t0;
    solve_state_free(&s);
    if (!converged)
        return sn_fail(SINEW_ERROR_NOT_CONVERGED,
                       "bbw solve stopped at its cap of %u iterations: the best certified error bound reached is "
                       "%.3g (tolerance %.3g; split residuals %.3g, change %.3g); kept the weights of that bound. "
                       "Try a larger max_iterations, a looser tolerance, or another penalty (0 = automatic)",
                       it, bound, tol, primal, change);
    return SINEW_OK;
fail:
    solve_state_free(&s);
    sn_free(&b->env, out);
    sn_free(&b->env, coarse);
    return r;
}
