/*
 * Active-set polish. The splitting iteration finds which weights are zero
 * quickly but converges slowly on the values: the biharmonic operator is
 * badly conditioned. With the zero pattern (and, per handle, the pattern of
 * ones) guessed from its iterate, the remaining problem is an
 * equality-constrained quadratic, solved exactly by one sparse LDL^T:
 *
 *   w = c + T y,   H = T' (I (x) Q) T,   H y = T' (base - (I (x) Q) c).
 *
 * Exact partition of unity eliminates one "pivot" handle per vertex (its
 * weight is one minus the others), so H stays positive definite. The
 * solution is then checked against the KKT conditions (a negative weight
 * would leave the support, a zero weight whose gradient wants to grow would
 * join it); when nothing would change it is the QP's solution to rounding,
 * not to an iteration tolerance.
 *
 * Otherwise the next pattern is not the KKT check's: flipping every
 * violated weight at once (a primal-dual active-set step) cycles on
 * domains whose operator is far from an M-matrix. Instead a feasible iterate x moves by a
 * projected search toward the round's solution w, the first of
 * P(x + a (w - x)), a = 1, 1/2, ..., that lowers the energy (Bertsekas'
 * projected Newton method with exact face solves), and the next pattern is
 * read from x: a weight on a bound whose gradient pushes outward stays
 * there, every other is free. The energy falls every round, so the
 * pattern cannot cycle. The first round reads the split's support (its
 * iterate is not a face solution, and its gradient signs would free most
 * zeros).
 */
#include <math.h>
#include <string.h>

#include "bbw/certificate.h"
#include "bbw/project.h"
#include "bbw/solve_state.h"

enum { PZERO = 0, PFREE = 1, PONE = 2 };

/* Values within this of a bound count as on it when reading an iterate's
 * pattern (the split's iterate is only near its zeros; the projections of
 * later rounds leave exact ones). */
#define SN_POLISH_SUPPORT 1e-6
/* Feasibility slack on weights, and on gradients relative to Q's diagonal:
 * well above rounding, far below anything visible. */
#define SN_POLISH_EPS_W 1e-9
#define SN_POLISH_EPS_G 1e-9
/* The polish is skipped when its system would have more than
 * SN_POLISH_UNKNOWN_BUDGET times the split's unknowns, or its factor more than
 * SN_POLISH_FILL_BUDGET times the split factor's entries: wide supports make
 * the pivot-eliminated system dense in handles, and its factorisation would
 * then cost more than the splitting it replaces. */
#define SN_POLISH_UNKNOWN_BUDGET 2
#define SN_POLISH_FILL_BUDGET 3
/* Below these absolute sizes the polish is always affordable (a few tens of
 * milliseconds): small domains get their exact finish whatever the ratios. */
#define SN_POLISH_SMALL_UNKNOWNS 8000
#define SN_POLISH_SMALL_FACTOR 400000

typedef struct polish {
    solve_state *s;
    double rho;
    int exact;
    size_t nf, m;
    uint8_t *code;       /* nf x m: PZERO / PFREE / PONE */
    uint32_t *pivot;     /* exact mode: the eliminated handle per vertex */
    uint32_t *var;       /* nf x m: unknown index, UINT32_MAX if none */
    uint32_t *var_count; /* unknowns per vertex */
    double *w, *grad, *r;
    double *candidate, *diff; /* the projected w certified each round, scratch */
    double *x, *gx, *trial, *qd; /* feasible iterate, its gradient, a line-search point, Q times a step */
} polish;

/* Q_FF(g, f) from the shifted system s->a (position p in column f). */
static double q_value(const polish *p, size_t f, size_t pos)
{
    const solve_state *s = p->s;
    double v = s->a.vals[pos];
    if (s->a.rows[pos] == f) v -= p->rho * s->metric[f];
    return v;
}

/* Coefficient of H between unknown (f, ja) and (g, jb), given Q_fg. */
static double h_coef(const polish *p, size_t f, uint32_t ja, size_t g, uint32_t jb, double q)
{
    double t = (ja == jb);
    if (p->exact) t += -(double)(ja == p->pivot[g]) - (double)(p->pivot[f] == jb) + (double)(p->pivot[f] == p->pivot[g]);
    return q * t;
}

