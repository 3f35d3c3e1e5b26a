/* Contract of include/sinew/bbw.h: create, solve, info, domain and weight queries. */
#include <math.h>
#include <string.h>

#include "contract.h"

/* The unit square as a 4 x 4 grid of 32 triangles; two point handles at
 * opposite corners. */
#define N 4
#define VERTICES ((N + 1) * (N + 1))
#define TRIANGLES (2 * N * N)
#define HANDLES 2

static float grid[VERTICES * 3];
static uint32_t triangles[TRIANGLES * 3];
static const float handle_points[HANDLES * 3] = {0, 0, 0, 1, 1, 0};
static const float query[4 * 3] = {0.1f, 0.2f, 0, 0.5f, 0.5f, 0, 0.9f, 0.3f, 0, 0.3f, 0.7f, 0};
static const float query_nan[4 * 3] = {0.1f, 0.2f, 0, 0.5f, NAN, 0, 0.9f, 0.3f, 0, 0.3f, 0.7f, 0};
static const float query_far[4 * 3] = {0.1f, 0.2f, 0, 50, 50, 0, 0.9f, 0.3f, 0, 0.3f, 0.7f, 0};

static struct {
    sinew_context *ctx; /* cancels while `cancelling` is set */
    sinew_trimesh domain;
    sinew_bbw *bbw;     /* solved */
    sinew_bbw *unsolved;
} fx;
static int cancelling;

static int progress(void *user, const char *stage, float fraction)
{
    (void)user, (void)stage, (void)fraction;
    return cancelling;
}

static void make_grid(void)
{
    for (size_t j = 0; j <= N; ++j)
        for (size_t i = 0; i <= N; ++i) {
            float *p = &grid[3 * (j * (N + 1) + i)];
            p[0] = (float)i / N;
            p[1] = (float)j / N;
            p[2] = 0;
        }
    size_t t = 0;
    for (size_t j = 0; j < N; ++j)
        for (size_t i = 0; i < N; ++i) {
            uint32_t a = (uint32_t)(j * (N + 1) + i), b = a + 1, c = a + N + 2, d = a + N + 1;
            const uint32_t tri[6] = {a, b, c, a, c, d};
            memcpy(&triangles[3 * t], tri, sizeof tri);
            t += 2;
        }
}

static sinew_bbw_desc base_desc(const sinew_trimesh *domain)
{
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.triangles = domain;
    d.points.data = handle_points;
    d.points.count = HANDLES;
    return d;
}

static int setup(void **state)
{
    (void)state;
    make_grid();
    fx.domain = (sinew_trimesh){{grid, VERTICES, 0}, triangles, TRIANGLES, SINEW_INDEX_U32, 0};
    sinew_context_desc cd = {sizeof(sinew_context_desc), {NULL, NULL, NULL}, progress, NULL, NULL, NULL, 0};
    sinew_bbw_desc d = base_desc(&fx.domain);
    if (sinew_context_create(&cd, &fx.ctx) || sinew_bbw_create(fx.ctx, &d, &fx.bbw) ||
        sinew_bbw_solve(NULL, fx.bbw, NULL) || sinew_bbw_create(NULL, &d, &fx.unsolved))
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    sinew_bbw_destroy(fx.bbw);
    sinew_bbw_destroy(fx.unsolved);
    sinew_context_destroy(fx.ctx);
    return 0;
}

/* The solved handle's weights and its solve figures that a failed call must keep. */
static uint64_t fingerprint(void)
{
    float w[VERTICES * HANDLES];
    sinew_bbw_info info;
    SINEW_INIT(&info);
    if (sinew_bbw_vertex_weights(fx.bbw, w, 0, VERTICES) || sinew_bbw_get_info(fx.bbw, &info)) return 0;
    return contract_hash(contract_hash(CONTRACT_HASH_SEED, w, sizeof w), &info.iterations, sizeof info.iterations);
}

/* ---- create -------------------------------------------------------------------- */

