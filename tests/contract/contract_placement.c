/* Contract of include/sinew/placement.h: create, getters, relaxation, edits,
 * model mapping and deformation. */
#include <math.h>
#include <string.h>

#include "contract.h"

/* A flat 20 x 20 floor at z = 0, seen from above; the path runs along x. */
static const float floor_vertices[4 * 3] = {-10, -10, 0, 10, -10, 0, 10, 10, 0, -10, 10, 0};
static const uint32_t floor_triangles[2 * 3] = {0, 1, 2, 0, 2, 3};
static const uint32_t floor_out_of_range[2 * 3] = {0, 1, 2, 0, 2, 4};
static const float path[2 * 3] = {-2, 0, 5, 2, 0, 5};
static const float model[4 * 3] = {0, -0.5f, 0, 1, 0, 0.5f, 2, 0.5f, 1, 0.5f, 0, 0.25f};
static const float model_nan[4 * 3] = {0, -0.5f, 0, 1, NAN, 0.5f, 2, 0.5f, 1, 0.5f, 0, 0.25f};
#define COLUMNS (6 * 4)

static struct {
    sinew_context *ctx; /* cancels while `cancelling` is set */
    sinew_placement *placement;
    sinew_placement_map map;
} fx;
static int cancelling;

static int progress(void *user, const char *stage, float fraction)
{
    (void)user, (void)stage, (void)fraction;
    return cancelling;
}

static sinew_placement_desc base_desc(void)
{
    sinew_placement_desc d;
    SINEW_INIT(&d);
    d.path = (sinew_points){path, 2, 0};
    d.width = 1;
    d.height = 1;
    d.count[0] = 6;
    d.count[1] = 4;
    d.scene = (sinew_trimesh){{floor_vertices, 4, 0}, floor_triangles, 2, SINEW_INDEX_U32, 0};
    return d;
}

static int setup(void **state)
{
    (void)state;
    sinew_context_desc cd = {sizeof(sinew_context_desc), {NULL, NULL, NULL}, progress, NULL, NULL, NULL, 0};
    sinew_placement_desc d = base_desc();
    sinew_placement_map_desc md = {sizeof(sinew_placement_map_desc), {0, -0.5f, 0}, {2, 0.5f, 1}, 0.5f, 0.25f};
    if (sinew_context_create(&cd, &fx.ctx) || sinew_placement_create(fx.ctx, &d, &fx.placement) ||
        sinew_placement_map_model(fx.placement, &md, &fx.map))
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    sinew_placement_destroy(fx.placement);
    sinew_context_destroy(fx.ctx);
    return 0;
}

/* The placement's lifts and its lattice's control points. */
static uint64_t fingerprint(void)
{
    float lifts[COLUMNS], points[6 * 4 * 4 * 3];
    if (sinew_placement_lifts(fx.placement, lifts, 0, 0, COLUMNS) ||
        sinew_lattice_points(sinew_placement_lattice(fx.placement), points, 0, 0, 6 * 4 * 4))
        return 0;
    return contract_hash(contract_hash(CONTRACT_HASH_SEED, lifts, sizeof lifts), points, sizeof points);
}

/* ---- create ---------------------------------------------------------------------- */

typedef void (*desc_edit)(sinew_placement_desc *d);
static sinew_result create_edited(sinew_context *ctx, desc_edit edit)
{
    sinew_placement_desc d = base_desc();
    if (edit) edit(&d);
    sinew_result r = sinew_placement_create(ctx, &d, OUT_HANDLE(sinew_placement));
    if (r == SINEW_OK) sinew_placement_destroy(*OUT_HANDLE(sinew_placement));
    return r;
}
static const float path_nan[2 * 3] = {-2, 0, 5, NAN, 0, 5};
static const float path_coincident[3 * 3] = {-2, 0, 5, -2, 0, 4, 2, 0, 5};
static const float path_vertical[2 * 3] = {0, 0, 5, 0, 0, 3};
static const float path_off_scene[2 * 3] = {100, 100, 5, 104, 100, 5};
static const float path_half_off[2 * 3] = {8, 0, 5, 14, 0, 5};
static const float negative_scale[2] = {1, -1};
#define EDIT(name, statement) \
    static void name(sinew_placement_desc *d) \
    { \
        statement; \
    }
