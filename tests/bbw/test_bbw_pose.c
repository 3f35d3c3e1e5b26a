/* Handle transforms inferred at pose time (bbw_pose.h): rigid motions are
 * reproduced, a dragged handle turns the shape and lowers the energy below
 * the translation-only pose, fixed transforms pass through, warm and cold
 * starts agree, bones and cages work, 2D and 3D, and every bad input gets a
 * named error with the outputs untouched. */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bbw_fixture.h"
#include "support.h"

#define PI 3.14159265358979323846

static void expect(sinew_result got, sinew_result want, const char *fragment)
{
    if (got != want)
        fail_msg("expected %s, got %s (%s)", sinew_result_string(want), sinew_result_string(got), sinew_last_error());
    if (fragment && !strstr(sinew_last_error(), fragment))
        fail_msg("message '%s' lacks '%s'", sinew_last_error(), fragment);
}

/* ---- fixtures: BBW weights on small domains ---- */

typedef struct scene {
    grid2d g2;
    grid3d g3;
    int dim;
    size_t handles;
    float *weights;          /* vertex-major */
    sinew_bbw *bbw;
    sinew_bbw_pose *pose;
    float rest[8 * 3];       /* the point handles' rest positions */
} scene;

static void scene_solve(scene *s, sinew_bbw_desc *d)
{
    expect(sinew_bbw_create(NULL, d, &s->bbw), SINEW_OK, NULL);
    expect(sinew_bbw_solve(NULL, s->bbw, NULL), SINEW_OK, NULL);
    sinew_bbw_info info;
    SINEW_INIT(&info);
    sinew_bbw_get_info(s->bbw, &info);
    s->handles = info.handle_count;
    s->weights = malloc(info.vertex_count * info.handle_count * sizeof(float));
    expect(sinew_bbw_vertex_weights(s->bbw, s->weights, 0, info.vertex_count), SINEW_OK, NULL);
}

static sinew_bbw_pose_desc pose_desc(scene *s, sinew_trimesh *tri, sinew_tetmesh *tet)
{
    sinew_bbw_pose_desc pd;
    SINEW_INIT(&pd);
    if (s->dim == 2) {
        *tri = (sinew_trimesh){{s->g2.positions, s->g2.vertex_count, 0}, s->g2.triangles, s->g2.triangle_count,
                               SINEW_INDEX_U32, 0};
        pd.triangles = tri;
    } else {
        *tet = (sinew_tetmesh){{s->g3.positions, s->g3.vertex_count, 0}, s->g3.tets, s->g3.tet_count,
                               SINEW_INDEX_U32, 0};
        pd.tets = tet;
    }
    pd.handle_count = s->handles;
    pd.weights = s->weights;
    return pd;
}

/* A 6 x 1 bar (24 x 4 cells) with point handles at the middle of its left
 * end, its centre and its right end. */
static void bar_scene(scene *s, sinew_bbw_pose_transform transform)
{
    memset(s, 0, sizeof *s);
    s->dim = 2;
    grid2d_make(&s->g2, 24, 4, 6.0f, 1.0f);
    const float rest[9] = {0, 0.5f, 0, 3, 0.5f, 0, 6, 0.5f, 0};
    memcpy(s->rest, rest, sizeof rest);
    sinew_trimesh tri = {{s->g2.positions, s->g2.vertex_count, 0}, s->g2.triangles, s->g2.triangle_count,
                         SINEW_INDEX_U32, 0};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.triangles = &tri;
    d.points = (sinew_points){s->rest, 3, 0};
    scene_solve(s, &d);
    sinew_tetmesh tet;
    sinew_bbw_pose_desc pd = pose_desc(s, &tri, &tet);
    pd.transform = transform;
    expect(sinew_bbw_pose_create(NULL, &pd, &s->pose), SINEW_OK, NULL);
}

