/* Point-to-line binding: the midplane split on a straight limb, the bisecting
 * plane of a bent one, symmetry, max_distance reporting, every error path,
 * allocation failures, cancellation, and the comparison with capsule binding
 * on the libigl arm and glTF characters (figures printed for
 * docs/skin-binding.md; skipped without the shared data). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "fixtures.h"
#include "gltf_reader.h"
#include "support.h"

static sinew_skin_line_bone bone(float hx, float hy, float hz, float tx, float ty, float tz, uint32_t joint,
                                 uint32_t parent)
{
    sinew_skin_line_bone b = {{hx, hy, hz}, {tx, ty, tz}, joint, parent};
    return b;
}

/* The header's band written out: the share across a plane at distance h in
 * a band of half-width w. */
static double across(double h, double w)
{
    if (h >= w) return 0.0;
    double t = h / w;
    return 0.5 - 0.25 * (3.0 * t - t * t * t);
}

/* A closed form: on a straight limb the split is the
 * midplane at the joint, blended by the band, whatever the radial position. */
static void straight_limb_is_the_midplane_split(void **state)
{
    (void)state;
    enum { N = 400 };
    float p[N][3];
    support_rng rng;
    support_rng_seed(&rng, 3);
    for (int i = 0; i < N; ++i) {
        p[i][0] = (float)support_rng_uniform(&rng, -0.3, 2.3);
        p[i][1] = (float)support_rng_uniform(&rng, -0.5, 0.5);
        p[i][2] = (float)support_rng_uniform(&rng, -0.5, 0.5);
    }
    p[0][0] = 1.0f;   /* on the joint plane */
    sinew_skin_line_bone bones[] = {bone(0, 0, 0, 1, 0, 0, 7, SINEW_SKIN_NO_PARENT), bone(1, 0, 0, 2, 0, 0, 3, 0)};
    sinew_points pts = {&p[0][0], N, 0};
    uint32_t j[N * 2];
    float w[N * 2];
    sinew_skin_line_desc d;
    SINEW_INIT(&d);
    d.influence_count = 2;
    d.blend = 0.25f;
    sinew_skin_line_report rep;
    SINEW_INIT(&rep);
    rep.unbound_count = 99;
    assert_int_equal(sinew_skin_point_to_line_weights(NULL, &pts, bones, 2, &d, j, w, &rep), SINEW_OK);
    assert_int_equal(rep.unbound_count, 0);
    assert_int_equal(first_bad_row(j, w, N, 2), SIZE_MAX);
    int blended = 0;
    for (int i = 0; i < N; ++i) {
        double x = p[i][0] - 1.0;   /* signed distance to the midplane, bone 3's side positive */
        double to_upper = x >= 0 ? 1.0 - across(x, 0.25) : across(-x, 0.25);
        assert_float_equal(row_weight(j, w, 2, (size_t)i, 3), to_upper, 1e-6);
        assert_float_equal(row_weight(j, w, 2, (size_t)i, 7), 1.0 - to_upper, 1e-6);
        blended += to_upper > 0 && to_upper < 1;
    }
    assert_true(blended > 20);
    assert_true(row_weight(j, w, 2, 0, 3) == 0.5);
    /* A thin band is the hard split of the midplane. */
    d.blend = 1e-6f;
    assert_int_equal(sinew_skin_point_to_line_weights(NULL, &pts, bones, 2, &d, j, w, NULL), SINEW_OK);
    for (int i = 1; i < N; ++i)
        if (fabs(p[i][0] - 1.0) > 1e-5) assert_true(row_weight(j, w, 2, (size_t)i, p[i][0] > 1.0f ? 3 : 7) == 1.0);
}

/* An elbow bent 90 degrees: the plane bisects the angle, so reflecting a point
 * across it swaps the two bones' weights; points near it blend by the band. */
