/* Contract of include/sinew/lattice.h: create, control points, evaluation,
 * bound deformation, fold check, refinement, segment bound. */
#include <math.h>
#include <string.h>

#include "contract.h"

#define POINTS 4
#define CONTROL_POINTS 64 /* the default lattice: 4 x 4 x 4 cubic */

static const float points[POINTS * 3] = {0.1f, 0.2f, 0.3f, 0.5f, 0.5f, 0.5f, 0.9f, 0.1f, 0.7f, 0.3f, 0.8f, 0.2f};
static const float normals[POINTS * 3] = {0, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0, 1};
static const float nan_point[POINTS * 3] = {0.1f, 0.2f, 0.3f, 0.5f, NAN, 0.5f, 0.9f, 0.1f, 0.7f, 0.3f, 0.8f, 0.2f};
static const uint32_t triangle[3] = {0, 1, 2};
static const uint32_t triangle_out_of_range[3] = {0, 1, 4};

static struct {
    sinew_context *ctx;                    /* cancels while `cancelling` is set */
    sinew_lattice *lattice;                /* edited by the setter cases */
    sinew_lattice *bent;                   /* displaced: refinement must split */
    sinew_lattice *other;                  /* another structure (5 points along u) */
    sinew_lattice_binding *binding;        /* points and normals */
    sinew_lattice_binding *plain_binding;  /* points only */
    sinew_lattice_refinement *refinement;
} fx;
static int cancelling;

static int progress(void *user, const char *stage, float fraction)
{
    (void)user, (void)stage, (void)fraction;
    return cancelling;
}

static sinew_points view(const float *data, size_t count, size_t stride)
{
    return (sinew_points){data, count, stride};
}

static int setup(void **state)
{
    (void)state;
    sinew_context_desc cd = {sizeof(sinew_context_desc), {NULL, NULL, NULL}, progress, NULL, NULL, NULL, 0};
    sinew_lattice_desc d, other;
    SINEW_INIT(&d);
    SINEW_INIT(&other);
    other.count[0] = 5;
    sinew_lattice_binding_desc with_normals = {sizeof(sinew_lattice_binding_desc), view(points, POINTS, 0), view(normals, POINTS, 0), 0};
    sinew_lattice_binding_desc plain = {sizeof(sinew_lattice_binding_desc), view(points, POINTS, 0), view(NULL, 0, 0), 0};
    float bend[CONTROL_POINTS * 3] = {0};
    for (size_t i = 0; i < CONTROL_POINTS; ++i) bend[3 * i + 2] = 0.3f * (float)((i * 7) % 5);
    sinew_points bend_view = view(bend, CONTROL_POINTS, 0);
    sinew_trimesh mesh = {view(points, 3, 0), triangle, 1, SINEW_INDEX_U32, 0};
    sinew_lattice_refinement_desc rd = {sizeof(sinew_lattice_refinement_desc), 0.01, 0, 0, 0};
    if (sinew_context_create(&cd, &fx.ctx) || sinew_lattice_create(NULL, &d, &fx.lattice) ||
        sinew_lattice_create(NULL, &d, &fx.bent) || sinew_lattice_create(NULL, &other, &fx.other) ||
        sinew_lattice_set_displacements(fx.bent, &bend_view, 0, bend_view.count) ||
        sinew_lattice_binding_create(NULL, fx.lattice, &with_normals, &fx.binding) ||
        sinew_lattice_binding_create(NULL, fx.lattice, &plain, &fx.plain_binding) ||
        sinew_lattice_refinement_create(NULL, fx.bent, &mesh, &rd, &fx.refinement))
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    sinew_lattice_refinement_destroy(fx.refinement);
    sinew_lattice_binding_destroy(fx.binding);
    sinew_lattice_binding_destroy(fx.plain_binding);
    sinew_lattice_destroy(fx.lattice);
    sinew_lattice_destroy(fx.bent);
    sinew_lattice_destroy(fx.other);
    sinew_context_destroy(fx.ctx);
    return 0;
}

/* The edited lattice's displacements. */
static uint64_t fingerprint(void)
{
    float d[CONTROL_POINTS * 3];
    if (sinew_lattice_displacements(fx.lattice, d, 0, 0, CONTROL_POINTS) != SINEW_OK) return 0;
    return contract_hash(CONTRACT_HASH_SEED, d, sizeof d);
}

/* ---- create ------------------------------------------------------------------ */

