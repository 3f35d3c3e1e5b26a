/* Fold-over check: per cell, det J of F is a trivariate polynomial; its
 * Bezier coefficients, all positive, prove det J > 0 over the cell (convex
 * hull property). The smallest det J found by sampling tells how bad a
 * flagged cell really is. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "lattice/lattice_defaults.h"
#include "lattice/lattice_internal.h"

/* A trivariate Bezier tensor of degrees deg[3] in scaled form: coefficient
 * (a, b, d) times C(deg0, a) C(deg1, b) C(deg2, d), so it multiplies the
 * monomials u^a (1-u)^(deg0-a) ... and a product of two tensors is a plain
 * 3-D convolution of their arrays. (deg+1) coefficients per axis, index
 * (a * (deg[1]+1) + b) * (deg[2]+1) + d. */
typedef struct bez3 {
    uint32_t deg[3];
    double *c;
} bez3;

static size_t bez3_size(const uint32_t deg[3])
{
    return (size_t)(deg[0] + 1) * (deg[1] + 1) * (deg[2] + 1);
}

/* h += sign * f * g (scaled form), with h's degrees the sums of f's and g's.
 * |f| * |g| multiply-adds; the innermost loop runs along the last axis, where
 * f's, g's and h's coefficients are contiguous. */
static void bez3_mul_add(const bez3 *f, const bez3 *g, double sign, bez3 *h)
{
    const size_t f1 = f->deg[1] + 1, f2 = f->deg[2] + 1;
    const size_t g1 = g->deg[1] + 1, g2 = g->deg[2] + 1;
    const size_t h1 = h->deg[1] + 1, h2 = h->deg[2] + 1;
    for (size_t a = 0; a <= f->deg[0]; ++a)
        for (size_t b = 0; b < f1; ++b) {
            const double *fr = f->c + (a * f1 + b) * f2;
            for (size_t a2 = 0; a2 <= g->deg[0]; ++a2)
                for (size_t b2 = 0; b2 < g1; ++b2) {
                    const double *gr = g->c + (a2 * g1 + b2) * g2;
                    double *hr = h->c + ((a + a2) * h1 + (b + b2)) * h2;
                    for (size_t d = 0; d < f2; ++d) {
                        const double fv = sign * fr[d];
                        if (fv == 0.0) continue;
                        for (size_t d2 = 0; d2 < g2; ++d2) hr[d + d2] += fv * gr[d2];
                    }
                }
        }
}

/* Multiplies (to scaled form) or divides (back to plain Bernstein
 * coefficients) every coefficient by the binomials of its degrees. */
static void bez3_scale(bez3 *h, bool divide)
{
    const uint32_t *hd = h->deg;
    double bin[3][3 * SN_LAT_MAX_ORDER];
    for (int e = 0; e < 3; ++e)
        for (uint32_t i = 0; i <= hd[e]; ++i) bin[e][i] = sn_lat_binom(hd[e], i);
    double *c = h->c;
    for (uint32_t a = 0; a <= hd[0]; ++a)
        for (uint32_t b = 0; b <= hd[1]; ++b) {
            const double w = bin[0][a] * bin[1][b];
            for (uint32_t d = 0; d <= hd[2]; ++d, ++c) *c = divide ? *c / (w * bin[2][d]) : *c * (w * bin[2][d]);
        }
}

/* Scratch for one cell, sized for the lattice's orders. */
typedef struct fold_scratch {
    double *net;       /* positions' Bezier net, 3 per coefficient */
    bez3 deriv[3][3];  /* [axis][coordinate] */
    bez3 cross[3];     /* dF/dv x dF/dw */
    bez3 det;
} fold_scratch;

static size_t scratch_layout(const sinew_lattice *lat, fold_scratch *s, double *mem)
{
    const uint32_t p[3] = {lat->axis[0].degree, lat->axis[1].degree, lat->axis[2].degree};
    size_t used = 0;
    s->net = mem ? mem + used : NULL;
    used += 3 * bez3_size(p);
    for (int a = 0; a < 3; ++a)
        for (int c = 0; c < 3; ++c) {
            bez3 *b = &s->deriv[a][c];
            for (int e = 0; e < 3; ++e) b->deg[e] = p[e] - (e == a ? 1u : 0u);
            b->c = mem ? mem + used : NULL;
            used += bez3_size(b->deg);
        }
    for (int c = 0; c < 3; ++c) {
        bez3 *b = &s->cross[c];
        for (int e = 0; e < 3; ++e) b->deg[e] = 2 * p[e] - (e == 0 ? 0u : 1u);
        b->c = mem ? mem + used : NULL;
        used += bez3_size(b->deg);
    }
    for (int e = 0; e < 3; ++e) s->det.deg[e] = 3 * p[e] - 1;
    s->det.c = mem ? mem + used : NULL;
    used += bez3_size(s->det.deg);
    return used;
}