static void bent_limb_plane_bisects_the_angle(void **state)
{
    (void)state;
    enum { N = 300 };
    float p[2 * N][3];
    support_rng rng;
    support_rng_seed(&rng, 5);
    for (int i = 0; i < N; ++i) {
        p[i][0] = (float)support_rng_uniform(&rng, -0.2, 1.5);
        p[i][1] = (float)support_rng_uniform(&rng, -0.5, 1.2);
        p[i][2] = (float)support_rng_uniform(&rng, -0.3, 0.3);
        /* Reflection across the plane through (1, 0, 0) with normal (1, 1, 0) / sqrt 2. */
        p[N + i][0] = 1.0f - p[i][1];
        p[N + i][1] = 1.0f - p[i][0];
        p[N + i][2] = p[i][2];
    }
    /* Bone 1 goes up along y from the joint (1, 0, 0): the bisecting plane is
     * x + y = 1, and the reflection (x, y) -> (1 - y, 1 - x) maps bone 0 onto
     * bone 1. */
    sinew_skin_line_bone bones[] = {bone(0, 0, 0, 1, 0, 0, 0, SINEW_SKIN_NO_PARENT), bone(1, 0, 0, 1, 1, 0, 1, 0)};
    sinew_points pts = {&p[0][0], 2 * N, 0};
    uint32_t j[2 * N * 2];
    float w[2 * N * 2];
    sinew_skin_line_desc d;
    SINEW_INIT(&d);
    d.influence_count = 2;
    assert_int_equal(sinew_skin_point_to_line_weights(NULL, &pts, bones, 2, &d, j, w, NULL), SINEW_OK);
    assert_int_equal(first_bad_row(j, w, 2 * N, 2), SIZE_MAX);
    for (int i = 0; i < N; ++i) {
        assert_float_equal(row_weight(j, w, 2, (size_t)i, 0), row_weight(j, w, 2, (size_t)(N + i), 1), 1e-6);
        assert_float_equal(row_weight(j, w, 2, (size_t)i, 1), row_weight(j, w, 2, (size_t)(N + i), 0), 1e-6);
    }
    /* Closed form: (0.5, 0.3, 0) lies 0.2 / sqrt 2 on bone 0's side, inside
     * the default band (0.2 of the bones' length 1): bone 1 gets
     * across(0.1414, 0.2). (0.5, 0.8, 0) lies 0.3 / sqrt 2 on bone 1's side,
     * beyond the band: bone 1's alone. */
    const float q[] = {0.5f, 0.3f, 0.0f, 0.5f, 0.8f, 0.0f};
    sinew_points qp = {q, 2, 0};
    assert_int_equal(sinew_skin_point_to_line_weights(NULL, &qp, bones, 2, &d, j, w, NULL), SINEW_OK);
    double h = (1.0 - 0.5 - (double)0.3f) / sqrt(2.0);
    assert_float_equal(row_weight(j, w, 2, 0, 1), across(h, 0.2), 1e-6);
    assert_true(row_weight(j, w, 2, 1, 1) == 1.0);
}

/* A vertex goes to the nearest bone whose subspace holds it: beyond a fork,
 * both children's subspaces hold the points between them and the nearer
 * wins. A parent vertex near both children's planes gives a share to each;
 * two bones naming one joint add their shares. */
static void fork_takes_the_nearer_child_and_shared_joints_sum(void **state)
{
    (void)state;
    sinew_skin_line_bone bones[] = {bone(0, 0, 0, 1, 0, 0, 0, SINEW_SKIN_NO_PARENT), bone(1, 0, 0, 2, 1, 0, 1, 0),
                                    bone(1, 0, 0, 2, -1, 0, 2, 0)};
    const float p[] = {1.8f, 0.3f, 0.0f, 1.8f, -0.5f, 0.0f, 0.9f, 0.0f, 0.0f};
    sinew_points pts = {p, 3, 0};
    uint32_t j[9];
    float w[9];
    sinew_skin_line_desc d;
    SINEW_INIT(&d);
    d.influence_count = 3;
    d.blend = 0.5f;
    assert_int_equal(sinew_skin_point_to_line_weights(NULL, &pts, bones, 3, &d, j, w, NULL), SINEW_OK);
    assert_true(row_weight(j, w, 3, 0, 1) == 1.0);   /* 0.35 from bone 1, 0.78 from bone 2 */
    assert_true(row_weight(j, w, 3, 1, 2) == 1.0);   /* 0.92 from bone 1, 0.21 from bone 2 */
    /* (0.9, 0, 0): 0.1 (1 + 1/sqrt 2) / |(1 + 1/sqrt 2, 1/sqrt 2)| before
     * each child's plane, band 0.5 * min(1, sqrt 2). */
    double r2 = 1.0 / sqrt(2.0), h = 0.1 * (1.0 + r2) / sqrt((1.0 + r2) * (1.0 + r2) + 0.5);
    double a = across(h, 0.5), keep = (1.0 - a) * (1.0 - a), sum = keep + 2.0 * a;
    assert_float_equal(row_weight(j, w, 3, 2, 1), a / sum, 1e-6);
    assert_float_equal(row_weight(j, w, 3, 2, 2), a / sum, 1e-6);
    assert_float_equal(row_weight(j, w, 3, 2, 0), keep / sum, 1e-6);
    bones[2].joint = 1;
    assert_int_equal(sinew_skin_point_to_line_weights(NULL, &pts, bones, 3, &d, j, w, NULL), SINEW_OK);
    assert_float_equal(row_weight(j, w, 3, 2, 1), 2.0 * a / sum, 1e-6);
    assert_true(w[2 * 3 + 2] == 0.0f);
    assert_int_equal(first_bad_row(j, w, 3, 3), SIZE_MAX);
}

