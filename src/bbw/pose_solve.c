/*
 * Pose time: the local/global alternation over the reduced unknowns, all in
 * the caller's scratch memory (pose_internal.h gives the notation).
 *
 * Global step, per output coordinate c, with the fixed handles' unknowns x_F
 * known and the position constraints C x_f = q_c on the free ones:
 *   minimise x_f' A_ff x_f + 2 x_f' A_fF x_F - 2 x_f' (B r_c)_f  s.t. C x_f = q_c.
 * A_ff alone is singular when nothing pins the translation, so the system is
 * solved with H = A_ff + rho C'C (same minimiser on the constraint set) by a
 * Schur complement on the constraints. With H = L L' and W = L^-1 C':
 *   z = L^-1 g,  S lambda = W'z - q_c (S = W'W),  x_f = L'^-1 (z - W lambda).
 * H and S are factorised once per call and serve every coordinate and every
 * iteration. Each row of C has only its handle's per entries: [rest; 1].
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "bbw/pose_internal.h"

enum {
    DEFAULT_ITERATIONS = 5,
    WARM_STEPS = 8,    /* rotation refinement steps per local step, warm-started */
    COLD_STEPS = 60    /* from the identity: the energy query, the first local step */
};

/* Offsets (in doubles, then the two handle maps) of the scratch regions. */
typedef struct scratch_layout {
    size_t x, h, w, s, q, base, g, lam, rot, doubles;
    size_t bytes;   /* SIZE_MAX on overflow */
} scratch_layout;

static scratch_layout layout_of(const sinew_bbw_pose *p, size_t nc)
{
    scratch_layout l;
    memset(&l, 0, sizeof l);
    const size_t nv = p->var_count, d = p->dim;
    size_t parts[9], at = 0;
    int ok = sn_mul_size(nv, d, &parts[0]) && sn_mul_size(nv, nv, &parts[1]) && sn_mul_size(nv, nc, &parts[2]) &&
             sn_mul_size(nc, nc, &parts[3]) && sn_mul_size(nc, d, &parts[4]) && sn_mul_size(nv, d, &parts[5]);
    parts[6] = nv;
    parts[7] = nc;
    ok = ok && sn_mul_size(p->cluster_count, d * d, &parts[8]);
    size_t *slots[9] = {&l.x, &l.h, &l.w, &l.s, &l.q, &l.base, &l.g, &l.lam, &l.rot};
    for (int i = 0; i < 9 && ok; ++i) {
        *slots[i] = at;
        ok = sn_add_size(at, parts[i], &at);
    }
    l.doubles = at;
    size_t bytes = 0, maps = 0;
    ok = ok && sn_mul_size(at, sizeof(double), &bytes) && sn_mul_size(p->handle_count, 2 * sizeof(uint32_t), &maps) &&
         sn_add_size(bytes, maps, &bytes) && sn_add_size(bytes, 64, &bytes);
    l.bytes = ok ? bytes : SIZE_MAX;
    return l;
}

size_t sinew_bbw_pose_scratch_size(const sinew_bbw_pose *p, size_t position_count)
{
    return p ? layout_of(p, position_count).bytes : 0;
}

sinew_result sn_pose_check_transform(const float *m, size_t j, const char *what)
{
    for (int e = 0; e < 16; ++e)
        if (!isfinite(m[e]))
            return sn_fail(SINEW_ERROR_NON_FINITE, "%s of handle %zu has a non-finite entry (row %d, column %d: %g)",
                           what, j, e % 4, e / 4, (double)m[e]);
    if (m[3] != 0.0f || m[7] != 0.0f || m[11] != 0.0f || m[15] != 1.0f)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT,
                       "%s of handle %zu is not affine: last row is (%g %g %g %g), not (0 0 0 1)", what, j,
                       (double)m[3], (double)m[7], (double)m[11], (double)m[15]);
    return SINEW_OK;
}

