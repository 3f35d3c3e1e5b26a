/*
 * Bind-time reduction of the pose solver: each element's volume and hat
 * function gradients, the handles that weight it, and the reduced matrices
 * A = sum_e vol_e (G_e M_e)'(G_e M_e) and P_k = sum_{e in k} vol_e (G_e M_e)'
 * (pose_internal.h), where G_e M_e maps a coordinate's unknowns to that
 * coordinate's row of the element's deformation gradient.
 */
#include <math.h>
#include <string.h>

#include "bbw/pose_internal.h"

/* Inverse of the d x d row-major matrix m; returns its determinant. */
static double invert(uint32_t d, const double *m, double *inv)
{
    if (d == 2) {
        double det = m[0] * m[3] - m[1] * m[2];
        inv[0] = m[3] / det, inv[1] = -m[1] / det, inv[2] = -m[2] / det, inv[3] = m[0] / det;
        return det;
    }
    double c00 = m[4] * m[8] - m[5] * m[7], c01 = m[5] * m[6] - m[3] * m[8], c02 = m[3] * m[7] - m[4] * m[6];
    double det = m[0] * c00 + m[1] * c01 + m[2] * c02;
    inv[0] = c00 / det, inv[3] = c01 / det, inv[6] = c02 / det;
    inv[1] = (m[2] * m[7] - m[1] * m[8]) / det, inv[4] = (m[0] * m[8] - m[2] * m[6]) / det;
    inv[7] = (m[1] * m[6] - m[0] * m[7]) / det;
    inv[2] = (m[1] * m[5] - m[2] * m[4]) / det, inv[5] = (m[2] * m[3] - m[0] * m[5]) / det;
    inv[8] = (m[0] * m[4] - m[1] * m[3]) / det;
    return det;
}

sinew_result sn_pose_element_geometry(const sinew_bbw_pose *p, sn_pose_domain *dom)
{
    const uint32_t d = p->dim, per = p->per;
    for (size_t e = 0; e < dom->element_count; ++e) {
        const uint32_t *ix = dom->elements + (size_t)e * per;
        const double *p0 = dom->points + (size_t)ix[0] * d;
        /* Edge matrix: column i - 1 is vertex i minus vertex 0. */
        double edges[9], inv[9], longest = 0.0;
        for (uint32_t i = 1; i < per; ++i) {
            const double *pi = dom->points + (size_t)ix[i] * d;
            double len = 0.0;
            for (uint32_t a = 0; a < d; ++a) {
                edges[a * d + (i - 1)] = pi[a] - p0[a];
                len += (pi[a] - p0[a]) * (pi[a] - p0[a]);
            }
            longest = fmax(longest, len);
        }
        double det = invert(d, edges, inv);
        double size = d == 2 ? longest : longest * sqrt(longest);
        if (!(fabs(det) > 1e-12 * size))
            return sn_fail(SINEW_ERROR_DEGENERATE, "%s %zu (vertices %u, %u, %u%s) has zero %s", d == 2 ? "triangle" : "tet",
                           e, ix[0], ix[1], ix[2], d == 2 ? "" : ", ...", d == 2 ? "area" : "volume");
        dom->volume[e] = fabs(det) / (d == 2 ? 2.0 : 6.0);
        /* Hat function of vertex i >= 1: row i - 1 of the inverse; vertex 0's
         * is minus their sum (the hat functions sum to one). */
        double *g = dom->gradient + e * per * d;
        for (uint32_t a = 0; a < d; ++a) g[a] = 0.0;
        for (uint32_t i = 1; i < per; ++i)
            for (uint32_t a = 0; a < d; ++a) {
                g[i * d + a] = inv[(i - 1) * d + a];
                g[a] -= inv[(i - 1) * d + a];
            }
    }
    return SINEW_OK;
}