static void max_distance_reports_unbound_vertices(void **state)
{
    (void)state;
    const float p[] = {0.5f, 0.1f, 0.0f, 0.5f, 0.9f, 0.0f, 1.5f, 0.0f, 0.3f, 1.5f, 0.0f, 2.0f};
    sinew_skin_line_bone bones[] = {bone(0, 0, 0, 1, 0, 0, 0, SINEW_SKIN_NO_PARENT), bone(1, 0, 0, 2, 0, 0, 1, 0)};
    sinew_points pts = {p, 4, 0};
    uint32_t j[4] = {9, 9, 9, 9};
    float w[4] = {-1, -1, -1, -1};
    uint32_t list[1] = {77};
    sinew_skin_line_report rep = {sizeof(sinew_skin_line_report), list, 1, 0};
    sinew_skin_line_desc d;
    SINEW_INIT(&d);
    d.influence_count = 1;
    d.max_distance = 0.5f;
    assert_int_equal(sinew_skin_point_to_line_weights(NULL, &pts, bones, 2, &d, j, w, &rep),
                     SINEW_ERROR_OUTSIDE_DOMAIN);
    assert_non_null(strstr(sinew_last_error(), "vertex 1 lies farther than max_distance 0.5"));
    assert_non_null(strstr(sinew_last_error(), "2 vertices unbound"));
    assert_int_equal(rep.unbound_count, 2);
    assert_int_equal(list[0], 1);
    for (int i = 0; i < 4; ++i) assert_true(j[i] == 9 && w[i] == -1.0f);
    d.unbound = SINEW_SKIN_UNBOUND_NEAREST;
    assert_int_equal(sinew_skin_point_to_line_weights(NULL, &pts, bones, 2, &d, j, w, &rep), SINEW_OK);
    assert_int_equal(rep.unbound_count, 2);
    assert_true(j[1] == 0 && w[1] == 1.0f && j[3] == 1 && w[3] == 1.0f);
    assert_string_equal(sinew_last_error(), "");
    /* No limit: every vertex is bound. */
    d.max_distance = 0.0f;
    d.unbound = SINEW_SKIN_UNBOUND_REPORT;
    assert_int_equal(sinew_skin_point_to_line_weights(NULL, &pts, bones, 2, &d, j, w, &rep), SINEW_OK);
    assert_int_equal(rep.unbound_count, 0);
}