void sn_pose_to_unknowns(const sinew_bbw_pose *p, size_t j, const float *m, double *x)
{
    const uint32_t d = p->dim, per = p->per;
    const size_t nv = p->var_count;
    for (uint32_t c = 0; c < d; ++c) {
        double *xc = x + c * nv + j * per;
        double t = m[12 + c] - p->centre[c];
        for (uint32_t b = 0; b < d; ++b) {
            xc[b] = m[4 * b + c];
            t += m[4 * b + c] * p->centre[b];
        }
        xc[d] = t / p->scale;
    }
}

/* S_k = sum over the cluster's blocks of x_c' P (dim x dim, row c, column a). */
static void cluster_covariance(const sinew_bbw_pose *p, const double *x, size_t k, double *s)
{
    const uint32_t d = p->dim, per = p->per;
    const size_t nv = p->var_count;
    memset(s, 0, sizeof(double) * d * d);
    for (size_t bl = p->block_start[k]; bl < p->block_start[k + 1]; ++bl) {
        const double *pk = p->block_P + bl * per * d;
        size_t base = (size_t)p->block_handle[bl] * per;
        for (uint32_t c = 0; c < d; ++c) {
            const double *xc = x + c * nv + base;
            double *sc = s + c * d;
            if (d == 3) {
                for (int a = 0; a < 3; ++a)
                    sc[a] += xc[0] * pk[a] + xc[1] * pk[3 + a] + xc[2] * pk[6 + a] + xc[3] * pk[9 + a];
            } else {
                for (int a = 0; a < 2; ++a) sc[a] += xc[0] * pk[a] + xc[1] * pk[2 + a] + xc[2] * pk[4 + a];
            }
        }
    }
}

/* Fits cluster k's rotation to S, unless S is below 1e-6 of the cluster's
 * rest value (a collapsed pose, or the all-zero transforms of a first warm
 * start): its direction is then noise (float weights sum to one only to
 * about 1e-7), so the rotation stays. */
static void fit_cluster(const sinew_bbw_pose *p, size_t k, const double *s, double *r, int steps)
{
    double n = 0.0;
    for (uint32_t i = 0; i < p->dim * p->dim; ++i) n += s[i] * s[i];
    if (sqrt(n) > 1e-6 * p->cluster_mass[k]) sn_pose_fit_rotation(p->dim, s, r, steps);
}

static void local_step(const sinew_bbw_pose *p, const double *x, double *rot, int steps)
{
    double s[9];
    const size_t dd = (size_t)p->dim * p->dim;
    for (size_t k = 0; k < p->cluster_count; ++k) {
        cluster_covariance(p, x, k, s);
        fit_cluster(p, k, s, rot + k * dd, steps);
    }
}

double sn_pose_energy_of(const sinew_bbw_pose *p, const double *x, double *rot, int steps)
{
    const uint32_t d = p->dim;
    const size_t nv = p->var_count, dd = (size_t)d * d;
    double e = d;
    for (uint32_t c = 0; c < d; ++c) {
        const double *xc = x + c * nv;
        for (size_t i = 0; i < nv; ++i) {
            if (xc[i] == 0.0) continue;
            const double *ai = p->A + i * nv;
            double v = 0.0;
            for (size_t k = 0; k < nv; ++k) v += ai[k] * xc[k];
            e += xc[i] * v;
        }
    }
    double s[9];
    for (size_t k = 0; k < p->cluster_count; ++k) {
        cluster_covariance(p, x, k, s);
        double *r = rot + k * dd;
        fit_cluster(p, k, s, r, steps);
        for (size_t i = 0; i < dd; ++i) e -= 2.0 * r[i] * s[i];
    }
    /* Rounding can leave a rigid pose a hair below zero. */
    return fmax(e, 0.0);
}