typedef void (*desc_edit)(sinew_bbw_desc *d, sinew_trimesh *domain);
static sinew_result create_edited(sinew_context *ctx, desc_edit edit)
{
    sinew_trimesh domain = fx.domain;
    sinew_bbw_desc d = base_desc(&domain);
    if (edit) edit(&d, &domain);
    sinew_result r = sinew_bbw_create(ctx, &d, OUT_HANDLE(sinew_bbw));
    if (r == SINEW_OK) sinew_bbw_destroy(*OUT_HANDLE(sinew_bbw));
    return r;
}
static const sinew_tetmesh no_tets = {{NULL, 0, 0}, NULL, 0, SINEW_INDEX_U32, 0};
static const float nan_handles[HANDLES * 3] = {0, 0, 0, 1, NAN, 0};
static const float coincident_handles[HANDLES * 3] = {0.5f, 0.5f, 0, 0.5f, 0.5f, 0};
static const float outside_handles[HANDLES * 3] = {0, 0, 0, 3, 3, 0};
static const float joints[2 * 3] = {0.25f, 0.5f, 0, 0.75f, 0.5f, 0};
static const uint32_t bone[2] = {0, 1};
static const uint32_t bone_out_of_range[2] = {0, 2};
static const uint32_t bone_collapsed[2] = {1, 1};
static const uint32_t cage_triangle[3] = {0, 1, 0};
static const sinew_bbw_cage cage_2d_with_triangles = {{joints, 2, 0}, NULL, 0, cage_triangle, 1};
static float grid_nan[VERTICES * 3];
static uint32_t triangles_bad[TRIANGLES * 3];
#define EDIT(name, statement) \
    static void name(sinew_bbw_desc *d, sinew_trimesh *domain) \
    { \
        (void)d, (void)domain; \
        statement; \
    }
EDIT(no_domain, d->triangles = NULL)
EDIT(two_domains, d->tets = &no_tets)
EDIT(no_handles, d->points.count = 0)
EDIT(null_points, d->points.data = NULL)
EDIT(null_bones, d->bone_count = 1; d->joint_positions.data = joints)
EDIT(null_cages, d->cage_count = 1)
EDIT(cage_with_triangles_in_2d, d->cages = &cage_2d_with_triangles; d->cage_count = 1)
EDIT(tolerance_negative, d->handle_tolerance = -1)
EDIT(tolerance_nan, d->handle_tolerance = NAN)
EDIT(handle_nan, d->points.data = nan_handles)
EDIT(handles_coincide, d->points.data = coincident_handles)
EDIT(handle_outside, d->points.data = outside_handles; d->handle_outside = SINEW_BBW_OUTSIDE_REFUSE)
EDIT(handle_outside_clipped_ok, d->points.data = outside_handles)
EDIT(handle_outside_unknown, d->handle_outside = 2)
EDIT(bone_joint_out_of_range, d->points.count = 0; d->joint_positions.data = joints; d->joint_positions.count = 2; d->bones = bone_out_of_range;
     d->bone_count = 1)
EDIT(bone_zero_length, d->points.count = 0; d->joint_positions.data = joints; d->joint_positions.count = 2; d->bones = bone_collapsed;
     d->bone_count = 1)
EDIT(point_count_size_max_8, d->points.count = SIZE_MAX / 8)
EDIT(bone_count_size_max_3, d->joint_positions.data = joints; d->joint_positions.count = 2; d->bones = bone; d->bone_count = SIZE_MAX / 3)
EDIT(cage_count_size_max_8, d->cages = &cage_2d_with_triangles; d->cage_count = SIZE_MAX / 8)
EDIT(domain_vertex_nan, memcpy(grid_nan, grid, sizeof grid); grid_nan[3 * 7 + 1] = NAN; domain->positions.data = grid_nan)
EDIT(domain_index_out_of_range, memcpy(triangles_bad, triangles, sizeof triangles); triangles_bad[3 * 5 + 2] = VERTICES;
     domain->indices = triangles_bad)
EDIT(domain_triangle_degenerate, memcpy(triangles_bad, triangles, sizeof triangles); triangles_bad[3 * 5 + 2] =
     triangles_bad[3 * 5 + 1]; domain->indices = triangles_bad)
EDIT(domain_triangles_size_max_3, domain->triangle_count = SIZE_MAX / 3)
EDIT(domain_vertices_size_max_8, domain->positions.count = SIZE_MAX / 8)
EDIT(domain_stride_too_small, domain->positions.stride = 8)
EDIT(domain_null_indices, domain->indices = NULL)
EDIT(volume_flags_unknown, d->volume_flags = 2)
EDIT(placement_unknown, d->point_placement = 2)
EDIT(placement_move_ok, d->point_placement = SINEW_BBW_PLACE_MOVE_VERTEX)
EDIT(bone_ok, d->points.count = 0; d->joint_positions.data = joints; d->joint_positions.count = 2; d->bones = bone; d->bone_count = 1)

