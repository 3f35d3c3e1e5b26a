/* Contract of include/sinew/skin.h: create, info, palette, deform, influences. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "contract.h"

#define VERTICES 4
#define JOINTS 2
#define SLOTS 2

static const uint32_t bind_joints[VERTICES * SLOTS] = {0, 1, 0, 1, 0, 1, 0, 1};
static const float bind_weights[VERTICES * SLOTS] = {1, 0, 0.5f, 0.5f, 0.25f, 0.75f, 0, 1};
static const float positions[VERTICES * 3] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
static const float normals[VERTICES * 3] = {0, 0, 1, 0, 0, 1, 1, 0, 0, 0, 1, 0};
static const float tangents[VERTICES * 4] = {1, 0, 0, 1, 1, 0, 0, 1, 0, 1, 0, -1, 1, 0, 0, 1};
/* Joint 0 at rest, joint 1 turned a quarter about z and moved up. */
static const float world[JOINTS * 16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1,
                                         0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2, 1};

static struct {
    sinew_skin_desc desc;
    sinew_skin *linear, *dq;
    float *linear_palette, *dq_palette;  /* 64-byte aligned, each with room to spare */
    size_t linear_floats, dq_floats;
    sinew_skin_input in;
    sinew_skin_output out;               /* positions into the scratch buffer */
} fx;

static sinew_skin_desc base_desc(void)
{
    sinew_skin_desc d;
    SINEW_INIT(&d);
    d.vertex_count = VERTICES;
    d.joint_count = JOINTS;
    d.influence_count = SLOTS;
    d.joints = bind_joints;
    d.weights = bind_weights;
    return d;
}

static sinew_skin_output out_positions(void);

static int setup(void **state)
{
    (void)state;
    fx.desc = base_desc();
    if (sinew_skin_create(NULL, &fx.desc, &fx.linear) != SINEW_OK) return -1;
    sinew_skin_desc dq = base_desc();
    dq.blend = SINEW_SKIN_BLEND_DUAL_QUATERNION;
    if (sinew_skin_create(NULL, &dq, &fx.dq) != SINEW_OK) return -1;
    fx.linear_floats = sinew_skin_palette_size(fx.linear);
    fx.dq_floats = sinew_skin_palette_size(fx.dq);
    fx.linear_palette = aligned_alloc(64, 64 * sizeof(float) * (fx.linear_floats / 16 + 2));
    fx.dq_palette = aligned_alloc(64, 64 * sizeof(float) * (fx.dq_floats / 16 + 2));
    if (!fx.linear_palette || !fx.dq_palette) return -1;
    if (sinew_skin_palette(fx.linear, world, JOINTS, fx.linear_palette, fx.linear_floats) != SINEW_OK) return -1;
    if (sinew_skin_palette(fx.dq, world, JOINTS, fx.dq_palette, fx.dq_floats) != SINEW_OK) return -1;
    fx.in = (sinew_skin_input){positions, 0, normals, 0, tangents, 0};
    fx.out = out_positions();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    sinew_skin_destroy(fx.linear);
    sinew_skin_destroy(fx.dq);
    free(fx.linear_palette);
    free(fx.dq_palette);
    return 0;
}

/* ---- create ---------------------------------------------------------------- */

typedef void (*desc_edit)(sinew_skin_desc *d);

/* Creates a skin from the base desc after `edit`, destroying it on success. */
static sinew_result create_edited(sinew_context *ctx, desc_edit edit)
{
    sinew_skin_desc d = base_desc();
    static uint32_t j[VERTICES * SLOTS];
    static float w[VERTICES * SLOTS], inverse_bind[JOINTS * 16], dq_blend[VERTICES];
    memcpy(j, bind_joints, sizeof j);
    memcpy(w, bind_weights, sizeof w);
    for (int k = 0; k < JOINTS * 16; ++k) inverse_bind[k] = (k % 16) % 5 == 0 ? 1.0f : 0.0f;
    for (int k = 0; k < VERTICES; ++k) dq_blend[k] = 0.5f;
    d.joints = j;
    d.weights = w;
    d.inverse_bind = inverse_bind;
    d.dq_blend = dq_blend;
    if (edit) edit(&d);
    sinew_result r = sinew_skin_create(ctx, &d, OUT_HANDLE(sinew_skin));
    if (r == SINEW_OK) sinew_skin_destroy(*OUT_HANDLE(sinew_skin));
    return r;
}

