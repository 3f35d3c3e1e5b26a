/* Contract of include/sinew/corrective.h: create, info, weights, apply,
 * deform, swing/twist, save and load. */
#include <math.h>
#include <string.h>

#include "contract.h"

#define POINTS 4
#define KEYS 2

static const float base[POINTS * 3] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
static const float nan_base[POINTS * 3] = {0, 0, 0, 1, NAN, 0, 0, 1, 0, 0, 0, 1};
static const float offsets[KEYS * POINTS * 3] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1,
                                                 0, 0, 2, 0, 2, 0, 2, 0, 0, 0, 0, 0};
static const float poses[KEYS] = {1.0f, 2.0f};
static const float rotation[4] = {0, 0.6f, 0, 0.8f};
static const float nan_rotation[4] = {0, NAN, 0, 0.8f};
static const float zero_rotation[4] = {0, 0, 0, 0};

static struct {
    sinew_corrective *gaussian;  /* one pose number, two keys */
    sinew_corrective *morph;     /* two morph targets */
    unsigned char saved[4096];
    size_t saved_size;
} fx;

static sinew_corrective_desc desc_of(sinew_corrective_kernel kernel)
{
    sinew_corrective_desc d;
    SINEW_INIT(&d);
    d.point_count = POINTS;
    d.key_count = KEYS;
    d.pose_size = 1;
    d.poses = poses;
    d.offsets = offsets;
    d.kernel = kernel;
    return d;
}

static int setup(void **state)
{
    (void)state;
    sinew_corrective_desc g = desc_of(SINEW_CORRECTIVE_KERNEL_GAUSSIAN), m = desc_of(SINEW_CORRECTIVE_KERNEL_WEIGHTS);
    if (sinew_corrective_create(NULL, &g, &fx.gaussian) || sinew_corrective_create(NULL, &m, &fx.morph) ||
        sinew_corrective_save(fx.gaussian, fx.saved, sizeof fx.saved, &fx.saved_size))
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    sinew_corrective_destroy(fx.gaussian);
    sinew_corrective_destroy(fx.morph);
    return 0;
}

typedef void (*desc_edit)(sinew_corrective_desc *d);
static sinew_result create_edited(desc_edit edit)
{
    sinew_corrective_desc d = desc_of(SINEW_CORRECTIVE_KERNEL_GAUSSIAN);
    if (edit) edit(&d);
    sinew_result r = sinew_corrective_create(NULL, &d, OUT_HANDLE(sinew_corrective));
    if (r == SINEW_OK) sinew_corrective_destroy(*OUT_HANDLE(sinew_corrective));
    return r;
}
#define EDIT(name, statement) \
    static void name(sinew_corrective_desc *d) \
    { \
        statement; \
    }
static const float nan_poses[KEYS] = {1.0f, NAN};
static const float same_poses[KEYS] = {1.0f, 1.0f};
static const float rest_one[1] = {1.0f};
static const float inf_offsets[KEYS * POINTS * 3] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1,
                                                     0, 0, 2, 0, 2, 0, 2, INFINITY, 0, 0, 0, 0};
static const size_t sparse_counts[KEYS] = {1, 2};
static const uint32_t sparse_points[3] = {3, 1, 4};
static const uint32_t sparse_unsorted[3] = {3, 2, 1};
EDIT(no_points, d->point_count = 0)
EDIT(no_keys, d->key_count = 0)
EDIT(bad_kernel, d->kernel = (sinew_corrective_kernel)4)
EDIT(no_poses, d->poses = NULL)
EDIT(no_offsets, d->offsets = NULL)
EDIT(pose_nan, d->poses = nan_poses)
EDIT(poses_same, d->poses = same_poses)
EDIT(key_at_rest, d->rest_pose = rest_one)
EDIT(offset_inf, d->offsets = inf_offsets)
EDIT(radius_negative, d->radius = -1)
EDIT(radius_nan, d->radius = NAN)
EDIT(smoothing_inf, d->smoothing = INFINITY)
EDIT(pose_size_zero, d->pose_size = 0)
EDIT(too_many_keys, d->key_count = 100000)
EDIT(sparse_out_of_range, d->key_offset_counts = sparse_counts; d->offset_points = sparse_points)
EDIT(sparse_unsorted_points, d->key_offset_counts = sparse_counts; d->offset_points = sparse_unsorted)
EDIT(sparse_no_points, d->key_offset_counts = sparse_counts)
EDIT(linear_one_number, d->kernel = SINEW_CORRECTIVE_KERNEL_LINEAR)
EDIT(morph_no_poses, d->kernel = SINEW_CORRECTIVE_KERNEL_WEIGHTS; d->poses = NULL)
EDIT(uninitialised, d->struct_size = 0)