/* out = Q_FF v - minus (minus NULL: none). */
static void q_times(const polish *p, const double *v, const double *minus, double *out)
{
    const solve_state *s = p->s;
    size_t m = p->m, cells = p->nf * m;
    if (minus)
        for (size_t k = 0; k < cells; ++k) out[k] = -minus[k];
    else
        memset(out, 0, cells * sizeof(double));
    for (size_t f = 0; f < p->nf; ++f) {
        const double *vf = v + f * m;
        for (size_t pos = s->a.colptr[f]; pos < s->a.colptr[f + 1]; ++pos) {
            double q = q_value(p, f, pos);
            double *o = out + (size_t)s->a.rows[pos] * m;
            for (size_t j = 0; j < m; ++j) o[j] += q * vf[j];
        }
    }
}

int sn_bbw_polish_over_budget(const solve_state *s, size_t fill)
{
    return fill > SN_POLISH_FILL_BUDGET * sn_ldlt_factor_nonzeros(&s->factor) + 4096 && fill > SN_POLISH_SMALL_FACTOR;
}

int sn_bbw_polish_over_budget_unknowns(const solve_state *s, size_t unknowns)
{
    return unknowns > SN_POLISH_UNKNOWN_BUDGET * s->nf && unknowns > SN_POLISH_SMALL_UNKNOWNS;
}

/* Analyses H. Unknowns go vertex by vertex in the split's fill-reducing
 * order: H couples only the unknowns of Q's neighbouring vertices, so that
 * order serves H nearly as well as a dissection of H's own graph, and saves
 * it (nearly half a round's time). Where that order's factor would break
 * the budget, H gets its own dissection (graph and geometric, the cheaper),
 * which fills less and keeps the polish affordable there. */
static sinew_result analyse_system(const polish *p, const sn_sparse *h, uint32_t *order, sn_ldlt *fac)
{
    const solve_state *s = p->s;
    const sn_env *env = &s->b->env;
    size_t nf = p->nf, m = p->m, placed = 0;
    for (size_t k = 0; k < nf; ++k) {
        size_t f = s->factor.perm[k];
        for (size_t j = 0; j < m; ++j)
            if (p->var[f * m + j] != UINT32_MAX) order[placed++] = p->var[f * m + j];
    }
    sinew_result r = sn_ldlt_analyse_ordered(env, h, order, fac);
    if (r != SINEW_OK || !sn_bbw_polish_over_budget(s, sn_ldlt_factor_nonzeros(fac))) return r;
    double *coords = sn_alloc_array(env, h->n, 3 * sizeof(double), "polish coordinates");
    if (!coords) return sn_alloc_failure();
    for (size_t f = 0; f < nf; ++f)
        for (size_t j = 0; j < m; ++j) {
            uint32_t a = p->var[f * m + j];
            if (a != UINT32_MAX)
                memcpy(coords + 3 * (size_t)a, s->b->positions + 3 * (size_t)s->free_vertex[f], 3 * sizeof(double));
        }
    sn_ldlt dissected = {0};
    r = sn_ldlt_analyse_quick(env, h, coords, &dissected);
    sn_free(env, coords);
    if (r != SINEW_OK) return r;
    if (sn_ldlt_factor_nonzeros(&dissected) < sn_ldlt_factor_nonzeros(fac)) {
        sn_ldlt_free(env, fac);
        *fac = dissected;
    } else {
        sn_ldlt_free(env, &dissected);
    }
    return SINEW_OK;
}

/* One equality-constrained solve for the current codes; fills p->w. */
/* Numbers the unknowns of the current codes (p->var, p->var_count): the
 * free weights, less each exact row's pivot. Returns their count. */
static size_t number_unknowns(polish *p)
{
    size_t m = p->m, unknowns = 0;
    for (size_t f = 0; f < p->nf; ++f) {
        p->var_count[f] = 0;
        for (size_t j = 0; j < m; ++j) {
            size_t k = f * m + j;
            int is_var = p->code[k] == PFREE && !(p->exact && j == p->pivot[f]);
            p->var[k] = is_var ? (uint32_t)unknowns++ : UINT32_MAX;
            p->var_count[f] += (uint32_t)is_var;
        }
    }
    return unknowns;
}