/* Scratch pointers into create_edited's arrays (the desc's const views). */
#define EDIT(name, statement) \
    static void name(sinew_skin_desc *d) \
    { \
        float *w = (float *)(uintptr_t)d->weights; \
        uint32_t *j = (uint32_t *)(uintptr_t)d->joints; \
        float *ib = (float *)(uintptr_t)d->inverse_bind; \
        float *blend = (float *)(uintptr_t)d->dq_blend; \
        (void)w, (void)j, (void)ib, (void)blend; \
        statement; \
    }
EDIT(no_joints, d->joints = NULL)
EDIT(no_weights, d->weights = NULL)
EDIT(no_vertices, d->vertex_count = 0)
EDIT(no_joint_count, d->joint_count = 0)
EDIT(no_influences, d->influence_count = 0)
EDIT(huge_vertex_count, d->vertex_count = SIZE_MAX)
EDIT(vertex_count_past_limit, d->vertex_count = (size_t)UINT32_MAX)
EDIT(too_many_joints, d->joint_count = 65537)
EDIT(influences_overflow_count, d->influence_count = SIZE_MAX / 3)
EDIT(influences_overflow_bytes, d->influence_count = SIZE_MAX / 8)
EDIT(influences_max, d->influence_count = SIZE_MAX)
EDIT(bad_blend, d->blend = (sinew_skin_blend)3)
EDIT(negative_blend, d->blend = (sinew_skin_blend)-1)
EDIT(bad_storage, d->storage = (sinew_skin_storage)2)
EDIT(bad_normals, d->normals = (sinew_skin_normals)3)
EDIT(bad_kernel, d->kernel = (sinew_skin_kernel)5)
EDIT(bad_unweighted, d->unweighted = (sinew_skin_unweighted)2)
EDIT(mixed_without_factors, d->blend = SINEW_SKIN_BLEND_MIXED; d->dq_blend = NULL)
EDIT(mixed_factor_above_one, d->blend = SINEW_SKIN_BLEND_MIXED; blend[2] = 1.5f)
EDIT(mixed_factor_nan, d->blend = SINEW_SKIN_BLEND_MIXED; blend[2] = NAN)
EDIT(inverse_bind_not_affine, ib[16 + 3] = 0.5f)
EDIT(inverse_bind_nan, ib[16 + 12] = NAN)
EDIT(weight_nan, w[2 * SLOTS + 1] = NAN)
EDIT(weight_infinite, w[2 * SLOTS + 1] = INFINITY)
EDIT(weight_negative, w[2 * SLOTS + 1] = -0.25f)
EDIT(weights_all_zero, w[2 * SLOTS] = 0; w[2 * SLOTS + 1] = 0)
EDIT(weights_sum_off, w[2 * SLOTS + 1] = 0.5f)
EDIT(joint_out_of_range, j[2 * SLOTS + 1] = JOINTS)
EDIT(joint_out_of_range_on_zero_weight, j[0 * SLOTS + 1] = 1000)
EDIT(unweighted_joint_out_of_range, w[2 * SLOTS] = 0; w[2 * SLOTS + 1] = 0;
     d->unweighted = SINEW_SKIN_UNWEIGHTED_BIND; d->unweighted_joint = JOINTS)
EDIT(mixed_ok, d->blend = SINEW_SKIN_BLEND_MIXED)
EDIT(compressed_renormalized_ok, d->storage = SINEW_SKIN_STORAGE_COMPRESSED; d->renormalise = 1;
     w[2 * SLOTS + 1] = 0.5f)

/* Allocates `*budget` blocks, then refuses: the context gets its memory, the
 * skin does not. */
