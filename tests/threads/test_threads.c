#define _POSIX_C_SOURCE 200809L /* pthread barriers */
/*
 * Every technique's pose-time calls from THREADS_COUNT threads at once on
 * disjoint ranges of the same const handles, compared byte for byte with a
 * single-threaded run; and sinew_last_error() is per thread.
 */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../soffd/fixtures.h"
#include "harness.h"
#include "support.h"

#define F(out) ((float *)(void *)(out))
#define U32(out) ((uint32_t *)(void *)(out))

/* ---- skinning ----------------------------------------------------------------- */

#define SKIN_VERTICES 2048
#define SKIN_JOINTS 6
#define SKIN_SLOTS 4
#define SKIN_OUT_FLOATS 10 /* interleaved output: position 3, normal 3, tangent 4 */

typedef struct skin_fixture {
    const sinew_skin *skin;
    const float *world, *palette;
    size_t palette_floats;
    sinew_skin_input in;
} skin_fixture;

static sinew_result skin_palette_job(const pose_job *job, unsigned char *out, size_t first, size_t count)
{
    const skin_fixture *f = job->data;
    for (size_t i = first; i < first + count; ++i) {
        sinew_result r =
            sinew_skin_palette(f->skin, f->world, SKIN_JOINTS, F(out) + i * f->palette_floats, f->palette_floats);
        if (r != SINEW_OK) return r;
    }
    return SINEW_OK;
}

static sinew_result skin_deform_job(const pose_job *job, unsigned char *out, size_t first, size_t count)
{
    const skin_fixture *f = job->data;
    const size_t stride = SKIN_OUT_FLOATS * sizeof(float);
    sinew_skin_output o = {F(out), stride, F(out) + 3, stride, F(out) + 6, stride};
    return sinew_skin_deform(f->skin, f->palette, f->palette_floats, &f->in, &o, first, count);
}

static sinew_result skin_matrices_job(const pose_job *job, unsigned char *out, size_t first, size_t count)
{
    const skin_fixture *f = job->data;
    return sinew_skin_vertex_matrices(f->skin, f->palette, f->palette_floats, F(out), 0, first, count);
}

static void skin_data(uint32_t *joints, float *weights, float *world, float *streams)
{
    support_rng rng;
    support_rng_seed(&rng, 10);
    for (size_t s = 0; s < SKIN_VERTICES * SKIN_SLOTS; ++s) {
        joints[s] = (uint32_t)(support_rng_next(&rng) % SKIN_JOINTS);
        weights[s] = (float)support_rng_uniform(&rng, 0.05, 1.0);
    }
    for (size_t j = 0; j < SKIN_JOINTS; ++j) {
        double a = 0.4 * (double)j, c = cos(a), s = sin(a), scale = j == 3 ? 1.5 : 1.0;
        float m[16] = {(float)(c * scale), (float)s, 0, 0, (float)-s, (float)c, 0, 0, 0, 0, 1, 0,
                       (float)j, 0.5f, -(float)j, 1};
        memcpy(&world[16 * j], m, sizeof m);
    }
    for (size_t i = 0; i < SKIN_VERTICES * 10; ++i) streams[i] = (float)support_rng_uniform(&rng, -1.0, 1.0);
    for (size_t v = 0; v < SKIN_VERTICES; ++v) streams[6 * SKIN_VERTICES + 4 * v + 3] = v % 3 ? 1.0f : -1.0f;
}

