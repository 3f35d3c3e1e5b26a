/* Pruning an N-slot influence layout to k slots. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "sinew/skin_tools.h"
#include "skin/tools/influence_rows.h"

sinew_result sinew_skin_prune_weights(sinew_context *ctx, size_t vertex_count, size_t in_influence_count,
                                      const uint32_t *in_joints, const float *in_weights, size_t out_influence_count,
                                      float min_weight, uint32_t *out_joints, float *out_weights)
{
    sn_clear_error();
    sinew_result r = sn_skin_check_influences(vertex_count, in_influence_count, in_joints, in_weights, "prune input");
    if (r != SINEW_OK) return r;
    if (out_influence_count == 0) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "prune: 0 output slots per vertex");
    if (!out_joints || !out_weights)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "prune: output array %s is NULL",
                       out_joints ? "out_weights" : "out_joints");
    if (!isfinite(min_weight)) return sn_fail(SINEW_ERROR_NON_FINITE, "prune: min_weight is not finite (%g)", (double)min_weight);
    if (min_weight < 0.0f || min_weight >= 1.0f)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "prune: min_weight %g is not in [0, 1)", (double)min_weight);

    sn_env env;
    sn_env_from_context(&env, ctx);
    size_t total, bytes;
    if (!sn_mul_size(vertex_count, out_influence_count, &total) || !sn_mul_size(total, sizeof(float), &bytes) ||
        bytes > PTRDIFF_MAX)
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "prune: %zu vertices of %zu slots overflow the output joints and weights", vertex_count,
                       out_influence_count);
    /* Results go to scratch first: the outputs may alias the inputs with a
     * different slot count, and must stay untouched on failure. */
    sn_skin_entry *row = (sn_skin_entry *)sn_alloc_array(&env, in_influence_count, sizeof *row, "prune row");
    uint32_t *joints = (uint32_t *)sn_alloc_array(&env, total, sizeof *joints, "pruned joints");
    float *weights = (float *)sn_alloc_array(&env, total, sizeof *weights, "pruned weights");
    if (!row || !joints || !weights) {
        r = sn_alloc_failure();
        goto done;
    }
    for (size_t v = 0; v < vertex_count; ++v) {
        size_t n = sn_skin_gather_row(in_joints, in_weights, in_influence_count, v, row);
        sn_skin_sort_by_weight(row, n);
        if (n > out_influence_count) n = out_influence_count;
        /* Threshold against the row's largest weight, so it means the same
         * whether or not the input rows summed to one. */
        const double cut = (double)min_weight * row[0].weight;
        while (n > 1 && row[n - 1].weight < cut) --n;
        sn_skin_write_row(row, n, out_influence_count, joints + v * out_influence_count, weights + v * out_influence_count);
    }
    memcpy(out_joints, joints, total * sizeof *joints);
    memcpy(out_weights, weights, total * sizeof *weights);
    r = SINEW_OK;
done:
    sn_free(&env, row);
    sn_free(&env, joints);
    sn_free(&env, weights);
    return r;
}