/* The unit cube (4^3 cubes, 6 tets each) with point handles at four corners. */
static void cube_scene(scene *s)
{
    memset(s, 0, sizeof *s);
    s->dim = 3;
    grid3d_make(&s->g3, 4, 1.0f);
    const float rest[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    memcpy(s->rest, rest, sizeof rest);
    sinew_tetmesh tet = {{s->g3.positions, s->g3.vertex_count, 0}, s->g3.tets, s->g3.tet_count, SINEW_INDEX_U32, 0};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.tets = &tet;
    d.points = (sinew_points){s->rest, 4, 0};
    scene_solve(s, &d);
    sinew_trimesh tri;
    sinew_bbw_pose_desc pd = pose_desc(s, &tri, &tet);
    expect(sinew_bbw_pose_create(NULL, &pd, &s->pose), SINEW_OK, NULL);
}

static void scene_free(scene *s)
{
    sinew_bbw_pose_destroy(s->pose);
    sinew_bbw_destroy(s->bbw);
    free(s->weights);
    grid2d_free(&s->g2);
    grid3d_free(&s->g3);
}

/* ---- helpers ---- */

static void identities(float *t, size_t n)
{
    memset(t, 0, n * 16 * sizeof(float));
    for (size_t j = 0; j < n; ++j) t[16 * j] = t[16 * j + 5] = t[16 * j + 10] = t[16 * j + 15] = 1.0f;
}

/* Solves with the given positions (and fixed flags); returns the energy. */
static double solve(const scene *s, const sinew_bbw_pose_position *pos, size_t n, const uint8_t *fixed,
                    float *transforms, uint32_t iterations, int cold)
{
    sinew_bbw_pose_solve_desc sd;
    SINEW_INIT(&sd);
    sd.positions = pos;
    sd.position_count = n;
    sd.fixed = fixed;
    sd.iterations = iterations;
    sd.cold_start = cold;
    size_t bytes = sinew_bbw_pose_scratch_size(s->pose, n);
    void *scratch = malloc(bytes);
    sinew_bbw_pose_report rep;
    SINEW_INIT(&rep);
    expect(sinew_bbw_pose_solve(s->pose, &sd, transforms, 16 * s->handles, scratch, bytes, &rep), SINEW_OK, NULL);
    assert_int_equal(rep.iterations, iterations);
    free(scratch);
    return rep.energy;
}

static double energy_of(const scene *s, const float *transforms)
{
    size_t bytes = sinew_bbw_pose_scratch_size(s->pose, 0);
    void *scratch = malloc(bytes);
    double e = -1.0;
    expect(sinew_bbw_pose_energy(s->pose, transforms, 16 * s->handles, scratch, bytes, &e), SINEW_OK, NULL);
    free(scratch);
    return e;
}

/* Each constrained handle translated to its target, every linear part the
 * identity: what skinning gives a user who only drags handles. */
static void translation_only(const scene *s, const sinew_bbw_pose_position *pos, size_t n, float *t)
{
    identities(t, s->handles);
    for (size_t i = 0; i < n; ++i)
        for (int a = 0; a < 3; ++a) t[16 * pos[i].handle + 12 + a] = pos[i].target[a] - pos[i].rest[a];
}

static void position(sinew_bbw_pose_position *p, uint32_t handle, const float rest[3], float tx, float ty, float tz)
{
    p->handle = handle;
    memcpy(p->rest, rest, sizeof p->rest);
    p->target[0] = tx, p->target[1] = ty, p->target[2] = tz;
}

/* Maps x by the column-major transform t. */
static void apply(const float *t, const float x[3], double out[3])
{
    for (int r = 0; r < 3; ++r) out[r] = t[r] * x[0] + t[4 + r] * x[1] + t[8 + r] * x[2] + t[12 + r];
}

/* ---- rigid motions ---- */

static void rigid_motion_reproduced(const scene *s, const double rot[9], const double shift[3])
{
    size_t m = s->handles;
    sinew_bbw_pose_position pos[8] = {0}; /* zeroed: gcc -O3 cannot see m <= 8 fills what solve reads */
    for (size_t j = 0; j < m; ++j) {
        const float *p = s->rest + 3 * j;
        double q[3];
        for (int r = 0; r < 3; ++r) q[r] = rot[3 * r] * p[0] + rot[3 * r + 1] * p[1] + rot[3 * r + 2] * p[2] + shift[r];
        position(&pos[j], (uint32_t)j, p, (float)q[0], (float)q[1], (float)q[2]);
    }
    float t[8 * 16];
    identities(t, m);
    double e = solve(s, pos, m, NULL, t, 200, 1);
    assert_true(e < 1e-9);
    for (size_t j = 0; j < m; ++j)
        for (int r = 0; r < s->dim; ++r) {
            for (int c = 0; c < s->dim; ++c)
                if (fabs(t[16 * j + 4 * c + r] - rot[3 * r + c]) > 1e-4)
                    fail_msg("handle %zu entry (%d, %d): %g, rotation %g", j, r, c, (double)t[16 * j + 4 * c + r],
                             rot[3 * r + c]);
            assert_true(fabs(t[16 * j + 12 + r] - shift[r]) < 1e-4);
        }
    /* Started from the rigid pose itself, one iteration stays on it. */
    double e1 = solve(s, pos, m, NULL, t, 1, 0);
    assert_true(e1 < 1e-9);
}

static void rigid_motion_2d(void **state)
{
    (void)state;
    scene s;
    bar_scene(&s, SINEW_BBW_POSE_AFFINE);
    double c = cos(0.7), sn = sin(0.7);
    const double rot[9] = {c, -sn, 0, sn, c, 0, 0, 0, 1}, shift[3] = {1.0, -2.0, 0.0};
    rigid_motion_reproduced(&s, rot, shift);
    scene_free(&s);
}

static void rigid_motion_3d(void **state)
{
    (void)state;
    scene s;
    cube_scene(&s);
    /* 0.8 rad about (1, 2, 3) / |(1, 2, 3)|, by Rodrigues' formula. */
    double k[3] = {1, 2, 3}, n = sqrt(14.0), a = 0.8, rot[9];
    for (int i = 0; i < 3; ++i) k[i] /= n;
    double kx[9] = {0, -k[2], k[1], k[2], 0, -k[0], -k[1], k[0], 0};
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) {
            double kk = 0.0;
            for (int i = 0; i < 3; ++i) kk += kx[3 * r + i] * kx[3 * i + c];
            rot[3 * r + c] = (r == c) + sin(a) * kx[3 * r + c] + (1 - cos(a)) * kk;
        }
    const double shift[3] = {0.5, -1.0, 2.0};
    rigid_motion_reproduced(&s, rot, shift);
    scene_free(&s);
}