static void skin_is_thread_safe(void **state)
{
    (void)state;
    uint32_t *joints = malloc(SKIN_VERTICES * SKIN_SLOTS * sizeof *joints);
    float *weights = malloc(SKIN_VERTICES * SKIN_SLOTS * sizeof *weights);
    float *streams = malloc(SKIN_VERTICES * 10 * sizeof *streams);
    float world[SKIN_JOINTS * 16];
    skin_data(joints, weights, world, streams);
    const sinew_skin_blend blends[] = {SINEW_SKIN_BLEND_LINEAR, SINEW_SKIN_BLEND_DUAL_QUATERNION};
    const sinew_skin_kernel kernels[] = {SINEW_SKIN_KERNEL_SCALAR, SINEW_SKIN_KERNEL_SSE2, SINEW_SKIN_KERNEL_AVX2,
                                         SINEW_SKIN_KERNEL_AVX512};
    size_t runs = 0;
    for (size_t b = 0; b < 2; ++b)
        for (size_t k = 0; k < sizeof kernels / sizeof *kernels; ++k) {
            sinew_skin_desc d;
            SINEW_INIT(&d);
            d.vertex_count = SKIN_VERTICES;
            d.joint_count = SKIN_JOINTS;
            d.influence_count = SKIN_SLOTS;
            d.joints = joints;
            d.weights = weights;
            d.renormalise = 1;
            d.blend = blends[b];
            d.kernel = kernels[k];
            sinew_skin *skin = NULL;
            sinew_result r = sinew_skin_create(NULL, &d, &skin);
            if (r == SINEW_ERROR_UNSUPPORTED) continue; /* a kernel this build or CPU lacks */
            assert_int_equal(r, SINEW_OK);
            size_t pf = sinew_skin_palette_size(skin);
            float *palette = aligned_alloc(64, pf * sizeof(float));
            assert_int_equal(sinew_skin_palette(skin, world, SKIN_JOINTS, palette, pf), SINEW_OK);
            skin_fixture f = {skin, world, palette, pf,
                              {streams, 0, streams + 3 * SKIN_VERTICES, 0, streams + 6 * SKIN_VERTICES, 0}};
            pose_job palette_job = {"skin palette", skin_palette_job, THREADS_COUNT,
                                    THREADS_COUNT * pf * sizeof(float), &f};
            pose_job deform_job = {"skin deform", skin_deform_job, SKIN_VERTICES,
                                   SKIN_VERTICES * SKIN_OUT_FLOATS * sizeof(float), &f};
            threads_check_job(&palette_job);
            pose_job matrices_job = {"skin vertex matrices", skin_matrices_job, SKIN_VERTICES,
                                     SKIN_VERTICES * 16 * sizeof(float), &f};
            threads_check_job(&deform_job);
            threads_check_job(&matrices_job);
            ++runs;
            free(palette);
            sinew_skin_destroy(skin);
        }
    assert_true(runs >= 2); /* at least the scalar kernel of both blends */
    free(joints);
    free(weights);
    free(streams);
}

/* ---- SOFFD -------------------------------------------------------------------- */

#define SOFFD_POINTS 1200

typedef struct soffd_fixture {
    const sinew_soffd *soffd;
    sinew_points driver_now;
    size_t elements, vertices;
    const float *element_frames, *vertex_frames;
    sinew_points normals;   /* of the registered points */
} soffd_fixture;

static sinew_result soffd_element_frames_job(const pose_job *job, unsigned char *out, size_t first, size_t count)
{
    const soffd_fixture *f = job->data;
    for (size_t i = first; i < first + count; ++i) {
        sinew_result r = sinew_soffd_element_frames(f->soffd, &f->driver_now, F(out) + i * 16 * f->elements, sinew_soffd_element_frames_size(f->soffd));
        if (r != SINEW_OK) return r;
    }
    return SINEW_OK;
}
static sinew_result soffd_vertex_frames_job(const pose_job *job, unsigned char *out, size_t first, size_t count)
{
    const soffd_fixture *f = job->data;
    for (size_t i = first; i < first + count; ++i) {
        sinew_result r = sinew_soffd_vertex_frames(f->soffd, &f->driver_now, F(out) + i * 16 * f->vertices, sinew_soffd_vertex_frames_size(f->soffd));
        if (r != SINEW_OK) return r;
    }
    return SINEW_OK;
}
static sinew_result soffd_deform_job(const pose_job *job, unsigned char *out, size_t first, size_t count)
{
    const soffd_fixture *f = job->data;
    /* Interleaved output: position then normal, 6 floats per point. */
    return sinew_soffd_deform(f->soffd, f->element_frames, sinew_soffd_element_frames_size(f->soffd), &f->normals, F(out), 6 * sizeof(float), F(out) + 3,
                              6 * sizeof(float), first, count);
}
static sinew_result soffd_deform_extended_job(const pose_job *job, unsigned char *out, size_t first, size_t count)
{
    const soffd_fixture *f = job->data;
    return sinew_soffd_deform_extended(f->soffd, f->vertex_frames, sinew_soffd_vertex_frames_size(f->soffd), &f->normals, F(out), 6 * sizeof(float),
                                       F(out) + 3, 6 * sizeof(float), first, count);
}

