/*
 * Global step of the pose solver (pose_internal.h gives the notation).
 *
 * Per output coordinate c, with the fixed handles' unknowns x_F known and
 * the position constraints C x_f = q_c on the free ones:
 *   minimise x_f' A_ff x_f + 2 x_f' A_fF x_F - 2 x_f' (B r_c)_f  s.t. C x_f = q_c.
 * A_ff alone is singular when nothing pins the translation, so the system is
 * solved with H = A_ff + rho C'C (same minimiser on the constraint set) by a
 * Schur complement on the constraints. With H = L L' and W = L^-1 C':
 *   z = L^-1 g,  S lambda = W'z - q_c (S = W'W),  x_f = L'^-1 (z - W lambda).
 * H and S are factorised once per call and serve every coordinate and every
 * iteration. Each row of C has only its handle's per entries: [rest; 1].
 */
#include <math.h>
#include <string.h>

#include "bbw/pose_internal.h"

/* Position i's row of C: [rest; 1] (normalised) on its handle's unknowns. */
static void constraint_row(const sinew_bbw_pose *p, const sinew_bbw_pose_position *pc, double row[4])
{
    for (uint32_t a = 0; a < p->dim; ++a) row[a] = (pc->rest[a] - p->centre[a]) / p->scale;
    row[p->dim] = 1.0;
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

/* Builds and factorises H and S; fills base. Failures name the handle or position. */
sinew_result sn_pose_prepare(sn_pose_state *st, const float *transforms)
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
static void add_rotation_term(const sn_pose_state *st, uint32_t c, double *g)
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

void sn_pose_global_step(sn_pose_state *st)
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
void sn_pose_project_similarity(sn_pose_state *st, size_t j)
{
    const sinew_bbw_pose *p = st->p;
    const uint32_t dim = p->dim, per = p->per;
    const size_t nv = p->var_count;
    double l[9] = {0}, r[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, t[3] = {0};
    if (dim == 2) r[1] = 0, r[2] = 0, r[3] = 1;
    for (uint32_t c = 0; c < dim; ++c) {
        for (uint32_t b = 0; b < dim; ++b) l[c * dim + b] = st->x[c * nv + j * per + b];
        t[c] = st->x[c * nv + j * per + dim];
    }
    sn_pose_fit_rotation(dim, l, r, SN_POSE_COLD_STEPS);
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