static void invalid_inputs_are_named(void **state)
{
    (void)state;
    float p[] = {0, 0, 0, 1, 0, 0};
    sinew_points pts = {p, 2, 0};
    sinew_skin_line_bone bones[3] = {bone(0, 0, 0, 1, 0, 0, 0, SINEW_SKIN_NO_PARENT), bone(1, 0, 0, 2, 0, 0, 1, 0),
                                     bone(2, 0, 0, 3, 0, 0, 2, 1)};
    uint32_t j[8] = {5, 5, 5, 5, 5, 5, 5, 5};
    float w[8] = {3, 3, 3, 3, 3, 3, 3, 3};
    sinew_skin_line_desc d;
    SINEW_INIT(&d);
#define EXPECT(call, code, text)                             \
    do {                                                     \
        assert_int_equal((call), (code));                    \
        assert_non_null(strstr(sinew_last_error(), (text))); \
    } while (0)
#define BIND(b, c) sinew_skin_point_to_line_weights(NULL, &pts, (b), (c), &d, j, w, NULL)
    EXPECT(sinew_skin_point_to_line_weights(NULL, NULL, bones, 3, &d, j, w, NULL), SINEW_ERROR_INVALID_ARGUMENT, "NULL");
    EXPECT(BIND(NULL, 3), SINEW_ERROR_INVALID_ARGUMENT, "no bones");
    EXPECT(BIND(bones, 0), SINEW_ERROR_INVALID_ARGUMENT, "no bones");
    EXPECT(BIND(bones, (size_t)UINT32_MAX), SINEW_ERROR_SIZE_OVERFLOW, "bones overflow");
    EXPECT(sinew_skin_point_to_line_weights(NULL, &pts, bones, 3, &d, NULL, w, NULL), SINEW_ERROR_INVALID_ARGUMENT,
           "output joints");
    EXPECT(sinew_skin_point_to_line_weights(NULL, &pts, bones, 3, &d, j, NULL, NULL), SINEW_ERROR_INVALID_ARGUMENT,
           "output weights");
    p[4] = NAN;
    EXPECT(BIND(bones, 3), SINEW_ERROR_NON_FINITE, "mesh vertex 1");
    p[4] = 0;
    bones[2].tail[1] = INFINITY;
    EXPECT(BIND(bones, 3), SINEW_ERROR_NON_FINITE, "bone 2 tail y");
    bones[2].tail[1] = 0;
    bones[1].head[2] = NAN;
    EXPECT(BIND(bones, 3), SINEW_ERROR_NON_FINITE, "bone 1 head z");
    bones[1].head[2] = 0;
    bones[2].parent = 3;
    EXPECT(BIND(bones, 3), SINEW_ERROR_INDEX_OUT_OF_RANGE, "bone 2 names parent 3, but there are only 3 bones");
    bones[2].parent = 2;
    EXPECT(BIND(bones, 3), SINEW_ERROR_INVALID_ARGUMENT, "bone 2 is its own parent");
    bones[0].parent = 2;   /* 0 -> 2 -> 1 -> 0 */
    bones[2].parent = 1;
    EXPECT(BIND(bones, 3), SINEW_ERROR_INVALID_ARGUMENT, "form a cycle");
    bones[0].parent = SINEW_SKIN_NO_PARENT;
    bones[1].tail[0] = 1.0f;   /* head equals tail */
    EXPECT(BIND(bones, 3), SINEW_ERROR_DEGENERATE, "bone 1 has zero length");
    bones[1].tail[0] = 0.0f;   /* folded straight back onto bone 0 */
    EXPECT(BIND(bones, 3), SINEW_ERROR_DEGENERATE, "bone 1 folds back onto its parent bone 0");
    bones[1].tail[0] = 2.0f;
    d.blend = 1.5f;
    EXPECT(BIND(bones, 3), SINEW_ERROR_INVALID_ARGUMENT, "blend 1.5");
    d.blend = -0.1f;
    EXPECT(BIND(bones, 3), SINEW_ERROR_INVALID_ARGUMENT, "blend");
    d.blend = NAN;
    EXPECT(BIND(bones, 3), SINEW_ERROR_NON_FINITE, "blend");
    d.blend = 0;
    d.max_distance = -1;
    EXPECT(BIND(bones, 3), SINEW_ERROR_INVALID_ARGUMENT, "max_distance");
    d.max_distance = INFINITY;
    EXPECT(BIND(bones, 3), SINEW_ERROR_NON_FINITE, "max_distance");
    d.max_distance = 0;
    d.unbound = (sinew_skin_unbound)5;
    EXPECT(BIND(bones, 3), SINEW_ERROR_INVALID_ARGUMENT, "unbound policy 5");
    d.unbound = SINEW_SKIN_UNBOUND_REPORT;
    sinew_skin_line_report rep = {sizeof(sinew_skin_line_report), NULL, 2, 0};
    EXPECT(sinew_skin_point_to_line_weights(NULL, &pts, bones, 3, &d, j, w, &rep), SINEW_ERROR_INVALID_ARGUMENT,
           "array is NULL");
    sinew_points empty = {p, 0, 0};
    EXPECT(sinew_skin_point_to_line_weights(NULL, &empty, bones, 3, &d, j, w, NULL), SINEW_ERROR_INVALID_ARGUMENT,
           "no vertices");
    for (int i = 0; i < 8; ++i) assert_true(j[i] == 5 && w[i] == 3.0f);
    assert_int_equal(BIND(bones, 3), SINEW_OK);
#undef BIND
#undef EXPECT
}

typedef struct sweep_case {
    tube t;
    uint32_t *j;
    float *w;
} sweep_case;

static sinew_result named_failure(sinew_result r)
{
    if (r == SINEW_ERROR_OUT_OF_MEMORY && !strstr(sinew_last_error(), "out of memory allocating "))
        return SINEW_ERROR_INVALID_STATE;
    return r;
}

static sinew_result bind_attempt(sinew_context *ctx, void *user)
{
    sweep_case *c = (sweep_case *)user;
    sinew_points pts = {c->t.positions, c->t.vertex_count, 0};
    sinew_skin_line_bone bones[] = {bone(0, 0, 0, 1, 0, 0, 0, SINEW_SKIN_NO_PARENT), bone(1, 0, 0, 2, 0, 0, 1, 0)};
    return named_failure(sinew_skin_point_to_line_weights(ctx, &pts, bones, 2, NULL, c->j, c->w, NULL));
}

