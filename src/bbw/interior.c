/*
 * Interior-point solve for small domains (exact partition of unity).
 *
 * The splitting iteration converges slowly where the biharmonic operator
 * is far from an M-matrix, and the active-set polish then needs dozens of
 * factorisations to find the zero pattern. A primal-dual
 * interior-point method guesses no pattern: it follows the central path
 * w o z = mu to mu = 0 (Mehrotra's predictor-corrector with Gondzio's
 * centrality correctors) in a number of steps that hardly depends on the
 * domain, its mesh size or its position (a few dozen), each one
 * factorisation of a matrix whose
 * pattern never changes, so it is analysed once. level.c runs it after the
 * first polish that does not finish.
 *
 * Unknowns: per free vertex f the weights of every handle but a pivot p(f)
 * (w_p = 1 - the others, so the partition holds exactly): w = c + T y. With
 * the duals z >= 0 of w >= 0 and D = z / w, a Newton step solves
 *
 *   (H + T' D T) dy = -T' (g + v),   H = T' (I (x) Q) T,  g = Q w - base,
 *
 * where v carries the complementarity target (-sigma mu / w, plus the
 * corrector's second-order term). T' D T only adds to each vertex's own
 * block (d_a on the diagonal, d_p everywhere), which H already fills.
 *
 * Certificates. An interior iterate's Frank-Wolfe gap is first order in its
 * stationarity error and stalls near 1e-5 on such domains. The method's own
 * multiplier, y = mu_f - z (mu_f the row's multiplier of the partition),
 * leaves the gap's complementarity part (w . z, about mu per weight) and a
 * second-order term r' Q^-1 r / 2 in the dual residual r = g + y
 * (certificate.c's split certificate), so the bound falls as sqrt(mu) to the
 * iterate's real accuracy.
 */
#include <math.h>
#include <string.h>

#include "bbw/certificate.h"
#include "bbw/solve_state.h"

/* Fraction of the way to the boundary a step may go. */
#define SN_INTERIOR_BOUNDARY 0.99
/* Centrality correctors per step at most: tuned to minimise the steps
 * (each corrector costs a solve, not a factorisation). */
#define SN_INTERIOR_CORRECTORS 2
/* Steps without a certificate 10% better after which the method has
 * reached its accuracy (rounding): the split takes over. */
#define SN_INTERIOR_STALL 3
#define SN_INTERIOR_GAIN 0.9
/* Largest factor (entries) the method runs with: tuned so 20-30
 * factorisations of it cost less than the split and polish they replace. */
#define SN_INTERIOR_FACTOR_MAX 600000

typedef struct interior {
    solve_state *s;
    double rho;
    size_t nf, m, n;       /* free vertices, handles, unknowns nf (m - 1) */
    uint32_t *pivot;       /* per vertex: the handle eliminated */
    sn_sparse k;           /* H + T' D T, scaled (see fill_k) */
    double *h_vals;        /* H's values */
    double *scale;         /* n: 1 / sqrt(diagonal of H + T' D T) */
    sn_ldlt fac;
    double *w, *z, *g;     /* iterate, duals, gradient Q w - base */
    double *dw, *dz, *dw_aff, *dz_aff, *v; /* steps, right-hand side terms */
    double *y, *rhs, *res, *work;          /* n each: the Newton system */
    double *mult, *scratch_g, *scratch_d; /* certificates */
} interior;

/* Unknown number of handle j != pivot at free vertex f. */
static uint32_t unknown(const interior *ip, size_t f, uint32_t j)
{
    return (uint32_t)(f * (ip->m - 1) + (j < ip->pivot[f] ? j : j - 1));
}

/* Q_gf from the shifted system s->a (position pos of column f). */
static double q_entry(const interior *ip, size_t f, size_t pos)
{
    const solve_state *s = ip->s;
    return s->a.rows[pos] == f ? s->q_diagonal[f] : s->a.vals[pos];
}

/* Entries H may hold: (m - 1)^2 per entry of Q_FF. */
static size_t h_entries(const solve_state *s, size_t m)
{
    return s->a.colptr[s->nf] * (m - 1) * (m - 1);
}

/* Builds H, its pattern and values; vertices' own blocks are kept full
 * (T' D T fills them). */
