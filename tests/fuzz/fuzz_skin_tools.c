/*
 * Fuzz target: skinning weight tools. Capsule binding (options, radii,
 * unbound policy, report capacity), then rogue removal, smoothing and pruning
 * on fuzzed influence rows over a fuzzed triangle mesh.
 */
#include "fuzz.h"

static void bind_capsules(fz_reader *r, sinew_context *ctx, const sinew_points *positions)
{
    size_t capsule_count = fz_range(r, 0, 8);
    sinew_skin_capsule *capsules = fz_alloc(capsule_count * sizeof *capsules);
    for (size_t i = 0; i < capsule_count; i++) {
        for (int k = 0; k < 3; k++) capsules[i].head[k] = fz_float(r);
        for (int k = 0; k < 3; k++) capsules[i].tail[k] = fz_bool(r) ? capsules[i].head[k] : fz_float(r);
        capsules[i].radius = fz_u8(r) < 64 ? 0.0f : fz_float(r);
        capsules[i].joint = fz_u32(r) % 70000u;
    }
    sinew_skin_capsule_desc desc;
    SINEW_INIT(&desc);
    desc.influence_count = fz_u8(r) < 200 ? fz_range(r, 0, 6) : fz_u32(r);
    desc.falloff = fz_u8(r) < 128 ? 0.0f : fz_param(r, -0.5f, 4.0f);
    desc.radius_quantile = fz_u8(r) < 128 ? 0.0f : fz_param(r, -0.1f, 1.1f);
    desc.unbound = (sinew_skin_unbound)fz_enum(r, 2);
    desc.scoring = (sinew_skin_capsule_scoring)fz_enum(r, 2);
    const sinew_skin_capsule_desc *given = fz_u8(r) < 240 ? &desc : NULL;
    size_t k = given && desc.influence_count ? desc.influence_count : 4;
    if (k > 64) return;   /* outputs too large to build; the call would be judged on sizes only */
    uint32_t *joints = fz_alloc(positions->count * k * sizeof *joints);
    float *weights = fz_alloc(positions->count * k * sizeof *weights);
    sinew_skin_capsule_report report;
    SINEW_INIT(&report);
    report.unbound_capacity = fz_range(r, 0, 8);
    report.unbound = fz_bool(r) ? fz_alloc(report.unbound_capacity * sizeof *report.unbound + 1) : NULL;
    bool with_report = fz_u8(r) < 200;

    fz_call c;
    fz_call_begin(&c, "sinew_skin_capsule_weights");
    fz_call_out(&c, joints, positions->count * k * sizeof *joints, false);
    fz_call_out(&c, weights, positions->count * k * sizeof *weights, true);
    sinew_result res = sinew_skin_capsule_weights(ctx, positions, capsules, capsule_count,
                                                given, joints, weights,
                                                with_report ? &report : NULL);
    fz_call_end(&c, res, fz_finite(r));
    if (res == SINEW_OK) {
        for (size_t v = 0; v < positions->count; v++) {
            float sum = 0.0f;
            for (size_t s = 0; s < k; s++) sum += weights[v * k + s];
            fz_require(sum > 0.999f && sum < 1.001f, "sinew_skin_capsule_weights",
                       "weight row of vertex %zu sums to %g, not 1 (first weight %g)", v, (double)sum,
                       (double)weights[v * k]);
        }
    }
}

/* Influence rows: k slots per vertex, joints below 12 mostly. */
static void fuzz_rows(fz_reader *r, size_t vertex_count, size_t k, uint32_t **joints, float **weights)
{
    *joints = fz_indices(r, vertex_count * k, 12);
    *weights = fz_alloc(vertex_count * k * sizeof **weights);
    for (size_t i = 0; i < vertex_count * k; i++) (*weights)[i] = fz_weight(r);
}