/* ---- a dragged handle ---- */

static void dragged_handle_turns_the_shape(void **state)
{
    (void)state;
    scene s;
    bar_scene(&s, SINEW_BBW_POSE_AFFINE);
    sinew_bbw_pose_position pos[2];
    position(&pos[0], 0, s.rest, 0, 0.5f, 0);          /* left end stays */
    position(&pos[1], 2, s.rest + 6, 5.0f, 3.0f, 0);   /* right end dragged up */
    float base[3 * 16];
    translation_only(&s, pos, 2, base);
    double e0 = energy_of(&s, base), previous = INFINITY;
    float t[3 * 16];
    for (uint32_t k = 1; k <= 10; ++k) {
        identities(t, 3);
        double e = solve(&s, pos, 2, NULL, t, k, 1);
        if (e > previous * (1 + 1e-9) + 1e-15) fail_msg("energy rose at iteration %u: %.12g after %.12g", k, e, previous);
        previous = e;
        if (k == 5) assert_true(e < 0.5 * e0);
    }
    /* The constraints hold exactly, and the right end and the free middle
     * handle turned counter-clockwise, the way the bar bends. */
    double q[3];
    apply(t + 32, s.rest + 6, q);
    assert_true(fabs(q[0] - 5.0) < 1e-4 && fabs(q[1] - 3.0) < 1e-4);
    apply(t, s.rest, q);
    assert_true(fabs(q[0]) < 1e-4 && fabs(q[1] - 0.5) < 1e-4);
    double right = atan2(t[32 + 1], t[32 + 0]), middle = atan2(t[16 + 1], t[16 + 0]);
    assert_true(right > 0.3);
    assert_true(middle > 0.1);
    scene_free(&s);
}

static void dragged_handle_3d(void **state)
{
    (void)state;
    scene s;
    cube_scene(&s);
    sinew_bbw_pose_position pos[4];
    position(&pos[0], 0, s.rest, 0, 0, 0);
    position(&pos[1], 1, s.rest + 3, 0.8f, 0.7f, 0);
    position(&pos[2], 2, s.rest + 6, 0, 1, 0);
    position(&pos[3], 3, s.rest + 9, 0, 0, 1);
    float base[4 * 16], t[4 * 16];
    translation_only(&s, pos, 4, base);
    double e0 = energy_of(&s, base), previous = INFINITY;
    for (uint32_t k = 1; k <= 8; ++k) {
        identities(t, 4);
        double e = solve(&s, pos, 4, NULL, t, k, 1);
        if (e > previous * (1 + 1e-9) + 1e-15) fail_msg("energy rose at iteration %u: %.12g after %.12g", k, e, previous);
        previous = e;
    }
    assert_true(previous < e0);
    /* Handle 1 turned about z towards +y. */
    assert_true(atan2(t[16 + 1], t[16 + 0]) > 0.1);
    scene_free(&s);
}

/* ---- fixed transforms ---- */

static void fixed_transforms_pass_through(void **state)
{
    (void)state;
    scene s;
    bar_scene(&s, SINEW_BBW_POSE_AFFINE);
    float t[3 * 16], given[3 * 16];
    support_rng rng;
    support_rng_seed(&rng, 15);
    identities(given, 3);
    for (size_t j = 0; j < 3; ++j)
        for (int e = 0; e < 15; ++e)
            if (e % 4 != 3) given[16 * j + e] = (float)support_rng_uniform(&rng, -2, 2);
    const uint8_t all[3] = {1, 1, 1};
    memcpy(t, given, sizeof t);
    solve(&s, NULL, 0, all, t, 5, 0);
    assert_memory_equal(t, given, sizeof t);
    /* One fixed (a turn of the left end), one dragged, one free. */
    const uint8_t first[3] = {1, 0, 0};
    sinew_bbw_pose_position drag;
    position(&drag, 2, s.rest + 6, 6.0f, 2.0f, 0);
    memcpy(t, given, sizeof t);
    solve(&s, &drag, 1, first, t, 5, 1);
    assert_memory_equal(t, given, 16 * sizeof(float));
    scene_free(&s);
}

/* ---- warm start ---- */