static void *budget_alloc(void *user, size_t size, size_t align)
{
    size_t *budget = user;
    if (*budget == 0) return NULL;
    --*budget;
    return aligned_alloc(align < sizeof(void *) ? sizeof(void *) : align, (size + align - 1) / align * align);
}
static void budget_free(void *user, void *ptr)
{
    (void)user;
    free(ptr);
}
static int cancel(void *user, const char *stage, float fraction)
{
    (void)user, (void)stage, (void)fraction;
    return 1;
}
static sinew_result create_in_context(const sinew_context_desc *cd)
{
    sinew_context *ctx = NULL;
    if (sinew_context_create(cd, &ctx) != SINEW_OK) return SINEW_ERROR_PLAIN;
    sinew_result r = create_edited(ctx, NULL);
    sinew_context_destroy(ctx);
    return r;
}
static sinew_result create_out_of_memory(void)
{
    static size_t budget;
    budget = 1;
    sinew_context_desc cd = {sizeof(sinew_context_desc), {budget_alloc, budget_free, &budget}, NULL, NULL, NULL, NULL, 0};
    return create_in_context(&cd);
}

/* ---- palette and deform helpers --------------------------------------------- */

static sinew_result palette_with_world(int element, float value)
{
    static float w[JOINTS * 16];
    memcpy(w, world, sizeof w);
    w[element] = value;
    return sinew_skin_palette(fx.linear, w, JOINTS, OUT_F, fx.linear_floats);
}

/* Deforms with fx.in (edited by the caller's copy) into the scratch buffer. */
static sinew_result deform_streams(sinew_skin_input in, sinew_skin_output out, size_t first, size_t count)
{
    return sinew_skin_deform(fx.linear, fx.linear_palette, fx.linear_floats, &in, &out, first, count);
}
static sinew_skin_output out_positions(void)
{
    return (sinew_skin_output){OUT_F, 0, NULL, 0, NULL, 0};
}
static sinew_skin_output out_all(void)
{
    return (sinew_skin_output){OUT_F, 0, OUT_F + 3 * VERTICES, 0, OUT_F + 6 * VERTICES, 0};
}
static sinew_result deform_range(size_t first, size_t count)
{
    return deform_streams(fx.in, out_positions(), first, count);
}
static sinew_result deform_input_position_stride(size_t stride)
{
    sinew_skin_input in = fx.in;
    in.position_stride = stride;
    return deform_streams(in, out_positions(), 0, VERTICES);
}
static sinew_result deform_output_position_stride(size_t stride)
{
    sinew_skin_output out = out_positions();
    out.position_stride = stride;
    return deform_streams(fx.in, out, 0, VERTICES);
}
static sinew_result deform_tangent_stride(size_t stride)
{
    sinew_skin_input in = fx.in;
    in.tangent_stride = stride;
    return deform_streams(in, out_all(), 0, VERTICES);
}
static sinew_result deform_misaligned_input(void)
{
    static float copy[VERTICES * 3 + 1];
    sinew_skin_input in = fx.in;
    memcpy((char *)copy + 2, positions, sizeof positions);
    in.positions = MISALIGNED(const float, copy);
    return deform_streams(in, out_positions(), 0, VERTICES);
}
static sinew_result deform_misaligned_normal_output(void)
{
    sinew_skin_output out = out_all();
    out.normals = MISALIGNED(float, out.normals);
    return deform_streams(fx.in, out, 0, VERTICES);
}
static sinew_result deform_normals_without_input(void)
{
    sinew_skin_input in = fx.in;
    in.normals = NULL;
    return deform_streams(in, out_all(), 0, VERTICES);
}
static sinew_result deform_no_output(void)
{
    return deform_streams(fx.in, (sinew_skin_output){0}, 0, VERTICES);
}
static sinew_result deform_palette(const float *palette, size_t floats)
{
    sinew_skin_output out = out_positions();
    return sinew_skin_deform(fx.linear, palette, floats, &fx.in, &out, 0, VERTICES);
}
static sinew_result deform_in_place_ok(void)
{
    float *p = OUT2_F;
    memcpy(p, positions, sizeof positions);
    sinew_skin_input in = {p, 0, NULL, 0, NULL, 0};
    sinew_skin_output out = {p, 0, NULL, 0, NULL, 0};
    return sinew_skin_deform(fx.dq, fx.dq_palette, fx.dq_floats, &in, &out, 0, VERTICES);
}