static void soffd_is_thread_safe(void **state)
{
    (void)state;
    cage c = make_cube_cage(3, 0);
    float *skin = random_points(20, SOFFD_POINTS, -1.4f, 1.4f);
    float *now = malloc(3 * c.nv * sizeof(float));
    bend_twist(c.pos, now, c.nv, 0.4f);
    sinew_polymesh driver = cage_polymesh(&c, NULL);
    sinew_points skin_view = {skin, SOFFD_POINTS, 0};
    sinew_soffd_register_desc policy = {sizeof(sinew_soffd_register_desc), 1e-3f, 0, 0, 0, 0};
    sinew_soffd *h = NULL;
    assert_int_equal(sinew_soffd_create(NULL, &driver, NULL, &h), SINEW_OK);
    assert_int_equal(sinew_soffd_register(NULL, h, &skin_view, &policy), SINEW_OK);
    sinew_soffd_info info;
    SINEW_INIT(&info);
    assert_int_equal(sinew_soffd_get_info(h, &info), SINEW_OK);
    float *element_frames = malloc(16 * info.element_count * sizeof(float));
    float *vertex_frames = malloc(16 * c.nv * sizeof(float));
    float *normals = random_points(21, SOFFD_POINTS, -1.0f, 1.0f);
    soffd_fixture f = {h, {now, c.nv, 0}, info.element_count, c.nv, element_frames, vertex_frames,
                       {normals, SOFFD_POINTS, 0}};
    assert_int_equal(sinew_soffd_element_frames(h, &f.driver_now, element_frames, sinew_soffd_element_frames_size(h)), SINEW_OK);
    assert_int_equal(sinew_soffd_vertex_frames(h, &f.driver_now, vertex_frames, sinew_soffd_vertex_frames_size(h)), SINEW_OK);

    const pose_job jobs[] = {
        {"soffd element frames", soffd_element_frames_job, THREADS_COUNT,
         THREADS_COUNT * 16 * info.element_count * sizeof(float), &f},
        {"soffd vertex frames", soffd_vertex_frames_job, THREADS_COUNT, THREADS_COUNT * 16 * c.nv * sizeof(float), &f},
        {"soffd deform", soffd_deform_job, SOFFD_POINTS, 6 * SOFFD_POINTS * sizeof(float), &f},
        {"soffd deform extended", soffd_deform_extended_job, SOFFD_POINTS, 6 * SOFFD_POINTS * sizeof(float), &f},
    };
    for (size_t j = 0; j < sizeof jobs / sizeof jobs[0]; ++j) threads_check_job(&jobs[j]);
    sinew_soffd_destroy(h);
    free(element_frames);
    free(vertex_frames);
    free(normals);
    free(now);
    free(skin);
    cage_free(&c);
}

/* ---- lattice ------------------------------------------------------------------ */

#define LATTICE_POINTS 1500

typedef struct lattice_fixture {
    const sinew_lattice *lattice;
    const sinew_lattice_binding *binding;
    sinew_points points, normals;
} lattice_fixture;