static void warm_start_matches_cold_start(void **state)
{
    (void)state;
    scene s;
    bar_scene(&s, SINEW_BBW_POSE_AFFINE);
    /* The left end held by its full transform (a single pinned point would
     * leave the slow mode of turning about it), the right end dragged. */
    const uint8_t left[3] = {1, 0, 0};
    sinew_bbw_pose_position pos;
    position(&pos, 2, s.rest + 6, 4.5f, 3.5f, 0);
    float cold[3 * 16], warm[3 * 16];
    identities(cold, 3);
    double ec = solve(&s, &pos, 1, left, cold, 600, 1);
    /* The previous frame: a smaller drag, then this frame warm-started from it. */
    sinew_bbw_pose_position before = pos;
    before.target[0] = 5.8f, before.target[1] = 1.5f;
    identities(warm, 3);
    solve(&s, &before, 1, left, warm, 50, 1);
    double ew = solve(&s, &pos, 1, left, warm, 600, 0);
    if (!(fabs(ec - ew) < 1e-9 + 1e-6 * ec)) fail_msg("energy cold %.12g, warm %.12g", ec, ew);
    for (int i = 0; i < 48; ++i)
        if (fabs(cold[i] - warm[i]) > 1e-4) fail_msg("entry %d: cold %g, warm %g", i, (double)cold[i], (double)warm[i]);
    /* All-zero transforms (a buffer never solved into) give the clusters
     * nothing to fit: with positions only, that is a cold start exactly. */
    sinew_bbw_pose_position both[2] = {pos, pos};
    position(&both[0], 0, s.rest, 0, 0.5f, 0);
    float zeros[3 * 16], cold5[3 * 16];
    memset(zeros, 0, sizeof zeros);
    identities(cold5, 3);
    solve(&s, both, 2, NULL, cold5, 5, 1);
    solve(&s, both, 2, NULL, zeros, 5, 0);
    assert_memory_equal(zeros, cold5, sizeof zeros);
    /* Warm-started from the converged pose, two more iterations stay there. */
    float again[3 * 16];
    memcpy(again, cold, sizeof again);
    double e2 = solve(&s, &pos, 1, left, again, 2, 0);
    assert_true(fabs(e2 - ec) <= 1e-6 * ec + 1e-12);
    for (int i = 0; i < 48; ++i) assert_true(fabs(cold[i] - again[i]) < 1e-4);
    scene_free(&s);
}

/* ---- bones and cages ---- */

static void bone_joints_as_positions(void **state)
{
    (void)state;
    scene s;
    memset(&s, 0, sizeof s);
    s.dim = 2;
    grid2d_make(&s.g2, 24, 4, 6.0f, 1.0f);
    const float joints[9] = {0, 0.5f, 0, 3, 0.5f, 0, 6, 0.5f, 0};
    const uint32_t bones[4] = {0, 1, 1, 2};
    sinew_trimesh tri = {{s.g2.positions, s.g2.vertex_count, 0}, s.g2.triangles, s.g2.triangle_count,
                         SINEW_INDEX_U32, 0};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.triangles = &tri;
    d.joint_positions = (sinew_points){joints, 3, 0};
    d.bones = bones;
    d.bone_count = 2;
    scene_solve(&s, &d);
    expect(sinew_bbw_pose_create_from_bbw(NULL, s.bbw, NULL, &s.pose), SINEW_OK, NULL);
    /* The second bone turned 60 degrees about the middle joint. */
    float tip[2] = {3.0f + 3.0f * 0.5f, 0.5f + 3.0f * (float)sin(PI / 3)};
    sinew_bbw_pose_position pos[4];
    position(&pos[0], 0, joints, 0, 0.5f, 0);
    position(&pos[1], 0, joints + 3, 3, 0.5f, 0);
    position(&pos[2], 1, joints + 3, 3, 0.5f, 0);
    position(&pos[3], 1, joints + 6, tip[0], tip[1], 0);
    float t[2 * 16], base[2 * 16];
    identities(t, 2);
    double e = solve(&s, pos, 4, NULL, t, 20, 1);
    double q[3];
    apply(t + 16, joints + 6, q);
    assert_true(fabs(q[0] - tip[0]) < 1e-4 && fabs(q[1] - tip[1]) < 1e-4);
    apply(t + 16, joints + 3, q);
    assert_true(fabs(q[0] - 3) < 1e-4 && fabs(q[1] - 0.5) < 1e-4);
    double angle = atan2(t[16 + 1], t[16 + 0]), det = t[16] * t[21] - t[17] * t[20];
    assert_true(fabs(angle - PI / 3) < 0.1);
    assert_true(fabs(det - 1.0) < 0.1);
    /* Translation-only cannot turn a bone; its best is the mean shift of the joints. */
    identities(base, 2);
    base[16 + 12] = 0.5f * (tip[0] - 6.0f), base[16 + 13] = 0.5f * (tip[1] - 0.5f);
    assert_true(e < energy_of(&s, base));
    scene_free(&s);
}

static void cage_vertices_as_positions(void **state)
{
    (void)state;
    scene s;
    memset(&s, 0, sizeof s);
    s.dim = 2;
    grid2d_make(&s.g2, 24, 4, 6.0f, 1.0f);
    const float cage_points[12] = {1, 0.25f, 0, 5, 0.25f, 0, 5, 0.75f, 0, 1, 0.75f, 0};
    const uint32_t edges[8] = {0, 1, 1, 2, 2, 3, 3, 0};
    sinew_bbw_cage cage = {{cage_points, 4, 0}, edges, 4, NULL, 0};
    sinew_trimesh tri = {{s.g2.positions, s.g2.vertex_count, 0}, s.g2.triangles, s.g2.triangle_count,
                         SINEW_INDEX_U32, 0};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.triangles = &tri;
    d.cages = &cage;
    d.cage_count = 1;
    scene_solve(&s, &d);
    expect(sinew_bbw_pose_create_from_bbw(NULL, s.bbw, NULL, &s.pose), SINEW_OK, NULL);
    /* The cage's right side lifted: the shape bends up. */
    sinew_bbw_pose_position pos[4];
    position(&pos[0], 0, cage_points, 1, 0.25f, 0);
    position(&pos[1], 1, cage_points + 3, 4.8f, 1.25f, 0);
    position(&pos[2], 2, cage_points + 6, 4.6f, 1.7f, 0);
    position(&pos[3], 3, cage_points + 9, 1, 0.75f, 0);
    float t[4 * 16], base[4 * 16];
    identities(t, 4);
    double e = solve(&s, pos, 4, NULL, t, 10, 1);
    translation_only(&s, pos, 4, base);
    assert_true(e < energy_of(&s, base));
    for (size_t j = 0; j < 4; ++j) {
        double q[3];
        apply(t + 16 * j, cage_points + 3 * j, q);
        assert_true(fabs(q[0] - pos[j].target[0]) < 1e-4 && fabs(q[1] - pos[j].target[1]) < 1e-4);
    }
    scene_free(&s);
}