static sinew_result create_cancelled(void)
{
    cancelling = 1;
    sinew_result r = create_edited(fx.ctx, NULL);
    cancelling = 0;
    return r;
}

/* ---- solve ----------------------------------------------------------------------- */

static const float mask_ok[TRIANGLES];
static float mask_bad[TRIANGLES];
static sinew_result solve_with(int partition, double tolerance, double penalty, const float *mask, size_t mask_count)
{
    sinew_bbw_solve_desc d = {sizeof(sinew_bbw_solve_desc), (sinew_bbw_partition)partition, tolerance, 0, mask, mask_count, 0, penalty,
                              NULL, 0, 0};
    return sinew_bbw_solve(NULL, fx.bbw, &d);
}
/* A warm start of `count` entries, entry 7 (vertex 3, handle 1) set to `value`. */
static float start_bad[VERTICES * HANDLES];
static sinew_result solve_start(const float *start, size_t count, float value)
{
    for (size_t k = 0; k < VERTICES * HANDLES; ++k) start_bad[k] = k % HANDLES == 0 ? 1.0f : 0.0f;
    start_bad[7] = value;
    sinew_bbw_solve_desc d;
    SINEW_INIT(&d);
    d.initial_weights = start;
    d.initial_weights_count = count;
    return sinew_bbw_solve(NULL, fx.bbw, &d);
}
static sinew_result solve_mask_value(float value)
{
    mask_bad[3] = value;
    return solve_with(0, 0, 0, mask_bad, TRIANGLES);
}
/* One iteration cannot certify 1e-300: NOT_CONVERGED with a message (on a handle of its own). */
static sinew_result solve_not_converged(void)
{
    sinew_bbw_desc d = base_desc(&fx.domain);
    sinew_bbw *b = NULL;
    if (sinew_bbw_create(NULL, &d, &b)) return SINEW_ERROR_PLAIN;
    sinew_bbw_solve_desc sd = {sizeof(sinew_bbw_solve_desc), 0, 1e-300, 1, NULL, 0, 0, 0, NULL, 0, 0};
    sinew_result r = sinew_bbw_solve(NULL, b, &sd);
    sinew_bbw_info info;
    SINEW_INIT(&info);
    if (sinew_bbw_get_info(b, &info) || (r == SINEW_ERROR_NOT_CONVERGED && !info.solved)) r = SINEW_ERROR_PLAIN;
    sinew_bbw_destroy(b);
    return r;
}
static sinew_result solve_cancelled(void)
{
    cancelling = 1;
    sinew_result r = sinew_bbw_solve(fx.ctx, fx.bbw, NULL);
    cancelling = 0;
    return r;
}

/* ---- the one call ------------------------------------------------------------------ */

/* The grid as a flat surface (a 2D domain) with the two point handles, k = 2. */
typedef void (*auto_edit)(sinew_bbw_auto_desc *d, sinew_trimesh *surface);
static sinew_result auto_edited(sinew_context *ctx, auto_edit edit, size_t entries, uint32_t *joints_out,
                                float *weights_out)
{
    sinew_trimesh surface = fx.domain;
    sinew_bbw_auto_desc d;
    SINEW_INIT(&d);
    d.surface = &surface;
    d.points.data = handle_points;
    d.points.count = HANDLES;
    d.influence_count = 2;
    if (edit) edit(&d, &surface);
    return sinew_bbw_auto_weights(ctx, &d, joints_out, weights_out, entries,
                                  OUT_STRUCT(sinew_bbw_auto_report, 60000));
}
static sinew_result auto_call(auto_edit edit)
{
    return auto_edited(NULL, edit, 2 * VERTICES, OUT_U32, OUT2_F);
}
#define AUTO_EDIT(name, statement) \
    static void name(sinew_bbw_auto_desc *d, sinew_trimesh *surface) \
    { \
        (void)d, (void)surface; \
        statement; \
    }
AUTO_EDIT(auto_no_surface, d->surface = NULL)
AUTO_EDIT(auto_k65, d->influence_count = 65)
AUTO_EDIT(auto_tolerance_negative, d->tolerance = -1)
AUTO_EDIT(auto_handle_nan, d->points.data = nan_handles)
AUTO_EDIT(auto_handle_outside_refused, d->points.data = outside_handles; d->handle_outside = SINEW_BBW_OUTSIDE_REFUSE)
AUTO_EDIT(auto_handle_outside_clipped, d->points.data = outside_handles)
AUTO_EDIT(auto_vertex_nan, memcpy(grid_nan, grid, sizeof grid); grid_nan[3 * 7 + 1] = NAN; surface->positions.data = grid_nan)
AUTO_EDIT(auto_index_out_of_range, memcpy(triangles_bad, triangles, sizeof triangles); triangles_bad[3 * 5 + 2] = VERTICES;
          surface->indices = triangles_bad)