static sinew_result lattice_parameters_job(const pose_job *job, unsigned char *out, size_t first, size_t count)
{
    const lattice_fixture *f = job->data;
    return sinew_lattice_parameters(f->lattice, &f->points, F(out), 0, first, count);
}
static sinew_result lattice_evaluate_job(const pose_job *job, unsigned char *out, size_t first, size_t count)
{
    const lattice_fixture *f = job->data;
    /* The points double as parameters (some outside [0, 1]: the clamp policy applies). */
    return sinew_lattice_evaluate(f->lattice, &f->points, F(out), 12 * sizeof(float), F(out) + 3, 12 * sizeof(float),
                                  first, count);
}
static sinew_result lattice_deform_job(const pose_job *job, unsigned char *out, size_t first, size_t count)
{
    const lattice_fixture *f = job->data;
    return sinew_lattice_deform(f->lattice, &f->points, &f->normals, F(out), 6 * sizeof(float), F(out) + 3,
                                6 * sizeof(float), first, count);
}
static sinew_result lattice_deform_bound_job(const pose_job *job, unsigned char *out, size_t first, size_t count)
{
    const lattice_fixture *f = job->data;
    return sinew_lattice_binding_deform(f->binding, f->lattice, F(out), 6 * sizeof(float), F(out) + 3,
                                      6 * sizeof(float), first, count);
}
/* The control-point getters write element i at i * stride, like every range call. */
#define LATTICE_GETTER_JOB(name, getter) \
    static sinew_result name(const pose_job *job, unsigned char *out, size_t first, size_t count) \
    { \
        const lattice_fixture *f = job->data; \
        return getter(f->lattice, F(out), 0, first, count); \
    }
LATTICE_GETTER_JOB(lattice_rest_points_job, sinew_lattice_rest_points)
LATTICE_GETTER_JOB(lattice_get_points_job, sinew_lattice_points)
LATTICE_GETTER_JOB(lattice_get_displacements_job, sinew_lattice_displacements)

static void lattice_is_thread_safe(void **state)
{
    (void)state;
    sinew_lattice_desc d;
    SINEW_INIT(&d);
    const uint32_t count[3] = {6, 5, 4}, order[3] = {4, 3, 2};
    memcpy(d.count, count, sizeof count);
    memcpy(d.order, order, sizeof order);
    d.extents[0] = d.extents[1] = d.extents[2] = 1.0f;
    d.outside = SINEW_LATTICE_OUTSIDE_CLAMP;
    sinew_lattice *lattice = NULL;
    assert_int_equal(sinew_lattice_create(NULL, &d, &lattice), SINEW_OK);
    const size_t control = 6 * 5 * 4;
    float *bend = random_points(30, control, -0.1f, 0.1f);
    sinew_points bend_view = {bend, control, 0};
    assert_int_equal(sinew_lattice_set_displacements(lattice, &bend_view, 0, bend_view.count), SINEW_OK);
    float *points = random_points(31, LATTICE_POINTS, -0.2f, 1.2f);
    float *normals = random_points(32, LATTICE_POINTS, -1.0f, 1.0f);
    lattice_fixture f = {lattice, NULL, {points, LATTICE_POINTS, 0}, {normals, LATTICE_POINTS, 0}};
    sinew_lattice_binding_desc bd = {sizeof(sinew_lattice_binding_desc), f.points, f.normals, SINEW_LATTICE_SPACE_WORLD};
    sinew_lattice_binding *binding = NULL;
    assert_int_equal(sinew_lattice_binding_create(NULL, lattice, &bd, &binding), SINEW_OK);
    f.binding = binding;

    const size_t n = LATTICE_POINTS;
    const pose_job jobs[] = {
        {"lattice parameters", lattice_parameters_job, n, 3 * n * sizeof(float), &f},
        {"lattice evaluate", lattice_evaluate_job, n, 12 * n * sizeof(float), &f},
        {"lattice deform", lattice_deform_job, n, 6 * n * sizeof(float), &f},
        {"lattice deform_bound", lattice_deform_bound_job, n, 6 * n * sizeof(float), &f},
        {"lattice rest_points", lattice_rest_points_job, control, 3 * control * sizeof(float), &f},
        {"lattice get_points", lattice_get_points_job, control, 3 * control * sizeof(float), &f},
        {"lattice get_displacements", lattice_get_displacements_job, control, 3 * control * sizeof(float), &f},
    };
    for (size_t j = 0; j < sizeof jobs / sizeof jobs[0]; ++j) threads_check_job(&jobs[j]);
    sinew_lattice_binding_destroy(binding);
    sinew_lattice_destroy(lattice);
    free(bend);
    free(points);
    free(normals);
}

/* ---- correctives ---------------------------------------------------------------- */

#define CORRECTIVE_POINTS 2000
#define CORRECTIVE_KEYS 5