sinew_result sn_pose_element_features(const sinew_bbw_pose *p, sn_pose_domain *dom, const sn_pose_weights *w)
{
    const uint32_t per = p->per;
    const size_t m = p->handle_count, n = dom->element_count;
    size_t total = 0;
    for (size_t e = 0; e < n; ++e) {
        if (dom->skipped[e]) continue;
        size_t sum = 0;
        for (uint32_t i = 0; i < per; ++i) {
            uint32_t v = dom->elements[e * per + i];
            sum += w->start[v + 1] - w->start[v];
        }
        total += sum < m ? sum : m;   /* an upper bound on the union */
    }
    dom->feature_start = sn_alloc_array(&p->env, n + 1, sizeof(size_t), "element feature offsets");
    dom->feature_handle = sn_alloc_array(&p->env, total ? total : 1, sizeof(uint32_t), "element feature handles");
    dom->feature_value = sn_alloc_array(&p->env, total ? total : 1, sizeof(double), "element feature weights");
    double *dense = sn_calloc_array(&p->env, m, sizeof(double), "element weight row");
    uint8_t *seen = sn_calloc_array(&p->env, m, 1, "element handle marks");
    sinew_result r = SINEW_OK;
    if (!dom->feature_start || !dom->feature_handle || !dom->feature_value || !dense || !seen) {
        r = sn_alloc_failure();
        goto done;
    }
    size_t at = 0;
    for (size_t e = 0; e < n; ++e) {
        dom->feature_start[e] = at;
        if (dom->skipped[e]) continue;
        size_t first = at;
        for (uint32_t i = 0; i < per; ++i) {
            uint32_t v = dom->elements[e * per + i];
            for (size_t s = w->start[v]; s < w->start[v + 1]; ++s) {
                uint32_t j = w->handle[s];
                if (!seen[j]) {
                    seen[j] = 1;
                    dom->feature_handle[at++] = j;
                }
                dense[j] += w->value[s] / per;
            }
        }
        for (size_t s = first; s < at; ++s) {
            uint32_t j = dom->feature_handle[s];
            dom->feature_value[s] = dense[j];
            dense[j] = 0.0;
            seen[j] = 0;
        }
    }
    dom->feature_start[n] = at;
done:
    sn_free(&p->env, dense);
    sn_free(&p->env, seen);
    return r;
}

/* Q_ej (per x d, row-major): handle j's part of the map from one coordinate's
 * unknowns to that coordinate's row of F_e: sum over the element's vertices
 * of w_vj [u_v; 1] grad_v'. */
static void element_block(const sinew_bbw_pose *p, const sn_pose_domain *dom, const sn_pose_weights *w, size_t e,
                          uint32_t j, double *q)
{
    const uint32_t d = p->dim, per = p->per;
    const double *g = dom->gradient + e * per * d;
    memset(q, 0, sizeof(double) * per * d);
    for (uint32_t i = 0; i < per; ++i) {
        uint32_t v = dom->elements[e * per + i];
        double wj = 0.0;
        for (size_t s = w->start[v]; s < w->start[v + 1]; ++s)
            if (w->handle[s] == j) wj += w->value[s];
        if (wj == 0.0) continue;
        const double *u = dom->points + (size_t)v * d;
        for (uint32_t b = 0; b < per; ++b) {
            double coeff = wj * (b < d ? u[b] : 1.0);
            for (uint32_t a = 0; a < d; ++a) q[b * d + a] += coeff * g[i * d + a];
        }
    }
}

