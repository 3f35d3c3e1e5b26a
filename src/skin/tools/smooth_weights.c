/* Weight smoothing over the mesh graph: Jacobi sweeps of the uniform graph
 * Laplacian on the sparse weight rows, truncated back to k joints per sweep. */
#include <math.h>
#include <string.h>

#include "sinew/skin_tools.h"
#include "skin/skin_defaults.h"
#include "skin/tools/influence_rows.h"
#include "geom/mesh_graph.h"

static const char *const STAGE = "skin: smooth weights";

sinew_result sinew_skin_smooth_weights(sinew_context *ctx, const sinew_trimesh *mesh, size_t influence_count,
                                       uint32_t *joints, float *weights, const sinew_skin_smooth_desc *desc)
{
    sn_clear_error();
    sinew_skin_smooth_desc d = {0};
    sinew_result r = SINEW_OK;
    if (desc && (r = sn_read_struct(&d, sizeof d, desc, "smooth weights: desc")) != SINEW_OK) return r;
    sn_skin_smooth_resolve(&d);
    if (!isfinite(d.strength)) return sn_fail(SINEW_ERROR_NON_FINITE, "smooth weights: strength is not finite");
    if (d.strength < 0.0f || d.strength > 1.0f)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "smooth weights: strength %g is not in (0, 1]",
                       (double)d.strength);
    uint32_t iterations = d.iterations;
    double lambda = d.strength;
    if (!mesh) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "smooth weights: mesh is NULL");
    size_t n = mesh->positions.count;
    size_t k = influence_count;
    r = sn_skin_check_influences(n, k, joints, weights, "smooth weights");
    if (r != SINEW_OK) return r;

    sn_env env;
    sn_env_from_context(&env, ctx);
    sn_mesh_graph g;
    r = sn_mesh_graph_build(&env, mesh, &g);
    if (r != SINEW_OK) return r;
    size_t nk = n * k;
    /* A vertex's blend gathers its own row and each neighbour's. */
    size_t gather;
    if (!sn_add_size(g.max_valence, 1, &gather) || !sn_mul_size(gather, k, &gather)) {
        r = sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "smooth weights: valence %zu times %zu slots overflows",
                    g.max_valence, k);
        sn_mesh_graph_free(&env, &g);
        return r;
    }
    sn_skin_entry *row = (sn_skin_entry *)sn_alloc_array(&env, gather, sizeof *row, "smoothing row");
    uint32_t *j[2] = {(uint32_t *)sn_alloc_array(&env, nk, sizeof(uint32_t), "smoothing joints"),
                      (uint32_t *)sn_alloc_array(&env, nk, sizeof(uint32_t), "smoothing joints")};
    float *w[2] = {(float *)sn_alloc_array(&env, nk, sizeof(float), "smoothing weights"),
                   (float *)sn_alloc_array(&env, nk, sizeof(float), "smoothing weights")};
    if (!row || !j[0] || !j[1] || !w[0] || !w[1]) {
        r = sn_alloc_failure();
        goto done;
    }
    for (size_t v = 0; v < n; ++v) {
        size_t m = sn_skin_gather_row(joints, weights, k, v, row);
        sn_skin_sort_by_weight(row, m);
        sn_skin_write_row(row, m, k, j[0] + v * k, w[0] + v * k);
    }

    int from = 0;
    for (uint32_t it = 0; it < iterations; ++it) {
        const uint32_t *sj = j[from];
        const float *sw = w[from];
        uint32_t *dj = j[1 - from];
        float *dw = w[1 - from];
        for (size_t v = 0; v < n; ++v) {
            if (v % SN_SKIN_TOOLS_PROGRESS_EVERY == 0 &&
                (r = sn_progress(&env, STAGE, ((float)it + (float)v / (float)n) / (float)iterations)) != SINEW_OK)
                goto done;
            size_t valence = g.first[v + 1] - g.first[v];
            if (valence == 0) {
                memcpy(dj + v * k, sj + v * k, k * sizeof *dj);
                memcpy(dw + v * k, sw + v * k, k * sizeof *dw);
                continue;
            }
            /* Every input row sums to 1, so the blend does too: partition of
             * unity holds before truncation, which then renormalises. */
            size_t m = 0;
            const double keep = 1.0 - lambda, share = lambda / (double)valence;
            for (size_t s = 0; s < k && sw[v * k + s] > 0.0f && keep > 0.0; ++s)
                row[m++] = (sn_skin_entry){sj[v * k + s], keep * (double)sw[v * k + s]};
            for (size_t e = g.first[v]; e < g.first[v + 1]; ++e) {
                size_t u = g.neighbours[e];
                for (size_t s = 0; s < k && sw[u * k + s] > 0.0f; ++s)
                    row[m++] = (sn_skin_entry){sj[u * k + s], share * (double)sw[u * k + s]};
            }
            m = sn_skin_merge_joints(row, m);
            sn_skin_sort_by_weight(row, m);
            /* With strength 1 a vertex's own joints can all vanish only if its
             * neighbours have some, so m >= 1 and the first weight is positive. */
            sn_skin_write_row(row, m, k, dj + v * k, dw + v * k);
        }
        from = 1 - from;
    }
    memcpy(joints, j[from], nk * sizeof *joints);
    memcpy(weights, w[from], nk * sizeof *weights);
    r = SINEW_OK;
done:
    sn_free(&env, row);
    sn_free(&env, j[0]);
    sn_free(&env, j[1]);
    sn_free(&env, w[0]);
    sn_free(&env, w[1]);
    sn_mesh_graph_free(&env, &g);
    return r;
}
