/* Contract of include/sinew/soffd.h: bind, registration, edits, pose calls. */
#include <math.h>
#include <string.h>

#include "contract.h"

#define DRIVER_VERTICES 4
#define ELEMENTS 4
#define POINTS 4

/* A tetrahedron's surface as the driver, points inside and around it. */
static const float driver[DRIVER_VERTICES * 3] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
static const uint32_t faces[ELEMENTS * 3] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
static const uint32_t faces_out_of_range[ELEMENTS * 3] = {0, 2, 1, 0, 1, 4, 0, 3, 2, 1, 2, 3};
/* Face 1 collapsed onto an edge (zero area); quad sizes for the polygon cases. */
static const uint32_t faces_degenerate[ELEMENTS * 3] = {0, 2, 1, 0, 1, 1, 0, 3, 2, 1, 2, 3};
static const uint32_t sizes_with_a_digon[ELEMENTS] = {3, 2, 3, 3};
static const uint32_t sizes_triangles[ELEMENTS] = {3, 3, 3, 3};
static const float skin[POINTS * 3] = {0.2f, 0.2f, 0.2f, 0.5f, -0.2f, 0.1f, 1, 1, 1, 0.1f, 0.3f, -0.5f};

static struct {
    sinew_context *ctx;        /* progress callback cancels while `cancelling` is set */
    sinew_soffd *registered;   /* bound and registered (edits go here) */
    sinew_soffd *unregistered; /* bound only */
    sinew_soffd *skipping;     /* one triangle skipped as degenerate */
    float *element_frames, *vertex_frames;
} fx;
static int cancelling;

static int progress(void *user, const char *stage, float fraction)
{
    (void)user, (void)stage, (void)fraction;
    return cancelling;
}

static sinew_polymesh driver_mesh(const uint32_t *indices, const uint32_t *sizes, size_t face_count)
{
    return (sinew_polymesh){{driver, DRIVER_VERTICES, 0}, indices, sizes, face_count, SINEW_INDEX_U32};
}
static sinew_points driver_now(void)
{
    return (sinew_points){driver, DRIVER_VERTICES, 0};
}

static int setup(void **state)
{
    (void)state;
    static float element_frames[16 * ELEMENTS], vertex_frames[16 * DRIVER_VERTICES];
    sinew_context_desc cd = {sizeof(sinew_context_desc), {NULL, NULL, NULL}, progress, NULL, NULL, NULL, 0};
    sinew_polymesh d = driver_mesh(faces, NULL, ELEMENTS);
    sinew_polymesh degenerate = driver_mesh(faces_degenerate, NULL, ELEMENTS);
    sinew_soffd_desc skip = {sizeof(sinew_soffd_desc), 0, 0, 1};
    sinew_points points = {skin, POINTS, 0};
    sinew_points now = driver_now();
    if (sinew_context_create(&cd, &fx.ctx) != SINEW_OK || sinew_soffd_create(fx.ctx, &d, NULL, &fx.registered) ||
        sinew_soffd_register(NULL, fx.registered, &points, NULL) || sinew_soffd_create(NULL, &d, NULL, &fx.unregistered) ||
        sinew_soffd_create(NULL, &degenerate, &skip, &fx.skipping))
        return -1;
    fx.element_frames = element_frames;
    fx.vertex_frames = vertex_frames;
    if (sinew_soffd_element_frames(fx.registered, &now, element_frames, sinew_soffd_element_frames_size(fx.registered)) ||
        sinew_soffd_vertex_frames(fx.registered, &now, vertex_frames, sinew_soffd_vertex_frames_size(fx.registered)))
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    sinew_soffd_destroy(fx.registered);
    sinew_soffd_destroy(fx.unregistered);
    sinew_soffd_destroy(fx.skipping);
    sinew_context_destroy(fx.ctx);
    return 0;
}

/* The registered handle's observable state: info, then every point's set. */
static uint64_t fingerprint(void)
{
    sinew_soffd_info info;
    SINEW_INIT(&info);
    uint64_t h = CONTRACT_HASH_SEED;
    if (sinew_soffd_get_info(fx.registered, &info) != SINEW_OK) return 0;
    h = contract_hash(h, &info, sizeof info);
    for (size_t p = 0; p < info.point_count; ++p) {
        uint32_t elements[ELEMENTS];
        float weights[ELEMENTS];
        size_t n = 0;
        sinew_soffd_contributor_count(fx.registered, p, &n);
        sinew_soffd_contributors(fx.registered, p, elements, weights, ELEMENTS, &n);
        h = contract_hash(h, elements, n * sizeof *elements);
        h = contract_hash(h, weights, n * sizeof *weights);
    }
    sinew_clear_error();
    return h;
}

/* ---- bind ------------------------------------------------------------------------ */