static sinew_result solve_pattern(polish *p)
{
    solve_state *s = p->s;
    const sn_env *env = &s->b->env;
    size_t nf = p->nf, m = p->m, unknowns = number_unknowns(p);
    /* Constant part c and r = base - Q c. */
    memset(p->w, 0, nf * m * sizeof(double));
    for (size_t f = 0; f < nf; ++f) {
        if (p->exact) p->w[f * m + p->pivot[f]] = 1.0;
        else
            for (size_t j = 0; j < m; ++j)
                if (p->code[f * m + j] == PONE) p->w[f * m + j] = 1.0;
    }
    q_times(p, p->w, s->base, p->grad); /* Q c - base */
    for (size_t k = 0; k < nf * m; ++k) p->r[k] = -p->grad[k];
    if (unknowns == 0) return SINEW_OK;
    if (sn_bbw_polish_over_budget_unknowns(s, unknowns)) return SINEW_ERROR_NOT_CONVERGED;

    size_t bound = 0;
    for (size_t f = 0; f < nf; ++f)
        for (size_t pos = s->a.colptr[f]; pos < s->a.colptr[f + 1]; ++pos)
            bound += (size_t)p->var_count[f] * p->var_count[s->a.rows[pos]];
    /* The factor holds at least half of H's entries: refuse before building
     * anything when that alone breaks the budget. */
    if (sn_bbw_polish_over_budget(s, bound / 2)) return SINEW_ERROR_NOT_CONVERGED;
    uint32_t *ri = sn_alloc_array(env, bound, sizeof(uint32_t), "polish rows");
    uint32_t *ci = sn_alloc_array(env, bound, sizeof(uint32_t), "polish columns");
    double *vals = sn_alloc_array(env, bound, sizeof(double), "polish values");
    double *y = sn_alloc_array(env, unknowns, sizeof(double), "polish unknowns");
    double *work = sn_alloc_array(env, unknowns, sizeof(double), "polish workspace");
    uint32_t *order = sn_alloc_array(env, unknowns, sizeof(uint32_t), "polish ordering");
    sn_sparse h = {0};
    sn_ldlt fac = {0};
    sinew_result r = SINEW_OK;
    if (!ri || !ci || !vals || !y || !work || !order) {
        r = sn_alloc_failure();
        goto done;
    }
    size_t t = 0;
    for (size_t f = 0; f < nf; ++f) {
        if (!p->var_count[f]) continue;
        for (size_t pos = s->a.colptr[f]; pos < s->a.colptr[f + 1]; ++pos) {
            size_t g = s->a.rows[pos];
            if (!p->var_count[g]) continue;
            double q = q_value(p, f, pos);
            for (uint32_t ja = 0; ja < m; ++ja) {
                uint32_t a = p->var[f * m + ja];
                if (a == UINT32_MAX) continue;
                for (uint32_t jb = 0; jb < m; ++jb) {
                    uint32_t b = p->var[g * m + jb];
                    if (b == UINT32_MAX) continue;
                    double c = h_coef(p, f, ja, g, jb, q);
                    if (c == 0.0 && a != b) continue;
                    ri[t] = b;
                    ci[t] = a;
                    vals[t++] = c;
                }
            }
        }
    }
    for (size_t f = 0; f < nf; ++f)
        for (size_t j = 0; j < m; ++j) {
            uint32_t a = p->var[f * m + j];
            if (a == UINT32_MAX) continue;
            y[a] = p->r[f * m + j] - (p->exact ? p->r[f * m + p->pivot[f]] : 0.0);
        }
    if ((r = sn_sparse_from_triplets(env, unknowns, t, ri, ci, vals, &h)) != SINEW_OK) goto done;
    sn_free(env, ri);
    sn_free(env, ci);
    sn_free(env, vals);
    ri = ci = NULL;
    vals = NULL;
    if ((r = analyse_system(p, &h, order, &fac)) != SINEW_OK) goto done;
    if (sn_bbw_polish_over_budget(s, sn_ldlt_factor_nonzeros(&fac))) {
        /* Too costly (see SN_POLISH_FILL_BUDGET): the split's answer stands. */
        r = SINEW_ERROR_NOT_CONVERGED;
        goto done;
    }
    if ((r = sn_ldlt_factor(env, &fac, &h)) != SINEW_OK) goto done;
    sn_ldlt_solve(&fac, y, 1, work);
    for (size_t f = 0; f < nf; ++f)
        for (size_t j = 0; j < m; ++j) {
            uint32_t a = p->var[f * m + j];
            if (a == UINT32_MAX) continue;
            p->w[f * m + j] += y[a];
            if (p->exact) p->w[f * m + p->pivot[f]] -= y[a];
        }
done:
    sn_free(env, ri);
    sn_free(env, ci);
    sn_free(env, vals);
    sn_free(env, y);
    sn_free(env, work);
    sn_free(env, order);
    sn_sparse_free(env, &h);
    sn_ldlt_free(env, &fac);
    return r;
}