/* Fills s->det with the Bezier coefficients of det(dF/du) over cell (cu, cv, cw). */
static void cell_det(const sinew_lattice *lat, const uint32_t cell[3], fold_scratch *s)
{
    const uint32_t p[3] = {lat->axis[0].degree, lat->axis[1].degree, lat->axis[2].degree};
    const uint32_t o[3] = {p[0] + 1, p[1] + 1, p[2] + 1};
    double coef[3][SN_LAT_MAX_ORDER * SN_LAT_MAX_ORDER];
    for (int a = 0; a < 3; ++a) {
        uint32_t span = cell[a] + p[a];
        sn_lat_bernstein_of_span(&lat->axis[a], span, lat->axis[a].knots[span], lat->axis[a].knots[span + 1],
                                 coef[a]);
    }
    /* Net of the positions P = rest + D over the cell. */
    size_t nsize = bez3_size(p);
    memset(s->net, 0, 3 * nsize * sizeof(double));
    for (uint32_t k = 0; k < o[2]; ++k)
        for (uint32_t j = 0; j < o[1]; ++j)
            for (uint32_t i = 0; i < o[0]; ++i) {
                size_t gi = cell[0] + i, gj = cell[1] + j, gk = cell[2] + k;
                size_t index = sn_lat_index(lat, gi, gj, gk);
                double pos[3];
                sn_lat_rest(lat, gi, gj, gk, pos);
                for (int c = 0; c < 3; ++c) pos[c] += (double)lat->disp[c][index];
                for (uint32_t a = 0; a < o[0]; ++a) {
                    double wa = coef[0][i * o[0] + a];
                    if (wa == 0.0) continue;
                    for (uint32_t b = 0; b < o[1]; ++b) {
                        double wab = wa * coef[1][j * o[1] + b];
                        if (wab == 0.0) continue;
                        for (uint32_t d = 0; d < o[2]; ++d) {
                            double w = wab * coef[2][k * o[2] + d];
                            double *x = s->net + ((a * o[1] + b) * o[2] + d) * 3;
                            for (int c = 0; c < 3; ++c) x[c] += w * pos[c];
                        }
                    }
                }
            }
    /* Derivatives in the cell's local coordinates (each in [0, 1]); the
     * positive scale 1 / (h_u h_v h_w) is applied to det afterwards. */
    for (int ax = 0; ax < 3; ++ax)
        for (int c = 0; c < 3; ++c) {
            bez3 *dv = &s->deriv[ax][c];
            for (uint32_t a = 0; a <= dv->deg[0]; ++a)
                for (uint32_t b = 0; b <= dv->deg[1]; ++b)
                    for (uint32_t d = 0; d <= dv->deg[2]; ++d) {
                        uint32_t hi[3] = {a, b, d};
                        hi[ax] += 1;
                        double x1 = s->net[((hi[0] * o[1] + hi[1]) * o[2] + hi[2]) * 3 + c];
                        double x0 = s->net[((a * o[1] + b) * o[2] + d) * 3 + c];
                        dv->c[(a * (dv->deg[1] + 1) + b) * (dv->deg[2] + 1) + d] = (double)p[ax] * (x1 - x0);
                    }
            bez3_scale(dv, false);
        }
    /* det = dF/du . (dF/dv x dF/dw), all in scaled form; only det goes back
     * to plain Bernstein coefficients. */
    for (int c = 0; c < 3; ++c) {
        memset(s->cross[c].c, 0, bez3_size(s->cross[c].deg) * sizeof(double));
        int c1 = (c + 1) % 3, c2 = (c + 2) % 3;
        bez3_mul_add(&s->deriv[1][c1], &s->deriv[2][c2], 1.0, &s->cross[c]);
        bez3_mul_add(&s->deriv[1][c2], &s->deriv[2][c1], -1.0, &s->cross[c]);
    }
    memset(s->det.c, 0, bez3_size(s->det.deg) * sizeof(double));
    for (int c = 0; c < 3; ++c) bez3_mul_add(&s->deriv[0][c], &s->cross[c], 1.0, &s->det);
    bez3_scale(&s->det, true);
}

/* det of the world Jacobian at parameters u. */
static double sampled_det(const sinew_lattice *lat, const double u[3])
{
    sn_lat_basis b[3];
    for (int a = 0; a < 3; ++a) sn_lat_axis_basis(lat, a, u[a], true, &b[a]);
    double d[3], g[9], j[9];
    sn_lat_contract(lat, b, d, g);
    for (int e = 0; e < 9; ++e) j[e] = lat->frame[e] + g[e];
    double det = j[0] * (j[4] * j[8] - j[7] * j[5]) - j[3] * (j[1] * j[8] - j[7] * j[2]) +
                 j[6] * (j[1] * j[5] - j[4] * j[2]);
    return det / lat->frame_det;
}

static float to_float_range(double x)
{
    return (float)fmax(-(double)FLT_MAX, fmin((double)FLT_MAX, x));
}