AUTO_EDIT(auto_no_triangles, surface->triangle_count = 0)
AUTO_EDIT(auto_one_iteration, d->tolerance = 1e-300; d->max_iterations = 1)
static sinew_result auto_cancelled(void)
{
    cancelling = 1;
    sinew_result r = auto_edited(fx.ctx, NULL, 2 * VERTICES, OUT_U32, OUT2_F);
    cancelling = 0;
    return r;
}
static sinew_result auto_report_uninitialised(void)
{
    sinew_trimesh surface = fx.domain;
    sinew_bbw_auto_desc d;
    SINEW_INIT(&d);
    d.surface = &surface;
    d.points.data = handle_points;
    d.points.count = HANDLES;
    sinew_bbw_auto_report *rep = SCRATCH(sinew_bbw_auto_report, 60000);
    rep->struct_size = 0;
    contract_resnapshot();
    return sinew_bbw_auto_weights(NULL, &d, OUT_U32, OUT2_F, 4 * VERTICES, rep);
}

/* ---- queries --------------------------------------------------------------------- */

static sinew_points query_view(const float *data, size_t count, size_t stride)
{
    return (sinew_points){data, count, stride};
}
static sinew_result point_weights(const sinew_bbw *b, sinew_points p, size_t first, size_t count, float *out)
{
    return sinew_bbw_point_weights(b, &p, out, first, count);
}
static sinew_result top_k(sinew_points p, size_t first, size_t count, uint32_t k, uint32_t *joints_out,
                          float *weights_out)
{
    return sinew_bbw_top_k(fx.bbw, &p, k, joints_out, weights_out, first, count);
}