static sinew_result bind(sinew_polymesh d, const sinew_soffd_desc *desc)
{
    sinew_result r = sinew_soffd_create(NULL, &d, desc, OUT_HANDLE(sinew_soffd));
    if (r == SINEW_OK) sinew_soffd_destroy(*OUT_HANDLE(sinew_soffd));
    return r;
}
static sinew_result bind_points(sinew_points p)
{
    return bind((sinew_polymesh){p, faces, NULL, ELEMENTS, SINEW_INDEX_U32}, NULL);
}
static sinew_result bind_with_vertex(size_t vertex, float value)
{
    static float moved[DRIVER_VERTICES * 3];
    memcpy(moved, driver, sizeof moved);
    moved[3 * vertex + 2] = value;
    return bind_points((sinew_points){moved, DRIVER_VERTICES, 0});
}
static sinew_result bind_desc(float local, float length_scale)
{
    sinew_soffd_desc desc = {sizeof(sinew_soffd_desc), local, length_scale, 0};
    return bind(driver_mesh(faces, NULL, ELEMENTS), &desc);
}
static sinew_result bind_cancelled(void)
{
    sinew_polymesh d = driver_mesh(faces, NULL, ELEMENTS);
    cancelling = 1;
    sinew_result r = sinew_soffd_create(fx.ctx, &d, NULL, OUT_HANDLE(sinew_soffd));
    cancelling = 0;
    return r;
}
static sinew_result bind_all_degenerate(void)
{
    static const float line[DRIVER_VERTICES * 3] = {0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0};
    sinew_polymesh d = {{line, DRIVER_VERTICES, 0}, faces, NULL, ELEMENTS, SINEW_INDEX_U32};
    sinew_soffd_desc skip = {sizeof(sinew_soffd_desc), 0, 0, 1};
    return bind(d, &skip);
}

/* ---- registration and edits ---------------------------------------------------------- */

static sinew_result register_points(sinew_points p, const sinew_soffd_register_desc *policy)
{
    return sinew_soffd_register(NULL, fx.registered, &p, policy);
}
static sinew_result register_policy(float threshold, float max_distance)
{
    sinew_soffd_register_desc policy = {sizeof(sinew_soffd_register_desc), threshold, 0, max_distance, 0, 0};
    return register_points((sinew_points){skin, POINTS, 0}, &policy);
}
static sinew_result register_with_point(size_t point, float value)
{
    static float moved[POINTS * 3];
    memcpy(moved, skin, sizeof moved);
    moved[3 * point] = value;
    return register_points((sinew_points){moved, POINTS, 0}, NULL);
}
static sinew_result register_cancelled(void)
{
    cancelling = 1;
    sinew_points p = {skin, POINTS, 0};
    sinew_result r = sinew_soffd_register(fx.ctx, fx.registered, &p, NULL);
    cancelling = 0;
    return r;
}
/* An empty registration succeeds (on a handle of its own). */
static sinew_result register_nothing_ok(void)
{
    sinew_points none = {NULL, 0, 0};
    sinew_polymesh d = driver_mesh(faces, NULL, ELEMENTS);
    sinew_soffd *h = NULL;
    if (sinew_soffd_create(NULL, &d, NULL, &h) != SINEW_OK) return SINEW_ERROR_PLAIN;
    sinew_result r = sinew_soffd_register(NULL, h, &none, NULL);
    sinew_soffd_destroy(h);
    return r;
}
static sinew_result set_reference(sinew_points p)
{
    return sinew_soffd_set_reference(NULL, fx.registered, &p);
}
static sinew_result set_reference_vertex(size_t vertex, float value)
{
    static float moved[DRIVER_VERTICES * 3];
    memcpy(moved, driver, sizeof moved);
    moved[3 * vertex + 1] = value;
    return set_reference((sinew_points){moved, DRIVER_VERTICES, 0});
}
static sinew_result set_reference_flat(void)
{
    static float flat[DRIVER_VERTICES * 3];
    return set_reference((sinew_points){flat, DRIVER_VERTICES, 0});
}
static sinew_result set_contributors(size_t point, const uint32_t *elements, size_t count)
{
    return sinew_soffd_set_contributors(fx.registered, point, elements, count);
}
/* Sets point 1's contributing set to the one it has: a successful no-op edit. */
static sinew_result set_same_contributors(void)
{
    uint32_t elements[ELEMENTS];
    size_t n = 0;
    if (sinew_soffd_contributor_count(fx.registered, 1, &n) ||
        sinew_soffd_contributors(fx.registered, 1, elements, NULL, ELEMENTS, &n))
        return SINEW_ERROR_PLAIN;
    return set_contributors(1, elements, n);
}
static sinew_result exclude(size_t first, size_t count, const uint8_t *excluded)
{
    return sinew_soffd_exclude_elements(fx.registered, excluded, ELEMENTS, first, count);
}
static const uint32_t set_past_end[2] = {1, ELEMENTS};
static const uint32_t set_with_a_repeat[3] = {2, 0, 2};
static sinew_points skin_points(void)
{
    return (sinew_points){skin, POINTS, 0};
}
static const uint8_t exclude_none[ELEMENTS] = {0, 0, 0, 0};
static const uint8_t exclude_all[ELEMENTS] = {1, 1, 1, 1};

/* ---- pose calls ------------------------------------------------------------------------- */

