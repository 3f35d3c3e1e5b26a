/*
 * Rotation clusters of the pose solver: elements whose weights are alike
 * move alike, so they share one rotation. k-means in weight space (each
 * element's mean weights), seeded by farthest-point sampling so the result is
 * deterministic, then Lloyd iterations with volume-weighted centres.
 */
#include <math.h>
#include <string.h>

#include "bbw/pose_internal.h"

enum { LLOYD_ITERATIONS = 12 };

/* Squared distance of element e's sparse feature to the dense centre c
 * (whose squared norm is cc): |f|^2 - 2 f.c + |c|^2, costing the feature's
 * few entries rather than the handle count. */
static double distance2(const sn_pose_domain *dom, size_t e, const double *c, double cc, double ff)
{
    double dot = 0.0;
    for (size_t s = dom->feature_start[e]; s < dom->feature_start[e + 1]; ++s)
        dot += dom->feature_value[s] * c[dom->feature_handle[s]];
    return fmax(ff - 2.0 * dot + cc, 0.0);
}

static void set_centre(const sn_pose_domain *dom, size_t e, size_t m, double *c, double *cc)
{
    memset(c, 0, m * sizeof(double));
    double n = 0.0;
    for (size_t s = dom->feature_start[e]; s < dom->feature_start[e + 1]; ++s) {
        c[dom->feature_handle[s]] = dom->feature_value[s];
        n += dom->feature_value[s] * dom->feature_value[s];
    }
    *cc = n;
}

sinew_result sn_pose_cluster(sinew_bbw_pose *p, const sn_pose_domain *dom, size_t wanted, size_t *cluster_of)
{
    const size_t n = dom->element_count, m = p->handle_count;
    size_t kept = 0;
    for (size_t e = 0; e < n; ++e) kept += !dom->skipped[e];
    if (wanted >= kept) {
        /* One rotation per element: the energy without clustering. */
        size_t k = 0;
        for (size_t e = 0; e < n; ++e) cluster_of[e] = dom->skipped[e] ? SIZE_MAX : k++;
        p->cluster_count = k;
        return SINEW_OK;
    }
    size_t cells = 0;
    if (!sn_mul_size(wanted, m, &cells)) return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "clusters x handles overflow");
    double *centre = sn_alloc_array(&p->env, cells, sizeof(double), "cluster centres");
    double *cnorm = sn_alloc_array(&p->env, wanted, sizeof(double), "cluster centre norms");
    double *mass = sn_alloc_array(&p->env, wanted, sizeof(double), "cluster masses");
    double *fnorm = sn_alloc_array(&p->env, n, sizeof(double), "element feature norms");
    double *nearest = sn_alloc_array(&p->env, n, sizeof(double), "element distances");
    size_t *renumber = sn_alloc_array(&p->env, wanted, sizeof(size_t), "cluster numbers");
    sinew_result r = SINEW_OK;
    if (!centre || !cnorm || !mass || !fnorm || !nearest || !renumber) {
        r = sn_alloc_failure();
        goto done;
    }
    size_t seed = SIZE_MAX;
    for (size_t e = 0; e < n; ++e) {
        double f = 0.0;
        for (size_t s = dom->feature_start[e]; s < dom->feature_start[e + 1]; ++s)
            f += dom->feature_value[s] * dom->feature_value[s];
        fnorm[e] = f;
        if (!dom->skipped[e] && seed == SIZE_MAX) seed = e;
        cluster_of[e] = dom->skipped[e] ? SIZE_MAX : 0;
    }
    /* Farthest-point seeds: each new centre is the element farthest from
     * every centre so far (the first such element on ties). */
    size_t k = 0;
    for (size_t e = 0; e < n; ++e) nearest[e] = INFINITY;
    while (k < wanted) {
        set_centre(dom, seed, m, centre + k * m, &cnorm[k]);
        double far = -1.0;
        size_t next = SIZE_MAX;
        for (size_t e = 0; e < n; ++e) {
            if (dom->skipped[e]) continue;
            double dd = distance2(dom, e, centre + k * m, cnorm[k], fnorm[e]);
            if (dd < nearest[e]) nearest[e] = dd, cluster_of[e] = k;
            if (nearest[e] > far) far = nearest[e], next = e;
        }
        ++k;
        /* Fewer distinct weight vectors than clusters wanted: stop there. */
        if (!(far > 1e-24) || next == SIZE_MAX) break;
        seed = next;
        if ((r = sn_progress(&p->env, "bbw pose: clusters", 0.5f * (float)k / (float)wanted)) != SINEW_OK) goto done;
    }
    for (int it = 0; it < LLOYD_ITERATIONS; ++it) {
        /* Centres: volume-weighted means of their elements. */
        memset(centre, 0, k * m * sizeof(double));
        memset(mass, 0, k * sizeof(double));
        for (size_t e = 0; e < n; ++e) {
            if (cluster_of[e] == SIZE_MAX) continue;
            double *c = centre + cluster_of[e] * m;
            for (size_t s = dom->feature_start[e]; s < dom->feature_start[e + 1]; ++s)
                c[dom->feature_handle[s]] += dom->volume[e] * dom->feature_value[s];
            mass[cluster_of[e]] += dom->volume[e];
        }
        for (size_t c = 0; c < k; ++c) {
            double nn = 0.0;
            for (size_t j = 0; j < m; ++j) {
                if (mass[c] > 0.0) centre[c * m + j] /= mass[c];
                nn += centre[c * m + j] * centre[c * m + j];
            }
            cnorm[c] = nn;
        }
        size_t moved = 0;
        for (size_t e = 0; e < n; ++e) {
            if (cluster_of[e] == SIZE_MAX) continue;
            size_t best = cluster_of[e];
            double bd = distance2(dom, e, centre + best * m, cnorm[best], fnorm[e]);
            for (size_t c = 0; c < k; ++c) {
                if (mass[c] == 0.0) continue;
                double dd = distance2(dom, e, centre + c * m, cnorm[c], fnorm[e]);
                if (dd < bd) bd = dd, best = c;
            }
            if (best != cluster_of[e]) cluster_of[e] = best, ++moved;
        }
        if ((r = sn_progress(&p->env, "bbw pose: clusters", 0.5f + 0.5f * (float)(it + 1) / LLOYD_ITERATIONS)) !=
            SINEW_OK)
            goto done;
        if (!moved) break;
    }
    /* Number the clusters that kept elements consecutively. */
    for (size_t c = 0; c < k; ++c) renumber[c] = SIZE_MAX;
    size_t used = 0;
    for (size_t e = 0; e < n; ++e) {
        if (cluster_of[e] == SIZE_MAX) continue;
        if (renumber[cluster_of[e]] == SIZE_MAX) renumber[cluster_of[e]] = used++;
        cluster_of[e] = renumber[cluster_of[e]];
    }
    p->cluster_count = used;
done:
    sn_free(&p->env, centre);
    sn_free(&p->env, cnorm);
    sn_free(&p->env, mass);
    sn_free(&p->env, fnorm);
    sn_free(&p->env, nearest);
    sn_free(&p->env, renumber);
    return r;
}