#define CASES(X) \
    /* create */ \
    X(create_null_desc, INVALID_ARGUMENT, "desc", { return sinew_bbw_create(NULL, NULL, OUT_HANDLE(sinew_bbw)); }) \
    X(create_null_out, INVALID_ARGUMENT, "out", \
      { sinew_bbw_desc d = base_desc(&fx.domain); return sinew_bbw_create(NULL, &d, NULL); }) \
    X(create_no_domain, INVALID_ARGUMENT, "domain", { return create_edited(NULL, no_domain); }) \
    X(create_two_domains, INVALID_ARGUMENT, "domain", { return create_edited(NULL, two_domains); }) \
    X(create_no_handles, INVALID_ARGUMENT, "handles", { return create_edited(NULL, no_handles); }) \
    X(create_null_points, INVALID_ARGUMENT, "points", { return create_edited(NULL, null_points); }) \
    X(create_null_bones, INVALID_ARGUMENT, "bones", { return create_edited(NULL, null_bones); }) \
    X(create_null_cages, INVALID_ARGUMENT, "cages", { return create_edited(NULL, null_cages); }) \
    X(create_cage_triangles_in_2d, INVALID_ARGUMENT, "cage 0", { return create_edited(NULL, cage_with_triangles_in_2d); }) \
    X(create_tolerance_negative, INVALID_ARGUMENT, "tolerance", { return create_edited(NULL, tolerance_negative); }) \
    X(create_tolerance_nan, INVALID_ARGUMENT, "tolerance", { return create_edited(NULL, tolerance_nan); }) \
    X(create_handle_nan, NON_FINITE, "point handle 1", { return create_edited(NULL, handle_nan); }) \
    X(create_handles_coincide, DEGENERATE, "handle", { return create_edited(NULL, handles_coincide); }) \
    X(create_handle_outside, OUTSIDE_DOMAIN, "point handle 1", { return create_edited(NULL, handle_outside); }) \
    X(create_handle_outside_clipped_ok, OK, NULL, { return create_edited(NULL, handle_outside_clipped_ok); }) \
    X(create_handle_outside_unknown, INVALID_ARGUMENT, "handle outside 2", \
      { return create_edited(NULL, handle_outside_unknown); }) \
    X(create_bone_joint_out_of_range, INDEX_OUT_OF_RANGE, "bone 0", { return create_edited(NULL, bone_joint_out_of_range); }) \
    X(create_bone_zero_length, DEGENERATE, "bone 0", { return create_edited(NULL, bone_zero_length); }) \
    X(create_point_count_size_max_8, SIZE_OVERFLOW, "handles", { return create_edited(NULL, point_count_size_max_8); }) \
    X(create_bone_count_size_max_3, SIZE_OVERFLOW, "handles", { return create_edited(NULL, bone_count_size_max_3); }) \
    X(create_cage_count_size_max_8, SIZE_OVERFLOW, "cage", { return create_edited(NULL, cage_count_size_max_8); }) \
    X(create_domain_vertex_nan, NON_FINITE, "7", { return create_edited(NULL, domain_vertex_nan); }) \
    X(create_domain_index_out_of_range, INDEX_OUT_OF_RANGE, "triangle 5", \
      { return create_edited(NULL, domain_index_out_of_range); }) \
    X(create_domain_triangle_degenerate, DEGENERATE, "triangle 5", \
      { return create_edited(NULL, domain_triangle_degenerate); }) \
    X(create_domain_triangles_size_max_3, SIZE_OVERFLOW, "triangle", \
      { return create_edited(NULL, domain_triangles_size_max_3); }) \
    X(create_domain_vertices_size_max_8, SIZE_OVERFLOW, "vert", { return create_edited(NULL, domain_vertices_size_max_8); }) \
    X(create_domain_stride_too_small, INVALID_ARGUMENT, "stride", { return create_edited(NULL, domain_stride_too_small); }) \
    X(create_domain_null_indices, INVALID_ARGUMENT, "indices", { return create_edited(NULL, domain_null_indices); }) \
    X(create_cancelled, CANCELLED, "bbw", { return create_cancelled(); }) \
    X(create_ok, OK, NULL, { return create_edited(NULL, NULL); }) \
    X(create_bone_ok, OK, NULL, { return create_edited(NULL, bone_ok); }) \
    X(create_volume_flags_unknown, INVALID_ARGUMENT, "volume flags 0x2", { return create_edited(NULL, volume_flags_unknown); }) \
    X(create_placement_unknown, INVALID_ARGUMENT, "placement 2", { return create_edited(NULL, placement_unknown); }) \
    X(create_placement_move_ok, OK, NULL, { return create_edited(NULL, placement_move_ok); }) \
    X(destroy_null, PLAIN, NULL, { sinew_bbw_destroy(NULL); return SINEW_OK; }) \
    /* the one call */ \
    X(auto_null_desc, INVALID_ARGUMENT, "desc", { return sinew_bbw_auto_weights(NULL, NULL, OUT_U32, OUT2_F, 50, NULL); }) \
    X(auto_no_surface, INVALID_ARGUMENT, "surface", { return auto_call(auto_no_surface); }) \
    X(auto_no_triangles, INVALID_ARGUMENT, "triangles", { return auto_call(auto_no_triangles); }) \
    X(auto_k65, INVALID_ARGUMENT, "influence count 65", { return auto_call(auto_k65); }) \
    X(auto_tolerance_negative, INVALID_ARGUMENT, "tolerance", { return auto_call(auto_tolerance_negative); }) \
    X(auto_entry_count_differs, MISMATCH, "entry count", \
      { return auto_edited(NULL, NULL, 2 * VERTICES - 1, OUT_U32, OUT2_F); }) \
    X(auto_null_joints, INVALID_ARGUMENT, "joints", { return auto_edited(NULL, NULL, 2 * VERTICES, NULL, OUT2_F); }) \
    X(auto_misaligned_weights, INVALID_ARGUMENT, "aligned", \
      { return auto_edited(NULL, NULL, 2 * VERTICES, OUT_U32, MISALIGNED(float, OUT2_F)); }) \
    X(auto_report_uninitialised, INVALID_ARGUMENT, "SINEW_INIT", { return auto_report_uninitialised(); }) \
    X(auto_vertex_nan, NON_FINITE, "surface vertex 7", { return auto_call(auto_vertex_nan); }) \
    X(auto_index_out_of_range, INDEX_OUT_OF_RANGE, "surface triangle 5", { return auto_call(auto_index_out_of_range); }) \
    X(auto_handle_nan, NON_FINITE, "point handle 1", { return auto_call(auto_handle_nan); }) \
    X(auto_handle_outside_refused, OUTSIDE_DOMAIN, "point handle 1", { return auto_call(auto_handle_outside_refused); }) \
    X(auto_not_converged, NOT_CONVERGED, "iteration", { return auto_call(auto_one_iteration); }) \
    X(auto_cancelled, CANCELLED, "bbw", { return auto_cancelled(); }) \
    X(auto_handle_outside_clipped_ok, OK, NULL, { return auto_call(auto_handle_outside_clipped); }) \
    X(auto_ok, OK, NULL, { return auto_call(NULL); }) \
    /* solve */ \
    X(solve_null_bbw, INVALID_ARGUMENT, "bbw", { return sinew_bbw_solve(NULL, NULL, NULL); }) \
    X(solve_bad_partition, INVALID_ARGUMENT, "partition", { return solve_with(2, 0, 0, NULL, 0); }) \
    X(solve_tolerance_negative, INVALID_ARGUMENT, "tolerance", { return solve_with(0, -1, 0, NULL, 0); }) \
    X(solve_penalty_nan, INVALID_ARGUMENT, "penalty", { return solve_with(0, 0, NAN, NULL, 0); }) \
    X(solve_mask_count_differs, MISMATCH, "mask", { return solve_with(0, 0, 0, mask_ok, TRIANGLES - 1); }) \
    X(solve_mask_count_size_max, MISMATCH, "mask", { return solve_with(0, 0, 0, mask_ok, SIZE_MAX); }) \
    X(solve_mask_negative, INVALID_ARGUMENT, "mask", { return solve_mask_value(-1); }) \
    X(solve_mask_nan, NON_FINITE, "mask", { return solve_mask_value(NAN); }) \
    X(solve_start_count_differs, MISMATCH, "initial weights", \
      { return solve_start(start_bad, VERTICES * HANDLES - 1, 0); }) \
    X(solve_start_without_array, MISMATCH, "no array", { return solve_start(NULL, VERTICES * HANDLES, 0); }) \
    X(solve_start_nan, NON_FINITE, "vertex 3, handle 1", { return solve_start(start_bad, VERTICES * HANDLES, NAN); }) \
    X(solve_start_inf, NON_FINITE, "vertex 3, handle 1", \
      { return solve_start(start_bad, VERTICES * HANDLES, -INFINITY); }) \
    X(solve_start_far_ok, OK, NULL, { return solve_start(start_bad, VERTICES * HANDLES, 1e30f); }) \
    X(solve_cancelled, CANCELLED, "bbw", { return solve_cancelled(); }) \
    X(solve_not_converged, NOT_CONVERGED, "iteration", { return solve_not_converged(); }) \
    X(solve_normalise_ok, OK, NULL, { return solve_with(SINEW_BBW_PARTITION_NORMALISE, 0, 0, NULL, 0); }) \
    X(solve_ok, OK, NULL, { return sinew_bbw_solve(NULL, fx.bbw, NULL); }) \
    /* info and domain */ \
    X(get_info_null_bbw, INVALID_ARGUMENT, "bbw", { return sinew_bbw_get_info(NULL, OUT_STRUCT(sinew_bbw_info, 256)); }) \
    X(get_info_null_info, INVALID_ARGUMENT, "info", { return sinew_bbw_get_info(fx.bbw, NULL); }) \
    X(get_info_ok, OK, NULL, { return sinew_bbw_get_info(fx.bbw, OUT_STRUCT(sinew_bbw_info, 256)); }) \
    X(domain_vertices_null_bbw, INVALID_ARGUMENT, "bbw", { return sinew_bbw_domain_vertices(NULL, OUT_F, 0, 0, 4); }) \
    X(domain_vertices_null_out, INVALID_ARGUMENT, "out", { return sinew_bbw_domain_vertices(fx.bbw, NULL, 0, 0, 4); }) \
    X(domain_vertices_stride_too_small, INVALID_ARGUMENT, "stride", \
      { return sinew_bbw_domain_vertices(fx.bbw, OUT_F, 8, 0, 4); }) \
    X(domain_vertices_stride_not_multiple_of_4, INVALID_ARGUMENT, "stride", \
      { return sinew_bbw_domain_vertices(fx.bbw, OUT_F, 13, 0, 4); }) \
    X(domain_vertices_misaligned_out, INVALID_ARGUMENT, "aligned", \
      { return sinew_bbw_domain_vertices(fx.bbw, MISALIGNED(float, OUT_F), 0, 0, 4); }) \
    X(domain_vertices_range_past_end, INDEX_OUT_OF_RANGE, "25", \
      { return sinew_bbw_domain_vertices(fx.bbw, OUT_F, 0, VERTICES - 1, 2); }) \
    X(domain_vertices_range_wraps, INDEX_OUT_OF_RANGE, "25", \
      { return sinew_bbw_domain_vertices(fx.bbw, OUT_F, 0, 2, SIZE_MAX); }) \
    X(domain_vertices_stride_overflows, SIZE_OVERFLOW, "stride", \
      { return sinew_bbw_domain_vertices(fx.bbw, OUT_F, (SIZE_MAX / 3) & ~(size_t)3, 0, 4); }) \
    X(domain_vertices_ok, OK, NULL, { return sinew_bbw_domain_vertices(fx.bbw, OUT_F, 16, 20, 5); }) \
    X(domain_elements_null_bbw, INVALID_ARGUMENT, "bbw", { return sinew_bbw_domain_elements(NULL, OUT_U32, 0, 4); }) \
    X(domain_elements_null_out, INVALID_ARGUMENT, "out", { return sinew_bbw_domain_elements(fx.bbw, NULL, 0, 4); }) \
    X(domain_elements_range_past_end, INDEX_OUT_OF_RANGE, "32", \
      { return sinew_bbw_domain_elements(fx.bbw, OUT_U32, TRIANGLES - 1, 2); }) \
    X(domain_elements_first_size_max, INDEX_OUT_OF_RANGE, "32", \
      { return sinew_bbw_domain_elements(fx.bbw, OUT_U32, SIZE_MAX, 1); }) \
    X(domain_elements_ok, OK, NULL, { return sinew_bbw_domain_elements(fx.bbw, OUT_U32, 30, 2); }) \
    /* weights */ \
    X(vertex_weights_null_bbw, INVALID_ARGUMENT, "bbw", { return sinew_bbw_vertex_weights(NULL, OUT_F, 0, 4); }) \
    X(vertex_weights_unsolved, INVALID_STATE, "solve", { return sinew_bbw_vertex_weights(fx.unsolved, OUT_F, 0, 4); }) \
    X(vertex_weights_null_out, INVALID_ARGUMENT, "out", { return sinew_bbw_vertex_weights(fx.bbw, NULL, 0, 4); }) \
    X(vertex_weights_misaligned_out, INVALID_ARGUMENT, "aligned", \
      { return sinew_bbw_vertex_weights(fx.bbw, MISALIGNED(float, OUT_F), 0, 4); }) \
    X(vertex_weights_range_past_end, INDEX_OUT_OF_RANGE, "25", \
      { return sinew_bbw_vertex_weights(fx.bbw, OUT_F, VERTICES, 1); }) \
    X(vertex_weights_range_wraps, INDEX_OUT_OF_RANGE, "25", \
      { return sinew_bbw_vertex_weights(fx.bbw, OUT_F, 1, SIZE_MAX); }) \
    X(vertex_weights_ok, OK, NULL, { return sinew_bbw_vertex_weights(fx.bbw, OUT_F, 3, 22); }) \
    X(point_weights_null_bbw, INVALID_ARGUMENT, "bbw", \
      { return point_weights(NULL, query_view(query, 4, 0), 0, 4, OUT_F); }) \
    X(point_weights_unsolved, INVALID_STATE, "solve", \
      { return point_weights(fx.unsolved, query_view(query, 4, 0), 0, 4, OUT_F); }) \
    X(point_weights_null_points, INVALID_ARGUMENT, "points", \
      { return sinew_bbw_point_weights(fx.bbw, NULL, OUT_F, 0, 4); }) \
    X(point_weights_null_data, INVALID_ARGUMENT, "points", \
      { return point_weights(fx.bbw, query_view(NULL, 4, 0), 0, 4, OUT_F); }) \
    X(point_weights_null_out, INVALID_ARGUMENT, "out", \
      { return point_weights(fx.bbw, query_view(query, 4, 0), 0, 4, NULL); }) \
    X(point_weights_stride_not_multiple_of_4, INVALID_ARGUMENT, "stride", \
      { return point_weights(fx.bbw, query_view(query, 2, 13), 0, 2, OUT_F); }) \
    X(point_weights_misaligned_out, INVALID_ARGUMENT, "aligned", \
      { return point_weights(fx.bbw, query_view(query, 4, 0), 0, 4, MISALIGNED(float, OUT_F)); }) \
    X(point_weights_range_past_view, INDEX_OUT_OF_RANGE, "range", \
      { return point_weights(fx.bbw, query_view(query, 4, 0), 2, 3, OUT_F); }) \
    X(point_weights_range_wraps, INDEX_OUT_OF_RANGE, "range", \
      { return point_weights(fx.bbw, query_view(query, 4, 0), 1, SIZE_MAX, OUT_F); }) \
    X(point_weights_view_end_overflows, SIZE_OVERFLOW, "points", \
      { return point_weights(fx.bbw, query_view(query, SIZE_MAX / 8, 0), SIZE_MAX / 8 - 1, 1, OUT_F); }) \
    X(point_weights_nan, NON_FINITE, "point 1", \
      { return point_weights(fx.bbw, query_view(query_nan, 4, 0), 0, 4, OUT_F); }) \
    X(point_weights_outside, OUTSIDE_DOMAIN, "point 1", \
      { return point_weights(fx.bbw, query_view(query_far, 4, 0), 0, 4, OUT_F); }) \
    X(point_weights_zero_count_ok, OK, NULL, { return point_weights(fx.bbw, query_view(query, 4, 0), 4, 0, NULL); }) \
    X(point_weights_ok, OK, NULL, { return point_weights(fx.bbw, query_view(query, 4, 16), 0, 3, OUT_F); }) \
    X(top_k_null_bbw, INVALID_ARGUMENT, "bbw", \
      { return sinew_bbw_top_k(NULL, NULL, 2, OUT_U32, OUT2_F, 0, 4); }) \
    X(top_k_unsolved, INVALID_STATE, "solve", \
      { return sinew_bbw_top_k(fx.unsolved, NULL, 2, OUT_U32, OUT2_F, 0, 4); }) \
    X(top_k_zero, INVALID_ARGUMENT, "influence_count = 0", { return top_k(query_view(query, 4, 0), 0, 4, 0, OUT_U32, OUT2_F); }) \
    X(top_k_65, INVALID_ARGUMENT, "influence_count = 65", { return top_k(query_view(query, 4, 0), 0, 4, 65, OUT_U32, OUT2_F); }) \
    X(top_k_null_joints, INVALID_ARGUMENT, "joints", { return top_k(query_view(query, 4, 0), 0, 4, 2, NULL, OUT2_F); }) \
    X(top_k_null_weights, INVALID_ARGUMENT, "weights", { return top_k(query_view(query, 4, 0), 0, 4, 2, OUT_U32, NULL); }) \
    X(top_k_misaligned_weights, INVALID_ARGUMENT, "aligned", \
      { return top_k(query_view(query, 4, 0), 0, 4, 2, OUT_U32, MISALIGNED(float, OUT2_F)); }) \
    X(top_k_misaligned_joints, INVALID_ARGUMENT, "aligned", \
      { return top_k(query_view(query, 4, 0), 0, 4, 2, MISALIGNED(uint32_t, OUT_U32), OUT2_F); }) \
    X(top_k_range_past_view, INDEX_OUT_OF_RANGE, "range", \
      { return top_k(query_view(query, 4, 0), 3, 2, 2, OUT_U32, OUT2_F); }) \
    X(top_k_domain_range_past_end, INDEX_OUT_OF_RANGE, "25", \
      { return sinew_bbw_top_k(fx.bbw, NULL, 2, OUT_U32, OUT2_F, VERTICES - 1, 2); }) \
    X(top_k_domain_range_wraps, INDEX_OUT_OF_RANGE, "25", \
      { return sinew_bbw_top_k(fx.bbw, NULL, 2, OUT_U32, OUT2_F, 2, SIZE_MAX); }) \
    X(top_k_nan, NON_FINITE, "point 1", { return top_k(query_view(query_nan, 4, 0), 0, 4, 2, OUT_U32, OUT2_F); }) \
    X(top_k_outside, OUTSIDE_DOMAIN, "point 1", { return top_k(query_view(query_far, 4, 0), 0, 4, 2, OUT_U32, OUT2_F); }) \
    X(top_k_points_ok, OK, NULL, { return top_k(query_view(query, 4, 0), 1, 3, 3, OUT_U32, OUT2_F); }) \
    X(top_k_domain_ok, OK, NULL, { return sinew_bbw_top_k(fx.bbw, NULL, 1, OUT_U32, OUT2_F, 0, VERTICES); })

CASES(CONTRACT_DEFINE)
static const contract_case cases[] = {CASES(CONTRACT_ENTRY)};

int main(void)
{
    static const contract_hooks hooks = {setup, teardown, NULL, fingerprint};
    return contract_run("contract-bbw", cases, sizeof cases / sizeof cases[0], &hooks);
}
