/*
 * The certified error bound of the weights: the smallest eigenvalue of the
 * biharmonic operator relative to the mass (certified from below by a
 * factorisation), and the duality gaps that turn feasible weights and a
 * multiplier into a bound on the weights' error (certificate.h).
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "bbw/certificate.h"

/* Below this tolerance the float output's own rounding (at most 2^-24
 * relative, so at most 2^-24 RMS for rows of weights in [0, 1] summing to
 * at most one) could not be certified away: such tolerances are asked of
 * the solve's doubles. Twice the largest rounding, so above it a bound
 * within the tolerance always leaves room for the rounding. */
#define SN_BBW_FLOAT_RESOLUTION 0x1p-23

/* Lanczos steps for the smallest eigenvalue: at most, and the relative
 * change of the estimate that ends them. */
#define SN_BBW_EIGEN_STEPS 40
#define SN_BBW_EIGEN_TOL 1e-4
/* The estimate approaches lambda_min from above, so the bound uses
 * a value certified below it: SAFETY times the estimate, accepted only when
 * Q_FF - sigma M factorises with positive pivots (then v'Qv > sigma v'Mv for
 * every v, Sylvester's law of inertia); otherwise sigma shrinks by SHRINK,
 * at most TRIES times. */
#define SN_BBW_EIGEN_SAFETY 0.9
#define SN_BBW_EIGEN_SHRINK 0.25
#define SN_BBW_EIGEN_TRIES 6
/* Bisection steps for the largest eigenvalue of the Lanczos matrix: each
 * halves the bracket, so 100 reach double precision from any Gershgorin
 * interval. */
#define SN_BBW_EIGEN_BISECTIONS 100

/* The largest eigenvalue of the symmetric tridiagonal matrix with diagonal
 * alpha[0..k) and off-diagonal beta[1..k) (beta[i] couples i - 1 and i), by
 * bisection on Sturm counts (the negative pivots of T - t I count the
 * eigenvalues below t) inside the Gershgorin interval; returns the upper
 * end of the last bracket. */
static double tridiagonal_largest(const double *alpha, const double *beta, size_t k)
{
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < k; ++i) {
        double r = (i ? fabs(beta[i]) : 0.0) + (i + 1 < k ? fabs(beta[i + 1]) : 0.0);
        lo = fmin(lo, alpha[i] - r);
        hi = fmax(hi, alpha[i] + r);
    }
    for (int step = 0; step < SN_BBW_EIGEN_BISECTIONS; ++step) {
        double t = 0.5 * (lo + hi);
        if (!(t > lo && t < hi)) break;
        size_t below = 0;
        double d = 1.0;
        for (size_t i = 0; i < k; ++i) {
            d = alpha[i] - t - (i ? beta[i] * beta[i] / d : 0.0);
            /* A zero pivot is taken as a tiny negative one (t is then an
             * eigenvalue of the leading block, counted below). */
            if (d == 0.0) d = -DBL_MIN;
            below += d < 0.0;
        }
        if (below == k) hi = t;
        else lo = t;
    }
    return hi;
}

/* Smallest eigenvalue of Q_FF v = lambda M_FF v by the Lanczos iteration on
 * Q_FF^-1 M_FF (self-adjoint in the M inner product; its largest eigenvalue
 * is 1 / lambda_min), with the factor of Q_FF (called while s->a and
 * s->factor hold Q_FF unshifted). The lowest mode is smooth and of one
 * sign, so the constant vector is a good start. The largest eigenvalue of
 * the Lanczos matrix grows toward 1 / lambda_min from below (the Ritz values
 * lie inside the spectrum), so the estimate approaches lambda_min from
 * above. It converges at the rate of the Chebyshev polynomials, not of
 * powers of the eigenvalues' ratio, so clustered low modes (a volume of many
 * limbs) settle too: 6 to 11 steps on the rig set's volumes. The steps stop
 * once the estimate changes by less than SN_BBW_EIGEN_TOL. Uses s->x, s->g,
 * s->rhs and s->work. */