typedef struct corrective_fixture {
    const sinew_corrective *corrective;
    sinew_points base;
    float pose[2];
} corrective_fixture;

static sinew_result corrective_deform_job(const pose_job *job, unsigned char *out, size_t first, size_t count)
{
    const corrective_fixture *f = job->data;
    return sinew_corrective_deform(f->corrective, f->pose, 2, &f->base, F(out), 0, first, count);
}

static void corrective_is_thread_safe(void **state)
{
    (void)state;
    float *offsets = random_points(40, CORRECTIVE_KEYS * CORRECTIVE_POINTS, -0.2f, 0.2f);
    float *base = random_points(41, CORRECTIVE_POINTS, -1.0f, 1.0f);
    const float poses[CORRECTIVE_KEYS * 2] = {1, 0, 0, 1, -1, 0, 0, -1, 0.7f, 0.7f};
    sinew_corrective_desc d;
    SINEW_INIT(&d);
    d.point_count = CORRECTIVE_POINTS, d.key_count = CORRECTIVE_KEYS, d.pose_size = 2;
    d.poses = poses, d.offsets = offsets;
    sinew_corrective *c = NULL;
    assert_int_equal(sinew_corrective_create(NULL, &d, &c), SINEW_OK);
    corrective_fixture f = {c, {base, CORRECTIVE_POINTS, 0}, {0.3f, 0.55f}};
    const pose_job job = {"corrective deform", corrective_deform_job, CORRECTIVE_POINTS,
                          3 * CORRECTIVE_POINTS * sizeof(float), &f};
    threads_check_job(&job);
    sinew_corrective_destroy(c);
    free(offsets);
    free(base);
}

/* ---- placement ---------------------------------------------------------------- */

#define MODEL_POINTS 1000

typedef struct placement_fixture {
    const sinew_placement *placement;
    sinew_placement_map map;
    sinew_points model;
    size_t columns;
} placement_fixture;

static sinew_result placement_deform_job(const pose_job *job, unsigned char *out, size_t first, size_t count)
{
    const placement_fixture *f = job->data;
    return sinew_placement_deform(f->placement, &f->map, &f->model, F(out), 0, first, count);
}
static sinew_result placement_directions_job(const pose_job *job, unsigned char *out, size_t first, size_t count)
{
    const placement_fixture *f = job->data;
    return sinew_placement_directions(f->placement, F(out), 0, first, count);
}
static sinew_result placement_lifts_job(const pose_job *job, unsigned char *out, size_t first, size_t count)
{
    const placement_fixture *f = job->data;
    return sinew_placement_lifts(f->placement, F(out), 0, first, count);
}
static sinew_result placement_map_job(const pose_job *job, unsigned char *out, size_t first, size_t count)
{
    const placement_fixture *f = job->data;
    sinew_placement_map_desc d = {sizeof(sinew_placement_map_desc), {0, -0.5f, 0}, {2, 0.5f, 1}, 0.5f, 0.25f};
    sinew_placement_map *maps = (sinew_placement_map *)(void *)out;
    for (size_t i = first; i < first + count; ++i) {
        sinew_result r = sinew_placement_map_model(f->placement, &d, &maps[i]);
        if (r != SINEW_OK) return r;
    }
    return SINEW_OK;
}