/* KKT check of the round's solution p->w: how many weights violate it (a
 * free weight outside its bounds, a weight on a bound whose gradient, against
 * the pivot's in exact mode, wants it inside); 0 means w is the QP's
 * solution. */
static size_t kkt_violations(polish *p)
{
    const solve_state *s = p->s;
    size_t m = p->m, violations = 0;
    q_times(p, p->w, s->base, p->grad);
    for (size_t f = 0; f < p->nf; ++f) {
        double eps_g = SN_POLISH_EPS_G * q_value(p, f, s->diag_pos[f]);
        const uint8_t *code = p->code + f * m;
        const double *w = p->w + f * m, *g = p->grad + f * m;
        double mu = p->exact ? g[p->pivot[f]] : 0.0;
        for (size_t j = 0; j < m; ++j) {
            if (code[j] == PFREE) violations += w[j] < -SN_POLISH_EPS_W || (!p->exact && w[j] > 1.0 + SN_POLISH_EPS_W);
            else if (code[j] == PZERO) violations += g[j] - mu < -eps_g;
            else violations += g[j] > eps_g; /* PONE, box rows only */
        }
    }
    return violations;
}

/* The multiplier the round's face implies (exact mode), for certificate.c's
 * certificate with a given multiplier: on a row's free weights the common
 * value of -g (their mean: equal up to the face solve's rounding), on its
 * zeros -g where the gradient lies above the free ones' and that common
 * value elsewhere. Unlike the Frank-Wolfe gap (first order in the face
 * solve's rounding, a floor near 1e-5 on hard domains), this leaves the
 * rounding only in a second-order term. Needs p->grad = Q w - base. */
static void pattern_multiplier(const polish *p, double *y)
{
    size_t m = p->m;
    for (size_t f = 0; f < p->nf; ++f) {
        const uint8_t *code = p->code + f * m;
        const double *g = p->grad + f * m;
        double sum = 0.0, count = 0.0;
        for (size_t j = 0; j < m; ++j)
            if (code[j] == PFREE) {
                sum += g[j];
                count += 1.0;
            }
        double common = count > 0.0 ? -sum / count : 0.0;
        for (size_t j = 0; j < m; ++j) y[f * m + j] = code[j] == PFREE ? common : common - fmax(g[j] + common, 0.0);
    }
}

/* The handle an exact row's pivot is taken at: its largest weight. */
static uint32_t row_pivot(const double *x, size_t m)
{
    uint32_t best = 0;
    for (uint32_t j = 1; j < m; ++j)
        if (x[j] > x[best]) best = j;
    return best;
}

/* Armijo fraction of the predicted decrease a line-search step must reach,
 * and the shortest step tried before the round gives up. */
#define SN_POLISH_ARMIJO 1e-4
#define SN_POLISH_MIN_STEP 1e-8

/* The pattern of the next face from the feasible iterate xs and its
 * gradient gs: a weight on a bound whose (reduced) gradient pushes it
 * outward stays there, every other is free; the first pattern keeps every
 * weight on a bound there and does not read gs. In exact mode the pivot is
 * the vertex's largest weight, so the row's sum constraint is never the
 * binding one. */
