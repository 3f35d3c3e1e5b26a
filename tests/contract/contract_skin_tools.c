/* Contract of include/sinew/skin_tools.h: capsule binding, rogue removal,
 * smoothing, pruning. The influence arrays the tools rewrite in place live in
 * the scratch buffer, filled with valid rows by prepare(). */
#include <math.h>
#include <string.h>

#include "contract.h"

#define VERTICES 4
#define SLOTS 2

/* A tetrahedron's surface, outward facing. */
static const float positions[VERTICES * 3] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
static const uint32_t triangles[4 * 3] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
static const uint32_t bad_triangles[4 * 3] = {0, 2, 1, 0, 1, 4, 0, 3, 2, 1, 2, 3};
/* One capsule along x for joint 0, one along z for joint 1, both reaching every vertex. */
static const sinew_skin_capsule capsules[2] = {{{0, 0, 0}, {1, 0, 0}, 1.0f, 0}, {{0, 0, 0}, {0, 0, 1}, 1.0f, 1}};

#define IO_JOINTS SCRATCH(uint32_t, 32768)
#define IO_WEIGHTS SCRATCH(float, 40960)

static void prepare(void)
{
    for (size_t v = 0; v < VERTICES; ++v) {
        IO_JOINTS[v * SLOTS] = 0;
        IO_JOINTS[v * SLOTS + 1] = 1;
        IO_WEIGHTS[v * SLOTS] = 0.75f;
        IO_WEIGHTS[v * SLOTS + 1] = 0.25f;
    }
}

static sinew_points points_view(void)
{
    return (sinew_points){positions, VERTICES, 0};
}
static sinew_trimesh mesh_view(void)
{
    return (sinew_trimesh){points_view(), triangles, 4, SINEW_INDEX_U32, 0};
}

static int cancel(void *user, const char *stage, float fraction)
{
    (void)user, (void)stage, (void)fraction;
    return 1;
}
static sinew_context *cancelling_context(void)
{
    static sinew_context *ctx;
    if (!ctx) {
        sinew_context_desc cd = {sizeof(sinew_context_desc), {NULL, NULL, NULL}, cancel, NULL, NULL, NULL, 0};
        if (sinew_context_create(&cd, &ctx) != SINEW_OK) return NULL;
    }
    return ctx;
}

/* ---- capsule binding ---------------------------------------------------------- */

static sinew_result bind_points(sinew_points p)
{
    return sinew_skin_capsule_weights(NULL, &p, capsules, 2, NULL, OUT_U32, OUT2_F, NULL);
}
static sinew_result bind_capsule_count(size_t count)
{
    sinew_points p = points_view();
    return sinew_skin_capsule_weights(NULL, &p, capsules, count, NULL, OUT_U32, OUT2_F, NULL);
}
static sinew_result bind_desc(sinew_skin_capsule_desc d)
{
    sinew_points p = points_view();
    return sinew_skin_capsule_weights(NULL, &p, capsules, 2, &d, OUT_U32, OUT2_F, NULL);
}
static sinew_result bind_outputs(uint32_t *joints, float *weights)
{
    sinew_points p = points_view();
    return sinew_skin_capsule_weights(NULL, &p, capsules, 2, NULL, joints, weights, NULL);
}
static sinew_result bind_edited_capsule(int field, float value)
{
    sinew_skin_capsule c[2];
    memcpy(c, capsules, sizeof c);
    if (field < 3) c[1].head[field] = value;
    else if (field < 6) c[1].tail[field - 3] = value;
    else c[1].radius = value;
    sinew_points p = points_view();
    return sinew_skin_capsule_weights(NULL, &p, c, 2, NULL, OUT_U32, OUT2_F, NULL);
}
static sinew_result bind_edited_point(size_t vertex, int axis, float value)
{
    static float moved[VERTICES * 3];
    memcpy(moved, positions, sizeof moved);
    moved[3 * vertex + (size_t)axis] = value;
    return bind_points((sinew_points){moved, VERTICES, 0});
}
/* A vertex outside every band: OUTSIDE_DOMAIN, the report filled, outputs untouched. */
static sinew_result bind_unbound_vertex(void)
{
    static float moved[VERTICES * 3];
    static uint32_t listed[4];
    memcpy(moved, positions, sizeof moved);
    moved[3 * 2 + 1] = 100.0f;
    sinew_points p = {moved, VERTICES, 0};
    sinew_skin_capsule_report report = {sizeof(sinew_skin_capsule_report), listed, 4, 0};
    sinew_result r = sinew_skin_capsule_weights(NULL, &p, capsules, 2, NULL, OUT_U32, OUT2_F, &report);
    if (report.unbound_count != 1 || listed[0] != 2) return SINEW_ERROR_PLAIN;
    return r;
}
static sinew_result bind_report_without_array(void)
{
    sinew_points p = points_view();
    sinew_skin_capsule_report report = {sizeof(sinew_skin_capsule_report), NULL, 4, 0};
    return sinew_skin_capsule_weights(NULL, &p, capsules, 2, NULL, OUT_U32, OUT2_F, &report);
}
static sinew_result bind_cancelled(void)
{
    sinew_points p = points_view();
    return sinew_skin_capsule_weights(cancelling_context(), &p, capsules, 2, NULL, OUT_U32, OUT2_F, NULL);
}