static sinew_result build_h(interior *ip)
{
    const solve_state *s = ip->s;
    const sn_env *env = &s->b->env;
    size_t m = ip->m, count = h_entries(s, m);
    uint32_t *ri = sn_alloc_array(env, count, sizeof(uint32_t), "interior rows");
    uint32_t *ci = sn_alloc_array(env, count, sizeof(uint32_t), "interior columns");
    double *vals = sn_alloc_array(env, count, sizeof(double), "interior values");
    sinew_result r = SINEW_OK;
    if (!ri || !ci || !vals) {
        r = sn_alloc_failure();
        goto done;
    }
    size_t t = 0;
    for (size_t f = 0; f < ip->nf; ++f) {
        uint32_t pf = ip->pivot[f];
        for (size_t pos = s->a.colptr[f]; pos < s->a.colptr[f + 1]; ++pos) {
            size_t g = s->a.rows[pos];
            uint32_t pg = ip->pivot[g];
            double q = q_entry(ip, f, pos);
            for (uint32_t a = 0; a < m; ++a) {
                if (a == pf) continue;
                for (uint32_t b = 0; b < m; ++b) {
                    if (b == pg) continue;
                    double c = q * ((double)(a == b) - (double)(a == pg) - (double)(pf == b) + (double)(pf == pg));
                    if (c == 0.0 && g != f) continue;
                    ri[t] = unknown(ip, g, b);
                    ci[t] = unknown(ip, f, a);
                    vals[t++] = c;
                }
            }
        }
    }
    r = sn_sparse_from_triplets(env, ip->n, t, ri, ci, vals, &ip->k);
done:
    sn_free(env, ri);
    sn_free(env, ci);
    sn_free(env, vals);
    return r;
}

static int too_costly(const interior *ip, size_t fill)
{
    return fill > SN_INTERIOR_FACTOR_MAX || sn_bbw_polish_over_budget(ip->s, fill);
}

/* Orders the system vertex by vertex in the split factor's order (see
 * polish.c), the order its fill was estimated by; NOT_CONVERGED when the
 * factor is over the budget after all. */
static sinew_result analyse(interior *ip)
{
    const solve_state *s = ip->s;
    const sn_env *env = &s->b->env;
    size_t per = ip->m - 1;
    uint32_t *order = sn_alloc_array(env, ip->n, sizeof(uint32_t), "interior ordering");
    if (!order) return sn_alloc_failure();
    size_t placed = 0;
    for (size_t k = 0; k < ip->nf; ++k)
        for (size_t j = 0; j < per; ++j) order[placed++] = (uint32_t)(s->factor.perm[k] * per + j);
    sinew_result r = sn_ldlt_analyse_ordered(env, &ip->k, order, &ip->fac);
    sn_free(env, order);
    if (r != SINEW_OK) return r;
    return too_costly(ip, sn_ldlt_factor_nonzeros(&ip->fac)) ? SINEW_ERROR_NOT_CONVERGED : SINEW_OK;
}

/* g = Q w - base. */
static void gradient(const interior *ip, const double *w, double *g)
{
    const solve_state *s = ip->s;
    size_t m = ip->m;
    for (size_t k = 0; k < ip->nf * m; ++k) g[k] = -s->base[k];
    for (size_t f = 0; f < ip->nf; ++f)
        for (size_t pos = s->a.colptr[f]; pos < s->a.colptr[f + 1]; ++pos) {
            double q = q_entry(ip, f, pos), *gr = g + (size_t)s->a.rows[pos] * m;
            const double *wf = w + f * m;
            for (size_t j = 0; j < m; ++j) gr[j] += q * wf[j];
        }
}

/* K = S (H + T' D T) S with D = z / w and S the diagonal that makes K's
 * diagonal one: D grows without bound on the weights going to 0, and the
 * factor's pivot test is relative to the largest diagonal entry, which
 * would then refuse the others' pivots. */
static void fill_k(interior *ip)
{
    size_t m = ip->m, per = m - 1, n = ip->n;
    memcpy(ip->k.vals, ip->h_vals, ip->k.colptr[n] * sizeof(double));
    for (size_t col = 0; col < n; ++col) {
        size_t f = col / per;
        uint32_t a = (uint32_t)(col % per), p = ip->pivot[f];
        uint32_t ja = a < p ? a : a + 1;
        const double *w = ip->w + f * m, *z = ip->z + f * m;
        double dp = z[p] / w[p], da = z[ja] / w[ja];
        for (size_t pos = ip->k.colptr[col]; pos < ip->k.colptr[col + 1]; ++pos) {
            size_t row = ip->k.rows[pos];
            if (row / per != f) continue;
            ip->k.vals[pos] += dp + (row == col ? da : 0.0);
            if (row == col) ip->scale[col] = 1.0 / sqrt(ip->k.vals[pos]);
        }
    }
    for (size_t col = 0; col < n; ++col)
        for (size_t pos = ip->k.colptr[col]; pos < ip->k.colptr[col + 1]; ++pos)
            ip->k.vals[pos] *= ip->scale[col] * ip->scale[ip->k.rows[pos]];
}