static void pattern_from_iterate(polish *p, const double *xs, const double *gs, int first)
{
    size_t m = p->m;
    for (size_t f = 0; f < p->nf; ++f) {
        const double *x = xs + f * m, *g = first ? NULL : gs + f * m;
        uint8_t *code = p->code + f * m;
        if (p->exact) {
            uint32_t best = row_pivot(x, m);
            p->pivot[f] = best;
            for (uint32_t j = 0; j < m; ++j)
                code[j] = j != best && x[j] <= SN_POLISH_SUPPORT && (first || g[j] >= g[best]) ? PZERO : PFREE;
        } else {
            for (size_t j = 0; j < m; ++j) {
                code[j] = PFREE;
                if (x[j] <= SN_POLISH_SUPPORT && (first || g[j] >= 0.0)) code[j] = PZERO;
                else if (x[j] >= 1.0 - SN_POLISH_SUPPORT && (first || g[j] <= 0.0)) code[j] = PONE;
            }
        }
    }
}

/* Projected search from x toward the face minimiser p->w: the first of
 * P(x + a (w - x)), a = 1, 1/2, ..., that lowers the energy by an Armijo
 * fraction becomes the new x (its gradient updated). The energy change is
 * computed as g'd + d'Q d / 2, not as a difference of energies, which would
 * drown in rounding near the end. Returns 0 when no step lowers it. */
static int projected_search(polish *p, const double *first_trial)
{
    size_t m = p->m, cells = p->nf * m;
    for (double a = 1.0; a >= SN_POLISH_MIN_STEP; a *= 0.5) {
        if (a == 1.0) memcpy(p->trial, first_trial, cells * sizeof(double));
        else {
            for (size_t k = 0; k < cells; ++k) p->trial[k] = p->x[k] + a * (p->w[k] - p->x[k]);
            for (size_t f = 0; f < p->nf; ++f) sn_bbw_project_row(p->trial + f * m, m, p->exact, p->s->scratch);
        }
        for (size_t k = 0; k < cells; ++k) p->diff[k] = p->trial[k] - p->x[k];
        q_times(p, p->diff, NULL, p->qd);
        double slope = 0.0, curvature = 0.0;
        for (size_t k = 0; k < cells; ++k) {
            slope += p->gx[k] * p->diff[k];
            curvature += p->diff[k] * p->qd[k];
        }
        double change = slope + 0.5 * curvature;
        if (slope < 0.0 && change <= SN_POLISH_ARMIJO * slope) {
            memcpy(p->x, p->trial, cells * sizeof(double));
            for (size_t k = 0; k < cells; ++k) p->gx[k] += p->qd[k];
            return 1;
        }
    }
    return 0;
}