static sinew_points view(const float *p, size_t n, size_t stride)
{
    return (sinew_points){p, n, stride};
}

static sinew_result deform(const float *pose, size_t pose_size, const float *b, size_t n, float *out, size_t stride,
                           size_t first, size_t count)
{
    sinew_points v = view(b, n, 0);
    return sinew_corrective_deform(fx.gaussian, pose, pose_size, &v, out, stride, first, count);
}

static sinew_result apply(const sinew_corrective *c, const float *w, size_t wc, const float *b, float *out,
                          size_t first, size_t count)
{
    sinew_points v = view(b, POINTS, 0);
    return sinew_corrective_apply(c, w, wc, &v, out, 0, first, count);
}

static const float half[1] = {1.5f}, nan_pose[1] = {NAN}, pose_two[2] = {0, 0};
static const float weights[KEYS] = {0.5f, 0.25f}, nan_weights[KEYS] = {0.5f, NAN}, huge[KEYS] = {3e38f, 3e38f};

static sinew_result load_into(const void *data, size_t size)
{
    sinew_result r = sinew_corrective_load(NULL, data, size, OUT_HANDLE(sinew_corrective));
    if (r == SINEW_OK) sinew_corrective_destroy(*OUT_HANDLE(sinew_corrective));
    return r;
}

static sinew_result load_truncated(void)
{
    return load_into(fx.saved, fx.saved_size - 64);
}