static void placement_is_thread_safe(void **state)
{
    (void)state;
    /* A floor with a ridge along y = 0. */
    static const float scene[6 * 3] = {-10, -10, 0, 10, -10, 0, 10, 0, 1, -10, 0, 1, 10, 10, 0, -10, 10, 0};
    static const uint32_t tris[4 * 3] = {0, 1, 2, 0, 2, 3, 3, 2, 4, 3, 4, 5};
    static const float path[3 * 3] = {-3, -1, 5, 0, 0.5f, 5, 3, 1, 5};
    sinew_placement_desc d;
    SINEW_INIT(&d);
    d.path = (sinew_points){path, 3, 0};
    d.path_kind = SINEW_PLACEMENT_PATH_BSPLINE;
    d.width = 1;
    d.height = 0.5f;
    d.count[0] = 12;
    d.count[1] = 5;
    d.volume = SINEW_PLACEMENT_OFFSET;
    d.scene = (sinew_trimesh){{scene, 6, 0}, tris, 4, SINEW_INDEX_U32, 0};
    sinew_placement *p = NULL;
    assert_int_equal(sinew_placement_create(NULL, &d, &p), SINEW_OK);
    assert_int_equal(sinew_placement_push(p, 3, 2, 0.2f), SINEW_OK);
    placement_fixture f = {p, {{0}, {0}}, {NULL, MODEL_POINTS, 0}, 12 * 5};
    sinew_placement_map_desc md = {sizeof(sinew_placement_map_desc), {0, -0.5f, 0}, {2, 0.5f, 1}, 0.5f, 0.25f};
    assert_int_equal(sinew_placement_map_model(p, &md, &f.map), SINEW_OK);
    float *model = random_points(40, MODEL_POINTS, 0.0f, 1.0f);
    f.model.data = model;

    const pose_job jobs[] = {
        {"placement deform", placement_deform_job, MODEL_POINTS, 3 * MODEL_POINTS * sizeof(float), &f},
        {"placement directions", placement_directions_job, f.columns, 3 * f.columns * sizeof(float), &f},
        {"placement lifts", placement_lifts_job, f.columns, f.columns * sizeof(float), &f},
        {"placement map_model", placement_map_job, THREADS_COUNT, THREADS_COUNT * sizeof(sinew_placement_map), &f},
    };
    for (size_t j = 0; j < sizeof jobs / sizeof jobs[0]; ++j) threads_check_job(&jobs[j]);
    sinew_placement_destroy(p);
    free(model);
}

/* ---- bounded biharmonic weights ----------------------------------------------------- */

#define BBW_N 8
#define BBW_VERTICES ((BBW_N + 1) * (BBW_N + 1))
#define BBW_HANDLES 3
#define BBW_POINTS 600
#define BBW_K 2

typedef struct bbw_fixture {
    const sinew_bbw *bbw;
    sinew_points points;
} bbw_fixture;

static sinew_result bbw_vertex_weights_job(const pose_job *job, unsigned char *out, size_t first, size_t count)
{
    const bbw_fixture *f = job->data;
    return sinew_bbw_vertex_weights(f->bbw, F(out), first, count);
}
static sinew_result bbw_point_weights_job(const pose_job *job, unsigned char *out, size_t first, size_t count)
{
    const bbw_fixture *f = job->data;
    return sinew_bbw_point_weights(f->bbw, &f->points, F(out), first, count);
}
/* Joints of all points first, then their weights. */
static sinew_result bbw_top_k_job(const pose_job *job, unsigned char *out, size_t first, size_t count)
{
    const bbw_fixture *f = job->data;
    float *weights = F(out) + job->total * BBW_K;
    const sinew_points *points = job->total == BBW_POINTS ? &f->points : NULL;
    return sinew_bbw_top_k(f->bbw, points, BBW_K, U32(out), weights, first, count);
}