/* count 0 succeeds and writes nothing, even at the end of the range. */
static void deform_zero_count_writes_nothing(void)
{
    sinew_skin_output out = out_all();
    assert_int_equal(deform_streams(fx.in, out, VERTICES, 0), SINEW_OK);
    assert_int_equal(deform_streams(fx.in, out, 1, 0), SINEW_OK);
    for (size_t i = 0; i < 10 * VERTICES * sizeof(float); ++i)
        assert_int_equal(((unsigned char *)OUT_F)[i], CONTRACT_SENTINEL);
}

/* A range deform writes its vertices and nothing else. */
static void deform_range_writes_only_its_vertices(void)
{
    assert_int_equal(deform_range(1, 2), SINEW_OK);
    const unsigned char *bytes = (const unsigned char *)OUT_F;
    for (size_t i = 0; i < 3 * sizeof(float); ++i) assert_int_equal(bytes[i], CONTRACT_SENTINEL);
    for (size_t i = 9 * sizeof(float); i < 12 * sizeof(float); ++i) assert_int_equal(bytes[i], CONTRACT_SENTINEL);
    for (size_t i = 3; i < 9; ++i) assert_true(isfinite(OUT_F[i]));
}

static void palette_size_facts(void)
{
    sinew_skin_info info;
    SINEW_INIT(&info);
    assert_int_equal(sinew_skin_palette_size(NULL), 0);
    assert_int_equal(sinew_skin_get_info(fx.dq, &info), SINEW_OK);
    assert_int_equal(sinew_skin_palette_size(fx.dq), info.palette_floats);
    assert_int_equal(info.palette_floats, JOINTS * info.palette_joint_floats);
}

static sinew_result influences(size_t vertex, uint32_t *joints, float *weights, size_t capacity, size_t *count)
{
    return sinew_skin_vertex_influences(fx.linear, vertex, joints, weights, capacity, count);
}
/* A capacity one short of vertex 1's influences: BUFFER_TOO_SMALL writes the
 * needed count (kept outside the scratch buffer) and nothing else. */
static sinew_result influences_one_short(void)
{
    size_t needed = 0, count = 0;
    if (influences(1, NULL, NULL, 0, &needed) != SINEW_OK || needed < 2) return SINEW_ERROR_PLAIN;
    sinew_result r = influences(1, OUT_U32, OUT2_F, needed - 1, &count);
    return count == needed ? r : SINEW_ERROR_PLAIN;
}