EDIT(one_path_point, d->path.count = 1)
EDIT(null_path, d->path.data = NULL)
EDIT(path_point_nan, d->path.data = path_nan)
EDIT(path_stride_too_small, d->path.stride = 8)
EDIT(path_count_size_max_8, d->path.count = SIZE_MAX / 8)
EDIT(bad_path_kind, d->path_kind = (sinew_placement_path_kind)2)
EDIT(path_order_nine, d->path_kind = SINEW_PLACEMENT_PATH_BSPLINE; d->path_order = 9)
EDIT(view_nan, d->view[1] = NAN)
EDIT(width_zero_is_required, d->width = 0)
EDIT(width_nan, d->width = NAN)
EDIT(height_negative, d->height = -1)
EDIT(count_below_order, d->count[0] = 3)
EDIT(count_too_large, d->count[1] = 5000)
EDIT(order_nine, d->order[2] = 9)
EDIT(oversample_too_large, d->oversample = 65)
EDIT(bad_volume, d->volume = (sinew_placement_volume)2)
EDIT(bad_miss, d->miss = (sinew_placement_miss)3)
EDIT(miss_depth_negative, d->miss = SINEW_PLACEMENT_MISS_DEPTH; d->miss_depth = -1)
EDIT(bad_outside, d->outside = (sinew_lattice_outside)3)
EDIT(width_scale_without_values, d->width_scale.count[0] = 2)
EDIT(width_scale_negative, d->width_scale.values = negative_scale; d->width_scale.count[0] = 2)
EDIT(height_scale_too_many, d->height_scale.values = negative_scale; d->height_scale.count[0] = 257)
EDIT(scene_empty, d->scene.triangle_count = 0)
EDIT(scene_null_indices, d->scene.indices = NULL)
EDIT(scene_index_out_of_range, d->scene.indices = floor_out_of_range)
EDIT(scene_triangles_size_max_3, d->scene.triangle_count = SIZE_MAX / 3)
EDIT(scene_vertex_nan, d->scene.positions.data = model_nan; d->scene.positions.count = 3)
EDIT(path_points_coincide, d->path.data = path_coincident; d->path.count = 3)
EDIT(path_along_view, d->path.data = path_vertical)
EDIT(path_misses_scene, d->path.data = path_off_scene)
EDIT(path_half_off_fail, d->path.data = path_half_off; d->miss = SINEW_PLACEMENT_MISS_FAIL)
EDIT(offset_bspline_ok, d->path_kind = SINEW_PLACEMENT_PATH_BSPLINE; d->volume = SINEW_PLACEMENT_OFFSET)

static sinew_result create_cancelled(void)
{
    cancelling = 1;
    sinew_result r = create_edited(fx.ctx, NULL);
    cancelling = 0;
    return r;
}

/* ---- getters, relaxation, edits --------------------------------------------------------- */

static void lattice_of_null_and_placement(void)
{
    assert_null(sinew_placement_lattice(NULL));
    assert_non_null(sinew_placement_lattice(fx.placement));
    sinew_placement_destroy(NULL);
}