/* ---- options and layouts ---- */

static void similarity_transforms(void **state)
{
    (void)state;
    scene s;
    bar_scene(&s, SINEW_BBW_POSE_SIMILARITY);
    sinew_bbw_pose_position pos[2];
    position(&pos[0], 0, s.rest, 0, 0.5f, 0);
    position(&pos[1], 2, s.rest + 6, 5.0f, 3.0f, 0);
    float t[3 * 16];
    identities(t, 3);
    double e = solve(&s, pos, 2, NULL, t, 10, 1);
    assert_true(isfinite(e));
    for (size_t j = 0; j < 3; ++j) {
        const float *m = t + 16 * j;
        /* Columns orthogonal and of equal length: s R. */
        double dot = m[0] * m[4] + m[1] * m[5], n0 = m[0] * m[0] + m[1] * m[1], n1 = m[4] * m[4] + m[5] * m[5];
        assert_true(fabs(dot) < 1e-5 && fabs(n0 - n1) < 1e-5 && n0 > 0.25);
        assert_true(m[0] * m[5] - m[1] * m[4] > 0);
    }
    /* One position per handle: still met exactly after the projection. */
    double q[3];
    apply(t + 32, s.rest + 6, q);
    assert_true(fabs(q[0] - 5.0) < 1e-4 && fabs(q[1] - 3.0) < 1e-4);
    scene_free(&s);
}

static void sparse_weights_match_dense(void **state)
{
    (void)state;
    scene s;
    bar_scene(&s, SINEW_BBW_POSE_AFFINE);
    size_t n = s.g2.vertex_count;
    uint32_t *joints = malloc(n * 3 * sizeof(uint32_t));
    float *w = malloc(n * 3 * sizeof(float));
    expect(sinew_bbw_top_k(s.bbw, NULL, 3, joints, w, 0, n), SINEW_OK, NULL);
    sinew_trimesh tri;
    sinew_tetmesh tet;
    sinew_bbw_pose_desc pd = pose_desc(&s, &tri, &tet);
    pd.weights = NULL;
    pd.influence_count = 3;
    pd.influence_handles = joints;
    pd.influence_weights = w;
    sinew_bbw_pose *sparse = NULL;
    expect(sinew_bbw_pose_create(NULL, &pd, &sparse), SINEW_OK, NULL);
    sinew_bbw_pose_position pos[2];
    position(&pos[0], 0, s.rest, 0, 0.5f, 0);
    position(&pos[1], 2, s.rest + 6, 5.0f, 3.0f, 0);
    float a[3 * 16], b[3 * 16];
    identities(a, 3);
    identities(b, 3);
    solve(&s, pos, 2, NULL, a, 5, 1);
    sinew_bbw_pose *dense = s.pose;
    s.pose = sparse;
    solve(&s, pos, 2, NULL, b, 5, 1);
    s.pose = dense;
    for (int i = 0; i < 48; ++i) assert_true(fabs(a[i] - b[i]) < 1e-4);
    /* The convenience from the bbw gives the same pose bit for bit. */
    sinew_bbw_pose *from = NULL;
    expect(sinew_bbw_pose_create_from_bbw(NULL, s.bbw, NULL, &from), SINEW_OK, NULL);
    s.pose = from;
    identities(b, 3);
    solve(&s, pos, 2, NULL, b, 5, 1);
    s.pose = dense;
    assert_memory_equal(a, b, sizeof a);
    sinew_bbw_pose_info info;
    SINEW_INIT(&info);
    expect(sinew_bbw_pose_get_info(from, &info), SINEW_OK, NULL);
    assert_int_equal(info.dimension, 2);
    assert_int_equal(info.handle_count, 3);
    assert_int_equal(info.element_count, s.g2.triangle_count);
    assert_true(info.cluster_count >= 2 && info.cluster_count <= 16);
    assert_true(info.memory_bytes > 0);
    sinew_bbw_pose_destroy(from);
    sinew_bbw_pose_destroy(sparse);
    free(joints);
    free(w);
    scene_free(&s);
}

/* ---- errors ---- */

typedef struct attempt {
    const scene *s;
    sinew_bbw_pose_solve_desc sd;
    float t[3 * 16];
    size_t floats, scratch_bytes;
} attempt;

static void attempt_init(attempt *a, const scene *s)
{
    memset(a, 0, sizeof *a);
    a->s = s;
    SINEW_INIT(&a->sd);
    identities(a->t, 3);
    a->t[12] = 0.25f;
    a->floats = 48;
    a->scratch_bytes = 1 << 16;
}