static void identity_rotations(const sinew_bbw_pose *p, double *rot)
{
    const uint32_t d = p->dim;
    for (size_t k = 0; k < p->cluster_count; ++k)
        for (uint32_t i = 0; i < d * d; ++i) rot[k * d * d + i] = (i % (d + 1) == 0) ? 1.0 : 0.0;
}

/* Everything a solve works with, carved from the caller's scratch. */
typedef struct solve_state {
    const sinew_bbw_pose *p;
    const sinew_bbw_pose_solve_desc *desc;
    double *x, *h, *w, *s, *q, *base, *g, *lam, *rot;
    uint32_t *free_of;     /* per handle: index among the free handles, or UINT32_MAX */
    uint32_t *free_list;   /* the free handles in order */
    size_t nf;             /* free unknowns per coordinate: per * free handles */
    size_t nc;
} solve_state;

static void carve(solve_state *st, const scratch_layout *l, void *scratch)
{
    double *base = (double *)(void *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
    st->x = base + l->x, st->h = base + l->h, st->w = base + l->w, st->s = base + l->s;
    st->q = base + l->q, st->base = base + l->base, st->g = base + l->g, st->lam = base + l->lam;
    st->rot = base + l->rot;
    st->free_of = (uint32_t *)(void *)(base + l->doubles);
    st->free_list = st->free_of + st->p->handle_count;
}

static sinew_result check_inputs(const sinew_bbw_pose *p, const sinew_bbw_pose_solve_desc *d, const float *transforms)
{
    const size_t m = p->handle_count;
    if (d->position_count && !d->positions)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "positions is NULL but position_count is %zu", d->position_count);
    size_t fixed = 0;
    for (size_t j = 0; j < m; ++j) {
        int is_fixed = d->fixed && d->fixed[j];
        fixed += is_fixed != 0;
        if (is_fixed) {
            sinew_result r = sn_pose_check_transform(transforms + 16 * j, j, "fixed transform");
            if (r != SINEW_OK) return r;
        } else if (!d->cold_start) {
            for (int e = 0; e < 16; ++e)
                if (!isfinite(transforms[16 * j + e]))
                    return sn_fail(SINEW_ERROR_NON_FINITE,
                                   "warm-start transform of handle %zu has a non-finite entry (row %d, column %d: %g); "
                                   "give finite values or set cold_start",
                                   j, e % 4, e / 4, (double)transforms[16 * j + e]);
        }
    }
    for (size_t i = 0; i < d->position_count; ++i) {
        const sinew_bbw_pose_position *pc = &d->positions[i];
        if (pc->handle >= m)
            return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE, "position %zu names handle %u, but there are only %zu", i,
                           pc->handle, m);
        for (uint32_t a = 0; a < p->dim; ++a) {
            if (!isfinite(pc->rest[a]))
                return sn_fail(SINEW_ERROR_NON_FINITE, "position %zu has a non-finite rest %c (%g)", i, "xyz"[a],
                               (double)pc->rest[a]);
            if (!isfinite(pc->target[a]))
                return sn_fail(SINEW_ERROR_NON_FINITE, "position %zu has a non-finite target %c (%g)", i, "xyz"[a],
                               (double)pc->target[a]);
        }
        if (d->fixed && d->fixed[pc->handle])
            return sn_fail(SINEW_ERROR_INVALID_ARGUMENT,
                           "position %zu is on handle %u, whose transform is fixed: give one or the other", i,
                           pc->handle);
    }
    if (fixed == 0 && d->position_count == 0)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT,
                       "no constraint: fix at least one handle's transform or give at least one position");
    return SINEW_OK;
}

/* Position i's row of C: [rest; 1] (normalised) on its handle's unknowns. */
static void constraint_row(const sinew_bbw_pose *p, const sinew_bbw_pose_position *pc, double row[4])
{
    for (uint32_t a = 0; a < p->dim; ++a) row[a] = (pc->rest[a] - p->centre[a]) / p->scale;
    row[p->dim] = 1.0;
}