/* Solves the Newton system for the right-hand side -T'(g + v) (g NULL:
 * none, for a corrector), with one step of iterative refinement, and
 * expands dw = T dy. */
static void newton_step(interior *ip, const double *g, const double *v, double *dw)
{
    size_t m = ip->m, n = ip->n;
    for (size_t f = 0; f < ip->nf; ++f) {
        uint32_t p = ip->pivot[f];
        const double *vf = v + f * m;
        for (uint32_t j = 0; j < m; ++j)
            if (j != p) {
                uint32_t a = unknown(ip, f, j);
                double gj = g ? g[f * m + j] - g[f * m + p] : 0.0;
                ip->rhs[a] = -(gj + vf[j] - vf[p]) * ip->scale[a];
            }
    }
    memcpy(ip->y, ip->rhs, n * sizeof(double));
    sn_ldlt_solve(&ip->fac, ip->y, 1, ip->work);
    sn_sparse_multiply(&ip->k, ip->y, ip->res);
    for (size_t a = 0; a < n; ++a) ip->res[a] = ip->rhs[a] - ip->res[a];
    sn_ldlt_solve(&ip->fac, ip->res, 1, ip->work);
    for (size_t a = 0; a < n; ++a) ip->y[a] = (ip->y[a] + ip->res[a]) * ip->scale[a];
    for (size_t f = 0; f < ip->nf; ++f) {
        uint32_t p = ip->pivot[f];
        double sum = 0.0;
        for (uint32_t j = 0; j < m; ++j)
            if (j != p) sum += dw[f * m + j] = ip->y[unknown(ip, f, j)];
        dw[f * m + p] = -sum;
    }
}

/* Largest step in (0, 1] keeping x + a dx >= 0. */
static double max_step(const double *x, const double *dx, size_t count)
{
    double a = 1.0;
    for (size_t k = 0; k < count; ++k)
        if (dx[k] < 0.0 && x[k] + a * dx[k] < 0.0) a = -x[k] / dx[k];
    return a;
}

/* Starting point: the split's start pulled halfway to the simplex's centre
 * (every weight positive; each vertex's largest weight becomes its pivot,
 * the one least likely to reach 0), and duals from the gradient's spread over each row,
 * shifted to be positive at a scale taken from the gradient itself. */
static void start(interior *ip)
{
    const solve_state *s = ip->s;
    size_t m = ip->m, cells = ip->nf * m;
    for (size_t k = 0; k < cells; ++k) ip->w[k] = 0.5 * s->z[k] + 0.5 / (double)m;
    for (size_t f = 0; f < ip->nf; ++f) {
        uint32_t best = 0;
        for (uint32_t j = 1; j < m; ++j)
            if (ip->w[f * m + j] > ip->w[f * m + best]) best = j;
        ip->pivot[f] = best;
    }
    gradient(ip, ip->w, ip->g);
    double spread = 0.0, size = 0.0;
    for (size_t f = 0; f < ip->nf; ++f) {
        const double *g = ip->g + f * m;
        double low = g[0];
        for (size_t j = 1; j < m; ++j) low = fmin(low, g[j]);
        for (size_t j = 0; j < m; ++j) {
            ip->z[f * m + j] = g[j] - low;
            spread += g[j] - low;
            size += fabs(g[j]);
        }
    }
    double shift = fmax(spread, 1e-3 * size) / (double)cells;
    if (!(shift > 0.0) || !isfinite(shift)) shift = 1.0;
    for (size_t k = 0; k < cells; ++k) ip->z[k] += shift;
}

/* Bound for the iterate with the method's own multiplier, y = mu_f - z,
 * mu_f = sum_j w_j (z_j - g_j) the row's multiplier of the partition
 * (g - z + mu_f = 0 at a solution of the Newton equations). */
static double certify_iterate(interior *ip)
{
    size_t m = ip->m;
    for (size_t f = 0; f < ip->nf; ++f) {
        const double *w = ip->w + f * m, *z = ip->z + f * m, *g = ip->g + f * m;
        double mu_f = 0.0;
        for (size_t j = 0; j < m; ++j) mu_f += w[j] * (z[j] - g[j]);
        for (size_t j = 0; j < m; ++j) ip->mult[f * m + j] = mu_f - z[j];
    }
    double own = sn_bbw_certify_multiplier(ip->s, ip->rho, ip->w, ip->mult, ip->scratch_g, ip->scratch_d);
    double wolfe = sn_bbw_certify_with(ip->s, ip->rho, 1, ip->w, ip->w, ip->scratch_g, ip->scratch_d);
    return fmin(own, wolfe);
}