static void check_rows(const char *call, const float *weights, size_t vertex_count, size_t k)
{
    for (size_t v = 0; v < vertex_count; v++) {
        float sum = 0.0f;
        for (size_t s = 0; s < k; s++) {
            fz_require(weights[v * k + s] >= 0.0f, call, "vertex %zu slot %zu has weight %g", v, s,
                       (double)weights[v * k + s]);
            if (s > 0) fz_require(weights[v * k + s] <= weights[v * k + s - 1], call, "vertex %zu weights not sorted", v);
            sum += weights[v * k + s];
        }
        fz_require(sum > 0.999f && sum < 1.001f, call, "weight row of vertex %zu sums to %g, not 1", v, (double)sum);
    }
}

static void mesh_tools(fz_reader *r, sinew_context *ctx, const sinew_points *positions)
{
    sinew_trimesh mesh = {.positions = *positions};
    mesh.triangle_count = fz_range(r, 0, 96);
    mesh.indices = fz_indices(r, 3 * mesh.triangle_count, positions->count);
    size_t k = fz_range(r, 0, 6);
    size_t n = positions->count;
    uint32_t *joints;
    float *weights;
    fuzz_rows(r, n, k, &joints, &weights);
    uint8_t which = fz_u8(r);
    fz_call c;

    if (which & 1u) {
        sinew_skin_rogue_report report;
        SINEW_INIT(&report);
        fz_call_begin(&c, "sinew_skin_remove_rogues");
        fz_call_inout(&c, joints, n * k * sizeof *joints, false);
        fz_call_inout(&c, weights, n * k * sizeof *weights, true);
        fz_call_out_struct(&c, &report, sizeof report);
        if (fz_call_end(&c, sinew_skin_remove_rogues(ctx, &mesh, k, joints, weights, &report), fz_finite(r)) ==
            SINEW_OK)
            check_rows("sinew_skin_remove_rogues", weights, n, k);
    }
    if (which & 2u) {
        sinew_skin_smooth_desc desc = {.struct_size = sizeof(sinew_skin_smooth_desc), .iterations = fz_range(r, 0, 6), .strength = fz_param(r, -0.1f, 1.2f)};
        fz_call_begin(&c, "sinew_skin_smooth_weights");
        fz_call_inout(&c, joints, n * k * sizeof *joints, false);
        fz_call_inout(&c, weights, n * k * sizeof *weights, true);
        if (fz_call_end(&c,
                        sinew_skin_smooth_weights(ctx, &mesh, k, joints, weights, fz_bool(r) ? &desc : NULL),
                        fz_finite(r)) == SINEW_OK)
            check_rows("sinew_skin_smooth_weights", weights, n, k);
    }
    if (which & 4u) {
        size_t out_k = fz_range(r, 0, 8);
        float min_weight = fz_u8(r) < 128 ? 0.0f : fz_param(r, -0.1f, 1.1f);
        bool in_place = out_k <= k && fz_bool(r);
        uint32_t *out_joints = in_place ? joints : fz_alloc(n * out_k * sizeof *out_joints);
        float *out_weights = in_place ? weights : fz_alloc(n * out_k * sizeof *out_weights);
        fz_call_begin(&c, "sinew_skin_prune_weights");
        if (in_place) {
            fz_call_inout(&c, joints, n * k * sizeof *joints, false);
            fz_call_inout(&c, weights, n * k * sizeof *weights, true);
        } else {
            fz_call_out(&c, out_joints, n * out_k * sizeof *out_joints, false);
            fz_call_out(&c, out_weights, n * out_k * sizeof *out_weights, true);
        }
        if (fz_call_end(&c,
                        sinew_skin_prune_weights(ctx, n, k, joints, weights, out_k, min_weight, out_joints,
                                                 out_weights),
                        fz_finite(r)) == SINEW_OK)
            check_rows("sinew_skin_prune_weights", out_weights, n, out_k);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_reader r;
    fz_begin(&r, data, size);
    sinew_context *ctx = fz_context(&r);
    sinew_points positions = fz_points(&r, fz_range(&r, 0, 64));
    if (fz_bool(&r)) bind_capsules(&r, ctx, &positions);
    else mesh_tools(&r, ctx, &positions);
    sinew_context_destroy(ctx);
    fz_end();
    return 0;
}