/* ---- rogue removal and smoothing ------------------------------------------------ */

static sinew_result rogues_mesh(sinew_trimesh m)
{
    return sinew_skin_remove_rogues(NULL, &m, SLOTS, IO_JOINTS, IO_WEIGHTS, NULL);
}
static sinew_result smooth_mesh(sinew_trimesh m)
{
    return sinew_skin_smooth_weights(NULL, &m, SLOTS, IO_JOINTS, IO_WEIGHTS, NULL);
}
static sinew_trimesh mesh_with_triangles(const uint32_t *indices, size_t count)
{
    return (sinew_trimesh){points_view(), indices, count, SINEW_INDEX_U32, 0};
}
static sinew_trimesh mesh_with_points(sinew_points p)
{
    return (sinew_trimesh){p, triangles, 4, SINEW_INDEX_U32, 0};
}
static sinew_result rogues_slots(size_t per_vertex)
{
    sinew_trimesh m = mesh_view();
    return sinew_skin_remove_rogues(NULL, &m, per_vertex, IO_JOINTS, IO_WEIGHTS, NULL);
}
static sinew_result smooth_slots(size_t per_vertex)
{
    sinew_trimesh m = mesh_view();
    return sinew_skin_smooth_weights(NULL, &m, per_vertex, IO_JOINTS, IO_WEIGHTS, NULL);
}
static sinew_result rogues_arrays(uint32_t *joints, float *weights)
{
    sinew_trimesh m = mesh_view();
    return sinew_skin_remove_rogues(NULL, &m, SLOTS, joints, weights, OUT_STRUCT(sinew_skin_rogue_report, 256));
}
static sinew_result smooth_arrays(uint32_t *joints, float *weights)
{
    sinew_trimesh m = mesh_view();
    return sinew_skin_smooth_weights(NULL, &m, SLOTS, joints, weights, NULL);
}
static sinew_result rogues_weight(size_t slot, float value)
{
    IO_WEIGHTS[slot] = value;
    contract_resnapshot();
    return rogues_arrays(IO_JOINTS, IO_WEIGHTS);
}
static sinew_result smooth_weight(size_t slot, float value)
{
    IO_WEIGHTS[slot] = value;
    contract_resnapshot();
    return smooth_arrays(IO_JOINTS, IO_WEIGHTS);
}
static sinew_result zero_row_then(sinew_result (*tool)(uint32_t *, float *))
{
    IO_WEIGHTS[1 * SLOTS] = 0;
    IO_WEIGHTS[1 * SLOTS + 1] = 0;
    contract_resnapshot();
    return tool(IO_JOINTS, IO_WEIGHTS);
}
static sinew_result smooth_desc(sinew_skin_smooth_desc d)
{
    sinew_trimesh m = mesh_view();
    return sinew_skin_smooth_weights(NULL, &m, SLOTS, IO_JOINTS, IO_WEIGHTS, &d);
}
static sinew_result rogues_cancelled(void)
{
    sinew_trimesh m = mesh_view();
    return sinew_skin_remove_rogues(cancelling_context(), &m, SLOTS, IO_JOINTS, IO_WEIGHTS, NULL);
}
static sinew_result smooth_cancelled(void)
{
    sinew_trimesh m = mesh_view();
    return sinew_skin_smooth_weights(cancelling_context(), &m, SLOTS, IO_JOINTS, IO_WEIGHTS, NULL);
}

/* ---- pruning -------------------------------------------------------------------- */