/* mu: the mean of w o z. */
static double complementarity(const interior *ip)
{
    size_t cells = ip->nf * ip->m;
    double mu = 0.0;
    for (size_t k = 0; k < cells; ++k) mu += ip->w[k] * ip->z[k];
    return mu / (double)cells;
}

/* One predictor-corrector step (K factored). Returns 0 when rounding has
 * left no usable step. */
static int step(interior *ip, double mu)
{
    size_t cells = ip->nf * ip->m;
    /* Predictor (affine scaling): v = 0, dz = -z - (z / w) dw. */
    memset(ip->v, 0, cells * sizeof(double));
    newton_step(ip, ip->g, ip->v, ip->dw_aff);
    for (size_t k = 0; k < cells; ++k) ip->dz_aff[k] = -ip->z[k] - ip->z[k] / ip->w[k] * ip->dw_aff[k];
    double a_aff = fmin(max_step(ip->w, ip->dw_aff, cells), max_step(ip->z, ip->dz_aff, cells));
    double mu_aff = 0.0;
    for (size_t k = 0; k < cells; ++k)
        mu_aff += (ip->w[k] + a_aff * ip->dw_aff[k]) * (ip->z[k] + a_aff * ip->dz_aff[k]);
    mu_aff /= (double)cells;
    double ratio = fmax(mu_aff, 0.0) / mu, sigma = ratio * ratio * ratio;
    /* Corrector: v = (dw_aff dz_aff - sigma mu) / w. */
    for (size_t k = 0; k < cells; ++k) ip->v[k] = (ip->dw_aff[k] * ip->dz_aff[k] - sigma * mu) / ip->w[k];
    newton_step(ip, ip->g, ip->v, ip->dw);
    for (size_t k = 0; k < cells; ++k) ip->dz[k] = -ip->z[k] - ip->v[k] - ip->z[k] / ip->w[k] * ip->dw[k];
    double a = fmin(max_step(ip->w, ip->dw, cells), max_step(ip->z, ip->dz, cells));
    /* Gondzio's centrality correctors: aim at a longer step, push the
     * products w z that would leave [sigma mu / 10, 10 sigma mu] back in,
     * keep the correction while it lengthens the step (each costs two
     * solves; the factorisation is 50 times dearer). dw_aff and dz_aff,
     * done with, hold the corrected direction. */
    for (int c = 0; c < SN_INTERIOR_CORRECTORS && a < 1.0; ++c) {
        double reach = fmin(1.0, 1.5 * a + 0.3), lo = 0.1 * sigma * mu, hi = 10.0 * sigma * mu;
        for (size_t k = 0; k < cells; ++k) {
            double prod = (ip->w[k] + reach * ip->dw[k]) * (ip->z[k] + reach * ip->dz[k]);
            double t = prod < lo ? lo - prod : prod > hi ? fmax(hi - prod, -hi) : 0.0;
            ip->dz_aff[k] = t;
            ip->v[k] = -t / ip->w[k];
        }
        newton_step(ip, NULL, ip->v, ip->dw_aff);
        for (size_t k = 0; k < cells; ++k) {
            ip->dz_aff[k] = (ip->dz_aff[k] - ip->z[k] * ip->dw_aff[k]) / ip->w[k] + ip->dz[k];
            ip->dw_aff[k] += ip->dw[k];
        }
        double a2 = fmin(max_step(ip->w, ip->dw_aff, cells), max_step(ip->z, ip->dz_aff, cells));
        if (!(a2 >= 1.01 * a)) break;
        a = a2;
        memcpy(ip->dw, ip->dw_aff, cells * sizeof(double));
        memcpy(ip->dz, ip->dz_aff, cells * sizeof(double));
    }
    a *= SN_INTERIOR_BOUNDARY;
    if (!(a > 0.0)) return 0;
    for (size_t k = 0; k < cells; ++k) {
        ip->w[k] += a * ip->dw[k];
        ip->z[k] += a * ip->dz[k];
        if (!(ip->w[k] > 0.0) || !(ip->z[k] > 0.0) || !isfinite(ip->w[k] + ip->z[k])) return 0;
    }
    gradient(ip, ip->w, ip->g);
    return 1;
}

/* Certifies and steps until an iterate is within the tolerance (OK), or
 * the method stalls, reaches max_steps or is stopped by rounding
 * (NOT_CONVERGED); other results are failures (allocation, cancel). */