typedef sinew_result (*frames_fn)(const sinew_soffd *, const sinew_points *, float *);
/* The frame calls given the size their handle needs (0 for NULL), for the cases about other arguments. */
static sinew_result sized_element_frames(const sinew_soffd *h, const sinew_points *now, float *out)
{
    return sinew_soffd_element_frames(h, now, out, sinew_soffd_element_frames_size(h));
}
static sinew_result sized_vertex_frames(const sinew_soffd *h, const sinew_points *now, float *out)
{
    return sinew_soffd_vertex_frames(h, now, out, sinew_soffd_vertex_frames_size(h));
}
/* A frame call or a deform given `delta` floats more than its handle's frames hold. */
static sinew_result frames_off_by(int extended, ptrdiff_t delta)
{
    sinew_points now = driver_now();
    size_t need = extended ? sinew_soffd_vertex_frames_size(fx.registered) : sinew_soffd_element_frames_size(fx.registered);
    size_t floats = (size_t)((ptrdiff_t)need + delta);
    return extended ? sinew_soffd_vertex_frames(fx.registered, &now, OUT_F, floats)
                    : sinew_soffd_element_frames(fx.registered, &now, OUT_F, floats);
}
static sinew_result deform_frames_off_by(int extended, ptrdiff_t delta, size_t count)
{
    size_t need = extended ? sinew_soffd_vertex_frames_size(fx.registered) : sinew_soffd_element_frames_size(fx.registered);
    size_t floats = (size_t)((ptrdiff_t)need + delta);
    return extended ? sinew_soffd_deform_extended(fx.registered, fx.vertex_frames, floats, NULL, OUT_F, 0, NULL, 0, 0, count)
                    : sinew_soffd_deform(fx.registered, fx.element_frames, floats, NULL, OUT_F, 0, NULL, 0, 0, count);
}
static sinew_result frames_of(frames_fn fn, sinew_points now)
{
    return fn(fx.registered, &now, OUT_F);
}
static sinew_result frames_with_vertex(frames_fn fn, size_t vertex, float value)
{
    static float moved[DRIVER_VERTICES * 3];
    memcpy(moved, driver, sizeof moved);
    moved[3 * vertex] = value;
    return frames_of(fn, (sinew_points){moved, DRIVER_VERTICES, 0});
}
static sinew_result deform(size_t stride, size_t first, size_t count)
{
    return sinew_soffd_deform(fx.registered, fx.element_frames, sinew_soffd_element_frames_size(fx.registered), NULL, OUT_F, stride, NULL, 0, first, count);
}
static sinew_result deform_extended(size_t stride, size_t first, size_t count)
{
    return sinew_soffd_deform_extended(fx.registered, fx.vertex_frames, sinew_soffd_vertex_frames_size(fx.registered), NULL, OUT_F, stride, NULL, 0, first, count);
}

/* The deform calls with positions only, for the position cases. */
static sinew_result basic_positions(const sinew_soffd *h, const float *frames, float *out, size_t stride,
                                    size_t first, size_t count)
{
    return sinew_soffd_deform(h, frames, sinew_soffd_element_frames_size(h), NULL, out, stride, NULL, 0, first, count);
}
static sinew_result extended_positions(const sinew_soffd *h, const float *frames, float *out, size_t stride,
                                       size_t first, size_t count)
{
    return sinew_soffd_deform_extended(h, frames, sinew_soffd_vertex_frames_size(h), NULL, out, stride, NULL, 0, first, count);
}

/* Normals of the registered points; one with a NaN at point 2. */
static const float skin_normals[POINTS * 3] = {0, 0, 1, 0, 1, 0, 1, 0, 0, 0.6f, 0.8f, 0};
static const float skin_normals_nan[POINTS * 3] = {0, 0, 1, 0, 1, 0, 1, NAN, 0, 0.6f, 0.8f, 0};
typedef sinew_result (*deform_fn)(const sinew_soffd *, const float *, const sinew_points *, float *, size_t, float *,
                                  size_t, size_t, size_t);
/* The deform calls given the frame size their handle needs, for the normal cases. */
static sinew_result sized_deform(const sinew_soffd *h, const float *frames, const sinew_points *normals, float *out,
                                 size_t stride, float *out_normals, size_t nstride, size_t first, size_t count)
{
    return sinew_soffd_deform(h, frames, sinew_soffd_element_frames_size(h), normals, out, stride, out_normals, nstride,
                              first, count);
}
static sinew_result sized_deform_extended(const sinew_soffd *h, const float *frames, const sinew_points *normals,
                                          float *out, size_t stride, float *out_normals, size_t nstride, size_t first,
                                          size_t count)
{
    return sinew_soffd_deform_extended(h, frames, sinew_soffd_vertex_frames_size(h), normals, out, stride, out_normals,
                                       nstride, first, count);
}
/* Deforms points [first, first + count) with `normals` (count, stride, data
 * as given) into OUT_F and OUT2_F at normal stride nstride. */
static sinew_result with_normals(deform_fn fn, const float *frames, const float *data, size_t n, size_t in_stride,
                                 float *out_normals, size_t nstride, size_t first, size_t count)
{
    sinew_points normals = {data, n, in_stride};
    return fn(fx.registered, frames, &normals, OUT_F, 0, out_normals, nstride, first, count);
}