sinew_result sinew_lattice_check_folds(sinew_context *ctx, const sinew_lattice *lattice, uint32_t samples_per_axis,
                                       uint8_t *cell_flags, size_t cell_flag_count,
                                       sinew_lattice_fold_report *report)
{
    sn_clear_error();
    if (!lattice) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "lattice is NULL");
    if (sn_check_struct_out(report, "report") != SINEW_OK) return SINEW_ERROR_INVALID_ARGUMENT;
    sn_env call;
    sn_env_for_call(&call, &lattice->env, ctx);
    call.held = NULL;   /* scratch of a const call: other threads may be using the lattice */
    if (samples_per_axis == 0) samples_per_axis = SN_LAT_DEFAULT_FOLD_SAMPLES;
    if (samples_per_axis > SN_LAT_MAX_FOLD_SAMPLES)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%u samples per axis; at most %u", samples_per_axis,
                       SN_LAT_MAX_FOLD_SAMPLES);
    /* The caller knows the cell count (sinew_lattice_info): a buffer of another size is a mismatch. */
    if (cell_flags && cell_flag_count != lattice->cell_count)
        return sn_fail(SINEW_ERROR_MISMATCH, "cell flag buffer holds %zu bytes for %zu cells", cell_flag_count,
                       lattice->cell_count);
    fold_scratch s;
    size_t doubles = scratch_layout(lattice, &s, NULL);
    double *mem = (double *)sn_alloc_array(&call, doubles, sizeof(double), "fold-over scratch");
    if (!mem) return sn_alloc_failure();
    scratch_layout(lattice, &s, mem);
    /* Flags are gathered aside and copied out only on success, so a
     * cancelled check leaves the caller's buffer as it was. */
    uint8_t *flags = NULL;
    if (cell_flags) {
        flags = (uint8_t *)sn_alloc(&call, lattice->cell_count, "fold-over cell flags");
        if (!flags) {
            sn_free(&call, mem);
            return sn_alloc_failure();
        }
    }

    const sn_lat_axis *ax = lattice->axis;
    sinew_lattice_fold_report rep;
    memset(&rep, 0, sizeof rep);
    rep.cell_count = lattice->cell_count;
    double min_coef = INFINITY, min_det = INFINITY, min_at[3] = {0, 0, 0};
    size_t index = 0;
    sinew_result r = SINEW_OK;
    for (uint32_t cw = 0; cw < ax[2].cells && r == SINEW_OK; ++cw)
        for (uint32_t cv = 0; cv < ax[1].cells && r == SINEW_OK; ++cv)
            for (uint32_t cu = 0; cu < ax[0].cells; ++cu, ++index) {
                /* A cell of order 8 costs millions of operations (see
                 * lattice.h), so every cell reports and may cancel. */
                if ((r = sn_progress(&call, "lattice: fold-over check",
                                     (float)index / (float)lattice->cell_count)) != SINEW_OK)
                    break;
                const uint32_t cell[3] = {cu, cv, cw};
                cell_det(lattice, cell, &s);
                double h = 1.0;
                for (int a = 0; a < 3; ++a) {
                    uint32_t span = cell[a] + ax[a].degree;
                    h *= ax[a].knots[span + 1] - ax[a].knots[span];
                }
                double scale = 1.0 / (h * lattice->frame_det);
                double cell_min = INFINITY;
                size_t n = bez3_size(s.det.deg);
                for (size_t e = 0; e < n; ++e) cell_min = fmin(cell_min, s.det.c[e] * scale);
                min_coef = fmin(min_coef, cell_min);
                bool may_fold = !(cell_min > 0.0);
                if (may_fold) ++rep.cells_may_fold;
                if (flags) flags[index] = may_fold ? 1 : 0;
                /* Samples evenly spread over the cell, its faces included. */
                for (uint32_t qk = 0; qk < samples_per_axis; ++qk)
                    for (uint32_t qj = 0; qj < samples_per_axis; ++qj)
                        for (uint32_t qi = 0; qi < samples_per_axis; ++qi) {
                            const uint32_t q[3] = {qi, qj, qk};
                            double u[3];
                            for (int a = 0; a < 3; ++a) {
                                uint32_t span = cell[a] + ax[a].degree;
                                double lo = ax[a].knots[span], hi = ax[a].knots[span + 1];
                                double f = samples_per_axis == 1 ? 0.5 : (double)q[a] / (samples_per_axis - 1);
                                u[a] = lo + f * (hi - lo);
                            }
                            double det = sampled_det(lattice, u);
                            if (det < min_det) {
                                min_det = det;
                                memcpy(min_at, u, sizeof min_at);
                            }
                        }
            }
    sn_free(&call, mem);
    if (r == SINEW_OK && flags) memcpy(cell_flags, flags, lattice->cell_count);
    sn_free(&call, flags);
    if (r != SINEW_OK) return r;
    /* det J of huge displacements can pass the float range: the report
     * keeps the sign and the largest float magnitude. */
    rep.min_coefficient = to_float_range(min_coef);
    rep.min_sampled_det = to_float_range(min_det);
    for (int a = 0; a < 3; ++a) rep.min_sampled_at[a] = (float)min_at[a];
    sn_write_struct(report, &rep, sizeof rep);
    return SINEW_OK;
}