/* Runs the solve and checks the failure left transforms and report alone. */
static void attempt_fails(attempt *a, sinew_result want, const char *fragment)
{
    float before[3 * 16];
    memcpy(before, a->t, sizeof before);
    unsigned char *scratch = malloc(a->scratch_bytes ? a->scratch_bytes : 1);
    sinew_bbw_pose_report rep;
    memset(&rep, 0x5a, sizeof rep);
    rep.struct_size = sizeof rep;
    sinew_bbw_pose_report rep_before = rep;
    expect(sinew_bbw_pose_solve(a->s->pose, &a->sd, a->t, a->floats, scratch, a->scratch_bytes, &rep), want,
           fragment);
    assert_memory_equal(a->t, before, sizeof before);
    assert_memory_equal(&rep, &rep_before, sizeof rep);
    free(scratch);
}

static void solve_errors_are_named(void **state)
{
    (void)state;
    scene s;
    bar_scene(&s, SINEW_BBW_POSE_AFFINE);
    attempt a;
    sinew_bbw_pose_position pos[2];
    position(&pos[0], 0, s.rest, 0, 0.5f, 0);
    position(&pos[1], 2, s.rest + 6, 5.0f, NAN, 0);

    attempt_init(&a, &s);
    a.sd.positions = pos;
    a.sd.position_count = 2;
    attempt_fails(&a, SINEW_ERROR_NON_FINITE, "position 1 has a non-finite target y");

    pos[1].target[1] = 3.0f;
    pos[1].handle = 7;
    attempt_fails(&a, SINEW_ERROR_INDEX_OUT_OF_RANGE, "position 1 names handle 7, but there are only 3");
    pos[1].handle = 2;

    attempt_init(&a, &s);
    attempt_fails(&a, SINEW_ERROR_INVALID_ARGUMENT, "no constraint");

    const uint8_t fixed[3] = {1, 0, 0};
    attempt_init(&a, &s);
    a.sd.fixed = fixed;
    a.sd.positions = pos;
    a.sd.position_count = 2;
    attempt_fails(&a, SINEW_ERROR_INVALID_ARGUMENT, "position 0 is on handle 0, whose transform is fixed");

    attempt_init(&a, &s);
    a.sd.fixed = fixed;
    a.t[15] = 2.0f;
    attempt_fails(&a, SINEW_ERROR_INVALID_ARGUMENT, "fixed transform of handle 0 is not affine");

    attempt_init(&a, &s);
    a.sd.positions = pos;
    a.sd.position_count = 2;
    a.t[16 + 5] = INFINITY;
    attempt_fails(&a, SINEW_ERROR_NON_FINITE, "warm-start transform of handle 1");

    sinew_bbw_pose_position twice[2] = {pos[0], pos[0]};
    attempt_init(&a, &s);
    a.sd.positions = twice;
    a.sd.position_count = 2;
    attempt_fails(&a, SINEW_ERROR_DEGENERATE, "position 1 (handle 0) repeats");

    attempt_init(&a, &s);
    a.sd.positions = pos;
    a.sd.position_count = 2;
    a.floats = 47;
    attempt_fails(&a, SINEW_ERROR_MISMATCH, "transform_floats is 47");
    a.floats = 48;
    a.scratch_bytes = sinew_bbw_pose_scratch_size(s.pose, 2) - 1;
    attempt_fails(&a, SINEW_ERROR_BUFFER_TOO_SMALL, "needs");
    a.scratch_bytes = 1 << 16;
    a.sd.positions = NULL;
    attempt_fails(&a, SINEW_ERROR_INVALID_ARGUMENT, "positions is NULL");

    sinew_bbw_pose_solve_desc zeroed;
    memset(&zeroed, 0, sizeof zeroed);
    float t[48];
    identities(t, 3);
    unsigned char scratch[64];
    expect(sinew_bbw_pose_solve(s.pose, &zeroed, t, 48, scratch, sizeof scratch, NULL), SINEW_ERROR_INVALID_ARGUMENT,
           "SINEW_INIT");
    expect(sinew_bbw_pose_solve(NULL, &a.sd, t, 48, scratch, sizeof scratch, NULL), SINEW_ERROR_INVALID_ARGUMENT,
           "pose is NULL");
    assert_int_equal(sinew_bbw_pose_scratch_size(NULL, 3), 0);
    assert_int_equal(sinew_bbw_pose_scratch_size(s.pose, SIZE_MAX / 2), SIZE_MAX);
    scene_free(&s);
}

/* A handle with no weight anywhere cannot be inferred: named, not NaN. */
static void undetermined_handle_is_named(void **state)
{
    (void)state;
    scene s;
    bar_scene(&s, SINEW_BBW_POSE_AFFINE);
    size_t n = s.g2.vertex_count;
    float *w = calloc(n * 4, sizeof(float));
    for (size_t v = 0; v < n; ++v) memcpy(w + 4 * v, s.weights + 3 * v, 3 * sizeof(float));
    sinew_trimesh tri;
    sinew_tetmesh tet;
    sinew_bbw_pose_desc pd = pose_desc(&s, &tri, &tet);
    pd.handle_count = 4;
    pd.weights = w;
    sinew_bbw_pose *p4 = NULL;
    expect(sinew_bbw_pose_create(NULL, &pd, &p4), SINEW_OK, NULL);
    sinew_bbw_pose_position pos;
    position(&pos, 0, s.rest, 0, 0.5f, 0);
    sinew_bbw_pose_solve_desc sd;
    SINEW_INIT(&sd);
    sd.positions = &pos;
    sd.position_count = 1;
    float t[4 * 16], before[4 * 16];
    identities(t, 4);
    memcpy(before, t, sizeof t);
    size_t bytes = sinew_bbw_pose_scratch_size(p4, 1);
    void *scratch = malloc(bytes);
    expect(sinew_bbw_pose_solve(p4, &sd, t, 64, scratch, bytes, NULL), SINEW_ERROR_DEGENERATE,
           "transform of handle 3 is not determined");
    assert_memory_equal(t, before, sizeof t);
    free(scratch);
    sinew_bbw_pose_destroy(p4);
    free(w);
    scene_free(&s);
}