sinew_result sn_pose_reduce(sinew_bbw_pose *p, const sn_pose_domain *dom, const sn_pose_weights *w,
                            const size_t *cluster_of)
{
    const uint32_t d = p->dim, per = p->per;
    const size_t m = p->handle_count, nv = p->var_count, r = p->cluster_count, n = dom->element_count;
    sinew_result res = SINEW_OK;
    /* Which handles weight each cluster: a cluster x handle table of block numbers. */
    size_t cells = 0, square = 0;
    if (!sn_mul_size(r, m, &cells) || !sn_mul_size(nv, nv, &square))
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "the reduced matrices of %zu handles and %zu clusters overflow", m, r);
    uint32_t *slot = sn_alloc_array(&p->env, cells, sizeof(uint32_t), "cluster handle table");
    double *q = sn_alloc_array(&p->env, (size_t)per * d * (m ? m : 1), sizeof(double), "element blocks");
    double *mass = sn_calloc_array(&p->env, m, sizeof(double), "handle masses");
    p->A = sn_calloc_array(&p->env, square, sizeof(double), "reduced quadratic matrix");
    p->handle_centre = sn_calloc_array(&p->env, (size_t)m * d, sizeof(double), "handle centres");
    p->block_start = sn_alloc_array(&p->env, r + 1, sizeof(size_t), "cluster block offsets");
    p->cluster_mass = sn_calloc_array(&p->env, r, sizeof(double), "cluster masses");
    if (!slot || !q || !mass || !p->A || !p->handle_centre || !p->block_start || !p->cluster_mass) {
        res = sn_alloc_failure();
        goto done;
    }
    for (size_t i = 0; i < cells; ++i) slot[i] = UINT32_MAX;
    size_t blocks = 0;
    for (size_t e = 0; e < n; ++e) {
        if (cluster_of[e] == SIZE_MAX) continue;
        for (size_t s = dom->feature_start[e]; s < dom->feature_start[e + 1]; ++s) {
            uint32_t *cell = &slot[cluster_of[e] * m + dom->feature_handle[s]];
            if (*cell == UINT32_MAX) *cell = 0, ++blocks;
        }
    }
    p->block_handle = sn_alloc_array(&p->env, blocks ? blocks : 1, sizeof(uint32_t), "cluster block handles");
    p->block_P = sn_calloc_array(&p->env, (blocks ? blocks : 1) * per * d, sizeof(double), "cluster blocks");
    if (!p->block_handle || !p->block_P) {
        res = sn_alloc_failure();
        goto done;
    }
    size_t at = 0;
    for (size_t k = 0; k < r; ++k) {
        p->block_start[k] = at;
        for (size_t j = 0; j < m; ++j)
            if (slot[k * m + j] != UINT32_MAX) {
                slot[k * m + j] = (uint32_t)at;
                p->block_handle[at++] = (uint32_t)j;
            }
    }
    p->block_start[r] = at;
    double total = 0.0;
    for (size_t e = 0; e < n; ++e) {
        if (cluster_of[e] == SIZE_MAX) continue;
        double vol = dom->volume[e];
        total += vol;
        p->cluster_mass[cluster_of[e]] += vol;
        size_t h0 = dom->feature_start[e], hn = dom->feature_start[e + 1] - h0;
        for (size_t s = 0; s < hn; ++s) element_block(p, dom, w, e, dom->feature_handle[h0 + s], q + s * per * d);
        for (size_t s = 0; s < hn; ++s) {
            uint32_t j = dom->feature_handle[h0 + s];
            const double *qj = q + s * per * d;
            double *pk = p->block_P + (size_t)slot[cluster_of[e] * m + j] * per * d;
            for (uint32_t i = 0; i < per * d; ++i) pk[i] += vol * qj[i];
            for (size_t t = 0; t < hn; ++t) {
                uint32_t k = dom->feature_handle[h0 + t];
                const double *qk = q + t * per * d;
                for (uint32_t b = 0; b < per; ++b)
                    for (uint32_t c = 0; c < per; ++c) {
                        double v = 0.0;
                        for (uint32_t a = 0; a < d; ++a) v += qj[b * d + a] * qk[c * d + a];
                        p->A[((size_t)j * per + b) * nv + (size_t)k * per + c] += vol * v;
                    }
            }
            /* Weighted centre: each vertex carries a share vol / per. */
            double fv = dom->feature_value[h0 + s];
            mass[j] += vol * fv;
            for (uint32_t i = 0; i < per; ++i) {
                uint32_t v = dom->elements[e * per + i];
                double wj = 0.0;
                for (size_t u = w->start[v]; u < w->start[v + 1]; ++u)
                    if (w->handle[u] == j) wj += w->value[u];
                for (uint32_t a = 0; a < d; ++a) p->handle_centre[j * d + a] += vol * wj / per * dom->points[v * d + a];
            }
        }
    }
    /* Per unit volume: the energy of a pose does not depend on the model's size. */
    for (size_t i = 0; i < nv * nv; ++i) p->A[i] /= total;
    for (size_t i = 0; i < at * per * d; ++i) p->block_P[i] /= total;
    for (size_t k = 0; k < r; ++k) p->cluster_mass[k] /= total;
    for (size_t j = 0; j < m; ++j)
        for (uint32_t a = 0; a < d; ++a) p->handle_centre[j * d + a] = mass[j] != 0.0 ? p->handle_centre[j * d + a] / mass[j] : 0.0;
done:
    sn_free(&p->env, slot);
    sn_free(&p->env, q);
    sn_free(&p->env, mass);
    return res;
}