static sinew_result iterate(interior *ip, uint32_t max_steps, uint32_t *steps)
{
    solve_state *s = ip->s;
    double best = INFINITY;
    uint32_t last_gain = 0;
    for (uint32_t it = 0;; ++it) {
        double bound = certify_iterate(ip);
        sn_bbw_keep_if_best(s, ip->w, bound);
        if (sn_bbw_certified(s, s->best_bound, s->best_rounding)) return SINEW_OK;
        if (bound < SN_INTERIOR_GAIN * best) {
            best = bound;
            last_gain = it;
        } else if (it >= last_gain + SN_INTERIOR_STALL) {
            return SINEW_ERROR_NOT_CONVERGED;
        }
        double mu = complementarity(ip);
        if (*steps >= max_steps || !(mu > 0.0)) return SINEW_ERROR_NOT_CONVERGED;
        fill_k(ip);
        sinew_result r = sn_ldlt_factor(&s->b->env, &ip->fac, &ip->k);
        if (r == SINEW_ERROR_DEGENERATE) {
            sn_clear_error(); /* rounding has made K indefinite: the split takes over */
            return SINEW_ERROR_NOT_CONVERGED;
        }
        if (r != SINEW_OK) return r;
        ++*steps;
        if (!step(ip, mu)) return SINEW_ERROR_NOT_CONVERGED;
        if ((r = sn_progress(s->call, "bbw: interior", (float)*steps / (float)max_steps)) != SINEW_OK) return r;
    }
}

sinew_result sn_bbw_interior(solve_state *s, double rho, uint32_t max_steps, uint32_t *steps)
{
    const sn_env *env = &s->b->env;
    interior ip = {.s = s, .rho = rho, .nf = s->nf, .m = s->b->handle_count};
    *steps = 0;
    if (ip.nf == 0 || ip.m < 2 || max_steps == 0) return SINEW_ERROR_NOT_CONVERGED;
    ip.n = ip.nf * (ip.m - 1);
    size_t cells = ip.nf * ip.m;
    /* In the split's order each entry of its factor becomes an (m - 1)^2
     * block of this one (to within a few percent), so the fill is known
     * before anything is built. */
    size_t per = ip.m - 1, estimate = sn_ldlt_factor_nonzeros(&s->factor) * per * per;
    if (sn_bbw_polish_over_budget_unknowns(s, ip.n) || too_costly(&ip, estimate)) return SINEW_ERROR_NOT_CONVERGED;
    double **cell_arrays[] = {&ip.w,      &ip.z, &ip.g,    &ip.dw,        &ip.dz,       &ip.dw_aff,
                              &ip.dz_aff, &ip.v, &ip.mult, &ip.scratch_g, &ip.scratch_d};
    double **unknown_arrays[] = {&ip.y, &ip.rhs, &ip.res, &ip.work, &ip.scale};
    size_t cell_count = sizeof cell_arrays / sizeof *cell_arrays;
    size_t unknown_count = sizeof unknown_arrays / sizeof *unknown_arrays;
    int ok = 1;
    for (size_t i = 0; i < cell_count; ++i)
        ok &= (*cell_arrays[i] = sn_alloc_array(env, cells, sizeof(double), "interior iterate")) != NULL;
    for (size_t i = 0; i < unknown_count; ++i)
        ok &= (*unknown_arrays[i] = sn_alloc_array(env, ip.n, sizeof(double), "interior system")) != NULL;
    ip.pivot = sn_alloc_array(env, ip.nf, sizeof(uint32_t), "interior pivots");
    sinew_result r = SINEW_OK;
    if (!ok || !ip.pivot) {
        r = sn_alloc_failure();
        goto done;
    }
    start(&ip); /* chooses the pivots, which H depends on */
    if ((r = build_h(&ip)) != SINEW_OK) goto done;
    ip.h_vals = sn_alloc_array(env, ip.k.colptr[ip.n], sizeof(double), "interior H values");
    if (!ip.h_vals) {
        r = sn_alloc_failure();
        goto done;
    }
    memcpy(ip.h_vals, ip.k.vals, ip.k.colptr[ip.n] * sizeof(double));
    if ((r = analyse(&ip)) != SINEW_OK) goto done;
    r = iterate(&ip, max_steps, steps);
done:
    for (size_t i = 0; i < cell_count; ++i) sn_free(env, *cell_arrays[i]);
    for (size_t i = 0; i < unknown_count; ++i) sn_free(env, *unknown_arrays[i]);
    sn_free(env, ip.pivot);
    sn_free(env, ip.h_vals);
    sn_sparse_free(env, &ip.k);
    sn_ldlt_free(env, &ip.fac);
    return r;
}