/* Builds and factorises H and S; fills base. Failures name the handle or position. */
static sinew_result prepare(solve_state *st, const float *transforms)
{
    const sinew_bbw_pose *p = st->p;
    const sinew_bbw_pose_solve_desc *d = st->desc;
    const uint32_t dim = p->dim, per = p->per;
    const size_t m = p->handle_count, nv = p->var_count, nc = d->position_count;
    size_t free_handles = 0;
    for (size_t j = 0; j < m; ++j) {
        int is_fixed = d->fixed && d->fixed[j];
        st->free_of[j] = is_fixed ? UINT32_MAX : (uint32_t)free_handles;
        if (!is_fixed) st->free_list[free_handles++] = (uint32_t)j;
        if (is_fixed || !d->cold_start) {
            sn_pose_to_unknowns(p, j, transforms + 16 * j, st->x);
        } else {
            for (uint32_t c = 0; c < dim; ++c)
                for (uint32_t b = 0; b < per; ++b) st->x[c * nv + j * per + b] = b == c ? 1.0 : 0.0;
        }
    }
    const size_t nf = free_handles * per;
    st->nf = nf;
    st->nc = nc;
    double row_norm = 0.0, diag = 0.0, row[4];
    for (size_t i = 0; i < nc; ++i) {
        constraint_row(p, &d->positions[i], row);
        for (uint32_t a = 0; a < per; ++a) row_norm += row[a] * row[a];
        for (uint32_t a = 0; a < dim; ++a) st->q[i * dim + a] = (d->positions[i].target[a] - p->centre[a]) / p->scale;
    }
    for (size_t a = 0; a < nf; ++a) {
        size_t ga = (size_t)st->free_list[a / per] * per + a % per;
        diag += p->A[ga * nv + ga];
        for (size_t b = 0; b < nf; ++b) st->h[a * nf + b] = p->A[ga * nv + (size_t)st->free_list[b / per] * per + b % per];
    }
    /* rho puts C'C on the scale of A_ff; any positive value gives the same answer. */
    const double rho = nc ? (diag / (double)(nf ? nf : 1)) / (row_norm / (double)nc) : 0.0;
    for (size_t i = 0; i < nc; ++i) {
        constraint_row(p, &d->positions[i], row);
        size_t at = (size_t)st->free_of[d->positions[i].handle] * per;
        for (uint32_t a = 0; a < per; ++a)
            for (uint32_t b = 0; b < per; ++b) st->h[(at + a) * nf + at + b] += rho * row[a] * row[b];
    }
    size_t bad = sn_pose_cholesky(st->h, nf, 1e-11);
    if (bad != SIZE_MAX)
        return sn_fail(SINEW_ERROR_DEGENERATE,
                       "the transform of handle %u is not determined: constrain it (a transform, or positions) or a "
                       "handle it shares weights with",
                       st->free_list[bad / per]);
    /* W = L^-1 C' (column i at w + i * nf, zero before its handle's block) and S = W'W. */
    for (size_t i = 0; i < nc; ++i) {
        double *wi = st->w + i * nf;
        size_t at = (size_t)st->free_of[d->positions[i].handle] * per;
        memset(wi, 0, sizeof(double) * nf);
        constraint_row(p, &d->positions[i], row);
        for (uint32_t a = 0; a < per; ++a) wi[at + a] = row[a];
        sn_pose_forward(st->h, nf, wi, at);
    }
    for (size_t i = 0; i < nc; ++i)
        for (size_t k = 0; k <= i; ++k) {
            size_t from = (size_t)st->free_of[d->positions[i].handle] * per,
                   other = (size_t)st->free_of[d->positions[k].handle] * per;
            if (other > from) from = other;
            double v = 0.0;
            for (size_t f = from; f < nf; ++f) v += st->w[i * nf + f] * st->w[k * nf + f];
            st->s[i * nc + k] = st->s[k * nc + i] = v;
        }
    bad = sn_pose_cholesky(st->s, nc, 1e-10);
    if (bad != SIZE_MAX)
        return sn_fail(SINEW_ERROR_DEGENERATE,
                       "position %zu (handle %u) repeats the positions before it on that handle: a handle's transform "
                       "takes at most %u positions in general position",
                       bad, d->positions[bad].handle, per);
    /* base_c = -A_fF x_F + rho C' q_c: the part of the right-hand side that
     * does not change over the iterations. */
    for (uint32_t c = 0; c < dim; ++c) {
        double *bc = st->base + c * nv;
        const double *xc = st->x + c * nv;
        for (size_t a = 0; a < nf; ++a) {
            size_t ga = (size_t)st->free_list[a / per] * per + a % per;
            double v = 0.0;
            for (size_t j = 0; j < m; ++j) {
                if (st->free_of[j] != UINT32_MAX) continue;
                for (uint32_t b = 0; b < per; ++b) v -= p->A[ga * nv + j * per + b] * xc[j * per + b];
            }
            bc[a] = v;
        }
        for (size_t i = 0; i < nc; ++i) {
            constraint_row(p, &d->positions[i], row);
            size_t at = (size_t)st->free_of[d->positions[i].handle] * per;
            for (uint32_t a = 0; a < per; ++a) bc[at + a] += rho * row[a] * st->q[i * dim + c];
        }
    }
    return SINEW_OK;
}