static sinew_result prune(size_t vertices, size_t in_slots, const uint32_t *in_j, const float *in_w,
                          size_t out_slots, float min_weight, uint32_t *out_j, float *out_w)
{
    return sinew_skin_prune_weights(NULL, vertices, in_slots, in_j, in_w, out_slots, min_weight, out_j, out_w);
}
static sinew_result prune_counts(size_t vertices, size_t in_slots, size_t out_slots)
{
    return prune(vertices, in_slots, IO_JOINTS, IO_WEIGHTS, out_slots, 0.0f, OUT_U32, OUT2_F);
}
static sinew_result prune_min_weight(float min_weight)
{
    return prune(VERTICES, SLOTS, IO_JOINTS, IO_WEIGHTS, 1, min_weight, OUT_U32, OUT2_F);
}
static sinew_result prune_arrays(uint32_t *joints, float *weights)
{
    return prune(VERTICES, SLOTS, joints, weights, 1, 0.1f, OUT_U32, OUT2_F);
}
static sinew_result prune_weight(size_t slot, float value)
{
    IO_WEIGHTS[slot] = value;
    contract_resnapshot();
    return prune_arrays(IO_JOINTS, IO_WEIGHTS);
}

#define CASES(X) \
    /* capsule binding */ \
    X(bind_null_positions, INVALID_ARGUMENT, "mesh vertex", \
      { return sinew_skin_capsule_weights(NULL, NULL, capsules, 2, NULL, OUT_U32, OUT2_F, NULL); }) \
    X(bind_null_capsules, INVALID_ARGUMENT, "capsule", \
      { sinew_points p = points_view(); \
        return sinew_skin_capsule_weights(NULL, &p, NULL, 2, NULL, OUT_U32, OUT2_F, NULL); }) \
    X(bind_null_joints, INVALID_ARGUMENT, "joints", { return bind_outputs(NULL, OUT2_F); }) \
    X(bind_null_weights, INVALID_ARGUMENT, "weights", { return bind_outputs(OUT_U32, NULL); }) \
    X(bind_null_position_data, INVALID_ARGUMENT, "mesh vertex", \
      { return bind_points((sinew_points){NULL, VERTICES, 0}); }) \
    X(bind_no_vertices, INVALID_ARGUMENT, "vertices", { return bind_points((sinew_points){positions, 0, 0}); }) \
    X(bind_no_capsules, INVALID_ARGUMENT, "capsule", { return bind_capsule_count(0); }) \
    X(bind_capsule_count_size_max, SIZE_OVERFLOW, "capsule", { return bind_capsule_count(SIZE_MAX); }) \
    X(bind_capsule_count_size_max_16, SIZE_OVERFLOW, "capsule", { return bind_capsule_count(SIZE_MAX / 16); }) \
    X(bind_vertex_count_size_max_3, SIZE_OVERFLOW, "mesh vertex", \
      { return bind_points((sinew_points){positions, SIZE_MAX / 3, 0}); }) \
    X(bind_vertex_count_size_max_8, SIZE_OVERFLOW, "mesh vertex", \
      { return bind_points((sinew_points){positions, SIZE_MAX / 8, 0}); }) \
    X(bind_stride_not_multiple_of_4, INVALID_ARGUMENT, "stride", \
      { return bind_points((sinew_points){positions, 2, 13}); }) \
    X(bind_stride_too_small, INVALID_ARGUMENT, "stride", { return bind_points((sinew_points){positions, 2, 8}); }) \
    X(bind_position_nan, NON_FINITE, "mesh vertex 2", { return bind_edited_point(2, 1, NAN); }) \
    X(bind_capsule_head_nan, NON_FINITE, "capsule 1", { return bind_edited_capsule(1, NAN); }) \
    X(bind_capsule_tail_infinite, NON_FINITE, "capsule 1", { return bind_edited_capsule(5, INFINITY); }) \
    X(bind_capsule_radius_nan, NON_FINITE, "capsule 1", { return bind_edited_capsule(6, NAN); }) \
    X(bind_capsule_radius_negative, INVALID_ARGUMENT, "capsule 1", { return bind_edited_capsule(6, -1.0f); }) \
    X(bind_falloff_negative, INVALID_ARGUMENT, "falloff", \
      { return bind_desc((sinew_skin_capsule_desc){sizeof(sinew_skin_capsule_desc), 4, -0.5f, 0, SINEW_SKIN_UNBOUND_REPORT, SINEW_SKIN_CAPSULE_SCORE_BLEND}); }) \
    X(bind_falloff_nan, NON_FINITE, "falloff", \
      { return bind_desc((sinew_skin_capsule_desc){sizeof(sinew_skin_capsule_desc), 4, NAN, 0, SINEW_SKIN_UNBOUND_REPORT, SINEW_SKIN_CAPSULE_SCORE_BLEND}); }) \
    X(bind_quantile_above_one, INVALID_ARGUMENT, "radius_quantile", \
      { return bind_desc((sinew_skin_capsule_desc){sizeof(sinew_skin_capsule_desc), 4, 0, 1.5f, SINEW_SKIN_UNBOUND_REPORT, SINEW_SKIN_CAPSULE_SCORE_BLEND}); }) \
    X(bind_quantile_negative, INVALID_ARGUMENT, "radius_quantile", \
      { return bind_desc((sinew_skin_capsule_desc){sizeof(sinew_skin_capsule_desc), 4, 0, -0.5f, SINEW_SKIN_UNBOUND_REPORT, SINEW_SKIN_CAPSULE_SCORE_BLEND}); }) \
    X(bind_bad_unbound_policy, INVALID_ARGUMENT, "unbound", \
      { return bind_desc((sinew_skin_capsule_desc){sizeof(sinew_skin_capsule_desc), 4, 0, 0, (sinew_skin_unbound)2, SINEW_SKIN_CAPSULE_SCORE_BLEND}); }) \
    X(bind_bad_scoring, INVALID_ARGUMENT, "scoring 2", \
      { return bind_desc((sinew_skin_capsule_desc){sizeof(sinew_skin_capsule_desc), 4, 0, 0, SINEW_SKIN_UNBOUND_REPORT, \
                                                   (sinew_skin_capsule_scoring)2}); }) \
    X(bind_nearest_segment_ok, OK, NULL, \
      { return bind_desc((sinew_skin_capsule_desc){sizeof(sinew_skin_capsule_desc), 1, 0, 0, SINEW_SKIN_UNBOUND_REPORT, \
                                                   SINEW_SKIN_CAPSULE_SCORE_NEAREST_SEGMENT}); }) \
    X(bind_report_capacity_without_array, INVALID_ARGUMENT, "report", { return bind_report_without_array(); }) \
    X(bind_unbound_vertex_reported, OUTSIDE_DOMAIN, "vertex 2", { return bind_unbound_vertex(); }) \
    X(bind_cancelled, CANCELLED, "capsule bind", { return bind_cancelled(); }) \
    X(bind_ok, OK, NULL, { return bind_outputs(OUT_U32, OUT2_F); }) \
    X(bind_one_slot_ok, OK, NULL, \
      { return bind_desc((sinew_skin_capsule_desc){sizeof(sinew_skin_capsule_desc), 1, 0, 0, SINEW_SKIN_UNBOUND_NEAREST, SINEW_SKIN_CAPSULE_SCORE_BLEND}); }) \
    /* rogue removal */ \
    X(rogues_null_mesh, INVALID_ARGUMENT, "mesh", \
      { return sinew_skin_remove_rogues(NULL, NULL, SLOTS, IO_JOINTS, IO_WEIGHTS, NULL); }) \
    X(rogues_null_joints, INVALID_ARGUMENT, "joint", { return rogues_arrays(NULL, IO_WEIGHTS); }) \
    X(rogues_null_weights, INVALID_ARGUMENT, "weight", { return rogues_arrays(IO_JOINTS, NULL); }) \
    X(rogues_null_indices, INVALID_ARGUMENT, "indices", { return rogues_mesh(mesh_with_triangles(NULL, 4)); }) \
    X(rogues_zero_slots, INVALID_ARGUMENT, "slots", { return rogues_slots(0); }) \
    X(rogues_no_vertices, INVALID_ARGUMENT, "vertices", \
      { return rogues_mesh(mesh_with_points((sinew_points){positions, 0, 0})); }) \
    X(rogues_slots_size_max, SIZE_OVERFLOW, "slots", { return rogues_slots(SIZE_MAX); }) \
    X(rogues_slots_size_max_8, SIZE_OVERFLOW, "slots", { return rogues_slots(SIZE_MAX / 8); }) \
    X(rogues_triangle_count_size_max, SIZE_OVERFLOW, "triangle", \
      { return rogues_mesh(mesh_with_triangles(triangles, SIZE_MAX)); }) \
    X(rogues_triangle_count_size_max_3, SIZE_OVERFLOW, "triangle", \
      { return rogues_mesh(mesh_with_triangles(triangles, SIZE_MAX / 3)); }) \
    X(rogues_triangle_count_size_max_8, SIZE_OVERFLOW, "triangle", \
      { return rogues_mesh(mesh_with_triangles(triangles, SIZE_MAX / 8)); }) \
    X(rogues_vertex_count_size_max_4, SIZE_OVERFLOW, NULL, \
      { return rogues_mesh(mesh_with_points((sinew_points){positions, SIZE_MAX / 4, 0})); }) \
    X(rogues_stride_too_small, INVALID_ARGUMENT, "stride", \
      { return rogues_mesh(mesh_with_points((sinew_points){positions, VERTICES, 6})); }) \
    X(rogues_index_out_of_range, INDEX_OUT_OF_RANGE, "triangle 1", \
      { return rogues_mesh(mesh_with_triangles(bad_triangles, 4)); }) \
    X(rogues_weight_nan, NON_FINITE, "vertex 1", { return rogues_weight(1 * SLOTS + 1, NAN); }) \
    X(rogues_weight_negative, INVALID_WEIGHTS, "vertex 1", { return rogues_weight(1 * SLOTS + 1, -0.5f); }) \
    X(rogues_row_all_zero, INVALID_WEIGHTS, "vertex 1", { return zero_row_then(rogues_arrays); }) \
    X(rogues_cancelled, CANCELLED, "rogue", { return rogues_cancelled(); }) \
    X(rogues_ok, OK, NULL, { return rogues_arrays(IO_JOINTS, IO_WEIGHTS); }) \
    /* smoothing */ \
    X(smooth_null_mesh, INVALID_ARGUMENT, "mesh", \
      { return sinew_skin_smooth_weights(NULL, NULL, SLOTS, IO_JOINTS, IO_WEIGHTS, NULL); }) \
    X(smooth_null_joints, INVALID_ARGUMENT, "joint", { return smooth_arrays(NULL, IO_WEIGHTS); }) \
    X(smooth_null_weights, INVALID_ARGUMENT, "weight", { return smooth_arrays(IO_JOINTS, NULL); }) \
    X(smooth_null_indices, INVALID_ARGUMENT, "indices", { return smooth_mesh(mesh_with_triangles(NULL, 4)); }) \
    X(smooth_zero_slots, INVALID_ARGUMENT, "slots", { return smooth_slots(0); }) \
    X(smooth_no_vertices, INVALID_ARGUMENT, "vertices", \
      { return smooth_mesh(mesh_with_points((sinew_points){positions, 0, 0})); }) \
    X(smooth_slots_size_max, SIZE_OVERFLOW, "slots", { return smooth_slots(SIZE_MAX); }) \
    X(smooth_slots_size_max_8, SIZE_OVERFLOW, "slots", { return smooth_slots(SIZE_MAX / 8); }) \
    X(smooth_triangle_count_size_max_3, SIZE_OVERFLOW, "triangle", \
      { return smooth_mesh(mesh_with_triangles(triangles, SIZE_MAX / 3)); }) \
    X(smooth_index_out_of_range, INDEX_OUT_OF_RANGE, "triangle 1", \
      { return smooth_mesh(mesh_with_triangles(bad_triangles, 4)); }) \
    X(smooth_position_stride_not_multiple_of_4, INVALID_ARGUMENT, "stride", \
      { return smooth_mesh(mesh_with_points((sinew_points){positions, VERTICES, 14})); }) \
    X(smooth_weight_infinite, NON_FINITE, "vertex 1", { return smooth_weight(1 * SLOTS, INFINITY); }) \
    X(smooth_weight_negative, INVALID_WEIGHTS, "vertex 1", { return smooth_weight(1 * SLOTS + 1, -0.5f); }) \
    X(smooth_row_all_zero, INVALID_WEIGHTS, "vertex 1", { return zero_row_then(smooth_arrays); }) \
    X(smooth_strength_above_one, INVALID_ARGUMENT, "strength", { return smooth_desc((sinew_skin_smooth_desc){sizeof(sinew_skin_smooth_desc), 1, 1.5f}); }) \
    X(smooth_strength_negative, INVALID_ARGUMENT, "strength", \
      { return smooth_desc((sinew_skin_smooth_desc){sizeof(sinew_skin_smooth_desc), 1, -0.5f}); }) \
    X(smooth_strength_nan, NON_FINITE, "strength", { return smooth_desc((sinew_skin_smooth_desc){sizeof(sinew_skin_smooth_desc), 1, NAN}); }) \
    X(smooth_cancelled, CANCELLED, "smooth", { return smooth_cancelled(); }) \
    X(smooth_ok, OK, NULL, { return smooth_desc((sinew_skin_smooth_desc){sizeof(sinew_skin_smooth_desc), 2, 0.25f}); }) \
    /* pruning */ \
    X(prune_null_in_joints, INVALID_ARGUMENT, "joint", \
      { return prune(VERTICES, SLOTS, NULL, IO_WEIGHTS, 1, 0, OUT_U32, OUT2_F); }) \
    X(prune_null_in_weights, INVALID_ARGUMENT, "weight", \
      { return prune(VERTICES, SLOTS, IO_JOINTS, NULL, 1, 0, OUT_U32, OUT2_F); }) \
    X(prune_null_out_joints, INVALID_ARGUMENT, "out_joints", \
      { return prune(VERTICES, SLOTS, IO_JOINTS, IO_WEIGHTS, 1, 0, NULL, OUT2_F); }) \
    X(prune_null_out_weights, INVALID_ARGUMENT, "out_weights", \
      { return prune(VERTICES, SLOTS, IO_JOINTS, IO_WEIGHTS, 1, 0, OUT_U32, NULL); }) \
    X(prune_no_vertices, INVALID_ARGUMENT, "vertices", { return prune_counts(0, SLOTS, 1); }) \
    X(prune_zero_in_slots, INVALID_ARGUMENT, "slots", { return prune_counts(VERTICES, 0, 1); }) \
    X(prune_zero_out_slots, INVALID_ARGUMENT, "slots", { return prune_counts(VERTICES, SLOTS, 0); }) \
    X(prune_vertices_size_max, SIZE_OVERFLOW, "vertices", { return prune_counts(SIZE_MAX, SLOTS, 1); }) \
    X(prune_in_slots_size_max_8, SIZE_OVERFLOW, "slots", { return prune_counts(VERTICES, SIZE_MAX / 8, 1); }) \
    X(prune_out_slots_size_max_3, SIZE_OVERFLOW, "slots", { return prune_counts(VERTICES, SLOTS, SIZE_MAX / 3); }) \
    X(prune_out_slots_size_max_8, SIZE_OVERFLOW, "weights", { return prune_counts(VERTICES, SLOTS, SIZE_MAX / 8); }) \
    X(prune_min_weight_one, INVALID_ARGUMENT, "min_weight", { return prune_min_weight(1.0f); }) \
    X(prune_min_weight_negative, INVALID_ARGUMENT, "min_weight", { return prune_min_weight(-0.1f); }) \
    X(prune_min_weight_nan, NON_FINITE, "min_weight", { return prune_min_weight(NAN); }) \
    X(prune_weight_nan, NON_FINITE, "vertex 1", { return prune_weight(1 * SLOTS + 1, NAN); }) \
    X(prune_weight_negative, INVALID_WEIGHTS, "vertex 1", { return prune_weight(1 * SLOTS + 1, -1.0f); }) \
    X(prune_row_all_zero, INVALID_WEIGHTS, "vertex 1", { return zero_row_then(prune_arrays); }) \
    X(prune_ok, OK, NULL, { return prune_arrays(IO_JOINTS, IO_WEIGHTS); }) \
    X(prune_in_place_wider_ok, OK, NULL, \
      { return prune(VERTICES, SLOTS, IO_JOINTS, IO_WEIGHTS, SLOTS, 0.5f, IO_JOINTS, IO_WEIGHTS); })

CASES(CONTRACT_DEFINE)
static const contract_case cases[] = {CASES(CONTRACT_ENTRY)};

static int teardown(void **state)
{
    (void)state;
    sinew_context_destroy(cancelling_context());
    return 0;
}

int main(void)
{
    static const contract_hooks hooks = {NULL, teardown, prepare, NULL};
    return contract_run("contract-skin-tools", cases, sizeof cases / sizeof cases[0], &hooks);
}