static void create_errors_are_named(void **state)
{
    (void)state;
    scene s;
    bar_scene(&s, SINEW_BBW_POSE_AFFINE);
    size_t n = s.g2.vertex_count;
    float *w = malloc(n * 3 * sizeof(float));
    sinew_trimesh tri;
    sinew_tetmesh tet;
    sinew_bbw_pose_desc pd = pose_desc(&s, &tri, &tet);
    pd.weights = w;
    sinew_bbw_pose *out = (sinew_bbw_pose *)(uintptr_t)1;

    memcpy(w, s.weights, n * 3 * sizeof(float));
    w[3 * 5] += 0.5f;
    expect(sinew_bbw_pose_create(NULL, &pd, &out), SINEW_ERROR_INVALID_WEIGHTS, "weights of vertex 5 sum to");
    memcpy(w, s.weights, n * 3 * sizeof(float));
    w[3 * 7 + 2] = NAN;
    expect(sinew_bbw_pose_create(NULL, &pd, &out), SINEW_ERROR_NON_FINITE, "weight 2 of vertex 7");
    memcpy(w, s.weights, n * 3 * sizeof(float));
    pd.cluster_count = 8;
    pd.transform = (sinew_bbw_pose_transform)5;
    expect(sinew_bbw_pose_create(NULL, &pd, &out), SINEW_ERROR_INVALID_ARGUMENT, "transform 5");
    pd.transform = SINEW_BBW_POSE_AFFINE;
    uint32_t slots[1] = {0};
    pd.influence_handles = slots;
    expect(sinew_bbw_pose_create(NULL, &pd, &out), SINEW_ERROR_INVALID_ARGUMENT, "exactly one weight layout");
    pd.influence_handles = NULL;
    pd.handle_count = 0;
    expect(sinew_bbw_pose_create(NULL, &pd, &out), SINEW_ERROR_INVALID_ARGUMENT, "handle_count is 0");
    pd.handle_count = 3;
    pd.tets = &tet;
    expect(sinew_bbw_pose_create(NULL, &pd, &out), SINEW_ERROR_INVALID_ARGUMENT, "exactly one domain");
    pd.tets = NULL;

    /* A sparse slot naming a handle that does not exist. */
    uint32_t *joints = calloc(n, sizeof(uint32_t));
    float *ones = malloc(n * sizeof(float));
    for (size_t v = 0; v < n; ++v) ones[v] = 1.0f;
    joints[9] = 3;
    pd.weights = NULL;
    pd.influence_count = 1;
    pd.influence_handles = joints;
    pd.influence_weights = ones;
    expect(sinew_bbw_pose_create(NULL, &pd, &out), SINEW_ERROR_INDEX_OUT_OF_RANGE,
           "influence slot 0 of vertex 9 names handle 3, but there are only 3");

    /* A triangle collapsed onto a line. */
    float *moved = malloc(n * 3 * sizeof(float));
    memcpy(moved, s.g2.positions, n * 3 * sizeof(float));
    uint32_t a = s.g2.triangles[0], b = s.g2.triangles[1];
    for (int k = 0; k < 3; ++k) moved[3 * a + k] = moved[3 * b + k];
    tri.positions.data = moved;
    pd.weights = s.weights;
    pd.influence_count = 0;
    pd.influence_handles = NULL;
    pd.influence_weights = NULL;
    expect(sinew_bbw_pose_create(NULL, &pd, &out), SINEW_ERROR_DEGENERATE, "triangle 0");
    assert_true(out == (sinew_bbw_pose *)(uintptr_t)1);

    sinew_bbw *unsolved = NULL;
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    sinew_trimesh dom = {{s.g2.positions, n, 0}, s.g2.triangles, s.g2.triangle_count, SINEW_INDEX_U32, 0};
    d.triangles = &dom;
    d.points = (sinew_points){s.rest, 3, 0};
    expect(sinew_bbw_create(NULL, &d, &unsolved), SINEW_OK, NULL);
    expect(sinew_bbw_pose_create_from_bbw(NULL, unsolved, NULL, &out), SINEW_ERROR_INVALID_STATE, "not solved");
    sinew_bbw_destroy(unsolved);
    free(moved);
    free(joints);
    free(ones);
    free(w);
    scene_free(&s);
}

/* ---- memory ---- */

typedef struct sweep_input {
    sinew_bbw_pose_desc desc;
} sweep_input;

