/*
 * The problem a level solve works on (problem.h): the operator
 * Q = K M^-1 K (+ the shape term), its restriction to the free vertices with
 * the fixed vertices' right-hand side, the split's metric and penalty scale,
 * the factorisations, the certified smallest eigenvalue, and the
 * unconstrained start.
 */
#include <math.h>
#include <string.h>

#include "bbw/certificate.h"
#include "bbw/problem.h"
#include "bbw/defaults.h"

void sn_bbw_problem_free(solve_state *s)
{
    const sn_env *env = &s->b->env;
    sn_sparse_free(env, &s->q);
    sn_sparse_free(env, &s->a);
    sn_ldlt_free(env, &s->factor);
    sn_ldlt_single_free(env, &s->factor_single);
    sn_free(env, s->work_single);
    sn_free(env, s->rhs_prev);
    sn_free(env, s->x_prev);
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
    double strength = d->shape_strength > 0 ? d->shape_strength : SN_BBW_DEFAULT_SHAPE_STRENGTH;
    double alpha = tk > 0 ? strength * tq / tk : 0.0;
    r = sn_sparse_add(&b->env, &s->q, alpha, &masked, &sum);
    sn_sparse_free(&b->env, &masked);
    if (r != SINEW_OK) return r;
    sn_sparse_free(&b->env, &s->q);
    s->q = sum;
    return SINEW_OK;
}

/* The split's metric: W_f = M_f (r_f / r_geo)^1/2 with r_f = Q_ff / M_f
 * and r_geo their geometric mean, i.e. the geometric mean of the vertex's
 * mass and stiffness, scaled so a uniform mesh keeps W = M. On graded
 * meshes r_f spans orders of magnitude (ten and more): with W = M, one
 * penalty cannot suit the small and the large elements at once, and the
 * split crawls where it is off; W puts each vertex's penalty between its
 * two ends. The split converges to the same minimiser for any positive W;
 * the certificate holds for any. */
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
    size_t padded = 0;
    if (!sn_mul_size(nf, sn_bbw_solve_groups(s) * sn_bbw_single_group_width(s), &padded))
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "too many unknowns");
    s->work_single = sn_alloc_array(&b->env, padded, sizeof(float), "single-precision solve workspace");
    s->rhs_prev = sn_alloc_array(&b->env, cells, sizeof(double), "x-step right-hand side");
    s->x_prev = sn_alloc_array(&b->env, cells, sizeof(double), "x-step solution");
    s->scratch = sn_alloc_array(&b->env, m, s->tasks * sizeof(uint32_t), "projection scratch");
    if (!s->free_vertex || !s->diag_pos || !s->base || !s->x || !s->z || !s->s || !s->g || !s->df || !s->dg || !s->f ||
        !s->rhs || !s->row || !s->best_z || !s->work || !s->work_single || !s->rhs_prev || !s->x_prev || !s->scratch ||
        (s->tasks > 1 && !s->columns))
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
    sn_bbw_estimate_lambda_min(s);
    /* The penalty's scale: the geometric mean of the spectrum's ends (the
     * smallest eigenvalue, and the mean of diag(Q)/M standing for the
     * largest), the choice that balances the split's slowest modes at both
     * ends. It adapts to the mesh: coarse meshes have a narrow spectrum. */
    *rho *= s->lambda_min > 0.0 ? sqrt(s->lambda_min * ratio) : ratio;
    /* Q_FF's own factor stays for the certificate's dual (same pattern):
     * its arrays are handed over, and the shifted factors below get arrays
     * of their own, so the solve's largest array is not copied. */
    size_t entries = sn_ldlt_block_values(&s->factor);
    double *vals = sn_alloc_array(&b->env, entries + 1, sizeof(double), "supernode values");
    double *diag = sn_alloc_array(&b->env, nf + 1, sizeof(double), "factor diagonal");
    if (!vals || !diag) {
        sn_free(&b->env, vals);
        sn_free(&b->env, diag);
        return sn_alloc_failure();
    }
    s->q_vals = s->factor.super_vals;
    s->q_diag = s->factor.diag;
    s->factor.super_vals = vals;
    s->factor.diag = diag;
    if ((r = sn_bbw_certify_lambda_min(s)) != SINEW_OK) return r;
    if ((r = sn_progress(s->call, "bbw: factorise", 0.5f)) != SINEW_OK) return r;
    s->q_diagonal = sn_alloc_array(&b->env, nf, sizeof(double), "biharmonic diagonal");
    if (!s->q_diagonal) return sn_alloc_failure();
    for (size_t f = 0; f < nf; ++f) {
        s->q_diagonal[f] = s->a.vals[s->diag_pos[f]];
        s->a.vals[s->diag_pos[f]] += *rho * s->metric[f];
    }
    if ((r = sn_ldlt_factor(&b->env, &s->factor, &s->a)) != SINEW_OK) return r;
    if ((r = sn_ldlt_single_round(&b->env, &s->factor, &s->factor_single)) != SINEW_OK) return r;
    return sn_progress(s->call, "bbw: factorise", 1.0f);
}

sinew_result sn_bbw_problem_build(solve_state *s, const sinew_bbw_solve_desc *d, double *rho)
{
    sinew_result r = build_operator(s, d);
    if (r != SINEW_OK) return r;
    return prepare(s, rho);
}