/* g += (B r_c)_f for coordinate c: each cluster's rotation row c through its
 * blocks (unrolled for 3D, the common case). */
static void add_rotation_term(const solve_state *st, uint32_t c, double *g)
{
    const sinew_bbw_pose *p = st->p;
    const uint32_t dim = p->dim, per = p->per;
    const size_t dd = (size_t)dim * dim;
    for (size_t k = 0; k < p->cluster_count; ++k) {
        const double *rc = st->rot + k * dd + (size_t)c * dim;
        for (size_t bl = p->block_start[k]; bl < p->block_start[k + 1]; ++bl) {
            uint32_t fj = st->free_of[p->block_handle[bl]];
            if (fj == UINT32_MAX) continue;
            const double *pk = p->block_P + bl * per * dim;
            double *gj = g + (size_t)fj * per;
            if (dim == 3) {
                for (int b = 0; b < 4; ++b) gj[b] += pk[3 * b] * rc[0] + pk[3 * b + 1] * rc[1] + pk[3 * b + 2] * rc[2];
            } else {
                for (int b = 0; b < 3; ++b) gj[b] += pk[2 * b] * rc[0] + pk[2 * b + 1] * rc[1];
            }
        }
    }
}

static void global_step(solve_state *st)
{
    const sinew_bbw_pose *p = st->p;
    const uint32_t dim = p->dim, per = p->per;
    const size_t nv = p->var_count, nf = st->nf, nc = st->nc;
    for (uint32_t c = 0; c < dim; ++c) {
        double *g = st->g;
        memcpy(g, st->base + c * nv, sizeof(double) * nf);
        add_rotation_term(st, c, g);
        sn_pose_forward(st->h, nf, g, 0);
        if (nc) {
            for (size_t i = 0; i < nc; ++i) {
                const double *wi = st->w + i * nf;
                double v = -st->q[i * dim + c];
                for (size_t f = 0; f < nf; ++f) v += wi[f] * g[f];
                st->lam[i] = v;
            }
            sn_pose_cholesky_solve(st->s, nc, st->lam);
            for (size_t i = 0; i < nc; ++i) {
                const double *wi = st->w + i * nf;
                for (size_t f = 0; f < nf; ++f) g[f] -= wi[f] * st->lam[i];
            }
        }
        sn_pose_backward(st->h, nf, g);
        double *xc = st->x + c * nv;
        for (size_t f = 0; f < nf; ++f) xc[(size_t)st->free_list[f / per] * per + f % per] = g[f];
    }
}