static sinew_result create_attempt(sinew_context *ctx, void *user)
{
    sweep_input *in = user;
    sinew_bbw_pose *p = NULL;
    sinew_result r = sinew_bbw_pose_create(ctx, &in->desc, &p);
    sinew_bbw_pose_destroy(p);
    return r;
}

static void allocation_failures_and_pose_time(void **state)
{
    (void)state;
    scene s;
    cube_scene(&s);
    sinew_trimesh tri;
    sinew_tetmesh tet;
    sweep_input in;
    in.desc = pose_desc(&s, &tri, &tet);
    in.desc.cluster_count = 12;
    size_t runs = 0;
    char report[256];
    if (!support_sweep_allocation_failures(create_attempt, &in, &runs, report, sizeof report)) fail_msg("%s", report);
    assert_true(runs > 5);
    /* Pose time never allocates: the handle's allocator sees no call. */
    support_allocator counter = {0};
    sinew_context_desc cd;
    SINEW_INIT(&cd);
    cd.allocator = support_allocator_hooks(&counter);
    sinew_context *ctx = NULL;
    expect(sinew_context_create(&cd, &ctx), SINEW_OK, NULL);
    size_t context_bytes = counter.live_bytes, context_blocks = counter.live;
    sinew_bbw_pose *p = NULL;
    expect(sinew_bbw_pose_create(ctx, &in.desc, &p), SINEW_OK, NULL);
    size_t calls = counter.calls;
    sinew_bbw_pose *keep = s.pose;
    s.pose = p;
    sinew_bbw_pose_position pos[4];
    position(&pos[0], 0, s.rest, 0, 0, 0);
    position(&pos[1], 1, s.rest + 3, 0.8f, 0.7f, 0);
    float t[4 * 16];
    identities(t, 4);
    solve(&s, pos, 2, NULL, t, 5, 0);
    s.pose = keep;
    assert_int_equal(counter.calls, calls);
    sinew_bbw_pose_info info;
    SINEW_INIT(&info);
    sinew_bbw_pose_get_info(p, &info);
    /* The library puts a 64-byte header before each block it asks for. */
    assert_int_equal(info.memory_bytes, (counter.live_bytes - context_bytes) - 64 * (counter.live - context_blocks));
    sinew_bbw_pose_destroy(p);
    sinew_context_destroy(ctx);
    assert_int_equal(counter.live, 0);
    scene_free(&s);
}

/* ---- threads ---- */

typedef struct worker {
    const scene *s;
    const sinew_bbw_pose_position *pos;
    float t[3 * 16];
    sinew_result result;
} worker;

static void *solve_many(void *user)
{
    worker *w = user;
    sinew_bbw_pose_solve_desc sd;
    SINEW_INIT(&sd);
    sd.positions = w->pos;
    sd.position_count = 2;
    size_t bytes = sinew_bbw_pose_scratch_size(w->s->pose, 2);
    void *scratch = malloc(bytes);
    w->result = SINEW_OK;
    /* Frame after frame, warm-started, as a job system would run one character. */
    for (int frame = 0; frame < 50 && w->result == SINEW_OK; ++frame)
        w->result = sinew_bbw_pose_solve(w->s->pose, &sd, w->t, 48, scratch, bytes, NULL);
    free(scratch);
    return NULL;
}

/* One const handle, many threads, each with its own transforms and scratch:
 * every thread gets the serial answer bit for bit. */
static void concurrent_solves_agree(void **state)
{
    (void)state;
    scene s;
    bar_scene(&s, SINEW_BBW_POSE_AFFINE);
    sinew_bbw_pose_position pos[2];
    position(&pos[0], 0, s.rest, 0, 0.5f, 0);
    position(&pos[1], 2, s.rest + 6, 5.0f, 3.0f, 0);
    worker serial = {&s, pos, {0}, SINEW_OK}, workers[4];
    identities(serial.t, 3);
    solve_many(&serial);
    assert_int_equal(serial.result, SINEW_OK);
    pthread_t threads[4];
    for (int i = 0; i < 4; ++i) {
        workers[i] = (worker){&s, pos, {0}, SINEW_ERROR_INVALID_STATE};
        identities(workers[i].t, 3);
        assert_int_equal(pthread_create(&threads[i], NULL, solve_many, &workers[i]), 0);
    }
    for (int i = 0; i < 4; ++i) {
        pthread_join(threads[i], NULL);
        assert_int_equal(workers[i].result, SINEW_OK);
        assert_memory_equal(workers[i].t, serial.t, sizeof serial.t);
    }
    scene_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rigid_motion_2d),
        cmocka_unit_test(rigid_motion_3d),
        cmocka_unit_test(dragged_handle_turns_the_shape),
        cmocka_unit_test(dragged_handle_3d),
        cmocka_unit_test(fixed_transforms_pass_through),
        cmocka_unit_test(warm_start_matches_cold_start),
        cmocka_unit_test(bone_joints_as_positions),
        cmocka_unit_test(cage_vertices_as_positions),
        cmocka_unit_test(similarity_transforms),
        cmocka_unit_test(sparse_weights_match_dense),
        cmocka_unit_test(solve_errors_are_named),
        cmocka_unit_test(undetermined_handle_is_named),
        cmocka_unit_test(create_errors_are_named),
        cmocka_unit_test(allocation_failures_and_pose_time),
        cmocka_unit_test(concurrent_solves_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