static void allocation_failures_are_clean(void **state)
{
    (void)state;
    sweep_case c;
    c.t = tube_make(5, 6, 2.0f, 0.25f);
    c.j = malloc(c.t.vertex_count * 4 * sizeof *c.j);
    c.w = malloc(c.t.vertex_count * 4 * sizeof *c.w);
    size_t runs = 0;
    char report[256];
    assert_true(support_sweep_allocation_failures(bind_attempt, &c, &runs, report, sizeof report));
    assert_true(runs > 4);
    free(c.j);
    free(c.w);
    tube_free(&c.t);
}

static int cancel_at_once(void *user, const char *stage, float fraction)
{
    (void)fraction;
    ++*(int *)user;
    return strcmp(stage, "skin: point-to-line bind") == 0;
}

static void cancellation_leaves_outputs_untouched(void **state)
{
    (void)state;
    int calls = 0;
    sinew_context_desc cd;
    SINEW_INIT(&cd);
    cd.progress = cancel_at_once;
    cd.progress_user = &calls;
    sinew_context *ctx = NULL;
    assert_int_equal(sinew_context_create(&cd, &ctx), SINEW_OK);
    tube t = tube_make(5, 6, 2.0f, 0.25f);
    sinew_skin_line_bone b = bone(0, 0, 0, 2, 0, 0, 0, SINEW_SKIN_NO_PARENT);
    sinew_points pts = {t.positions, t.vertex_count, 0};
    uint32_t j[30 * 4];
    float w[30 * 4];
    for (int i = 0; i < 120; ++i) j[i] = 3, w[i] = 2;
    sinew_skin_line_report rep = {sizeof(sinew_skin_line_report), NULL, 0, 42};
    assert_int_equal(sinew_skin_point_to_line_weights(ctx, &pts, &b, 1, NULL, j, w, &rep), SINEW_ERROR_CANCELLED);
    assert_int_equal(calls, 1);
    for (int i = 0; i < 120; ++i) assert_true(j[i] == 3 && w[i] == 2.0f);
    assert_int_equal(rep.unbound_count, 42);
    sinew_context_destroy(ctx);
    tube_free(&t);
}

/* ---- Real data: point-to-line against capsules --------------------------------
 * Both binders get the same bone segments (capsules with derived radii, the
 * capsule defaults, unbound vertices bound to the nearest capsule so that
 * both give a full binding) and k = 4. Figures: vertices the capsules left
 * unbound; the mean total-variation distance of each binding's rows from the
 * asset's own weights (0 = the same, 1 = disjoint); and the mean distance, as
 * a fraction of the mesh's bounding-box diagonal, between each binding's
 * pose and the pose the asset's weights give. */

typedef struct rig {
    size_t vertex_count, joint_count, bone_count;
    float *positions;
    double *reference;      /* vertex_count * joint_count dense weights */
    double *skinning;       /* joint_count * 16: a test pose's skinning matrices */
    sinew_skin_line_bone *bones;
    double size;
} rig;

static void rig_free(rig *r)
{
    free(r->positions);
    free(r->reference);
    free(r->skinning);
    free(r->bones);
    memset(r, 0, sizeof *r);
}

static double diagonal(const float *p, size_t n)
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t v = 0; v < n; ++v)
        for (int a = 0; a < 3; ++a) {
            lo[a] = fmin(lo[a], p[3 * v + (size_t)a]);
            hi[a] = fmax(hi[a], p[3 * v + (size_t)a]);
        }
    return sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                (hi[2] - lo[2]) * (hi[2] - lo[2]));
}

/* The libigl arm: joints 0..4 in a chain, bone b from joint b to b + 1 with
 * weight column b; pose: the elbow (joint 2) bent 90 degrees about z. */