typedef void (*desc_edit)(sinew_lattice_desc *d);
static sinew_result create_edited(desc_edit edit)
{
    sinew_lattice_desc d;
    SINEW_INIT(&d);
    d.extents[0] = d.extents[1] = d.extents[2] = 2.0f;
    if (edit) edit(&d);
    sinew_result r = sinew_lattice_create(NULL, &d, OUT_HANDLE(sinew_lattice));
    if (r == SINEW_OK) sinew_lattice_destroy(*OUT_HANDLE(sinew_lattice));
    return r;
}
#define EDIT(name, statement) \
    static void name(sinew_lattice_desc *d) \
    { \
        statement; \
    }
EDIT(order_one, d->order[1] = 1)
EDIT(order_nine, d->order[2] = 9)
EDIT(count_below_order, d->count[0] = 3)
EDIT(bad_outside, d->outside = (sinew_lattice_outside)3)
EDIT(origin_nan, d->origin[1] = NAN)
EDIT(axis_infinite, d->axes[0][0] = 1; d->axes[1][1] = INFINITY; d->axes[2][2] = 1)
EDIT(extent_nan, d->extents[2] = NAN)
EDIT(extent_negative, d->extents[1] = -1)
EDIT(one_extent_zero, d->extents[0] = 0)
EDIT(dependent_axes, d->axes[0][0] = 1; d->axes[1][0] = 2; d->axes[2][2] = 1)
EDIT(counts_huge, d->count[0] = UINT32_MAX; d->count[1] = UINT32_MAX; d->count[2] = UINT32_MAX)
EDIT(count_huge_one_axis, d->count[0] = UINT32_MAX)
EDIT(trilinear_ok, d->order[0] = d->order[1] = d->order[2] = 2; d->count[1] = 3;
     d->outside = SINEW_LATTICE_OUTSIDE_EXTEND)

/* ---- control points --------------------------------------------------------------- */

typedef sinew_result (*block_getter)(const sinew_lattice *, float *, size_t, size_t, size_t);
typedef sinew_result (*block_setter)(sinew_lattice *, const sinew_points *, size_t, size_t);