void sn_bbw_estimate_lambda_min(solve_state *s)
{
    const sinew_bbw *b = s->b;
    size_t nf = s->nf;
    double *v = s->x, *previous = s->g, *w = s->rhs, last = INFINITY;
    double alpha[SN_BBW_EIGEN_STEPS], beta[SN_BBW_EIGEN_STEPS + 1];
    s->free_mass = 0.0;
    for (size_t f = 0; f < nf; ++f) s->free_mass += b->mass[s->free_vertex[f]];
    s->lambda_min = 0.0;
    if (!(s->free_mass > 0.0)) return;
    double start = 1.0 / sqrt(s->free_mass);
    for (size_t f = 0; f < nf; ++f) {
        v[f] = start;
        previous[f] = 0.0;
    }
    beta[0] = 0.0;
    for (size_t k = 0; k < SN_BBW_EIGEN_STEPS; ++k) {
        /* w = Q^-1 M v - beta_k v_{k-1}, then its M-projection on v. */
        for (size_t f = 0; f < nf; ++f) w[f] = b->mass[s->free_vertex[f]] * v[f];
        sn_ldlt_solve(&s->factor, w, 1, s->work);
        double a = 0.0;
        for (size_t f = 0; f < nf; ++f) {
            w[f] -= beta[k] * previous[f];
            a += w[f] * b->mass[s->free_vertex[f]] * v[f];
        }
        alpha[k] = a;
        double norm_sq = 0.0;
        for (size_t f = 0; f < nf; ++f) {
            w[f] -= a * v[f];
            norm_sq += w[f] * w[f] * b->mass[s->free_vertex[f]];
        }
        beta[k + 1] = sqrt(norm_sq);
        double largest = tridiagonal_largest(alpha, beta, k + 1);
        if (!(largest > 0.0) || !isfinite(largest)) break;
        s->lambda_min = 1.0 / largest;
        if (fabs(last - s->lambda_min) <= SN_BBW_EIGEN_TOL * s->lambda_min) break;
        last = s->lambda_min;
        /* An invariant subspace: the matrix holds its eigenvalues exactly. */
        if (!(beta[k + 1] > 1e-12 * fabs(a))) break;
        double scale = 1.0 / beta[k + 1];
        for (size_t f = 0; f < nf; ++f) {
            previous[f] = v[f];
            v[f] = w[f] * scale;
        }
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
sinew_result sn_bbw_certify_lambda_min(solve_state *s)
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
 * negative part would cancel other rows' real gap (far from the origin the
 * sum can reach exactly 0), so the part's size is counted. */
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

/* sqrt(2 gap / (lambda_min free mass)): the certified bound on the
 * weights' mass-weighted RMS error for an optimality gap (INFINITY when
 * lambda_min is unknown). */
static double sn_bbw_bound_from_gap(const solve_state *s, double gap)
{
    if (!(s->lambda_min > 0.0) || !(s->free_mass > 0.0) || isnan(gap)) return INFINITY;
    return sqrt(fmax(gap, 0.0) * 2.0 / (s->lambda_min * s->free_mass));
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
         * that rounding times a multiplier of the gradient's size (1e3 and
         * more on tet meshes) would be the gap's floor. */
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

/* The mass-weighted RMS, over the free vertices, of what converting the
 * feasible weights z to the float output changes (the rows as the solve
 * writes them out: exact rows as they are, box rows normalised). By the
 * triangle inequality the float weights' error is at most a bound on z's
 * error plus this. */
static double sn_bbw_output_rounding(const solve_state *s, const double *z)
{
    const sinew_bbw *b = s->b;
    size_t m = b->handle_count;
    if (!(s->free_mass > 0.0)) return 0.0;
    double sq = 0.0;
    for (size_t f = 0; f < s->nf; ++f) {
        const double *zf = z + f * m;
        /* The same arithmetic as the output (level.c). */
        double sum = 0.0, row = 0.0;
        for (size_t j = 0; j < m; ++j) sum += zf[j];
        double scale = s->exact || sum <= 0.0 ? 1.0 : 1.0 / sum;
        for (size_t j = 0; j < m; ++j) {
            double y = zf[j] * scale, e = sn_round_to_float(y) - y;
            row += e * e;
        }
        sq += b->mass[s->free_vertex[f]] * row;
    }
    return sqrt(sq / s->free_mass);
}

int sn_bbw_certified(const solve_state *s, double bound, double rounding)
{
    if (s->tolerance < SN_BBW_FLOAT_RESOLUTION) return bound <= s->tolerance;
    return bound + rounding <= s->tolerance;
}

/* Remembers z (with its rounding) when bound beats the best so far. */
static void keep(solve_state *s, const double *z, double bound, double rounding)
{
    if (bound < s->best_bound) {
        s->best_bound = bound;
        s->best_rounding = rounding;
        memcpy(s->best_z, z, s->nf * s->b->handle_count * sizeof(double));
    }
}

void sn_bbw_keep_if_best(solve_state *s, const double *z, double bound)
{
    if (bound < s->best_bound) keep(s, z, bound, sn_bbw_output_rounding(s, z));
}

/* Certifies the current weights (certify) and remembers them when their
 * bound is the best so far. Returns the bound. */
double sn_bbw_certify_split(solve_state *s, double rho, int exact, double *rounding)
{
    double bound = certify(s, rho, exact);
    *rounding = sn_bbw_output_rounding(s, s->z);
    keep(s, s->z, bound, *rounding);
    return bound;
}