sinew_result sn_bbw_polish(solve_state *s, double rho, int exact, uint32_t max_rounds, uint32_t *rounds, int *moved)
{
    const sn_env *env = &s->b->env;
    polish p = {.s = s, .rho = rho, .exact = exact, .nf = s->nf, .m = s->b->handle_count};
    size_t cells = p.nf * p.m;
    *rounds = 0;
    *moved = 0;
    if (p.nf == 0) return SINEW_OK;
    p.code = sn_alloc_array(env, cells, 1, "polish codes");
    p.pivot = sn_alloc_array(env, p.nf, sizeof(uint32_t), "polish pivots");
    p.var = sn_alloc_array(env, cells, sizeof(uint32_t), "polish unknown numbers");
    p.var_count = sn_alloc_array(env, p.nf, sizeof(uint32_t), "polish unknown counts");
    sinew_result r = SINEW_OK;
    if (!p.code || !p.pivot || !p.var || !p.var_count) {
        r = sn_alloc_failure();
        goto done;
    }
    /* The first round's pattern depends on z alone, so a system over the
     * unknowns budget is refused before the rest of the polish's state is
     * built and filled (on wide supports that costs about an iteration). */
    pattern_from_iterate(&p, s->z, NULL, 1);
    r = SINEW_ERROR_NOT_CONVERGED;
    if (!max_rounds || sn_bbw_polish_over_budget_unknowns(s, number_unknowns(&p))) goto done;
    p.w = sn_alloc_array(env, cells, sizeof(double), "polish weights");
    p.grad = sn_alloc_array(env, cells, sizeof(double), "polish gradient");
    p.r = sn_alloc_array(env, cells, sizeof(double), "polish residual");
    p.candidate = sn_alloc_array(env, cells, sizeof(double), "polish candidate");
    p.diff = sn_alloc_array(env, cells, sizeof(double), "polish difference");
    p.x = sn_alloc_array(env, cells, sizeof(double), "polish iterate");
    p.gx = sn_alloc_array(env, cells, sizeof(double), "polish iterate gradient");
    p.trial = sn_alloc_array(env, cells, sizeof(double), "polish trial");
    p.qd = sn_alloc_array(env, cells, sizeof(double), "polish step product");
    if (!p.w || !p.grad || !p.r || !p.candidate || !p.diff || !p.x || !p.gx || !p.trial || !p.qd) {
        r = sn_alloc_failure();
        goto done;
    }
    memcpy(p.x, s->z, cells * sizeof(double));
    q_times(&p, p.x, s->base, p.gx);
    for (uint32_t round = 0; round < max_rounds; ++round) {
        if (round > 0) pattern_from_iterate(&p, p.x, p.gx, 0);
        sinew_result rr = solve_pattern(&p);
        if (rr == SINEW_ERROR_NOT_CONVERGED) break;
        ++*rounds;
        if (rr != SINEW_OK) {
            r = rr;
            goto done;
        }
        /* Every round's solution is certified, settled or not: projected
         * onto the feasible set it is a candidate, and the solution itself is
         * the dual point (its gradient is equal across each row's support,
         * so the gap is what the zero pattern still violates plus the
         * projection's distance). Near the right pattern that is already
         * within the tolerance. */
        memcpy(p.candidate, p.w, cells * sizeof(double));
        for (size_t f = 0; f < p.nf; ++f) sn_bbw_project_row(p.candidate + f * p.m, p.m, exact, s->scratch);
        size_t violations = kkt_violations(&p); /* also p.grad = Q w - base */
        double bound = sn_bbw_certify_with(s, rho, exact, p.candidate, p.w, p.r, p.diff);
        if (exact) {
            pattern_multiplier(&p, p.trial);
            bound = fmin(bound, sn_bbw_certify_multiplier(s, rho, p.candidate, p.trial, p.r, p.diff));
        }
        sn_bbw_keep_if_best(s, p.candidate, bound);
        if (sn_bbw_certified(s, s->best_bound, s->best_rounding)) {
            r = SINEW_OK;
            break;
        }
        if ((rr = sn_progress(s->call, "bbw: polish", (float)*rounds / (float)max_rounds)) != SINEW_OK) {
            r = rr;
            goto done;
        }
        if (violations == 0) {
            r = SINEW_OK;
            break;
        }
        if (!projected_search(&p, p.candidate)) break;
        *moved = 1;
    }
    /* Settled or certified within the tolerance: the best candidate (the
     * settled solution projected against rounding, or a certified one). */
    if (r == SINEW_OK) {
        memcpy(s->z, s->best_z, cells * sizeof(double));
        *moved = 1;
    } else if (r == SINEW_ERROR_NOT_CONVERGED && *moved) memcpy(s->z, p.x, cells * sizeof(double));
done:
    if (r != SINEW_OK && r != SINEW_ERROR_NOT_CONVERGED) *moved = 0; /* failed: z untouched */
    sn_free(env, p.code);
    sn_free(env, p.pivot);
    sn_free(env, p.var);
    sn_free(env, p.var_count);
    sn_free(env, p.w);
    sn_free(env, p.grad);
    sn_free(env, p.r);
    sn_free(env, p.candidate);
    sn_free(env, p.diff);
    sn_free(env, p.x);
    sn_free(env, p.gx);
    sn_free(env, p.trial);
    sn_free(env, p.qd);
    return r;
}