/* Free handle j's linear part L to its nearest s R; the translation refit to
 * the handle's positions (least squares), or to keep its weighted centre. */
static void project_similarity(solve_state *st, size_t j)
{
    const sinew_bbw_pose *p = st->p;
    const uint32_t dim = p->dim, per = p->per;
    const size_t nv = p->var_count;
    double l[9], r[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, t[3];
    if (dim == 2) r[1] = 0, r[2] = 0, r[3] = 1;
    for (uint32_t c = 0; c < dim; ++c) {
        for (uint32_t b = 0; b < dim; ++b) l[c * dim + b] = st->x[c * nv + j * per + b];
        t[c] = st->x[c * nv + j * per + dim];
    }
    sn_pose_fit_rotation(dim, l, r, COLD_STEPS);
    double s = 0.0;
    for (uint32_t i = 0; i < dim * dim; ++i) s += r[i] * l[i];
    s = fmax(s / dim, 0.0);
    double sum[3] = {0, 0, 0};
    size_t count = 0;
    for (size_t i = 0; i < st->nc; ++i) {
        if (st->desc->positions[i].handle != j) continue;
        double ci[4];
        constraint_row(p, &st->desc->positions[i], ci);
        for (uint32_t c = 0; c < dim; ++c) {
            double v = st->q[i * dim + c];
            for (uint32_t b = 0; b < dim; ++b) v -= s * r[c * dim + b] * ci[b];
            sum[c] += v;
        }
        ++count;
    }
    for (uint32_t c = 0; c < dim; ++c) {
        double tc;
        if (count) {
            tc = sum[c] / (double)count;
        } else {
            tc = t[c];
            for (uint32_t b = 0; b < dim; ++b)
                tc += (l[c * dim + b] - s * r[c * dim + b]) * p->handle_centre[j * dim + b];
        }
        for (uint32_t b = 0; b < dim; ++b) st->x[c * nv + j * per + b] = s * r[c * dim + b];
        st->x[c * nv + j * per + dim] = tc;
    }
}

/* Handle j's transform from the normalised unknowns, column-major 4x4;
 * false when an entry leaves the float range. */
static int to_transform(const sinew_bbw_pose *p, const double *x, size_t j, float out[16])
{
    const uint32_t d = p->dim, per = p->per;
    const size_t nv = p->var_count;
    double m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    for (uint32_t c = 0; c < d; ++c) {
        const double *xc = x + c * nv + j * per;
        double t = p->centre[c] + p->scale * xc[d];
        for (uint32_t b = 0; b < d; ++b) {
            m[4 * b + c] = xc[b];
            t -= xc[b] * p->centre[b];
        }
        m[12 + c] = t;
    }
    for (int e = 0; e < 16; ++e) {
        if (!(fabs(m[e]) <= FLT_MAX)) return 0;
        out[e] = (float)m[e];
    }
    return 1;
}

sinew_result sinew_bbw_pose_solve(const sinew_bbw_pose *p, const sinew_bbw_pose_solve_desc *caller,
                                  float *transforms, size_t transform_floats, void *scratch, size_t scratch_bytes,
                                  sinew_bbw_pose_report *report)
{
    sn_clear_error();
    if (!p) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "pose is NULL");
    sinew_bbw_pose_solve_desc desc;
    sinew_result r = sn_read_struct(&desc, sizeof desc, caller, "desc");
    if (r != SINEW_OK) return r;
    if (!transforms) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "transforms is NULL");
    if ((r = sn_check_float_array(transforms, 0, 16, p->handle_count, "transforms")) != SINEW_OK) return r;
    if (transform_floats != 16 * p->handle_count)
        return sn_fail(SINEW_ERROR_MISMATCH, "transform_floats is %zu, but %zu handles need %zu", transform_floats,
                       p->handle_count, 16 * p->handle_count);
    if (report && sn_check_struct_out(report, "report") != SINEW_OK) return SINEW_ERROR_INVALID_ARGUMENT;
    scratch_layout l = layout_of(p, desc.position_count);
    if (l.bytes == SIZE_MAX)
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "the scratch for %zu positions overflows", desc.position_count);
    if (!scratch) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "scratch is NULL");
    if (scratch_bytes < l.bytes)
        return sn_fail(SINEW_ERROR_BUFFER_TOO_SMALL, "scratch_bytes is %zu, but this solve needs %zu", scratch_bytes,
                       l.bytes);
    if ((r = check_inputs(p, &desc, transforms)) != SINEW_OK) return r;
    solve_state st = {p, &desc, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, 0};
    carve(&st, &l, scratch);
    if ((r = prepare(&st, transforms)) != SINEW_OK) return r;
    const uint32_t iterations = desc.iterations ? desc.iterations : DEFAULT_ITERATIONS;
    identity_rotations(p, st.rot);
    if (!desc.cold_start) local_step(p, st.x, st.rot, COLD_STEPS);
    for (uint32_t it = 0; it < iterations; ++it) {
        global_step(&st);
        if (it + 1 < iterations) local_step(p, st.x, st.rot, WARM_STEPS);
    }
    if (p->transform == SINEW_BBW_POSE_SIMILARITY)
        for (size_t f = 0; f < st.nf / p->per; ++f) project_similarity(&st, st.free_list[f]);
    /* Check every output before writing any. */
    float m[16];
    for (size_t j = 0; j < p->handle_count; ++j)
        if (st.free_of[j] != UINT32_MAX && !to_transform(p, st.x, j, m))
            return sn_fail(SINEW_ERROR_NON_FINITE, "the transform of handle %zu leaves the float range", j);
    sinew_bbw_pose_report rep;
    SINEW_INIT(&rep);
    rep.iterations = iterations;
    if (report) rep.energy = sn_pose_energy_of(p, st.x, st.rot, WARM_STEPS);
    for (size_t j = 0; j < p->handle_count; ++j)
        if (st.free_of[j] != UINT32_MAX) to_transform(p, st.x, j, transforms + 16 * j);
    if (report) sn_write_struct(report, &rep, sizeof rep);
    return SINEW_OK;
}