#define CASES(X) \
    X(create_null_desc, INVALID_ARGUMENT, "desc", { return sinew_corrective_create(NULL, NULL, OUT_HANDLE(sinew_corrective)); }) \
    X(create_null_out, INVALID_ARGUMENT, "out", \
      { sinew_corrective_desc d = desc_of(0); return sinew_corrective_create(NULL, &d, NULL); }) \
    X(create_uninitialised, INVALID_ARGUMENT, "SINEW_INIT", { return create_edited(uninitialised); }) \
    X(create_no_points, INVALID_ARGUMENT, "point_count", { return create_edited(no_points); }) \
    X(create_no_keys, INVALID_ARGUMENT, "key_count", { return create_edited(no_keys); }) \
    X(create_bad_kernel, INVALID_ARGUMENT, "kernel 4", { return create_edited(bad_kernel); }) \
    X(create_no_poses, INVALID_ARGUMENT, "poses", { return create_edited(no_poses); }) \
    X(create_no_offsets, INVALID_ARGUMENT, "offsets", { return create_edited(no_offsets); }) \
    X(create_pose_nan, NON_FINITE, "key 1", { return create_edited(pose_nan); }) \
    X(create_poses_same, DEGENERATE, "key 0 and key 1", { return create_edited(poses_same); }) \
    X(create_key_at_rest, DEGENERATE, "key 0 and the rest pose", { return create_edited(key_at_rest); }) \
    X(create_offset_inf, NON_FINITE, "key 1 offset of point 2", { return create_edited(offset_inf); }) \
    X(create_radius_negative, INVALID_ARGUMENT, "radius", { return create_edited(radius_negative); }) \
    X(create_radius_nan, INVALID_ARGUMENT, "radius", { return create_edited(radius_nan); }) \
    X(create_smoothing_inf, NON_FINITE, "smoothing", { return create_edited(smoothing_inf); }) \
    X(create_pose_size_zero, INVALID_ARGUMENT, "pose numbers", { return create_edited(pose_size_zero); }) \
    X(create_too_many_keys, INVALID_ARGUMENT, "100000 keys", { return create_edited(too_many_keys); }) \
    X(create_sparse_out_of_range, INDEX_OUT_OF_RANGE, "point 4", { return create_edited(sparse_out_of_range); }) \
    X(create_sparse_unsorted, INVALID_ARGUMENT, "increase", { return create_edited(sparse_unsorted_points); }) \
    X(create_sparse_no_points, INVALID_ARGUMENT, "offset_points", { return create_edited(sparse_no_points); }) \
    X(create_linear_ok, OK, NULL, { return create_edited(linear_one_number); }) \
    X(create_morph_ok, OK, NULL, { return create_edited(morph_no_poses); }) \
    X(create_ok, OK, NULL, { return create_edited(NULL); }) \
    X(destroy_null, PLAIN, NULL, { sinew_corrective_destroy(NULL); return SINEW_OK; }) \
    /* info */ \
    X(get_info_null, INVALID_ARGUMENT, "corrective", \
      { return sinew_corrective_get_info(NULL, OUT_STRUCT(sinew_corrective_info, 256)); }) \
    X(get_info_null_info, INVALID_ARGUMENT, "info", { return sinew_corrective_get_info(fx.gaussian, NULL); }) \
    X(get_info_ok, OK, NULL, { return sinew_corrective_get_info(fx.gaussian, OUT_STRUCT(sinew_corrective_info, 256)); }) \
    /* weights */ \
    X(weights_null, INVALID_ARGUMENT, "corrective", { return sinew_corrective_weights(NULL, half, 1, OUT_F, KEYS); }) \
    X(weights_null_pose, INVALID_ARGUMENT, "pose", { return sinew_corrective_weights(fx.gaussian, NULL, 1, OUT_F, KEYS); }) \
    X(weights_null_out, INVALID_ARGUMENT, "weights", { return sinew_corrective_weights(fx.gaussian, half, 1, NULL, KEYS); }) \
    X(weights_misaligned, INVALID_ARGUMENT, "misaligned", \
      { return sinew_corrective_weights(fx.gaussian, half, 1, MISALIGNED(float, OUT_F), KEYS); }) \
    X(weights_pose_size, MISMATCH, "pose_size is 2", { return sinew_corrective_weights(fx.gaussian, pose_two, 2, OUT_F, KEYS); }) \
    X(weights_count, MISMATCH, "weight_floats is 3", { return sinew_corrective_weights(fx.gaussian, half, 1, OUT_F, 3); }) \
    X(weights_pose_nan, NON_FINITE, "pose number 0", { return sinew_corrective_weights(fx.gaussian, nan_pose, 1, OUT_F, KEYS); }) \
    X(weights_ok, OK, NULL, { return sinew_corrective_weights(fx.gaussian, half, 1, OUT_F, KEYS); }) \
    X(weights_morph_ok, OK, NULL, { return sinew_corrective_weights(fx.morph, weights, KEYS, OUT_F, KEYS); }) \
    /* apply */ \
    X(apply_null, INVALID_ARGUMENT, "corrective", { return apply(NULL, weights, KEYS, base, OUT_F, 0, POINTS); }) \
    X(apply_null_weights, INVALID_ARGUMENT, "weights", { return apply(fx.morph, NULL, KEYS, base, OUT_F, 0, POINTS); }) \
    X(apply_null_base, INVALID_ARGUMENT, "base", \
      { return sinew_corrective_apply(fx.morph, weights, KEYS, NULL, OUT_F, 0, 0, POINTS); }) \
    X(apply_null_out, INVALID_ARGUMENT, "output", { return apply(fx.morph, weights, KEYS, base, NULL, 0, POINTS); }) \
    X(apply_misaligned_out, INVALID_ARGUMENT, "aligned", \
      { return apply(fx.morph, weights, KEYS, base, MISALIGNED(float, OUT_F), 0, POINTS); }) \
    X(apply_weight_count, MISMATCH, "weight_floats is 1", { return apply(fx.morph, weights, 1, base, OUT_F, 0, POINTS); }) \
    X(apply_weight_nan, NON_FINITE, "weight 1", { return apply(fx.morph, nan_weights, KEYS, base, OUT_F, 0, POINTS); }) \
    X(apply_base_nan, NON_FINITE, "base point 1", { return apply(fx.morph, weights, KEYS, nan_base, OUT_F, 0, POINTS); }) \
    X(apply_leaves_float_range, NON_FINITE, "float range", { return apply(fx.morph, huge, KEYS, base, OUT_F, 0, POINTS); }) \
    X(apply_range_past_end, INDEX_OUT_OF_RANGE, "4 points", { return apply(fx.morph, weights, KEYS, base, OUT_F, 2, 3); }) \
    X(apply_range_wraps, INDEX_OUT_OF_RANGE, "points", { return apply(fx.morph, weights, KEYS, base, OUT_F, 2, SIZE_MAX); }) \
    X(apply_range_past_view, INDEX_OUT_OF_RANGE, "base view", \
      { sinew_points v = view(base, 2, 0); return sinew_corrective_apply(fx.morph, weights, KEYS, &v, OUT_F, 0, 0, 3); }) \
    X(apply_stride_too_small, INVALID_ARGUMENT, "stride", \
      { sinew_points v = view(base, POINTS, 0); return sinew_corrective_apply(fx.morph, weights, KEYS, &v, OUT_F, 8, 0, POINTS); }) \
    X(apply_stride_overflows, SIZE_OVERFLOW, "output", \
      { sinew_points v = view(base, POINTS, 0); \
        return sinew_corrective_apply(fx.morph, weights, KEYS, &v, OUT_F, (SIZE_MAX / 3) & ~(size_t)3, 0, POINTS); }) \
    X(apply_zero_count_ok, OK, NULL, { return apply(fx.morph, weights, KEYS, base, OUT_F, POINTS, 0); }) \
    X(apply_ok, OK, NULL, { return apply(fx.morph, weights, KEYS, base, OUT_F, 1, 3); }) \
    /* deform */ \
    X(deform_null, INVALID_ARGUMENT, "corrective", \
      { sinew_points v = view(base, POINTS, 0); return sinew_corrective_deform(NULL, half, 1, &v, OUT_F, 0, 0, POINTS); }) \
    X(deform_pose_size, MISMATCH, "pose_size is 2", { return deform(pose_two, 2, base, POINTS, OUT_F, 0, 0, POINTS); }) \
    X(deform_pose_nan, NON_FINITE, "pose number 0", { return deform(nan_pose, 1, base, POINTS, OUT_F, 0, 0, POINTS); }) \
    X(deform_base_nan, NON_FINITE, "base point 1", { return deform(half, 1, nan_base, POINTS, OUT_F, 0, 0, POINTS); }) \
    X(deform_range_past_end, INDEX_OUT_OF_RANGE, "4 points", { return deform(half, 1, base, POINTS, OUT_F, 0, 3, 2); }) \
    X(deform_ok, OK, NULL, { return deform(half, 1, base, POINTS, OUT_F, 0, 0, POINTS); }) \
    X(deform_morph_ok, OK, NULL, \
      { sinew_points v = view(base, POINTS, 0); return sinew_corrective_deform(fx.morph, weights, KEYS, &v, OUT_F, 0, 0, POINTS); }) \
    /* swing / twist */ \
    X(swing_null_rotations, INVALID_ARGUMENT, "rotations", { return sinew_corrective_swing_twist(NULL, NULL, 1, OUT_F, 3); }) \
    X(swing_null_pose, INVALID_ARGUMENT, "pose", { return sinew_corrective_swing_twist(rotation, NULL, 1, NULL, 3); }) \
    X(swing_pose_size, MISMATCH, "pose_size is 4", { return sinew_corrective_swing_twist(rotation, NULL, 1, OUT_F, 4); }) \
    X(swing_rotation_nan, NON_FINITE, "joint 0", { return sinew_corrective_swing_twist(nan_rotation, NULL, 1, OUT_F, 3); }) \
    X(swing_zero_rotation, DEGENERATE, "joint 0", { return sinew_corrective_swing_twist(zero_rotation, NULL, 1, OUT_F, 3); }) \
    X(swing_zero_axis, DEGENERATE, "twist axis", { return sinew_corrective_swing_twist(rotation, zero_rotation, 1, OUT_F, 3); }) \
    X(swing_ok, OK, NULL, { return sinew_corrective_swing_twist(rotation, base + 3, 1, OUT_F, 3); }) \
    /* save and load */ \
    X(save_null, INVALID_ARGUMENT, "corrective", { return sinew_corrective_save(NULL, OUT_F, 4096, OUT_SIZE); }) \
    X(save_too_small, BUFFER_TOO_SMALL, "", { size_t need; return sinew_corrective_save(fx.gaussian, OUT2_F, 64, &need); }) \
    X(save_size_ok, OK, NULL, { return sinew_corrective_save(fx.gaussian, NULL, 0, OUT_SIZE); }) \
    X(load_null, INVALID_ARGUMENT, "corrective data", { return load_into(NULL, 64); }) \
    X(load_truncated, INVALID_DATA, "corrective data", { return load_truncated(); }) \
    X(load_null_out, INVALID_ARGUMENT, "out", { return sinew_corrective_load(NULL, fx.saved, fx.saved_size, NULL); }) \
    X(load_ok, OK, NULL, { return load_into(fx.saved, fx.saved_size); })

CASES(CONTRACT_DEFINE)
static const contract_case cases[] = {CASES(CONTRACT_ENTRY)};

int main(void)
{
    static const contract_hooks hooks = {setup, teardown, NULL, NULL};
    return contract_run("contract-corrective", cases, sizeof cases / sizeof cases[0], &hooks);
}