#define NORMAL_CASES(X, fn, frames, tag) \
    X(tag##_normals_without_output, INVALID_ARGUMENT, "normal output pointer is NULL", \
      { return with_normals(fn, frames, skin_normals, POINTS, 0, NULL, 0, 0, POINTS); }) \
    X(tag##_output_without_normals, INVALID_ARGUMENT, "without input normals", \
      { return fn(fx.registered, frames, NULL, OUT_F, 0, OUT2_F, 0, 0, POINTS); }) \
    X(tag##_normal_count_short, MISMATCH, "3 normals for 4 registered points", \
      { return with_normals(fn, frames, skin_normals, POINTS - 1, 0, OUT2_F, 0, 0, POINTS); }) \
    X(tag##_normal_null_data, INVALID_ARGUMENT, "normal input", \
      { return with_normals(fn, frames, NULL, POINTS, 0, OUT2_F, 0, 0, POINTS); }) \
    X(tag##_normal_stride_too_small, INVALID_ARGUMENT, "normal input stride", \
      { return with_normals(fn, frames, skin_normals, POINTS, 8, OUT2_F, 0, 0, POINTS); }) \
    X(tag##_normal_nan, NON_FINITE, "normal 2 has a non-finite coordinate y", \
      { return with_normals(fn, frames, skin_normals_nan, POINTS, 0, OUT2_F, 0, 0, POINTS); }) \
    X(tag##_normal_output_misaligned, INVALID_ARGUMENT, "normal output", \
      { return with_normals(fn, frames, skin_normals, POINTS, 0, MISALIGNED(float, OUT2_F), 0, 0, POINTS); }) \
    X(tag##_normal_output_stride_not_multiple_of_4, INVALID_ARGUMENT, "normal output stride", \
      { return with_normals(fn, frames, skin_normals, POINTS, 0, OUT2_F, 13, 0, POINTS); }) \
    X(tag##_normal_output_stride_overflows, SIZE_OVERFLOW, "normal output", \
      { return with_normals(fn, frames, skin_normals, POINTS, 0, OUT2_F, (SIZE_MAX / 3) & ~(size_t)3, 0, POINTS); }) \
    X(tag##_normals_nan_outside_range_ok, OK, NULL, \
      { return with_normals(fn, frames, skin_normals_nan, POINTS, 0, OUT2_F, 16, 3, 1); }) \
    X(tag##_normals_ok, OK, NULL, { return with_normals(fn, frames, skin_normals, POINTS, 0, OUT2_F, 0, 1, 3); })

#define FRAMES_CASES(X, fn, tag) \
    X(tag##_null_soffd, INVALID_ARGUMENT, "soffd", \
      { sinew_points now = driver_now(); return fn(NULL, &now, OUT_F); }) \
    X(tag##_null_driver, INVALID_ARGUMENT, "driver", { return fn(fx.registered, NULL, OUT_F); }) \
    X(tag##_null_frames, INVALID_ARGUMENT, "frames", \
      { sinew_points now = driver_now(); return fn(fx.registered, &now, NULL); }) \
    X(tag##_null_driver_data, INVALID_ARGUMENT, "driver", \
      { return frames_of(fn, (sinew_points){NULL, DRIVER_VERTICES, 0}); }) \
    X(tag##_vertex_count_short, MISMATCH, "4", \
      { return frames_of(fn, (sinew_points){driver, DRIVER_VERTICES - 1, 0}); }) \
    X(tag##_vertex_count_size_max_8, SIZE_OVERFLOW, "driver", \
      { return frames_of(fn, (sinew_points){driver, SIZE_MAX / 8, 0}); }) \
    X(tag##_stride_not_multiple_of_4, INVALID_ARGUMENT, "stride", \
      { return frames_of(fn, (sinew_points){driver, DRIVER_VERTICES, 13}); }) \
    X(tag##_stride_too_small, INVALID_ARGUMENT, "stride", \
      { return frames_of(fn, (sinew_points){driver, DRIVER_VERTICES, 4}); }) \
    X(tag##_vertex_nan, NON_FINITE, "driver vertex 2", { return frames_with_vertex(fn, 2, NAN); }) \
    X(tag##_misaligned_frames, INVALID_ARGUMENT, "frames", \
      { sinew_points now = driver_now(); return fn(fx.registered, &now, MISALIGNED(float, OUT_F)); }) \
    X(tag##_ok, OK, NULL, { return frames_of(fn, driver_now()); })

#define DEFORM_CASES(X, fn, frames, tag) \
    X(tag##_null_soffd, INVALID_ARGUMENT, "soffd", { return fn(NULL, frames, OUT_F, 0, 0, POINTS); }) \
    X(tag##_null_frames, INVALID_ARGUMENT, "frames", { return fn(fx.registered, NULL, OUT_F, 0, 0, POINTS); }) \
    X(tag##_null_out, INVALID_ARGUMENT, "out", { return fn(fx.registered, frames, NULL, 0, 0, POINTS); }) \
    X(tag##_stride_not_multiple_of_4, INVALID_ARGUMENT, "stride", \
      { return fn(fx.registered, frames, OUT_F, 14, 0, POINTS); }) \
    X(tag##_stride_too_small, INVALID_ARGUMENT, "stride", { return fn(fx.registered, frames, OUT_F, 8, 0, POINTS); }) \
    X(tag##_misaligned_out, INVALID_ARGUMENT, "out", \
      { return fn(fx.registered, frames, MISALIGNED(float, OUT_F), 0, 0, POINTS); }) \
    X(tag##_misaligned_frames, INVALID_ARGUMENT, "frames", \
      { return fn(fx.registered, MISALIGNED(const float, frames), OUT_F, 0, 0, POINTS); }) \
    X(tag##_range_past_end, INDEX_OUT_OF_RANGE, "points", { return fn(fx.registered, frames, OUT_F, 0, 2, 3); }) \
    X(tag##_range_wraps, INDEX_OUT_OF_RANGE, "points", { return fn(fx.registered, frames, OUT_F, 0, 1, SIZE_MAX); }) \
    X(tag##_first_size_max, INDEX_OUT_OF_RANGE, "points", \
      { return fn(fx.registered, frames, OUT_F, 0, SIZE_MAX, 1); }) \
    X(tag##_stride_overflows, SIZE_OVERFLOW, "stride", \
      { return fn(fx.registered, frames, OUT_F, (SIZE_MAX / 3) & ~(size_t)3, 0, POINTS); }) \
    X(tag##_unregistered, INVALID_STATE, "registered", { return fn(fx.unregistered, frames, OUT_F, 0, 0, 0); }) \
    X(tag##_zero_count_ok, OK, NULL, { return fn(fx.registered, frames, OUT_F, 0, POINTS, 0); }) \
    X(tag##_ok, OK, NULL, { return fn(fx.registered, frames, OUT_F, 16, 1, 3); })

/* Counts written by the capacity calls: outside the scratch buffer, since
 * SINEW_ERROR_BUFFER_TOO_SMALL writes the needed count (and nothing else). */
static size_t count_out;
/* r, or PLAIN when the count written is not `want`. */
static sinew_result expect_count(sinew_result r, size_t want)
{
    return count_out == want ? r : SINEW_ERROR_PLAIN;
}
/* Contributors of registered point 0 (asked before the call under test, which must leave the message). */
static size_t contributors_of_point_0(void)
{
    size_t n = 0;
    sinew_soffd_contributor_count(fx.registered, 0, &n);
    return n;
}

#define CASES(X) \
    /* bind */ \
    X(bind_null_driver, INVALID_ARGUMENT, "driver", { return sinew_soffd_create(NULL, NULL, NULL, OUT_HANDLE(sinew_soffd)); }) \
    X(bind_null_out, INVALID_ARGUMENT, "out", \
      { sinew_polymesh d = driver_mesh(faces, NULL, ELEMENTS); return sinew_soffd_create(NULL, &d, NULL, NULL); }) \
    X(bind_null_indices, INVALID_ARGUMENT, "indices", { return bind(driver_mesh(NULL, NULL, ELEMENTS), NULL); }) \
    X(bind_null_positions, INVALID_ARGUMENT, "driver vertex", \
      { return bind_points((sinew_points){NULL, DRIVER_VERTICES, 0}); }) \
    X(bind_no_faces, INVALID_ARGUMENT, "faces", { return bind(driver_mesh(faces, NULL, 0), NULL); }) \
    X(bind_no_vertices, INVALID_ARGUMENT, "vertices", { return bind_points((sinew_points){driver, 0, 0}); }) \
    X(bind_face_of_two, INVALID_ARGUMENT, "face 1", \
      { return bind(driver_mesh(faces, sizes_with_a_digon, ELEMENTS), NULL); }) \
    X(bind_face_count_size_max, SIZE_OVERFLOW, "face", { return bind(driver_mesh(faces, NULL, SIZE_MAX), NULL); }) \
    X(bind_face_count_size_max_3, SIZE_OVERFLOW, "face", \
      { return bind(driver_mesh(faces, NULL, SIZE_MAX / 3), NULL); }) \
    X(bind_face_count_size_max_8, SIZE_OVERFLOW, "face", \
      { return bind(driver_mesh(faces, NULL, SIZE_MAX / 8), NULL); }) \
    X(bind_polygon_count_size_max_3, SIZE_OVERFLOW, "face", \
      { return bind(driver_mesh(faces, sizes_triangles, SIZE_MAX / 3), NULL); }) \
    X(bind_vertex_count_size_max_8, SIZE_OVERFLOW, "driver vertex", \
      { return bind_points((sinew_points){driver, SIZE_MAX / 8, 0}); }) \
    X(bind_stride_not_multiple_of_4, INVALID_ARGUMENT, "stride", \
      { return bind_points((sinew_points){driver, DRIVER_VERTICES, 15}); }) \
    X(bind_stride_too_small, INVALID_ARGUMENT, "stride", \
      { return bind_points((sinew_points){driver, DRIVER_VERTICES, 8}); }) \
    X(bind_index_out_of_range, INDEX_OUT_OF_RANGE, "face 1", \
      { return bind(driver_mesh(faces_out_of_range, NULL, ELEMENTS), NULL); }) \
    X(bind_vertex_nan, NON_FINITE, "driver vertex 2", { return bind_with_vertex(2, NAN); }) \
    X(bind_vertex_infinite, NON_FINITE, "driver vertex 3", { return bind_with_vertex(3, -INFINITY); }) \
    X(bind_local_negative, INVALID_ARGUMENT, "local", { return bind_desc(-1, 0); }) \
    X(bind_local_nan, INVALID_ARGUMENT, "local", { return bind_desc(NAN, 0); }) \
    X(bind_length_scale_negative, INVALID_ARGUMENT, "length_scale", { return bind_desc(0, -2); }) \
    X(bind_degenerate_triangle, DEGENERATE, "face 1", \
      { return bind(driver_mesh(faces_degenerate, NULL, ELEMENTS), NULL); }) \
    X(bind_all_degenerate_skipped, DEGENERATE, "every triangle", { return bind_all_degenerate(); }) \
    X(bind_cancelled, CANCELLED, "soffd: bind", { return bind_cancelled(); }) \
    X(bind_ok, OK, NULL, { return bind(driver_mesh(faces, NULL, ELEMENTS), NULL); }) \
    X(destroy_null, PLAIN, NULL, { sinew_soffd_destroy(NULL); return SINEW_OK; }) \
    /* queries */ \
    X(get_info_null_soffd, INVALID_ARGUMENT, "soffd", { return sinew_soffd_get_info(NULL, OUT_STRUCT(sinew_soffd_info, 256)); }) \
    X(get_info_null_info, INVALID_ARGUMENT, "info", { return sinew_soffd_get_info(fx.registered, NULL); }) \
    X(get_info_ok, OK, NULL, { return sinew_soffd_get_info(fx.registered, OUT_STRUCT(sinew_soffd_info, 256)); }) \
    X(element_face_null_soffd, INVALID_ARGUMENT, "soffd", { return sinew_soffd_element_face(NULL, 0, OUT_U32); }) \
    X(element_face_null_face, INVALID_ARGUMENT, "face", { return sinew_soffd_element_face(fx.registered, 0, NULL); }) \
    X(element_face_past_end, INDEX_OUT_OF_RANGE, "element 4", \
      { return sinew_soffd_element_face(fx.registered, ELEMENTS, OUT_U32); }) \
    X(element_face_size_max, INDEX_OUT_OF_RANGE, "element", \
      { return sinew_soffd_element_face(fx.registered, SIZE_MAX, OUT_U32); }) \
    X(element_face_ok, OK, NULL, { return sinew_soffd_element_face(fx.registered, 3, OUT_U32); }) \
    X(get_skipped_null_soffd, INVALID_ARGUMENT, "soffd", { return sinew_soffd_skipped_faces(NULL, OUT_U32, 4, &count_out); }) \
    X(get_skipped_null_count, INVALID_ARGUMENT, "count", { return sinew_soffd_skipped_faces(fx.skipping, OUT_U32, 4, NULL); }) \
    X(get_skipped_query_ok, OK, NULL, { return expect_count(sinew_soffd_skipped_faces(fx.skipping, NULL, 0, &count_out), 1); }) \
    X(get_skipped_capacity_short, BUFFER_TOO_SMALL, "capacity", \
      { return expect_count(sinew_soffd_skipped_faces(fx.skipping, OUT_U32, 0, &count_out), 1); }) \
    X(get_skipped_ok, OK, NULL, { return sinew_soffd_skipped_faces(fx.skipping, OUT_U32, 1, &count_out); }) \
    X(get_skipped_none_ok, OK, NULL, { return sinew_soffd_skipped_faces(fx.registered, NULL, 0, &count_out); }) \
    /* registration */ \
    X(register_null_soffd, INVALID_ARGUMENT, "soffd", \
      { sinew_points p = skin_points(); return sinew_soffd_register(NULL, NULL, &p, NULL); }) \
    X(register_null_points, INVALID_ARGUMENT, "point", { return sinew_soffd_register(NULL, fx.registered, NULL, NULL); }) \
    X(register_null_points_data, INVALID_ARGUMENT, "point", \
      { return register_points((sinew_points){NULL, POINTS, 0}, NULL); }) \
    X(register_stride_not_multiple_of_4, INVALID_ARGUMENT, "stride", \
      { return register_points((sinew_points){skin, 2, 17}, NULL); }) \
    X(register_stride_too_small, INVALID_ARGUMENT, "stride", \
      { return register_points((sinew_points){skin, 2, 8}, NULL); }) \
    X(register_exact_with_a_cap, INVALID_ARGUMENT, "exact", \
      { return register_points(skin_points(), &(sinew_soffd_register_desc){sizeof(sinew_soffd_register_desc), 0, 4, 0, 0, 1}); }) \
    X(register_exact_ok, OK, NULL, \
      { return register_points(skin_points(), &(sinew_soffd_register_desc){sizeof(sinew_soffd_register_desc), 0, 0, 0, 0, 1}); }) \
    X(register_count_size_max_8, SIZE_OVERFLOW, "point", \
      { return register_points((sinew_points){skin, SIZE_MAX / 8, 0}, NULL); }) \
    X(register_point_nan, NON_FINITE, "point 2", { return register_with_point(2, NAN); }) \
    X(register_threshold_one, INVALID_ARGUMENT, "weight_threshold", { return register_policy(1, 0); }) \
    X(register_threshold_negative, INVALID_ARGUMENT, "weight_threshold", { return register_policy(-0.1f, 0); }) \
    X(register_threshold_nan, INVALID_ARGUMENT, "weight_threshold", { return register_policy(NAN, 0); }) \
    X(register_max_distance_negative, INVALID_ARGUMENT, "max_distance", { return register_policy(0, -1); }) \
    X(register_cancelled, CANCELLED, "soffd: register", { return register_cancelled(); }) \
    X(register_ok, OK, NULL, { return register_policy(0, 0); }) \
    X(register_nothing_ok, OK, NULL, { return register_nothing_ok(); }) \
    X(set_reference_null_soffd, INVALID_ARGUMENT, "soffd", \
      { sinew_points p = driver_now(); return sinew_soffd_set_reference(NULL, NULL, &p); }) \
    X(set_reference_null_points, INVALID_ARGUMENT, "reference", \
      { return sinew_soffd_set_reference(NULL, fx.registered, NULL); }) \
    X(set_reference_count_short, MISMATCH, "reference", \
      { return set_reference((sinew_points){driver, DRIVER_VERTICES - 1, 0}); }) \
    X(set_reference_count_size_max_8, SIZE_OVERFLOW, "reference", \
      { return set_reference((sinew_points){driver, SIZE_MAX / 8, 0}); }) \
    X(set_reference_stride_too_small, INVALID_ARGUMENT, "stride", \
      { return set_reference((sinew_points){driver, DRIVER_VERTICES, 4}); }) \
    X(set_reference_vertex_nan, NON_FINITE, "vertex 1", { return set_reference_vertex(1, NAN); }) \
    X(set_reference_flattened, DEGENERATE, "element", { return set_reference_flat(); }) \
    X(set_reference_ok, OK, NULL, { return set_reference(driver_now()); }) \
    /* contributing sets */ \
    X(dropped_mass_null_soffd, INVALID_ARGUMENT, "soffd", { return sinew_soffd_dropped_mass(NULL, 0, OUT_F); }) \
    X(dropped_mass_null_mass, INVALID_ARGUMENT, "mass", { return sinew_soffd_dropped_mass(fx.registered, 0, NULL); }) \
    X(dropped_mass_point_past_end, INDEX_OUT_OF_RANGE, "point 4", \
      { return sinew_soffd_dropped_mass(fx.registered, POINTS, OUT_F); }) \
    X(dropped_mass_point_size_max, INDEX_OUT_OF_RANGE, "point", \
      { return sinew_soffd_dropped_mass(fx.registered, SIZE_MAX, OUT_F); }) \
    X(dropped_mass_unregistered, INVALID_STATE, "registered", \
      { return sinew_soffd_dropped_mass(fx.unregistered, 0, OUT_F); }) \
    X(dropped_mass_ok, OK, NULL, { return sinew_soffd_dropped_mass(fx.registered, 0, OUT_F); }) \
    X(contributor_count_null_soffd, INVALID_ARGUMENT, "soffd", \
      { return sinew_soffd_contributor_count(NULL, 0, OUT_SIZE); }) \
    X(contributor_count_null_count, INVALID_ARGUMENT, "count", \
      { return sinew_soffd_contributor_count(fx.registered, 0, NULL); }) \
    X(contributor_count_point_past_end, INDEX_OUT_OF_RANGE, "point 4", \
      { return sinew_soffd_contributor_count(fx.registered, POINTS, OUT_SIZE); }) \
    X(contributor_count_unregistered, INVALID_STATE, "registered", \
      { return sinew_soffd_contributor_count(fx.unregistered, 0, OUT_SIZE); }) \
    X(contributor_count_ok, OK, NULL, { return sinew_soffd_contributor_count(fx.registered, 3, OUT_SIZE); }) \
    X(get_contributors_null_soffd, INVALID_ARGUMENT, "soffd", \
      { return sinew_soffd_contributors(NULL, 0, OUT_U32, OUT2_F, ELEMENTS, &count_out); }) \
    X(get_contributors_null_elements, INVALID_ARGUMENT, "elements", \
      { return sinew_soffd_contributors(fx.registered, 0, NULL, OUT2_F, ELEMENTS, &count_out); }) \
    X(get_contributors_null_count, INVALID_ARGUMENT, "count", \
      { return sinew_soffd_contributors(fx.registered, 0, OUT_U32, OUT2_F, ELEMENTS, NULL); }) \
    X(get_contributors_capacity_short, BUFFER_TOO_SMALL, "capacity", \
      { size_t want = contributors_of_point_0(); \
        return expect_count(sinew_soffd_contributors(fx.registered, 0, OUT_U32, OUT2_F, 1, &count_out), want); }) \
    X(get_contributors_query_ok, OK, NULL, \
      { size_t want = contributors_of_point_0(); \
        return expect_count(sinew_soffd_contributors(fx.registered, 0, NULL, NULL, 0, &count_out), want); }) \
    X(get_contributors_point_past_end, INDEX_OUT_OF_RANGE, "point 4", \
      { return sinew_soffd_contributors(fx.registered, POINTS, OUT_U32, OUT2_F, ELEMENTS, &count_out); }) \
    X(get_contributors_unregistered, INVALID_STATE, "registered", \
      { return sinew_soffd_contributors(fx.unregistered, 0, OUT_U32, OUT2_F, ELEMENTS, &count_out); }) \
    X(get_contributors_ok, OK, NULL, \
      { return sinew_soffd_contributors(fx.registered, 0, OUT_U32, NULL, ELEMENTS, &count_out); }) \
    X(set_contributors_null_soffd, INVALID_ARGUMENT, "soffd", \
      { return sinew_soffd_set_contributors(NULL, 0, faces, 1); }) \
    X(set_contributors_null_elements, INVALID_ARGUMENT, "elements", { return set_contributors(0, NULL, 2); }) \
    X(set_contributors_element_past_end, INDEX_OUT_OF_RANGE, "element 4", \
      { return set_contributors(0, set_past_end, 2); }) \
    X(set_contributors_element_twice, INVALID_ARGUMENT, "element 2", \
      { return set_contributors(0, set_with_a_repeat, 3); }) \
    X(set_contributors_point_past_end, INDEX_OUT_OF_RANGE, "point 4", \
      { return set_contributors(POINTS, set_past_end, 1); }) \
    X(set_contributors_count_size_max, SIZE_OVERFLOW, "elements", \
      { return set_contributors(0, faces, SIZE_MAX); }) \
    X(set_contributors_count_size_max_3, SIZE_OVERFLOW, "elements", \
      { return set_contributors(0, faces, SIZE_MAX / 3); }) \
    X(set_contributors_unregistered, INVALID_STATE, "registered", \
      { return sinew_soffd_set_contributors(fx.unregistered, 0, faces, 1); }) \
    X(set_contributors_ok, OK, NULL, { return set_same_contributors(); }) \
    X(exclude_null_soffd, INVALID_ARGUMENT, "soffd", \
      { return sinew_soffd_exclude_elements(NULL, exclude_none, ELEMENTS, 0, 1); }) \
    X(exclude_null_flags, INVALID_ARGUMENT, "excluded", { return exclude(0, POINTS, NULL); }) \
    X(exclude_range_past_end, INDEX_OUT_OF_RANGE, "points", { return exclude(2, 3, exclude_none); }) \
    X(exclude_range_wraps, INDEX_OUT_OF_RANGE, "points", { return exclude(1, SIZE_MAX, exclude_none); }) \
    X(exclude_every_element, INVALID_WEIGHTS, "point 0", { return exclude(0, POINTS, exclude_all); }) \
    X(exclude_unregistered, INVALID_STATE, "registered", \
      { return sinew_soffd_exclude_elements(fx.unregistered, exclude_none, ELEMENTS, 0, 0); }) \
    X(exclude_flags_short, MISMATCH, "elements", \
      { return sinew_soffd_exclude_elements(fx.registered, exclude_none, ELEMENTS - 1, 0, POINTS); }) \
    X(exclude_nothing_ok, OK, NULL, { return exclude(0, POINTS, exclude_none); }) \
    X(falloff_null_soffd, INVALID_ARGUMENT, "soffd", { return sinew_soffd_set_falloff(NULL, NULL, 4, 0); }) \
    X(falloff_nan_local, INVALID_ARGUMENT, "local", { return sinew_soffd_set_falloff(NULL, fx.registered, NAN, 0); }) \
    X(falloff_negative_scale, INVALID_ARGUMENT, "length_scale", \
      { return sinew_soffd_set_falloff(NULL, fx.registered, 0, -1); }) \
    X(falloff_keep_ok, OK, NULL, { return sinew_soffd_set_falloff(NULL, fx.registered, 0, 0); }) \
    X(subdivide_null_flags, INVALID_ARGUMENT, "chosen", \
      { return sinew_soffd_subdivide(NULL, fx.registered, NULL, ELEMENTS, SINEW_SOFFD_SPLIT_EDGES); }) \
    X(subdivide_flags_short, MISMATCH, "elements", \
      { return sinew_soffd_subdivide(NULL, fx.registered, exclude_all, ELEMENTS - 1, SINEW_SOFFD_SPLIT_EDGES); }) \
    X(subdivide_unknown_split, INVALID_ARGUMENT, "split", \
      { return sinew_soffd_subdivide(NULL, fx.registered, exclude_all, ELEMENTS, (sinew_soffd_split)9); }) \
    X(subdivide_nothing_ok, OK, NULL, \
      { return sinew_soffd_subdivide(NULL, fx.registered, exclude_none, ELEMENTS, SINEW_SOFFD_SPLIT_CENTROID); }) \
    X(element_parent_past_end, INDEX_OUT_OF_RANGE, "element", \
      { return sinew_soffd_element_parent(fx.registered, ELEMENTS, &(uint32_t){0}); }) \
    X(added_vertices_null_count, INVALID_ARGUMENT, "count", \
      { return sinew_soffd_added_vertices(fx.registered, NULL, NULL, 0, NULL); }) \
    /* pose */ \
    FRAMES_CASES(X, sized_element_frames, element_frames) \
    FRAMES_CASES(X, sized_vertex_frames, vertex_frames) \
    X(element_frames_one_float_short, MISMATCH, "hold 63 floats, but the 4 elements need 64", \
      { return frames_off_by(0, -1); }) \
    X(element_frames_one_frame_long, MISMATCH, "need 64", { return frames_off_by(0, 16); }) \
    X(element_frames_size_zero, MISMATCH, "need 64", { return frames_off_by(0, -64); }) \
    X(vertex_frames_one_frame_short, MISMATCH, "hold 48 floats, but the 4 driver vertices need 64", \
      { return frames_off_by(1, -16); }) \
    X(vertex_frames_one_float_long, MISMATCH, "need 64", { return frames_off_by(1, 1); }) \
    DEFORM_CASES(X, basic_positions, fx.element_frames, deform) \
    DEFORM_CASES(X, extended_positions, fx.vertex_frames, deform_extended) \
    X(deform_frames_one_frame_short, MISMATCH, "hold 48 floats, but the 4 elements need 64", \
      { return deform_frames_off_by(0, -16, POINTS); }) \
    X(deform_frames_one_float_long, MISMATCH, "need 64", { return deform_frames_off_by(0, 1, POINTS); }) \
    X(deform_frames_short_empty_range, MISMATCH, "need 64", { return deform_frames_off_by(0, -1, 0); }) \
    X(deform_extended_frames_one_frame_short, MISMATCH, "hold 48 floats, but the 4 driver vertices need 64", \
      { return deform_frames_off_by(1, -16, POINTS); }) \
    X(deform_extended_frames_one_float_long, MISMATCH, "need 64", { return deform_frames_off_by(1, 1, POINTS); }) \
    NORMAL_CASES(X, sized_deform, fx.element_frames, deform) \
    NORMAL_CASES(X, sized_deform_extended, fx.vertex_frames, deform_extended)

CASES(CONTRACT_DEFINE)
static const contract_case cases[] = {CASES(CONTRACT_ENTRY)};

int main(void)
{
    static const contract_hooks hooks = {setup, teardown, NULL, fingerprint};
    (void)deform, (void)deform_extended;
    return contract_run("contract-soffd", cases, sizeof cases / sizeof cases[0], &hooks);
}