#define CASES(X) \
    /* create */ \
    X(create_null_desc, INVALID_ARGUMENT, "desc", { return sinew_skin_create(NULL, NULL, OUT_HANDLE(sinew_skin)); }) \
    X(create_null_out, INVALID_ARGUMENT, "out", { return sinew_skin_create(NULL, &fx.desc, NULL); }) \
    X(create_null_joints, INVALID_ARGUMENT, "joints", { return create_edited(NULL, no_joints); }) \
    X(create_null_weights, INVALID_ARGUMENT, "weights", { return create_edited(NULL, no_weights); }) \
    X(create_zero_vertices, INVALID_ARGUMENT, "vertex", { return create_edited(NULL, no_vertices); }) \
    X(create_zero_joints, INVALID_ARGUMENT, "joint", { return create_edited(NULL, no_joint_count); }) \
    X(create_zero_influences, INVALID_ARGUMENT, "influence", { return create_edited(NULL, no_influences); }) \
    X(create_vertex_count_size_max, UNSUPPORTED, "vertex", { return create_edited(NULL, huge_vertex_count); }) \
    X(create_vertex_count_past_limit, UNSUPPORTED, "vertex", \
      { return create_edited(NULL, vertex_count_past_limit); }) \
    X(create_joint_count_past_limit, UNSUPPORTED, "joint", { return create_edited(NULL, too_many_joints); }) \
    X(create_influences_size_max, SIZE_OVERFLOW, "influence", { return create_edited(NULL, influences_max); }) \
    X(create_influences_size_max_3, SIZE_OVERFLOW, "influence", \
      { return create_edited(NULL, influences_overflow_count); }) \
    X(create_influences_size_max_8, SIZE_OVERFLOW, "influence", \
      { return create_edited(NULL, influences_overflow_bytes); }) \
    X(create_bad_blend, INVALID_ARGUMENT, "blend", { return create_edited(NULL, bad_blend); }) \
    X(create_negative_blend, INVALID_ARGUMENT, "blend", { return create_edited(NULL, negative_blend); }) \
    X(create_bad_storage, INVALID_ARGUMENT, "storage", { return create_edited(NULL, bad_storage); }) \
    X(create_bad_normals, INVALID_ARGUMENT, "normal", { return create_edited(NULL, bad_normals); }) \
    X(create_bad_kernel, INVALID_ARGUMENT, "kernel", { return create_edited(NULL, bad_kernel); }) \
    X(create_bad_unweighted, INVALID_ARGUMENT, "unweighted", { return create_edited(NULL, bad_unweighted); }) \
    X(create_mixed_without_factors, INVALID_ARGUMENT, "dq_blend", \
      { return create_edited(NULL, mixed_without_factors); }) \
    X(create_mixed_factor_above_one, INVALID_WEIGHTS, "vertex 2", \
      { return create_edited(NULL, mixed_factor_above_one); }) \
    X(create_mixed_factor_nan, NON_FINITE, "vertex 2", { return create_edited(NULL, mixed_factor_nan); }) \
    X(create_inverse_bind_not_affine, INVALID_ARGUMENT, "joint 1", \
      { return create_edited(NULL, inverse_bind_not_affine); }) \
    X(create_inverse_bind_nan, NON_FINITE, "joint 1", { return create_edited(NULL, inverse_bind_nan); }) \
    X(create_weight_nan, NON_FINITE, "vertex 2", { return create_edited(NULL, weight_nan); }) \
    X(create_weight_infinite, NON_FINITE, "vertex 2", { return create_edited(NULL, weight_infinite); }) \
    X(create_weight_negative, INVALID_WEIGHTS, "vertex 2", { return create_edited(NULL, weight_negative); }) \
    X(create_weights_all_zero, INVALID_WEIGHTS, "vertex 2", { return create_edited(NULL, weights_all_zero); }) \
    X(create_weights_sum_off, INVALID_WEIGHTS, "vertex 2", { return create_edited(NULL, weights_sum_off); }) \
    X(create_joint_out_of_range, INDEX_OUT_OF_RANGE, "vertex 2", \
      { return create_edited(NULL, joint_out_of_range); }) \
    X(create_unweighted_joint_out_of_range, INDEX_OUT_OF_RANGE, "unweighted", \
      { return create_edited(NULL, unweighted_joint_out_of_range); }) \
    X(create_cancelled, CANCELLED, "cancel", \
      { return create_in_context(&(sinew_context_desc){sizeof(sinew_context_desc), {NULL, NULL, NULL}, cancel, NULL, NULL, NULL, 0}); }) \
    X(create_out_of_memory, OUT_OF_MEMORY, NULL, { return create_out_of_memory(); }) \
    X(create_ok, OK, NULL, { return create_edited(NULL, NULL); }) \
    X(create_ignores_joint_on_zero_weight_ok, OK, NULL, \
      { return create_edited(NULL, joint_out_of_range_on_zero_weight); }) \
    X(create_mixed_ok, OK, NULL, { return create_edited(NULL, mixed_ok); }) \
    X(create_compressed_renormalized_ok, OK, NULL, { return create_edited(NULL, compressed_renormalized_ok); }) \
    X(destroy_null, PLAIN, NULL, { sinew_skin_destroy(NULL); return SINEW_OK; }) \
    /* info and palette size */ \
    X(get_info_null_skin, INVALID_ARGUMENT, "skin", { return sinew_skin_get_info(NULL, OUT_STRUCT(sinew_skin_info, 256)); }) \
    X(get_info_null_info, INVALID_ARGUMENT, "info", { return sinew_skin_get_info(fx.linear, NULL); }) \
    X(get_info_ok, OK, NULL, { return sinew_skin_get_info(fx.linear, OUT_STRUCT(sinew_skin_info, 256)); }) \
    X(palette_size_null_and_info, PLAIN, NULL, { palette_size_facts(); return SINEW_OK; }) \
    /* palette */ \
    X(palette_null_skin, INVALID_ARGUMENT, "skin", \
      { return sinew_skin_palette(NULL, world, JOINTS, OUT_F, fx.linear_floats); }) \
    X(palette_null_world, INVALID_ARGUMENT, "joint_world", \
      { return sinew_skin_palette(fx.linear, NULL, JOINTS, OUT_F, fx.linear_floats); }) \
    X(palette_null_palette, INVALID_ARGUMENT, "palette", \
      { return sinew_skin_palette(fx.linear, world, JOINTS, NULL, fx.linear_floats); }) \
    X(palette_world_count_short, MISMATCH, "joint", \
      { return sinew_skin_palette(fx.linear, world, JOINTS - 1, OUT_F, fx.linear_floats); }) \
    X(palette_world_count_zero, MISMATCH, "joint", \
      { return sinew_skin_palette(fx.linear, world, 0, OUT_F, fx.linear_floats); }) \
    X(palette_world_count_size_max, MISMATCH, "joint", \
      { return sinew_skin_palette(fx.linear, world, SIZE_MAX, OUT_F, fx.linear_floats); }) \
    X(palette_floats_short, MISMATCH, "palette", \
      { return sinew_skin_palette(fx.linear, world, JOINTS, OUT_F, fx.linear_floats - 1); }) \
    X(palette_floats_zero, MISMATCH, "palette", { return sinew_skin_palette(fx.linear, world, JOINTS, OUT_F, 0); }) \
    X(palette_floats_size_max, MISMATCH, "palette", \
      { return sinew_skin_palette(fx.linear, world, JOINTS, OUT_F, SIZE_MAX); }) \
    X(palette_floats_of_dq_skin, MISMATCH, "palette", \
      { return sinew_skin_palette(fx.linear, world, JOINTS, OUT_F, fx.dq_floats); }) \
    X(palette_misaligned_world, INVALID_ARGUMENT, "joint_world", \
      { return sinew_skin_palette(fx.linear, MISALIGNED(const float, OUT2_F), JOINTS, OUT_F, fx.linear_floats); }) \
    X(palette_misaligned_palette, INVALID_ARGUMENT, "palette", \
      { return sinew_skin_palette(fx.linear, world, JOINTS, MISALIGNED(float, OUT_F), fx.linear_floats); }) \
    X(palette_world_last_row_not_affine, INVALID_ARGUMENT, "joint 1", { return palette_with_world(16 + 3, 1); }) \
    X(palette_world_nan, NON_FINITE, "joint 1", { return palette_with_world(16 + 5, NAN); }) \
    X(palette_world_infinite, NON_FINITE, "joint 1", { return palette_with_world(16 + 12, -INFINITY); }) \
    X(palette_linear_ok, OK, NULL, { return sinew_skin_palette(fx.linear, world, JOINTS, OUT_F, fx.linear_floats); }) \
    X(palette_dq_ok, OK, NULL, { return sinew_skin_palette(fx.dq, world, JOINTS, OUT_F, fx.dq_floats); }) \
    /* deform */ \
    X(deform_null_skin, INVALID_ARGUMENT, "skin", \
      { return sinew_skin_deform(NULL, fx.linear_palette, fx.linear_floats, &fx.in, &fx.out, 0, VERTICES); }) \
    X(deform_null_palette, INVALID_ARGUMENT, "palette", \
      { return sinew_skin_deform(fx.linear, NULL, fx.linear_floats, &fx.in, &fx.out, 0, VERTICES); }) \
    X(deform_null_in, INVALID_ARGUMENT, "input", \
      { return sinew_skin_deform(fx.linear, fx.linear_palette, fx.linear_floats, NULL, &fx.out, 0, VERTICES); }) \
    X(deform_null_out, INVALID_ARGUMENT, "output", \
      { return sinew_skin_deform(fx.linear, fx.linear_palette, fx.linear_floats, &fx.in, NULL, 0, VERTICES); }) \
    X(deform_no_output_stream, INVALID_ARGUMENT, "output", { return deform_no_output(); }) \
    X(deform_output_without_input, INVALID_ARGUMENT, "normals", { return deform_normals_without_input(); }) \
    X(deform_palette_floats_short, MISMATCH, "palette", \
      { return deform_palette(fx.linear_palette, fx.linear_floats - 1); }) \
    X(deform_palette_floats_size_max, MISMATCH, "palette", { return deform_palette(fx.linear_palette, SIZE_MAX); }) \
    X(deform_palette_of_dq_skin, MISMATCH, "palette", { return deform_palette(fx.dq_palette, fx.dq_floats); }) \
    X(deform_palette_misaligned, INVALID_ARGUMENT, "palette", \
      { return deform_palette(MISALIGNED(const float, fx.linear_palette), fx.linear_floats); }) \
    X(deform_input_stride_not_multiple_of_4, INVALID_ARGUMENT, "stride", \
      { return deform_input_position_stride(13); }) \
    X(deform_input_stride_too_small, INVALID_ARGUMENT, "stride", { return deform_input_position_stride(8); }) \
    X(deform_output_stride_too_small, INVALID_ARGUMENT, "stride", { return deform_output_position_stride(4); }) \
    X(deform_output_stride_not_multiple_of_4, INVALID_ARGUMENT, "stride", \
      { return deform_output_position_stride(14); }) \
    X(deform_tangent_stride_too_small, INVALID_ARGUMENT, "tangent", { return deform_tangent_stride(12); }) \
    X(deform_stride_overflows, SIZE_OVERFLOW, "stride", { return deform_input_position_stride(SIZE_MAX - 3); }) \
    X(deform_stride_size_max_3, SIZE_OVERFLOW, "stride", \
      { return deform_input_position_stride((SIZE_MAX / 3) & ~(size_t)3); }) \
    X(deform_misaligned_input, INVALID_ARGUMENT, "positions", { return deform_misaligned_input(); }) \
    X(deform_misaligned_output, INVALID_ARGUMENT, "normals", { return deform_misaligned_normal_output(); }) \
    X(deform_range_past_end, INDEX_OUT_OF_RANGE, "range", { return deform_range(VERTICES - 1, 2); }) \
    X(deform_first_past_end, INDEX_OUT_OF_RANGE, "range", { return deform_range(VERTICES + 1, 0); }) \
    X(deform_range_wraps, INDEX_OUT_OF_RANGE, "range", { return deform_range(2, SIZE_MAX); }) \
    X(deform_first_size_max, INDEX_OUT_OF_RANGE, "range", { return deform_range(SIZE_MAX, 2); }) \
    X(deform_zero_count_writes_nothing, PLAIN, NULL, { deform_zero_count_writes_nothing(); return SINEW_OK; }) \
    X(deform_range_writes_only_its_vertices, PLAIN, NULL, \
      { deform_range_writes_only_its_vertices(); return SINEW_OK; }) \
    X(deform_all_streams_ok, OK, NULL, { return deform_streams(fx.in, out_all(), 0, VERTICES); }) \
    X(deform_in_place_ok, OK, NULL, { return deform_in_place_ok(); }) \
    /* vertex influences */ \
    X(influences_null_skin, INVALID_ARGUMENT, "skin", \
      { return sinew_skin_vertex_influences(NULL, 0, OUT_U32, OUT2_F, SLOTS, OUT_SIZE + 64); }) \
    X(influences_null_count, INVALID_ARGUMENT, "count", { return influences(0, OUT_U32, OUT2_F, SLOTS, NULL); }) \
    X(influences_vertex_past_end, INDEX_OUT_OF_RANGE, "vertex 4", \
      { return influences(VERTICES, OUT_U32, OUT2_F, SLOTS, OUT_SIZE + 64); }) \
    X(influences_vertex_size_max, INDEX_OUT_OF_RANGE, "vertex", \
      { return influences(SIZE_MAX, OUT_U32, OUT2_F, SLOTS, OUT_SIZE + 64); }) \
    X(influences_count_only_ok, OK, NULL, { return influences(1, NULL, NULL, 0, OUT_SIZE + 64); }) \
    X(influences_capacity_short, BUFFER_TOO_SMALL, "capacity", { return influences_one_short(); }) \
    X(influences_ok, OK, NULL, { return influences(1, OUT_U32, OUT2_F, SLOTS, OUT_SIZE + 64); })

CASES(CONTRACT_DEFINE)
static const contract_case cases[] = {CASES(CONTRACT_ENTRY)};

int main(void)
{
    static const contract_hooks hooks = {setup, teardown, NULL, NULL};
    return contract_run("contract-skin", cases, sizeof cases / sizeof cases[0], &hooks);
}