static void bbw_is_thread_safe(void **state)
{
    (void)state;
    float grid[BBW_VERTICES * 3];
    uint32_t tris[2 * BBW_N * BBW_N * 3];
    for (size_t j = 0, v = 0; j <= BBW_N; ++j)
        for (size_t i = 0; i <= BBW_N; ++i, ++v) {
            grid[3 * v] = (float)i / BBW_N;
            grid[3 * v + 1] = (float)j / BBW_N;
            grid[3 * v + 2] = 0;
        }
    for (size_t j = 0, t = 0; j < BBW_N; ++j)
        for (size_t i = 0; i < BBW_N; ++i, t += 2) {
            uint32_t a = (uint32_t)(j * (BBW_N + 1) + i), b = a + 1, c = a + BBW_N + 2, e = a + BBW_N + 1;
            const uint32_t two[6] = {a, b, c, a, c, e};
            memcpy(&tris[3 * t], two, sizeof two);
        }
    static const float handles[BBW_HANDLES * 3] = {0, 0, 0, 1, 0, 0, 0.5f, 1, 0};
    sinew_trimesh domain = {{grid, BBW_VERTICES, 0}, tris, 2 * BBW_N * BBW_N, SINEW_INDEX_U32, 0};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.triangles = &domain;
    d.points.data = handles;
    d.points.count = BBW_HANDLES;
    sinew_bbw *b = NULL;
    assert_int_equal(sinew_bbw_create(NULL, &d, &b), SINEW_OK);
    assert_int_equal(sinew_bbw_solve(NULL, b, NULL), SINEW_OK);
    float *points = random_points(50, BBW_POINTS, 0.0f, 1.0f);
    for (size_t i = 0; i < BBW_POINTS; ++i) points[3 * i + 2] = 0;
    bbw_fixture f = {b, {points, BBW_POINTS, 0}};

    const size_t kbytes = BBW_K * (sizeof(uint32_t) + sizeof(float));
    const pose_job jobs[] = {
        {"bbw vertex_weights", bbw_vertex_weights_job, BBW_VERTICES, BBW_VERTICES * BBW_HANDLES * sizeof(float), &f},
        {"bbw point_weights", bbw_point_weights_job, BBW_POINTS, BBW_POINTS * BBW_HANDLES * sizeof(float), &f},
        {"bbw top_k at points", bbw_top_k_job, BBW_POINTS, BBW_POINTS * kbytes, &f},
        {"bbw top_k at vertices", bbw_top_k_job, BBW_VERTICES, BBW_VERTICES * kbytes, &f},
    };
    for (size_t j = 0; j < sizeof jobs / sizeof jobs[0]; ++j) threads_check_job(&jobs[j]);
    sinew_bbw_destroy(b);
    free(points);
}

/* ---- messages ------------------------------------------------------------------- */

typedef struct message_check {
    pthread_barrier_t after_failure;
    const sinew_lattice *lattice;
    int ok[THREADS_COUNT];
} message_check;

/* Each thread fails naming its own index, waits until every thread has
 * failed, then must still see its own message; a success then clears only
 * its own. */
static void fail_and_read_back(size_t index, void *user)
{
    message_check *m = user;
    float out[3];
    size_t first = 1000 + index;
    char expected[64];
    snprintf(expected, sizeof expected, "%zu", first);
    int ok = sinew_lattice_rest_points(m->lattice, out, 0, first, 1) == SINEW_ERROR_INDEX_OUT_OF_RANGE;
    pthread_barrier_wait(&m->after_failure);
    ok = ok && strstr(sinew_last_error(), expected) != NULL;
    pthread_barrier_wait(&m->after_failure);
    if (index == 0) ok = ok && sinew_lattice_rest_points(m->lattice, out, 0, 0, 1) == SINEW_OK;
    pthread_barrier_wait(&m->after_failure);
    ok = ok && (index == 0 ? sinew_last_error()[0] == '\0' : strstr(sinew_last_error(), expected) != NULL);
    m->ok[index] = ok;
}

static void last_error_is_per_thread(void **state)
{
    (void)state;
    sinew_lattice *lattice = NULL;
    sinew_lattice_desc desc;
    SINEW_INIT(&desc);
    assert_int_equal(sinew_lattice_create(NULL, &desc, &lattice), SINEW_OK);
    assert_int_equal(sinew_context_create(NULL, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    char main_message[256];
    snprintf(main_message, sizeof main_message, "%s", sinew_last_error());
    message_check m = {.lattice = lattice};
    assert_int_equal(pthread_barrier_init(&m.after_failure, NULL, THREADS_COUNT), 0);
    threads_run_all(fail_and_read_back, &m);
    pthread_barrier_destroy(&m.after_failure);
    for (size_t t = 0; t < THREADS_COUNT; ++t) assert_true(m.ok[t]);
    assert_string_equal(sinew_last_error(), main_message);
    sinew_lattice_destroy(lattice);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(skin_is_thread_safe),      cmocka_unit_test(soffd_is_thread_safe),
        cmocka_unit_test(lattice_is_thread_safe),   cmocka_unit_test(placement_is_thread_safe),
        cmocka_unit_test(bbw_is_thread_safe),
        cmocka_unit_test(corrective_is_thread_safe),
        cmocka_unit_test(last_error_is_per_thread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