static bool rig_arm(rig *r)
{
    char obj[1024], tgf[1024], dmat[1024];
    memset(r, 0, sizeof *r);
    if (!support_data_path("libigl-tutorial-data/arm.obj", obj, sizeof obj) ||
        !support_data_path("libigl-tutorial-data/arm.tgf", tgf, sizeof tgf) ||
        !support_data_path("libigl-tutorial-data/arm-weights.dmat", dmat, sizeof dmat))
        return false;
    support_mesh m;
    float *jp = NULL;
    uint32_t *edges = NULL;
    size_t jc = 0, bc = 0, rows = 0, cols = 0;
    double *wd = NULL;
    assert_true(support_read_obj(obj, &m));
    assert_true(support_read_tgf(tgf, &jp, &jc, &edges, &bc));
    assert_true(support_read_dmat(dmat, &wd, &rows, &cols));
    assert_int_equal(rows, m.vertex_count);
    assert_int_equal(cols, bc);
    r->vertex_count = m.vertex_count;
    r->joint_count = bc;
    r->bone_count = bc;
    r->positions = malloc(3 * m.vertex_count * sizeof(float));
    memcpy(r->positions, m.positions, 3 * m.vertex_count * sizeof(float));
    r->reference = malloc(m.vertex_count * bc * sizeof(double));
    for (size_t v = 0; v < m.vertex_count; ++v)
        for (size_t b = 0; b < bc; ++b) r->reference[v * bc + b] = wd[b * rows + v];
    r->bones = malloc(bc * sizeof *r->bones);
    for (size_t b = 0; b < bc; ++b) {
        const float *h = jp + 3 * edges[2 * b], *t = jp + 3 * edges[2 * b + 1];
        r->bones[b] = bone(h[0], h[1], h[2], t[0], t[1], t[2], (uint32_t)b, SINEW_SKIN_NO_PARENT);
        for (size_t c = 0; c < b; ++c)
            if (edges[2 * c + 1] == edges[2 * b]) r->bones[b].parent = (uint32_t)c;
    }
    r->skinning = calloc(16 * bc, sizeof(double));
    const float *elbow = jp + 3 * 2;
    for (size_t b = 0; b < bc; ++b) {
        double *M = r->skinning + 16 * b;
        M[0] = M[5] = M[10] = M[15] = 1.0;
        if (edges[2 * b] < 2) continue;
        /* 90 degrees about z through the elbow: x' = c - (y - cy), y' = cy + (x - cx). */
        M[0] = 0, M[1] = 1, M[4] = -1, M[5] = 0;
        M[12] = (double)elbow[0] + elbow[1];
        M[13] = (double)elbow[1] - elbow[0];
    }
    r->size = diagonal(r->positions, r->vertex_count);
    free(jp);
    free(edges);
    free(wd);
    support_mesh_free(&m);
    return true;
}

static void invert_affine(const double *m, double *out)
{
    double a = m[0], b = m[4], c = m[8], d = m[1], e = m[5], f = m[9], g = m[2], h = m[6], i = m[10];
    double det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g);
    double inv[9] = {(e * i - f * h) / det, (c * h - b * i) / det, (b * f - c * e) / det,
                     (f * g - d * i) / det, (a * i - c * g) / det, (c * d - a * f) / det,
                     (d * h - e * g) / det, (b * g - a * h) / det, (a * e - b * d) / det};
    memset(out, 0, 16 * sizeof *out);
    for (int r = 0; r < 3; ++r) {
        for (int k = 0; k < 3; ++k) out[4 * k + r] = inv[3 * r + k];
        out[12 + r] = -(inv[3 * r] * m[12] + inv[3 * r + 1] * m[13] + inv[3 * r + 2] * m[14]);
    }
    out[15] = 1.0;
}

static void mul4(const double *a, const double *b, double *out)
{
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r) {
            double s = 0;
            for (int k = 0; k < 4; ++k) s += a[4 * k + r] * b[4 * c + k];
            out[4 * c + r] = s;
        }
}

/* A glTF character: joint positions from the inverse bind matrices; for each
 * joint with a parent joint, a bone from the parent to it naming the parent
 * (joints placed on their parent add no bone); each joint without children
 * gets a bone continuing its incoming bone by half its length. Pose: the
 * animation at mid-duration. */