sinew_result sinew_bbw_pose_energy(const sinew_bbw_pose *p, const float *transforms, size_t transform_floats,
                                   void *scratch, size_t scratch_bytes, double *energy)
{
    sn_clear_error();
    if (!p) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "pose is NULL");
    if (!transforms) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "transforms is NULL");
    if (!energy) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "energy is NULL");
    sinew_result r = sn_check_float_array(transforms, 0, 16, p->handle_count, "transforms");
    if (r != SINEW_OK) return r;
    if (transform_floats != 16 * p->handle_count)
        return sn_fail(SINEW_ERROR_MISMATCH, "transform_floats is %zu, but %zu handles need %zu", transform_floats,
                       p->handle_count, 16 * p->handle_count);
    scratch_layout l = layout_of(p, 0);
    if (l.bytes == SIZE_MAX) return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "the scratch size overflows");
    if (!scratch) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "scratch is NULL");
    if (scratch_bytes < l.bytes)
        return sn_fail(SINEW_ERROR_BUFFER_TOO_SMALL, "scratch_bytes is %zu, but the energy needs %zu", scratch_bytes,
                       l.bytes);
    for (size_t j = 0; j < p->handle_count; ++j)
        if ((r = sn_pose_check_transform(transforms + 16 * j, j, "transform")) != SINEW_OK) return r;
    solve_state st;
    memset(&st, 0, sizeof st);
    st.p = p;
    carve(&st, &l, scratch);
    for (size_t j = 0; j < p->handle_count; ++j) sn_pose_to_unknowns(p, j, transforms + 16 * j, st.x);
    identity_rotations(p, st.rot);
    *energy = sn_pose_energy_of(p, st.x, st.rot, COLD_STEPS);
    return SINEW_OK;
}