typedef sinew_result (*column_getter)(const sinew_placement *, float *, size_t, size_t, size_t);
#define COLUMN_CASES(X, fn, tag, bad_stride, small_stride, ok_stride) \
    X(tag##_null_placement, INVALID_ARGUMENT, "placement", { return fn(NULL, OUT_F, 0, 0, 4); }) \
    X(tag##_null_out, INVALID_ARGUMENT, "output", { return fn(fx.placement, NULL, 0, 0, 4); }) \
    X(tag##_stride_not_multiple_of_4, INVALID_ARGUMENT, "stride", { return fn(fx.placement, OUT_F, bad_stride, 0, 4); }) \
    X(tag##_stride_too_small, INVALID_ARGUMENT, "stride", { return fn(fx.placement, OUT_F, small_stride, 0, 4); }) \
    X(tag##_misaligned_out, INVALID_ARGUMENT, "aligned", { return fn(fx.placement, MISALIGNED(float, OUT_F), 0, 0, 4); }) \
    X(tag##_range_past_end, INDEX_OUT_OF_RANGE, "24", { return fn(fx.placement, OUT_F, 0, COLUMNS - 1, 2); }) \
    X(tag##_range_wraps, INDEX_OUT_OF_RANGE, "24", { return fn(fx.placement, OUT_F, 0, 3, SIZE_MAX); }) \
    X(tag##_first_size_max, INDEX_OUT_OF_RANGE, "24", { return fn(fx.placement, OUT_F, 0, SIZE_MAX, 1); }) \
    X(tag##_stride_overflows, SIZE_OVERFLOW, "stride", \
      { return fn(fx.placement, OUT_F, (SIZE_MAX / 3) & ~(size_t)3, 0, 4); }) \
    X(tag##_zero_count_ok, OK, NULL, { return fn(fx.placement, NULL, 0, COLUMNS, 0); }) \
    X(tag##_ok, OK, NULL, { return fn(fx.placement, OUT_F, ok_stride, 20, 4); })

static sinew_result relax(sinew_placement_relax_desc d)
{
    return sinew_placement_relax(NULL, fx.placement, &d, OUT_STRUCT(sinew_placement_relax_report, 16384));
}
static sinew_placement_relax_desc relax_desc(float stiffness, float angle, uint32_t neighbourhood, uint32_t steps)
{
    return (sinew_placement_relax_desc){sizeof(sinew_placement_relax_desc), stiffness, 0, 0, angle, neighbourhood, steps};
}
/* A pushed-up column is still far from rest after one step. */
static sinew_result relax_one_step(void)
{
    if (sinew_placement_push(fx.placement, 2, 1, 0.5f) != SINEW_OK) return SINEW_ERROR_PLAIN;
    sinew_placement_relax_desc d = relax_desc(0, 1, 0, 1);
    return sinew_placement_relax(NULL, fx.placement, &d, NULL);
}
static sinew_result press(sinew_placement_press_desc d)
{
    return sinew_placement_press(fx.placement, &d, OUT_SIZE);
}
static sinew_placement_press_desc press_desc(float x, float radius, float depth, int falloff)
{
    return (sinew_placement_press_desc){sizeof(sinew_placement_press_desc), {x, 0, 1}, radius, depth, (sinew_placement_falloff)falloff};
}
static sinew_result map_model(sinew_placement_map_desc d)
{
    return sinew_placement_map_model(fx.placement, &d, SCRATCH(sinew_placement_map, 256));
}
static sinew_placement_map_desc map_desc(float x_max, float y_min, float fraction, float offset)
{
    return (sinew_placement_map_desc){sizeof(sinew_placement_map_desc), {0, y_min, 0}, {x_max, 0.5f, 1}, fraction, offset};
}
static sinew_result deform(const sinew_placement_map *map, const float *points, size_t count, size_t model_stride,
                           float *out, size_t out_stride, size_t first, size_t n)
{
    sinew_points m = {points, count, model_stride};
    return sinew_placement_deform(fx.placement, map, &m, out, out_stride, first, n);
}
static const sinew_points *model_view(void)
{
    static sinew_points m = {model, 4, 0};
    return &m;
}
static sinew_result deform_map_nan(void)
{
    sinew_placement_map map = fx.map;
    map.offset[2] = NAN;
    return deform(&map, model, 4, 0, OUT_F, 0, 0, 4);
}

#define CASES(X) \
    /* create */ \
    X(create_null_desc, INVALID_ARGUMENT, "desc", { return sinew_placement_create(NULL, NULL, OUT_HANDLE(sinew_placement)); }) \
    X(create_null_out, INVALID_ARGUMENT, "out", \
      { sinew_placement_desc d = base_desc(); return sinew_placement_create(NULL, &d, NULL); }) \
    X(create_one_path_point, INVALID_ARGUMENT, "path", { return create_edited(NULL, one_path_point); }) \
    X(create_null_path, INVALID_ARGUMENT, "path", { return create_edited(NULL, null_path); }) \
    X(create_path_point_nan, NON_FINITE, "path point 1", { return create_edited(NULL, path_point_nan); }) \
    X(create_path_stride_too_small, INVALID_ARGUMENT, "stride", { return create_edited(NULL, path_stride_too_small); }) \
    X(create_path_count_size_max_8, SIZE_OVERFLOW, "path", { return create_edited(NULL, path_count_size_max_8); }) \
    X(create_bad_path_kind, INVALID_ARGUMENT, "path kind", { return create_edited(NULL, bad_path_kind); }) \
    X(create_path_order_nine, INVALID_ARGUMENT, "path order", { return create_edited(NULL, path_order_nine); }) \
    X(create_view_nan, NON_FINITE, "view", { return create_edited(NULL, view_nan); }) \
    X(create_width_zero, INVALID_ARGUMENT, "width", { return create_edited(NULL, width_zero_is_required); }) \
    X(create_width_nan, NON_FINITE, "width", { return create_edited(NULL, width_nan); }) \
    X(create_height_negative, INVALID_ARGUMENT, "height", { return create_edited(NULL, height_negative); }) \
    X(create_count_below_order, INVALID_ARGUMENT, "axis u", { return create_edited(NULL, count_below_order); }) \
    X(create_count_too_large, INVALID_ARGUMENT, "axis v", { return create_edited(NULL, count_too_large); }) \
    X(create_order_nine, INVALID_ARGUMENT, "order", { return create_edited(NULL, order_nine); }) \
    X(create_oversample_too_large, INVALID_ARGUMENT, "oversample", { return create_edited(NULL, oversample_too_large); }) \
    X(create_bad_volume, INVALID_ARGUMENT, "volume", { return create_edited(NULL, bad_volume); }) \
    X(create_bad_miss, INVALID_ARGUMENT, "miss", { return create_edited(NULL, bad_miss); }) \
    X(create_miss_depth_negative, INVALID_ARGUMENT, "miss depth", { return create_edited(NULL, miss_depth_negative); }) \
    X(create_bad_outside, INVALID_ARGUMENT, "outside", { return create_edited(NULL, bad_outside); }) \
    X(create_width_scale_without_values, INVALID_ARGUMENT, "values", \
      { return create_edited(NULL, width_scale_without_values); }) \
    X(create_width_scale_negative, INVALID_ARGUMENT, "(1, 0)", { return create_edited(NULL, width_scale_negative); }) \
    X(create_height_scale_too_many, INVALID_ARGUMENT, "256", { return create_edited(NULL, height_scale_too_many); }) \
    X(create_scene_empty, INVALID_ARGUMENT, "scene", { return create_edited(NULL, scene_empty); }) \
    X(create_scene_null_indices, INVALID_ARGUMENT, "indices", { return create_edited(NULL, scene_null_indices); }) \
    X(create_scene_index_out_of_range, INDEX_OUT_OF_RANGE, "triangle 1", \
      { return create_edited(NULL, scene_index_out_of_range); }) \
    X(create_scene_triangles_size_max_3, SIZE_OVERFLOW, "triangles", \
      { return create_edited(NULL, scene_triangles_size_max_3); }) \
    X(create_scene_vertex_nan, NON_FINITE, "1", { return create_edited(NULL, scene_vertex_nan); }) \
    X(create_path_points_coincide, DEGENERATE, "path points 0 and 1", \
      { return create_edited(NULL, path_points_coincide); }) \
    X(create_path_along_view, DEGENERATE, "path", { return create_edited(NULL, path_along_view); }) \
    X(create_no_ray_hits, NO_RESULT, "hit", { return create_edited(NULL, path_misses_scene); }) \
    X(create_miss_fails, NO_RESULT, "missed", { return create_edited(NULL, path_half_off_fail); }) \
    X(create_cancelled, CANCELLED, "placement", { return create_cancelled(); }) \
    X(create_ok, OK, NULL, { return create_edited(NULL, NULL); }) \
    X(create_offset_bspline_ok, OK, NULL, { return create_edited(NULL, offset_bspline_ok); }) \
    /* getters */ \
    X(get_info_null_placement, INVALID_ARGUMENT, "placement", \
      { return sinew_placement_get_info(NULL, OUT_STRUCT(sinew_placement_info, 256)); }) \
    X(get_info_null_info, INVALID_ARGUMENT, "info", { return sinew_placement_get_info(fx.placement, NULL); }) \
    X(get_info_ok, OK, NULL, { return sinew_placement_get_info(fx.placement, OUT_STRUCT(sinew_placement_info, 256)); }) \
    X(lattice_and_destroy_null, PLAIN, NULL, { lattice_of_null_and_placement(); return SINEW_OK; }) \
    COLUMN_CASES(X, sinew_placement_directions, directions, 14, 8, 16) \
    COLUMN_CASES(X, sinew_placement_lifts, lifts, 6, 2, 8) \
    /* relaxation */ \
    X(relax_null_placement, INVALID_ARGUMENT, "placement", { return sinew_placement_relax(NULL, NULL, NULL, NULL); }) \
    X(relax_stiffness_negative, INVALID_ARGUMENT, "stiffness", { return relax(relax_desc(-1, 0, 0, 0)); }) \
    X(relax_stiffness_nan, NON_FINITE, "stiffness", { return relax(relax_desc(NAN, 0, 0, 0)); }) \
    X(relax_angle_180, INVALID_ARGUMENT, "angle", { return relax(relax_desc(0, 180, 0, 0)); }) \
    X(relax_neighbourhood_65, INVALID_ARGUMENT, "neighbourhood", { return relax(relax_desc(0, 0, 65, 0)); }) \
    X(relax_ok, OK, NULL, { return relax(relax_desc(0, 0, 0, 0)); }) \
    X(relax_not_converged, NOT_CONVERGED, "step", { return relax_one_step(); }) \
    X(relax_defaults_ok, OK, NULL, { return sinew_placement_relax(NULL, fx.placement, NULL, NULL); }) \
    /* edits */ \
    X(push_null_placement, INVALID_ARGUMENT, "placement", { return sinew_placement_push(NULL, 0, 0, 1); }) \
    X(push_i_past_end, INDEX_OUT_OF_RANGE, "i = 6", { return sinew_placement_push(fx.placement, 6, 0, 1); }) \
    X(push_j_past_end, INDEX_OUT_OF_RANGE, "j = 4", { return sinew_placement_push(fx.placement, 0, 4, 1); }) \
    X(push_j_max, INDEX_OUT_OF_RANGE, "j = 4294967295", { return sinew_placement_push(fx.placement, 0, UINT32_MAX, 1); }) \
    X(push_amount_nan, NON_FINITE, "amount", { return sinew_placement_push(fx.placement, 1, 1, NAN); }) \
    X(push_ok, OK, NULL, { return sinew_placement_push(fx.placement, 1, 1, 0); }) \
    X(press_null_placement, INVALID_ARGUMENT, "placement", \
      { sinew_placement_press_desc d = press_desc(0, 1, 0.1f, 0); return sinew_placement_press(NULL, &d, OUT_SIZE); }) \
    X(press_null_desc, INVALID_ARGUMENT, "desc", { return sinew_placement_press(fx.placement, NULL, OUT_SIZE); }) \
    X(press_radius_zero, INVALID_ARGUMENT, "radius", { return press(press_desc(0, 0, 0.1f, 0)); }) \
    X(press_radius_nan, NON_FINITE, "radius", { return press(press_desc(0, NAN, 0.1f, 0)); }) \
    X(press_centre_infinite, NON_FINITE, "centre x", { return press(press_desc(INFINITY, 1, 0.1f, 0)); }) \
    X(press_depth_nan, NON_FINITE, "depth", { return press(press_desc(0, 1, NAN, 0)); }) \
    X(press_bad_falloff, INVALID_ARGUMENT, "falloff", { return press(press_desc(0, 1, 0.1f, 3)); }) \
    X(press_ok, OK, NULL, { return press(press_desc(0, 1, 0, SINEW_PLACEMENT_FALLOFF_HAT)); }) \
    /* model mapping and deformation */ \
    X(map_null_placement, INVALID_ARGUMENT, "placement", \
      { sinew_placement_map_desc d = map_desc(2, -0.5f, 0.5f, 0); \
        return sinew_placement_map_model(NULL, &d, SCRATCH(sinew_placement_map, 256)); }) \
    X(map_null_desc, INVALID_ARGUMENT, "desc", \
      { return sinew_placement_map_model(fx.placement, NULL, SCRATCH(sinew_placement_map, 256)); }) \
    X(map_null_out, INVALID_ARGUMENT, "out", \
      { sinew_placement_map_desc d = map_desc(2, -0.5f, 0.5f, 0); return sinew_placement_map_model(fx.placement, &d, NULL); }) \
    X(map_box_empty, DEGENERATE, "box x", { return map_model(map_desc(0, -0.5f, 0.5f, 0)); }) \
    X(map_box_nan, NON_FINITE, "box y", { return map_model(map_desc(2, NAN, 0.5f, 0)); }) \
    X(map_fraction_above_one, INVALID_ARGUMENT, "fraction", { return map_model(map_desc(2, -0.5f, 1.5f, 0)); }) \
    X(map_offset_past_end, INVALID_ARGUMENT, "offset", { return map_model(map_desc(2, -0.5f, 0.5f, 0.75f)); }) \
    X(map_natural_length_too_long, INVALID_ARGUMENT, "long", { return map_model(map_desc(100, -0.5f, 0, 0)); }) \
    X(map_fraction_nan, NON_FINITE, "fraction", { return map_model(map_desc(2, -0.5f, NAN, 0)); }) \
    X(map_ok, OK, NULL, { return map_model(map_desc(2, -0.5f, 0.5f, 0.5f)); }) \
    X(deform_null_placement, INVALID_ARGUMENT, "placement", \
      { return sinew_placement_deform(NULL, &fx.map, model_view(), OUT_F, 0, 0, 4); }) \
    X(deform_null_map, INVALID_ARGUMENT, "map", { return deform(NULL, model, 4, 0, OUT_F, 0, 0, 4); }) \
    X(deform_null_model, INVALID_ARGUMENT, "model", \
      { return sinew_placement_deform(fx.placement, &fx.map, NULL, OUT_F, 0, 0, 4); }) \
    X(deform_null_model_data, INVALID_ARGUMENT, "model", { return deform(&fx.map, NULL, 4, 0, OUT_F, 0, 0, 4); }) \
    X(deform_null_out, INVALID_ARGUMENT, "output", { return deform(&fx.map, model, 4, 0, NULL, 0, 0, 4); }) \
    X(deform_out_stride_not_multiple_of_4, INVALID_ARGUMENT, "stride", \
      { return deform(&fx.map, model, 4, 0, OUT_F, 13, 0, 4); }) \
    X(deform_model_stride_too_small, INVALID_ARGUMENT, "stride", { return deform(&fx.map, model, 2, 8, OUT_F, 0, 0, 2); }) \
    X(deform_misaligned_out, INVALID_ARGUMENT, "aligned", \
      { return deform(&fx.map, model, 4, 0, MISALIGNED(float, OUT_F), 0, 0, 4); }) \
    X(deform_range_past_view, INDEX_OUT_OF_RANGE, "range", { return deform(&fx.map, model, 4, 0, OUT_F, 0, 3, 2); }) \
    X(deform_range_wraps, INDEX_OUT_OF_RANGE, "range", { return deform(&fx.map, model, 4, 0, OUT_F, 0, 1, SIZE_MAX); }) \
    X(deform_out_stride_overflows, SIZE_OVERFLOW, "stride", \
      { return deform(&fx.map, model, 4, 0, OUT_F, (SIZE_MAX / 3) & ~(size_t)3, 0, 4); }) \
    X(deform_model_end_overflows, SIZE_OVERFLOW, "overflow", \
      { return deform(&fx.map, model, SIZE_MAX / 8, 0, OUT_F, 0, SIZE_MAX / 8 - 1, 1); }) \
    X(deform_model_nan, NON_FINITE, "model point 1", { return deform(&fx.map, model_nan, 4, 0, OUT_F, 0, 0, 4); }) \
    X(deform_map_nan, NON_FINITE, "map", { return deform_map_nan(); }) \
    X(deform_zero_count_ok, OK, NULL, { return deform(&fx.map, model, 4, 0, NULL, 0, 4, 0); }) \
    X(deform_ok, OK, NULL, { return deform(&fx.map, model, 4, 0, OUT_F, 20, 1, 3); })

CASES(CONTRACT_DEFINE)
static const contract_case cases[] = {CASES(CONTRACT_ENTRY)};

int main(void)
{
    static const contract_hooks hooks = {setup, teardown, NULL, fingerprint};
    return contract_run("contract-placement", cases, sizeof cases / sizeof cases[0], &hooks);
}