static bool rig_gltf(rig *r, const char *file)
{
    char path[1024], err[512];
    memset(r, 0, sizeof *r);
    if (!support_data_path(file, path, sizeof path)) return false;
    gltf_model m;
    if (!gltf_load(path, &m, err, sizeof err)) fail_msg("%s: %s", file, err);
    size_t J = m.joint_count, n = m.vertex_count;
    r->vertex_count = n;
    r->joint_count = J;
    r->positions = malloc(3 * n * sizeof(float));
    for (size_t i = 0; i < 3 * n; ++i) r->positions[i] = (float)m.positions[i];
    r->reference = calloc(n * J, sizeof(double));
    for (size_t v = 0; v < n; ++v) {
        double sum = 0;
        for (int s = 0; s < 4; ++s) sum += m.weights[4 * v + (size_t)s];
        for (int s = 0; s < 4; ++s) r->reference[v * J + m.joints[4 * v + (size_t)s]] += m.weights[4 * v + (size_t)s] / sum;
    }
    r->size = diagonal(r->positions, n);
    /* Skin joints' parents: the nearest ancestor node that is a joint. */
    int *joint_of_node = malloc(m.node_count * sizeof(int));
    for (size_t i = 0; i < m.node_count; ++i) joint_of_node[i] = -1;
    for (size_t j = 0; j < J; ++j) joint_of_node[m.joint_nodes[j]] = (int)j;
    int *parent = malloc(J * sizeof(int));
    double *pos = malloc(3 * J * sizeof(double));
    for (size_t j = 0; j < J; ++j) {
        int node = m.nodes[m.joint_nodes[j]].parent;
        while (node >= 0 && joint_of_node[node] < 0) node = m.nodes[node].parent;
        parent[j] = node >= 0 ? joint_of_node[node] : -1;
        double world[16];
        invert_affine(m.inverse_bind + 16 * j, world);
        for (int a = 0; a < 3; ++a) pos[3 * j + (size_t)a] = world[12 + a];
    }
    /* Joints in an order where parents come first. */
    size_t *order = malloc(J * sizeof(size_t)), placed = 0;
    char *done = calloc(J, 1);
    while (placed < J)
        for (size_t j = 0; j < J; ++j)
            if (!done[j] && (parent[j] < 0 || done[parent[j]])) done[j] = 1, order[placed++] = j;
    uint32_t *incoming = malloc(J * sizeof(uint32_t));
    int *children = calloc(J, sizeof(int));
    for (size_t j = 0; j < J; ++j)
        if (parent[j] >= 0) children[parent[j]]++;
    r->bones = malloc(2 * J * sizeof *r->bones);
    size_t nb = 0;
    double eps = 1e-6 * r->size;
    for (size_t o = 0; o < J; ++o) {
        size_t j = order[o];
        incoming[j] = SINEW_SKIN_NO_PARENT;
        if (parent[j] < 0) continue;
        size_t p = (size_t)parent[j];
        const double *a = pos + 3 * p, *b = pos + 3 * j;
        double len = sqrt((b[0] - a[0]) * (b[0] - a[0]) + (b[1] - a[1]) * (b[1] - a[1]) + (b[2] - a[2]) * (b[2] - a[2]));
        if (len <= eps) {
            incoming[j] = incoming[p];
            continue;
        }
        r->bones[nb] = bone((float)a[0], (float)a[1], (float)a[2], (float)b[0], (float)b[1], (float)b[2], (uint32_t)p,
                            incoming[p]);
        incoming[j] = (uint32_t)nb++;
    }
    for (size_t j = 0; j < J; ++j) {
        if (children[j] > 0 || incoming[j] == SINEW_SKIN_NO_PARENT) continue;
        const sinew_skin_line_bone *in = &r->bones[incoming[j]];
        const double *b = pos + 3 * j;
        float t[3];
        for (int a = 0; a < 3; ++a) t[a] = (float)(b[a] + 0.5 * ((double)in->tail[a] - in->head[a]));
        r->bones[nb] = bone((float)b[0], (float)b[1], (float)b[2], t[0], t[1], t[2], (uint32_t)j, incoming[j]);
        nb++;
    }
    r->bone_count = nb;
    double *world = malloc(16 * m.node_count * sizeof(double));
    gltf_pose(&m, 0.5 * m.duration, world);
    r->skinning = malloc(16 * J * sizeof(double));
    for (size_t j = 0; j < J; ++j) mul4(world + 16 * (size_t)m.joint_nodes[j], m.inverse_bind + 16 * j, r->skinning + 16 * j);
    free(world);
    free(joint_of_node);
    free(parent);
    free(pos);
    free(order);
    free(done);
    free(incoming);
    free(children);
    gltf_free(&m);
    return true;
}

/* Blends vertex v by dense weights w (joint_count per vertex). */
static void pose_vertex(const rig *r, const double *w, size_t v, double out[3])
{
    const float *p = r->positions + 3 * v;
    out[0] = out[1] = out[2] = 0;
    for (size_t j = 0; j < r->joint_count; ++j) {
        if (w[j] == 0) continue;
        const double *M = r->skinning + 16 * j;
        for (int a = 0; a < 3; ++a)
            out[a] += w[j] * (M[a] * p[0] + M[4 + a] * p[1] + M[8 + a] * p[2] + M[12 + a]);
    }
}