#define GETTER_CASES(X, fn, tag) \
    X(tag##_null_lattice, INVALID_ARGUMENT, "lattice", { return fn(NULL, OUT_F, 0, 0, 4); }) \
    X(tag##_null_out, INVALID_ARGUMENT, "output", { return fn(fx.lattice, NULL, 0, 0, 4); }) \
    X(tag##_stride_not_multiple_of_4, INVALID_ARGUMENT, "stride", { return fn(fx.lattice, OUT_F, 13, 0, 4); }) \
    X(tag##_stride_too_small, INVALID_ARGUMENT, "stride", { return fn(fx.lattice, OUT_F, 8, 0, 4); }) \
    X(tag##_misaligned_out, INVALID_ARGUMENT, "aligned", \
      { return fn(fx.lattice, MISALIGNED(float, OUT_F), 0, 0, 4); }) \
    X(tag##_range_past_end, INDEX_OUT_OF_RANGE, "64", { return fn(fx.lattice, OUT_F, 0, CONTROL_POINTS - 2, 3); }) \
    X(tag##_range_wraps, INDEX_OUT_OF_RANGE, "64", { return fn(fx.lattice, OUT_F, 0, 2, SIZE_MAX); }) \
    X(tag##_first_size_max, INDEX_OUT_OF_RANGE, "64", { return fn(fx.lattice, OUT_F, 0, SIZE_MAX, 1); }) \
    X(tag##_stride_overflows, SIZE_OVERFLOW, "stride", \
      { return fn(fx.lattice, OUT_F, (SIZE_MAX / 3) & ~(size_t)3, 0, 4); }) \
    X(tag##_zero_count_ok, OK, NULL, { return fn(fx.lattice, OUT_F, 0, CONTROL_POINTS, 0); }) \
    X(tag##_ok, OK, NULL, { return fn(fx.lattice, OUT_F, 16, 60, 4); })

/* Inputs are read at the control point's index: element i of the view for point i. */
static sinew_result set_block(block_setter fn, sinew_points in, size_t first, size_t count)
{
    return fn(fx.lattice, &in, first, count);
}
/* Zeros for one control point more than the lattice has. */
static const float zeros_past_end[3 * (CONTROL_POINTS + 1)];
#define SETTER_CASES(X, fn, tag, noun) \
    X(tag##_null_lattice, INVALID_ARGUMENT, "lattice", \
      { sinew_points in = view(points, POINTS, 0); return fn(NULL, &in, 0, POINTS); }) \
    X(tag##_null_view, INVALID_ARGUMENT, noun, { return fn(fx.lattice, NULL, 0, 1); }) \
    X(tag##_null_data, INVALID_ARGUMENT, noun, { return set_block(fn, view(NULL, POINTS, 0), 0, POINTS); }) \
    X(tag##_stride_not_multiple_of_4, INVALID_ARGUMENT, "stride", \
      { return set_block(fn, view(points, 2, 14), 0, 2); }) \
    X(tag##_stride_too_small, INVALID_ARGUMENT, "stride", { return set_block(fn, view(points, 2, 4), 0, 2); }) \
    X(tag##_count_size_max_8, SIZE_OVERFLOW, noun, \
      { return set_block(fn, view(points, SIZE_MAX / 8, 0), 0, SIZE_MAX / 8); }) \
    X(tag##_range_past_view, INDEX_OUT_OF_RANGE, "past", { return set_block(fn, view(points, POINTS, 0), 1, POINTS); }) \
    X(tag##_range_past_end, INDEX_OUT_OF_RANGE, "64", \
      { return set_block(fn, view(zeros_past_end, CONTROL_POINTS + 1, 0), CONTROL_POINTS - 3, 4); }) \
    X(tag##_first_size_max, INDEX_OUT_OF_RANGE, "past", { return set_block(fn, view(points, 1, 0), SIZE_MAX, 1); }) \
    X(tag##_nan, NON_FINITE, noun " 1", { return set_block(fn, view(nan_point, POINTS, 0), 0, POINTS); })

static sinew_result set_points_at_rest(void)
{
    float rest[CONTROL_POINTS * 3];
    if (sinew_lattice_rest_points(fx.lattice, rest, 0, 0, CONTROL_POINTS)) return SINEW_ERROR_PLAIN;
    return set_block(sinew_lattice_set_points, view(rest, CONTROL_POINTS, 0), 0, CONTROL_POINTS);
}
static sinew_result set_zero_displacements(void)
{
    static const float zero[3 * (10 + POINTS)];
    return set_block(sinew_lattice_set_displacements, view(zero, 10 + POINTS, 0), 10, POINTS);
}
/* ---- evaluation -------------------------------------------------------------------- */

#define VIEW(data, count, stride) (&(sinew_points){data, count, stride})
static sinew_result parameters(const sinew_points *in, float *out, size_t stride, size_t first, size_t count)
{
    return sinew_lattice_parameters(fx.lattice, in, out, stride, first, count);
}
static sinew_result evaluate(const sinew_points *in, float *pos, size_t pos_stride, float *jac, size_t jac_stride,
                             size_t first, size_t count)
{
    return sinew_lattice_evaluate(fx.lattice, in, pos, pos_stride, jac, jac_stride, first, count);
}
static sinew_result deform_points(const sinew_points *in, float *out, size_t stride, size_t first, size_t count)
{
    return sinew_lattice_deform(fx.lattice, in, NULL, out, stride, NULL, 0, first, count);
}
static sinew_result deform_normals(sinew_points n, float *out_normals, size_t normal_stride)
{
    sinew_points p = view(points, POINTS, 0);
    return sinew_lattice_deform(fx.lattice, &p, &n, OUT_F, 0, out_normals, normal_stride, 0, POINTS);
}
static sinew_result deform_output_normals_only(void)
{
    sinew_points p = view(points, POINTS, 0);
    return sinew_lattice_deform(fx.lattice, &p, NULL, OUT_F, 0, OUT2_F, 0, 0, POINTS);
}

/* The input checks every range call shares; fn(view, out, stride, first, count). */
#define RANGE_CASES(X, fn, tag, noun) \
    X(tag##_null_view, INVALID_ARGUMENT, noun, { return fn(NULL, OUT_F, 0, 0, 1); }) \
    X(tag##_null_data, INVALID_ARGUMENT, noun, { return fn(VIEW(NULL, POINTS, 0), OUT_F, 0, 0, POINTS); }) \
    X(tag##_null_out, INVALID_ARGUMENT, "output", { return fn(VIEW(points, POINTS, 0), NULL, 0, 0, POINTS); }) \
    X(tag##_view_stride_not_multiple_of_4, INVALID_ARGUMENT, "stride", \
      { return fn(VIEW(points, 2, 18), OUT_F, 0, 0, 2); }) \
    X(tag##_view_stride_too_small, INVALID_ARGUMENT, "stride", { return fn(VIEW(points, 2, 8), OUT_F, 0, 0, 2); }) \
    X(tag##_out_stride_not_multiple_of_4, INVALID_ARGUMENT, "stride", \
      { return fn(VIEW(points, POINTS, 0), OUT_F, 13, 0, POINTS); }) \
    X(tag##_out_stride_too_small, INVALID_ARGUMENT, "stride", \
      { return fn(VIEW(points, POINTS, 0), OUT_F, 4, 0, POINTS); }) \
    X(tag##_misaligned_out, INVALID_ARGUMENT, "aligned", \
      { return fn(VIEW(points, POINTS, 0), MISALIGNED(float, OUT_F), 0, 0, POINTS); }) \
    X(tag##_range_past_view, INDEX_OUT_OF_RANGE, "range", { return fn(VIEW(points, POINTS, 0), OUT_F, 0, 2, 3); }) \
    X(tag##_range_wraps, INDEX_OUT_OF_RANGE, "range", \
      { return fn(VIEW(points, POINTS, 0), OUT_F, 0, 1, SIZE_MAX); }) \
    X(tag##_out_stride_overflows, SIZE_OVERFLOW, "stride", \
      { return fn(VIEW(points, POINTS, 0), OUT_F, (SIZE_MAX / 3) & ~(size_t)3, 0, POINTS); }) \
    X(tag##_view_end_overflows, SIZE_OVERFLOW, noun, \
      { return fn(VIEW(points, SIZE_MAX / 8, 0), OUT_F, 0, SIZE_MAX / 8 - 1, 1); }) \
    X(tag##_nan, NON_FINITE, noun " 1", { return fn(VIEW(nan_point, POINTS, 0), OUT_F, 0, 0, POINTS); }) \
    X(tag##_zero_count_ok, OK, NULL, { return fn(VIEW(points, POINTS, 0), OUT_F, 0, POINTS, 0); }) \
    X(tag##_ok, OK, NULL, { return fn(VIEW(points, POINTS, 0), OUT_F, 20, 1, 3); })

static sinew_result evaluate_positions(const sinew_points *in, float *out, size_t stride, size_t first, size_t count)
{
    return evaluate(in, out, stride, NULL, 0, first, count);
}

/* ---- bound deformation ---------------------------------------------------------------- */

static const sinew_lattice_binding_desc *points_only_desc(void)
{
    static sinew_lattice_binding_desc d;
    SINEW_INIT(&d);
    d.points = view(points, POINTS, 0);
    return &d;
}
static sinew_result bind_desc(sinew_lattice_binding_desc d)
{
    sinew_result r = sinew_lattice_binding_create(NULL, fx.lattice, &d, OUT_HANDLE(sinew_lattice_binding));
    if (r == SINEW_OK) sinew_lattice_binding_destroy(*OUT_HANDLE(sinew_lattice_binding));
    return r;
}
static sinew_result bind_points(sinew_points p, sinew_points n, sinew_lattice_space space)
{
    return bind_desc((sinew_lattice_binding_desc){sizeof(sinew_lattice_binding_desc), p, n, space});
}
static sinew_result deform_bound(const sinew_lattice_binding *b, const sinew_lattice *lat, float *out,
                                 size_t stride, float *out_normals, size_t normal_stride, size_t first,
                                 size_t count)
{
    return sinew_lattice_binding_deform(b, lat, out, stride, out_normals, normal_stride, first, count);
}
static void binding_counts(void)
{
    assert_int_equal(sinew_lattice_binding_count(NULL), 0);
    assert_int_equal(sinew_lattice_binding_count(fx.binding), POINTS);
    sinew_lattice_binding_destroy(NULL);
}

/* ---- folds, refinement, segments ------------------------------------------------------ */

static sinew_result check_folds(uint32_t samples, uint8_t *flags, size_t flag_count)
{
    return sinew_lattice_check_folds(NULL, fx.lattice, samples, flags, flag_count,
                                     OUT_STRUCT(sinew_lattice_fold_report, 16384));
}
static sinew_result refine(sinew_context *ctx, const sinew_lattice *lat, sinew_trimesh mesh,
                           sinew_lattice_refinement_desc d)
{
    sinew_result r = sinew_lattice_refinement_create(ctx, lat, &mesh, &d, OUT_HANDLE(sinew_lattice_refinement));
    if (r == SINEW_OK) sinew_lattice_refinement_destroy(*OUT_HANDLE(sinew_lattice_refinement));
    return r;
}
static sinew_trimesh mesh_of(const float *positions, size_t vertices, const uint32_t *indices, size_t triangles)
{
    return (sinew_trimesh){view(positions, vertices, 0), indices, triangles, SINEW_INDEX_U32, 0};
}
static sinew_lattice_refinement_desc refine_desc(double tolerance, int test, int split, size_t max_triangles)
{
    return (sinew_lattice_refinement_desc){sizeof(sinew_lattice_refinement_desc), tolerance, (sinew_lattice_error_test)test, (sinew_lattice_split)split,
                                       max_triangles};
}
static sinew_result refine_cancelled(void)
{
    cancelling = 1;
    sinew_result r = refine(fx.ctx, fx.bent, mesh_of(points, 3, triangle, 1), refine_desc(1e-4, 0, 0, 0));
    cancelling = 0;
    return r;
}
static sinew_result segment(const float *a, const float *b)
{
    return sinew_lattice_segment_bound(fx.bent, a, b, SCRATCH(double, 256), SCRATCH(double, 264));
}

/* A desc of defaults (one cubic cell), as SINEW_INIT leaves it. */
static const sinew_lattice_desc *default_desc(void)
{
    static sinew_lattice_desc desc;
    SINEW_INIT(&desc);
    return &desc;
}

#define CASES(X) \
    /* create */ \
    X(create_null_desc, INVALID_ARGUMENT, "desc", { return sinew_lattice_create(NULL, NULL, OUT_HANDLE(sinew_lattice)); }) \
    X(create_null_out, INVALID_ARGUMENT, "out", { return sinew_lattice_create(NULL, default_desc(), NULL); }) \
    X(create_order_one, INVALID_ARGUMENT, "order", { return create_edited(order_one); }) \
    X(create_order_nine, INVALID_ARGUMENT, "order", { return create_edited(order_nine); }) \
    X(create_count_below_order, INVALID_ARGUMENT, "axis u", { return create_edited(count_below_order); }) \
    X(create_bad_outside, INVALID_ARGUMENT, "outside", { return create_edited(bad_outside); }) \
    X(create_origin_nan, NON_FINITE, "origin", { return create_edited(origin_nan); }) \
    X(create_axis_infinite, NON_FINITE, "axis v", { return create_edited(axis_infinite); }) \
    X(create_extent_nan, NON_FINITE, "extent w", { return create_edited(extent_nan); }) \
    X(create_extent_negative, DEGENERATE, "extent v", { return create_edited(extent_negative); }) \
    X(create_one_extent_zero, DEGENERATE, "extent u", { return create_edited(one_extent_zero); }) \
    X(create_dependent_axes, DEGENERATE, "dependent", { return create_edited(dependent_axes); }) \
    X(create_counts_huge, SIZE_OVERFLOW, "control points", { return create_edited(counts_huge); }) \
    X(create_count_huge_one_axis, SIZE_OVERFLOW, "control points", { return create_edited(count_huge_one_axis); }) \
    X(create_ok, OK, NULL, { return create_edited(NULL); }) \
    X(create_trilinear_ok, OK, NULL, { return create_edited(trilinear_ok); }) \
    X(destroy_and_reset_null, PLAIN, NULL, \
      { sinew_lattice_destroy(NULL); sinew_lattice_reset(NULL); return SINEW_OK; }) \
    X(get_info_null_lattice, INVALID_ARGUMENT, "lattice", \
      { return sinew_lattice_get_info(NULL, OUT_STRUCT(sinew_lattice_info, 256)); }) \
    X(get_info_null_info, INVALID_ARGUMENT, "info", { return sinew_lattice_get_info(fx.lattice, NULL); }) \
    X(get_info_ok, OK, NULL, { return sinew_lattice_get_info(fx.lattice, OUT_STRUCT(sinew_lattice_info, 256)); }) \
    /* control points */ \
    GETTER_CASES(X, sinew_lattice_rest_points, rest_points) \
    GETTER_CASES(X, sinew_lattice_points, get_points) \
    GETTER_CASES(X, sinew_lattice_displacements, get_displacements) \
    SETTER_CASES(X, sinew_lattice_set_points, set_points, "control point") \
    SETTER_CASES(X, sinew_lattice_set_displacements, set_displacements, "displacement") \
    X(set_points_at_rest_ok, OK, NULL, { return set_points_at_rest(); }) \
    X(set_displacements_ok, OK, NULL, { return set_zero_displacements(); }) \
    /* evaluation */ \
    RANGE_CASES(X, parameters, parameters, "point") \
    RANGE_CASES(X, evaluate_positions, evaluate, "parameter point") \
    X(evaluate_no_output, INVALID_ARGUMENT, "outputs", \
      { return evaluate(VIEW(points, POINTS, 0), NULL, 0, NULL, 0, 0, POINTS); }) \
    X(evaluate_jacobian_stride_too_small, INVALID_ARGUMENT, "jacobian", \
      { return evaluate(VIEW(points, POINTS, 0), NULL, 0, OUT2_F, 32, 0, POINTS); }) \
    X(evaluate_misaligned_jacobians, INVALID_ARGUMENT, "jacobian", \
      { return evaluate(VIEW(points, POINTS, 0), OUT_F, 0, MISALIGNED(float, OUT2_F), 0, 0, POINTS); }) \
    X(evaluate_jacobians_ok, OK, NULL, { return evaluate(VIEW(points, POINTS, 0), OUT_F, 0, OUT2_F, 40, 0, POINTS); }) \
    RANGE_CASES(X, deform_points, deform, "point") \
    X(deform_normal_count_differs, MISMATCH, "normals", { return deform_normals(view(normals, 3, 0), OUT2_F, 0); }) \
    X(deform_normals_without_output, INVALID_ARGUMENT, "normal", \
      { return deform_normals(view(normals, POINTS, 0), NULL, 0); }) \
    X(deform_normal_output_without_input, INVALID_ARGUMENT, "normal", { return deform_output_normals_only(); }) \
    X(deform_normal_stride_too_small, INVALID_ARGUMENT, "normal", \
      { return deform_normals(view(normals, POINTS, 0), OUT2_F, 8); }) \
    X(deform_misaligned_normals_out, INVALID_ARGUMENT, "normal", \
      { return deform_normals(view(normals, POINTS, 0), MISALIGNED(float, OUT2_F), 0); }) \
    X(deform_normals_ok, OK, NULL, { return deform_normals(view(normals, POINTS, 0), OUT2_F, 0); }) \
    /* bind and deform_bound */ \
    X(bind_null_lattice, INVALID_ARGUMENT, "lattice", \
      { return sinew_lattice_binding_create(NULL, NULL, points_only_desc(), OUT_HANDLE(sinew_lattice_binding)); }) \
    X(bind_null_desc, INVALID_ARGUMENT, "desc", \
      { return sinew_lattice_binding_create(NULL, fx.lattice, NULL, OUT_HANDLE(sinew_lattice_binding)); }) \
    X(bind_null_out, INVALID_ARGUMENT, "out", \
      { return sinew_lattice_binding_create(NULL, fx.lattice, points_only_desc(), NULL); }) \
    X(bind_no_points, INVALID_ARGUMENT, "points", { return bind_points(view(points, 0, 0), view(NULL, 0, 0), 0); }) \
    X(bind_null_point_data, INVALID_ARGUMENT, "point", \
      { return bind_points(view(NULL, POINTS, 0), view(NULL, 0, 0), 0); }) \
    X(bind_bad_space, INVALID_ARGUMENT, "space", \
      { return bind_points(view(points, POINTS, 0), view(NULL, 0, 0), (sinew_lattice_space)2); }) \
    X(bind_normal_count_differs, MISMATCH, "normals", \
      { return bind_points(view(points, POINTS, 0), view(normals, 2, 0), 0); }) \
    X(bind_point_stride_too_small, INVALID_ARGUMENT, "stride", \
      { return bind_points(view(points, 2, 8), view(NULL, 0, 0), 0); }) \
    X(bind_point_nan, NON_FINITE, "point 1", { return bind_points(view(nan_point, POINTS, 0), view(NULL, 0, 0), 0); }) \
    X(bind_count_size_max_8, SIZE_OVERFLOW, "point", \
      { return bind_points(view(points, SIZE_MAX / 8, 0), view(NULL, 0, 0), 0); }) \
    X(bind_ok, OK, NULL, { return bind_points(view(points, POINTS, 0), view(normals, POINTS, 0), SINEW_LATTICE_SPACE_PARAMETER); }) \
    X(binding_count_and_destroy_null, PLAIN, NULL, { binding_counts(); return SINEW_OK; }) \
    X(deform_bound_null_binding, INVALID_ARGUMENT, "binding", { return deform_bound(NULL, fx.lattice, OUT_F, 0, NULL, 0, 0, POINTS); }) \
    X(deform_bound_null_lattice, INVALID_ARGUMENT, "lattice", { return deform_bound(fx.binding, NULL, OUT_F, 0, NULL, 0, 0, POINTS); }) \
    X(deform_bound_null_out, INVALID_ARGUMENT, "output", { return deform_bound(fx.binding, fx.lattice, NULL, 0, NULL, 0, 0, POINTS); }) \
    X(deform_bound_stride_not_multiple_of_4, INVALID_ARGUMENT, "stride", \
      { return deform_bound(fx.binding, fx.lattice, OUT_F, 15, NULL, 0, 0, POINTS); }) \
    X(deform_bound_normal_stride_too_small, INVALID_ARGUMENT, "normal", \
      { return deform_bound(fx.binding, fx.lattice, OUT_F, 0, OUT2_F, 4, 0, POINTS); }) \
    X(deform_bound_misaligned_out, INVALID_ARGUMENT, "aligned", \
      { return deform_bound(fx.binding, fx.lattice, MISALIGNED(float, OUT_F), 0, NULL, 0, 0, POINTS); }) \
    X(deform_bound_misaligned_normals, INVALID_ARGUMENT, "aligned", \
      { return deform_bound(fx.binding, fx.lattice, OUT_F, 0, MISALIGNED(float, OUT2_F), 0, 0, POINTS); }) \
    X(deform_bound_range_past_end, INDEX_OUT_OF_RANGE, "range", \
      { return deform_bound(fx.binding, fx.lattice, OUT_F, 0, NULL, 0, 3, 2); }) \
    X(deform_bound_range_wraps, INDEX_OUT_OF_RANGE, "range", \
      { return deform_bound(fx.binding, fx.lattice, OUT_F, 0, NULL, 0, 2, SIZE_MAX); }) \
    X(deform_bound_stride_overflows, SIZE_OVERFLOW, "stride", \
      { return deform_bound(fx.binding, fx.lattice, OUT_F, (SIZE_MAX / 3) & ~(size_t)3, NULL, 0, 0, POINTS); }) \
    X(deform_bound_other_structure, MISMATCH, "bound", \
      { return deform_bound(fx.binding, fx.other, OUT_F, 0, NULL, 0, 0, POINTS); }) \
    X(deform_bound_normals_not_bound, INVALID_STATE, "normals", \
      { return deform_bound(fx.plain_binding, fx.lattice, OUT_F, 0, OUT2_F, 0, 0, POINTS); }) \
    X(deform_bound_zero_count_ok, OK, NULL, { return deform_bound(fx.binding, fx.lattice, OUT_F, 0, NULL, 0, POINTS, 0); }) \
    X(deform_bound_ok, OK, NULL, { return deform_bound(fx.binding, fx.bent, OUT_F, 16, OUT2_F, 0, 1, 3); }) \
    /* fold check */ \
    X(check_folds_null_lattice, INVALID_ARGUMENT, "lattice", \
      { return sinew_lattice_check_folds(NULL, NULL, 0, NULL, 0, OUT_STRUCT(sinew_lattice_fold_report, 16384)); }) \
    X(check_folds_null_report, INVALID_ARGUMENT, "report", \
      { return sinew_lattice_check_folds(NULL, fx.lattice, 0, NULL, 0, NULL); }) \
    X(check_folds_too_many_samples, INVALID_ARGUMENT, "samples", { return check_folds(65, NULL, 0); }) \
    X(check_folds_flag_buffer_short, MISMATCH, "cell", { return check_folds(0, SCRATCH(uint8_t, 32768), 0); }) \
    X(check_folds_flag_buffer_long, MISMATCH, "cell", { return check_folds(0, SCRATCH(uint8_t, 32768), 2); }) \
    X(check_folds_ok, OK, NULL, { return check_folds(2, SCRATCH(uint8_t, 32768), 1); }) \
    /* refinement */ \
    X(refine_null_lattice, INVALID_ARGUMENT, "lattice", \
      { return refine(NULL, NULL, mesh_of(points, 3, triangle, 1), refine_desc(0.01, 0, 0, 0)); }) \
    X(refine_null_mesh, INVALID_ARGUMENT, "mesh", \
      { sinew_lattice_refinement_desc d = refine_desc(0.01, 0, 0, 0); \
        return sinew_lattice_refinement_create(NULL, fx.bent, NULL, &d, OUT_HANDLE(sinew_lattice_refinement)); }) \
    X(refine_null_desc, INVALID_ARGUMENT, "desc", \
      { sinew_trimesh m = mesh_of(points, 3, triangle, 1); \
        return sinew_lattice_refinement_create(NULL, fx.bent, &m, NULL, OUT_HANDLE(sinew_lattice_refinement)); }) \
    X(refine_null_out, INVALID_ARGUMENT, "out", \
      { sinew_trimesh m = mesh_of(points, 3, triangle, 1); sinew_lattice_refinement_desc d = refine_desc(0.01, 0, 0, 0); \
        return sinew_lattice_refinement_create(NULL, fx.bent, &m, &d, NULL); }) \
    X(refine_null_indices, INVALID_ARGUMENT, "indices", \
      { return refine(NULL, fx.bent, mesh_of(points, 3, NULL, 1), refine_desc(0.01, 0, 0, 0)); }) \
    X(refine_tolerance_zero, INVALID_ARGUMENT, "tolerance", \
      { return refine(NULL, fx.bent, mesh_of(points, 3, triangle, 1), refine_desc(0, 0, 0, 0)); }) \
    X(refine_tolerance_nan, INVALID_ARGUMENT, "tolerance", \
      { return refine(NULL, fx.bent, mesh_of(points, 3, triangle, 1), refine_desc(NAN, 0, 0, 0)); }) \
    X(refine_bad_test, INVALID_ARGUMENT, "test", \
      { return refine(NULL, fx.bent, mesh_of(points, 3, triangle, 1), refine_desc(0.01, 2, 0, 0)); }) \
    X(refine_bad_split, INVALID_ARGUMENT, "split", \
      { return refine(NULL, fx.bent, mesh_of(points, 3, triangle, 1), refine_desc(0.01, 0, -1, 0)); }) \
    X(refine_no_triangles, INVALID_ARGUMENT, "triangles", \
      { return refine(NULL, fx.bent, mesh_of(points, 3, triangle, 0), refine_desc(0.01, 0, 0, 0)); }) \
    X(refine_index_out_of_range, INDEX_OUT_OF_RANGE, "triangle 0", \
      { return refine(NULL, fx.bent, mesh_of(points, POINTS, triangle_out_of_range, 1), refine_desc(0.01, 0, 0, 0)); }) \
    X(refine_triangle_count_size_max_3, SIZE_OVERFLOW, "triangle", \
      { return refine(NULL, fx.bent, mesh_of(points, 3, triangle, SIZE_MAX / 3), refine_desc(0.01, 0, 0, 0)); }) \
    X(refine_vertex_nan, NON_FINITE, "vertex 1", \
      { return refine(NULL, fx.bent, mesh_of(nan_point, 3, triangle, 1), refine_desc(0.01, 0, 0, 0)); }) \
    X(refine_stride_too_small, INVALID_ARGUMENT, "stride", \
      { sinew_trimesh m = mesh_of(points, 3, triangle, 1); m.positions.stride = 4; \
        return refine(NULL, fx.bent, m, refine_desc(0.01, 0, 0, 0)); }) \
    X(refine_budget_exceeded, BUDGET_EXCEEDED, "budget", \
      { return refine(NULL, fx.bent, mesh_of(points, 3, triangle, 1), refine_desc(1e-5, 0, 0, 2)); }) \
    X(refine_cancelled, CANCELLED, "refine", { return refine_cancelled(); }) \
    X(refine_ok, OK, NULL, { return refine(NULL, fx.bent, mesh_of(points, 3, triangle, 1), refine_desc(0.05, 1, 1, 0)); }) \
    X(refinement_mesh_null_refinement, INVALID_ARGUMENT, "refinement", \
      { return sinew_lattice_refinement_mesh(NULL, OUT_STRUCT(sinew_lattice_refined_mesh, 256)); }) \
    X(refinement_mesh_null_mesh, INVALID_ARGUMENT, "mesh", { return sinew_lattice_refinement_mesh(fx.refinement, NULL); }) \
    X(refinement_mesh_ok, OK, NULL, { return sinew_lattice_refinement_mesh(fx.refinement, OUT_STRUCT(sinew_lattice_refined_mesh, 256)); }) \
    X(refinement_get_info_null_refinement, INVALID_ARGUMENT, "refinement", \
      { return sinew_lattice_refinement_get_info(NULL, OUT_STRUCT(sinew_lattice_refinement_info, 256)); }) \
    X(refinement_get_info_null_info, INVALID_ARGUMENT, "info", \
      { return sinew_lattice_refinement_get_info(fx.refinement, NULL); }) \
    X(refinement_get_info_ok, OK, NULL, \
      { return sinew_lattice_refinement_get_info(fx.refinement, OUT_STRUCT(sinew_lattice_refinement_info, 256)); }) \
    X(refinement_destroy_null, PLAIN, NULL, { sinew_lattice_refinement_destroy(NULL); return SINEW_OK; }) \
    /* segment bound */ \
    X(segment_null_lattice, INVALID_ARGUMENT, "lattice", \
      { return sinew_lattice_segment_bound(NULL, points, points + 3, SCRATCH(double, 256), NULL); }) \
    X(segment_null_a, INVALID_ARGUMENT, "a", { return segment(NULL, points + 3); }) \
    X(segment_null_b, INVALID_ARGUMENT, "b", { return segment(points, NULL); }) \
    X(segment_start_nan, NON_FINITE, "start", { return segment(nan_point + 3, points); }) \
    X(segment_end_nan, NON_FINITE, "end", { return segment(points, nan_point + 3); }) \
    X(segment_ok, OK, NULL, { return segment(points, points + 6); }) \
    X(segment_no_outputs_ok, OK, NULL, { return sinew_lattice_segment_bound(fx.bent, points, points + 6, NULL, NULL); })

CASES(CONTRACT_DEFINE)
static const contract_case cases[] = {CASES(CONTRACT_ENTRY)};

int main(void)
{
    static const contract_hooks hooks = {setup, teardown, NULL, fingerprint};
    return contract_run("contract-lattice", cases, sizeof cases / sizeof cases[0], &hooks);
}