typedef struct quality {
    double tv, pose;
} quality;

static quality compare_with_reference(const rig *r, const uint32_t *j, const float *w, size_t k)
{
    quality q = {0, 0};
    double *dense = malloc(r->joint_count * sizeof(double));
    for (size_t v = 0; v < r->vertex_count; ++v) {
        memset(dense, 0, r->joint_count * sizeof(double));
        for (size_t s = 0; s < k; ++s) dense[j[v * k + s]] += w[v * k + s];
        double tv = 0;
        for (size_t b = 0; b < r->joint_count; ++b) tv += fabs(dense[b] - r->reference[v * r->joint_count + b]);
        q.tv += 0.5 * tv;
        double a[3], b[3];
        pose_vertex(r, dense, v, a);
        pose_vertex(r, r->reference + v * r->joint_count, v, b);
        q.pose += sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
    }
    free(dense);
    q.tv /= (double)r->vertex_count;
    q.pose /= (double)r->vertex_count * r->size;
    return q;
}

static void compare_binders(const char *name, rig *r)
{
    size_t n = r->vertex_count, k = 4;
    sinew_points pts = {r->positions, n, 0};
    uint32_t *j = malloc(n * k * sizeof *j);
    float *w = malloc(n * k * sizeof *w);
    sinew_skin_capsule *caps = malloc(r->bone_count * sizeof *caps);
    for (size_t b = 0; b < r->bone_count; ++b) {
        memcpy(caps[b].head, r->bones[b].head, sizeof caps[b].head);
        memcpy(caps[b].tail, r->bones[b].tail, sizeof caps[b].tail);
        caps[b].radius = 0.0f;
        caps[b].joint = r->bones[b].joint;
    }
    sinew_skin_capsule_desc cd;
    SINEW_INIT(&cd);
    cd.unbound = SINEW_SKIN_UNBOUND_NEAREST;
    sinew_skin_capsule_report crep;
    SINEW_INIT(&crep);
    assert_int_equal(sinew_skin_capsule_weights(NULL, &pts, caps, r->bone_count, &cd, j, w, &crep), SINEW_OK);
    assert_int_equal(first_bad_row(j, w, n, k), SIZE_MAX);
    quality qc = compare_with_reference(r, j, w, k);
    sinew_skin_line_report lrep;
    SINEW_INIT(&lrep);
    assert_int_equal(sinew_skin_point_to_line_weights(NULL, &pts, r->bones, r->bone_count, NULL, j, w, &lrep), SINEW_OK);
    assert_int_equal(first_bad_row(j, w, n, k), SIZE_MAX);
    assert_int_equal(lrep.unbound_count, 0);
    quality ql = compare_with_reference(r, j, w, k);
    printf("binders on %s (%zu vertices, %zu bones): capsules unbound %zu, weight distance %.3f, pose error %.4f; "
           "point-to-line unbound %zu, weight distance %.3f, pose error %.4f\n",
           name, n, r->bone_count, crep.unbound_count, qc.tv, qc.pose, lrep.unbound_count, ql.tv, ql.pose);
    /* Sanity of the figures, not a ranking: each binding is a real binding. */
    assert_true(ql.tv < 0.6 && qc.tv < 0.6);
    free(j);
    free(w);
    free(caps);
}

static void compare_on_the_arm(void **state)
{
    (void)state;
    rig r;
    if (!rig_arm(&r)) skip();
    compare_binders("libigl arm", &r);
    rig_free(&r);
}

/* RiggedFigure: the glTF character the test reader loads (Fox.gltf has no
 * index buffer, which the reader does not handle). */
static void compare_on_a_gltf_character(void **state)
{
    (void)state;
    rig r;
    if (!rig_gltf(&r, "gltf/RiggedFigure.gltf")) skip();
    compare_binders("RiggedFigure", &r);
    rig_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(straight_limb_is_the_midplane_split),
        cmocka_unit_test(bent_limb_plane_bisects_the_angle),
        cmocka_unit_test(fork_takes_the_nearer_child_and_shared_joints_sum),
        cmocka_unit_test(max_distance_reports_unbound_vertices),
        cmocka_unit_test(invalid_inputs_are_named),
        cmocka_unit_test(allocation_failures_are_clean),
        cmocka_unit_test(cancellation_leaves_outputs_untouched),
        cmocka_unit_test(compare_on_the_arm),
        cmocka_unit_test(compare_on_a_gltf_character),
    };
    return cmocka_run_group_tests_name("skin tools: point-to-line bind", tests, NULL, NULL);
}
