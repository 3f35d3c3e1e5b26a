/* Placement of lattices along a path over a scene: rigid placement on flat
 * ground, contact on a staircase, bridging a gap with springs, nothing below
 * the scene, no fold-over for F1 on a height field, chord/arc-length placement
 * against an independent measurement of the terrain, editing, animation ends,
 * miss policies, validation, allocation failures and cancellation. Scenes are
 * built here procedurally, with their heights known in closed form. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "support.h"

/* ---- Procedural scenes ---------------------------------------------------------- */

typedef struct scene {
    float *pos;
    size_t vertex_count, vertex_cap;
    uint32_t *tri;
    size_t triangle_count, triangle_cap;
} scene;

static uint32_t add_vertex(scene *s, double x, double y, double z)
{
    if (s->vertex_count == s->vertex_cap) {
        s->vertex_cap = s->vertex_cap ? 2 * s->vertex_cap : 64;
        s->pos = realloc(s->pos, s->vertex_cap * 3 * sizeof(float));
        assert_non_null(s->pos);
    }
    float *p = &s->pos[3 * s->vertex_count];
    p[0] = (float)x, p[1] = (float)y, p[2] = (float)z;
    return (uint32_t)s->vertex_count++;
}

static void add_triangle(scene *s, uint32_t a, uint32_t b, uint32_t c)
{
    if (s->triangle_count == s->triangle_cap) {
        s->triangle_cap = s->triangle_cap ? 2 * s->triangle_cap : 64;
        s->tri = realloc(s->tri, s->triangle_cap * 3 * sizeof(uint32_t));
        assert_non_null(s->tri);
    }
    uint32_t *t = &s->tri[3 * s->triangle_count++];
    t[0] = a, t[1] = b, t[2] = c;
}

/* A quad a-b-c-d as two triangles. */
static void add_quad(scene *s, const double a[3], const double b[3], const double c[3], const double d[3])
{
    uint32_t i = add_vertex(s, a[0], a[1], a[2]), j = add_vertex(s, b[0], b[1], b[2]);
    uint32_t k = add_vertex(s, c[0], c[1], c[2]), l = add_vertex(s, d[0], d[1], d[2]);
    add_triangle(s, i, j, k);
    add_triangle(s, i, k, l);
}

/* Horizontal rectangle [x0, x1] x [y0, y1] at height z. */
static void add_floor(scene *s, double x0, double x1, double y0, double y1, double z)
{
    double a[3] = {x0, y0, z}, b[3] = {x1, y0, z}, c[3] = {x1, y1, z}, d[3] = {x0, y1, z};
    add_quad(s, a, b, c, d);
}

/* Vertical wall at x from z0 to z1 across [y0, y1]. */
static void add_wall(scene *s, double x, double y0, double y1, double z0, double z1)
{
    double a[3] = {x, y0, z0}, b[3] = {x, y1, z0}, c[3] = {x, y1, z1}, d[3] = {x, y0, z1};
    add_quad(s, a, b, c, d);
}

static void scene_free(scene *s)
{
    free(s->pos);
    free(s->tri);
    memset(s, 0, sizeof *s);
}

static sinew_trimesh scene_mesh(const scene *s)
{
    sinew_trimesh m = {{s->pos, s->vertex_count, 0}, s->tri, s->triangle_count, SINEW_INDEX_U32, 0};
    return m;
}

/* Staircase climbing along x: tread k covers [k, k + 1) at height k * RISE. */
#define STEPS 10
#define RISE 0.3
static void make_staircase(scene *s)
{
    for (int k = 0; k < STEPS; ++k) {
        add_floor(s, k, k + 1, -5, 5, k * RISE);
        if (k > 0) add_wall(s, k, -5, 5, (k - 1) * RISE, k * RISE);
    }
}
static double staircase_height(double x)
{
    return floor(x) * RISE;
}

/* Ground at 0 with two boxes of height GAP_H: x < 0 and x > GAP_W. */
#define GAP_H 1.0
#define GAP_W 2.0
static void make_gap(scene *s)
{
    add_floor(s, -10, 0, -5, 5, GAP_H);
    add_floor(s, GAP_W, 12, -5, 5, GAP_H);
    add_floor(s, 0, GAP_W, -5, 5, 0.0);
    add_wall(s, 0, -5, 5, 0, GAP_H);
    add_wall(s, GAP_W, -5, 5, 0, GAP_H);
}
static double gap_height(double x)
{
    return x < 0 || x > GAP_W ? GAP_H : 0.0;
}

/* Bumpy height field on a regular grid over [-B, B]^2, N cells a side. */
#define BUMPY_N 64
#define BUMPY_B 10.0
static double bumpy_f(double x, double y)
{
    return 0.4 * sin(1.1 * x) * cos(0.8 * y) + 0.25 * sin(0.5 * x + 1.3 * y);
}
static void make_bumpy(scene *s)
{
    double h = 2 * BUMPY_B / BUMPY_N;
    for (int j = 0; j <= BUMPY_N; ++j)
        for (int i = 0; i <= BUMPY_N; ++i) {
            double x = -BUMPY_B + i * h, y = -BUMPY_B + j * h;
            add_vertex(s, x, y, (float)bumpy_f(x, y));
        }
    for (int j = 0; j < BUMPY_N; ++j)
        for (int i = 0; i < BUMPY_N; ++i) {
            uint32_t a = (uint32_t)(i + (BUMPY_N + 1) * j), b = a + 1, c = a + BUMPY_N + 2, d = a + BUMPY_N + 1;
            add_triangle(s, a, b, c);
            add_triangle(s, a, c, d);
        }
}
/* The triangulated height at (x, y): the cell's triangle, barycentric. */
static double bumpy_height(double x, double y)
{
    double h = 2 * BUMPY_B / BUMPY_N;
    double fx = (x + BUMPY_B) / h, fy = (y + BUMPY_B) / h;
    int i = (int)floor(fx), j = (int)floor(fy);
    if (i < 0) i = 0;
    if (j < 0) j = 0;
    if (i >= BUMPY_N) i = BUMPY_N - 1;
    if (j >= BUMPY_N) j = BUMPY_N - 1;
    double s = fx - i, t = fy - j;
    double x0 = -BUMPY_B + i * h, y0 = -BUMPY_B + j * h;
    double za = (float)bumpy_f(x0, y0), zb = (float)bumpy_f(x0 + h, y0);
    double zc = (float)bumpy_f(x0 + h, y0 + h), zd = (float)bumpy_f(x0, y0 + h);
    /* Triangles (a, b, c) below the diagonal s >= t, (a, c, d) above it. */
    if (s >= t) return za + s * (zb - za) + t * (zc - zb);
    return za + t * (zd - za) + s * (zc - zd);
}

/* ---- Helpers -------------------------------------------------------------------- */

static sinew_placement_desc straight_desc(const scene *s, const float *path, size_t path_count)
{
    sinew_placement_desc d;
    SINEW_INIT(&d);
    d.path.data = path;
    d.path.count = path_count;
    d.width = 0.5f;
    d.height = 0.4f;
    d.scene = scene_mesh(s);
    return d;
}

static sinew_placement *create_ok(const sinew_placement_desc *d)
{
    sinew_placement *p = NULL;
    sinew_result r = sinew_placement_create(NULL, d, &p);
    if (r != SINEW_OK) fail_msg("create failed: %s: %s", sinew_result_string(r), sinew_last_error());
    assert_non_null(p);
    return p;
}

/* All lattice control points (3 floats each); caller frees. */
static float *lattice_points(const sinew_placement *p, sinew_lattice_info *info)
{
    const sinew_lattice *lat = sinew_placement_lattice(p);
    assert_non_null(lat);
    assert_int_equal(sinew_lattice_get_info(lat, info), SINEW_OK);
    float *pts = malloc(info->point_count * 3 * sizeof(float));
    assert_non_null(pts);
    assert_int_equal(sinew_lattice_points(lat, pts, 0, 0, info->point_count), SINEW_OK);
    return pts;
}

static void expect_error(sinew_result got, sinew_result want, const char *fragment)
{
    if (got != want)
        fail_msg("expected %s, got %s (%s)", sinew_result_string(want), sinew_result_string(got), sinew_last_error());
    if (fragment && !strstr(sinew_last_error(), fragment))
        fail_msg("message \"%s\" does not mention \"%s\"", sinew_last_error(), fragment);
}

/* Greville abscissa of control point i of n, order o, clamped uniform knots. */
static double ref_greville(int n, int o, int i)
{
    double sum = 0.0;
    for (int k = 1; k < o; ++k) {
        int j = i + k, p = o - 1;
        sum += j <= p ? 0.0 : j >= n ? 1.0 : (double)(j - p) / (n - p);
    }
    return sum / (o - 1);
}

/* ---- Flat ground: a rigid placement ---------------------------------------------- */

static void flat_ground_is_rigid(void **state)
{
    (void)state;
    scene s = {0};
    add_floor(&s, -20, 20, -20, 20, 0.0);
    /* A path at height 5 looking down, along the direction (0.6, 0.8), with a
     * collinear middle point. */
    const float path[9] = {1, 2, 5, 1 + 4 * 0.6f, 2 + 4 * 0.8f, 5, 1 + 8 * 0.6f, 2 + 8 * 0.8f, 5};
    sinew_placement_desc d = straight_desc(&s, path, 3);
    d.width = 1.0f;
    d.height = 0.5f;
    for (int volume = 0; volume < 2; ++volume) {
        d.volume = (sinew_placement_volume)volume;
        sinew_placement *p = create_ok(&d);
        sinew_placement_info info;
        SINEW_INIT(&info);
        assert_int_equal(sinew_placement_get_info(p, &info), SINEW_OK);
        assert_float_equal(info.contact_length, 8.0, 1e-4);
        assert_float_equal(info.path_length, 8.0, 1e-4);
        assert_float_equal(info.max_width, 1.0, 1e-6);
        assert_float_equal(info.max_height, 0.5, 1e-6);
        assert_int_equal(info.misses, 0);
        assert_float_equal(info.up[2], 1.0, 0.0);
        /* The rest box x in [0, 8], y in [-1, 1], z in [0, 0.5] is carried
         * rigidly onto the path: origin (1, 2, 0), axes T, N = T x V, up. */
        const double T[3] = {0.6, 0.8, 0}, N[3] = {-0.8, 0.6, 0}, U[3] = {0, 0, 1}, O[3] = {1, 2, 0};
        const sinew_lattice *lat = sinew_placement_lattice(p);
        support_rng rng;
        support_rng_seed(&rng, 7);
        enum { COUNT = 200 };
        float in[3 * COUNT], out[3 * COUNT];
        for (int i = 0; i < COUNT; ++i) {
            in[3 * i] = (float)support_rng_uniform(&rng, 0, 8);
            in[3 * i + 1] = (float)support_rng_uniform(&rng, -1, 1);
            in[3 * i + 2] = (float)support_rng_uniform(&rng, 0, 0.5);
        }
        sinew_points view = {in, COUNT, 0};
        assert_int_equal(sinew_lattice_deform(lat, &view, NULL, out, 0, NULL, 0, 0, COUNT), SINEW_OK);
        for (int i = 0; i < COUNT; ++i)
            for (int c = 0; c < 3; ++c) {
                double want = O[c] + in[3 * i] * T[c] + in[3 * i + 1] * N[c] + in[3 * i + 2] * U[c];
                assert_float_equal(out[3 * i + c], want, 2e-4);
            }
        /* Every contact control point lies on the ground; layer k sits at
         * height g_k * h. */
        sinew_lattice_info li;
        SINEW_INIT(&li);
        float *pts = lattice_points(p, &li);
        for (uint32_t k = 0; k < li.count[2]; ++k)
            for (size_t c = 0; c < (size_t)li.count[0] * li.count[1]; ++c)
                assert_float_equal(pts[3 * (c + (size_t)li.count[0] * li.count[1] * k) + 2],
                                   0.5 * ref_greville((int)li.count[2], (int)li.order[2], (int)k), 1e-5);
        free(pts);
        /* Nothing to relax on flat ground. */
        sinew_placement_relax_report rep;
        SINEW_INIT(&rep);
        assert_int_equal(sinew_placement_relax(NULL, p, NULL, &rep), SINEW_OK);
        assert_int_equal(rep.steps, 0);
        assert_float_equal(rep.max_lift, 0.0, 0.0);
        sinew_placement_destroy(p);
    }
    scene_free(&s);
}

/* ---- Staircase: contact points rest on the treads --------------------------------- */

static void staircase_contact_on_treads(void **state)
{
    (void)state;
    scene s = {0};
    make_staircase(&s);
    const float path[6] = {0.05f, 0, 5, 9.95f, 0, 5};
    sinew_placement_desc d = straight_desc(&s, path, 2);
    d.count[0] = 40;
    d.count[1] = 5;
    sinew_placement *p = create_ok(&d);
    sinew_lattice_info li;
    SINEW_INIT(&li);
    float *pts = lattice_points(p, &li);
    size_t on_tread = 0;
    for (size_t c = 0; c < (size_t)li.count[0] * li.count[1]; ++c) {
        const float *q = &pts[3 * c];
        assert_true(q[0] >= 0.05f - 1e-4f && q[0] <= 9.95f + 1e-4f);
        assert_true(fabsf(q[1]) <= 0.5f + 1e-5f);
        /* A point on a riser's line could belong to either tread. */
        if (fabs(q[0] - floor(q[0] + 0.5)) < 1e-4) continue;
        assert_float_equal(q[2], staircase_height(q[0]), 1e-4);
        ++on_tread;
    }
    assert_true(on_tread > li.count[0] * li.count[1] * 3 / 4);
    /* The contact surface itself: where every control point of a span's
     * support lies on one tread, it is that tread (partition of unity). */
    enum { SAMPLES = 400 };
    float prm[3 * SAMPLES], out[3 * SAMPLES];
    for (int i = 0; i < SAMPLES; ++i) prm[3 * i] = (float)i / (SAMPLES - 1), prm[3 * i + 1] = 0.5f, prm[3 * i + 2] = 0;
    sinew_points view = {prm, SAMPLES, 0};
    assert_int_equal(sinew_lattice_evaluate(sinew_placement_lattice(p), &view, out, 0, NULL, 0, 0, SAMPLES), SINEW_OK);
    size_t checked = 0;
    for (int i = 0; i < SAMPLES; ++i) {
        double u = prm[3 * i];
        int cells = (int)li.count[0] - (int)li.order[0] + 1;
        int span = (int)fmin(floor(u * cells), cells - 1);
        double z0 = -1;
        bool one_tread = true;
        for (int a = span; a < span + (int)li.order[0]; ++a)
            for (uint32_t j = 0; j < li.count[1]; ++j) {
                double z = pts[3 * (a + li.count[0] * j) + 2];
                if (z0 < 0) z0 = z;
                if (fabs(z - z0) > 1e-4) one_tread = false;
            }
        if (!one_tread) continue;
        assert_float_equal(out[3 * i + 2], z0, 1e-4);
        assert_float_equal(out[3 * i + 2], staircase_height(out[3 * i]), 1e-4);
        ++checked;
    }
    assert_true(checked > SAMPLES / 4);
    free(pts);
    sinew_placement_destroy(p);
    scene_free(&s);
}

/* ---- Springs bridge a gap; nothing sinks ------------------------------------------ */

/* Height of the middle of the gap's contact points after relaxing with the
 * given neighbourhood (0 = no relaxation). */
static double gap_middle_height(uint32_t neighbourhood, sinew_placement_relax_report *rep)
{
    scene s = {0};
    make_gap(&s);
    const float path[6] = {-4, 0, 5, 6, 0, 5};
    sinew_placement_desc d = straight_desc(&s, path, 2);
    d.count[0] = 40;
    d.count[1] = 5;
    sinew_placement *p = create_ok(&d);
    if (neighbourhood) {
        sinew_placement_relax_desc rd;
        SINEW_INIT(&rd);
        rd.neighbourhood = neighbourhood;
        sinew_result r = sinew_placement_relax(NULL, p, &rd, rep);
        if (r != SINEW_OK) fail_msg("relax: %s: %s", sinew_result_string(r), sinew_last_error());
    }
    sinew_lattice_info li;
    SINEW_INIT(&li);
    float *pts = lattice_points(p, &li);
    float *lifts = malloc(li.count[0] * li.count[1] * sizeof(float));
    assert_int_equal(sinew_placement_lifts(p, lifts, 0, 0, (size_t)li.count[0] * li.count[1]), SINEW_OK);
    double best = -1, best_dx = 1e9;
    for (size_t c = 0; c < (size_t)li.count[0] * li.count[1]; ++c) {
        const float *q = &pts[3 * c];
        /* Never below the scene, never below the ray hit. */
        assert_true(q[2] >= gap_height(q[0]) - 1e-4);
        assert_true(lifts[c] >= 0.0f);
        double dx = fabs(q[0] - GAP_W / 2);
        if (dx < best_dx) best_dx = dx, best = q[2];
    }
    free(lifts);
    free(pts);
    sinew_placement_destroy(p);
    scene_free(&s);
    return best;
}

static void springs_bridge_a_gap(void **state)
{
    (void)state;
    sinew_placement_relax_report tight, loose;
    SINEW_INIT(&tight);
    SINEW_INIT(&loose);
    double unrelaxed = gap_middle_height(0, NULL);
    double small = gap_middle_height(1, &tight);
    double large = gap_middle_height(8, &loose);
    print_message("gap middle: %g unrelaxed, %g (1 ring, %u steps), %g (8 rings, %u steps)\n", unrelaxed, small,
                  tight.steps, large, loose.steps);
    /* Without springs the contact follows the gap's floor. */
    assert_float_equal(unrelaxed, 0.0, 1e-4);
    assert_true(tight.steps > 0 && loose.steps > 0);
    assert_true(loose.time_step > 0.0f);
    /* Springs lift the middle of the gap, a larger neighbourhood more so. */
    if (!(large > 0.9 * GAP_H)) fail_msg("large neighbourhood bridges only to %g", large);
    if (!(small > 0.3 * GAP_H)) fail_msg("small neighbourhood bridges only to %g", small);
    if (!(large > small + 0.1)) fail_msg("looser contact expected from the larger neighbourhood: %g vs %g", large, small);
    /* With the default damping the bridge does not overshoot the boxes. */
    assert_true(loose.max_lift <= GAP_H + 1e-3);
    assert_true(loose.max_lift > 0.5f);
}

static void nothing_sinks_on_bumpy_terrain(void **state)
{
    (void)state;
    scene s = {0};
    make_bumpy(&s);
    const float path[12] = {-7, -3, 6, -2, 2, 6, 3, -2, 6, 7, 3, 6};
    sinew_placement_desc d = straight_desc(&s, path, 4);
    d.path_kind = SINEW_PLACEMENT_PATH_BSPLINE;
    d.width = 1.2f;
    d.count[0] = 32;
    d.count[1] = 7;
    for (int volume = 0; volume < 2; ++volume) {
        d.volume = (sinew_placement_volume)volume;
        sinew_placement *p = create_ok(&d);
        for (int pass = 0; pass < 2; ++pass) {
            sinew_lattice_info li;
            SINEW_INIT(&li);
            float *pts = lattice_points(p, &li);
            size_t columns = (size_t)li.count[0] * li.count[1];
            for (size_t c = 0; c < columns; ++c) {
                const float *q = &pts[3 * c];
                double floor_z = bumpy_height(q[0], q[1]);
                if (q[2] < floor_z - 1e-4) fail_msg("contact point %zu is %g below the terrain", c, floor_z - q[2]);
                /* Before relaxing, every contact point is a ray hit. */
                if (pass == 0) assert_float_equal(q[2], floor_z, 1e-4);
            }
            free(pts);
            if (pass == 0) {
                sinew_placement_relax_desc rd;
                SINEW_INIT(&rd);
                rd.neighbourhood = 3;
                rd.angle_degrees = 5;
                sinew_placement_relax_report rep;
                SINEW_INIT(&rep);
                sinew_result r = sinew_placement_relax(NULL, p, &rd, &rep);
                if (r != SINEW_OK) fail_msg("relax: %s: %s", sinew_result_string(r), sinew_last_error());
                /* The springs did lift part of the layer off the valleys. */
                assert_true(rep.steps > 0);
                assert_true(rep.max_lift > 0.01f);
            }
        }
        sinew_placement_destroy(p);
    }
    scene_free(&s);
}

/* ---- F1 does not fold on a height field -------------------------------------------- */

static void extrusion_never_folds_on_height_field(void **state)
{
    (void)state;
    scene s = {0};
    make_bumpy(&s);
    const float straight[6] = {-8, 0.5f, 6, 8, 0.5f, 6};
    const float curved[12] = {-7, -3, 6, -2, 2, 6, 3, -2, 6, 7, 3, 6};
    for (int which = 0; which < 2; ++which) {
        sinew_placement_desc d = straight_desc(&s, which ? curved : straight, which ? 4 : 2);
        d.path_kind = which ? SINEW_PLACEMENT_PATH_BSPLINE : SINEW_PLACEMENT_PATH_POLYLINE;
        d.width = 1.0f;
        d.height = 0.8f;
        float hs[6] = {1, 2, 0.5f, 1, 1.5f, 1};
        d.height_scale.values = hs;
        d.height_scale.count[0] = 3;
        d.height_scale.count[1] = 2;
        d.count[0] = 32;
        d.count[1] = 6;
        sinew_placement *p = create_ok(&d);
        for (int pass = 0; pass < 2; ++pass) {
            sinew_lattice_fold_report rep;
            SINEW_INIT(&rep);
            assert_int_equal(sinew_lattice_check_folds(NULL, sinew_placement_lattice(p), 4, NULL, 0, &rep), SINEW_OK);
            if (rep.cells_may_fold != 0)
                fail_msg("path %d pass %d: %zu cells may fold (min coefficient %g)", which, pass, rep.cells_may_fold,
                         (double)rep.min_coefficient);
            assert_true(rep.min_sampled_det > 0.0f);
            if (pass == 0) {
                sinew_result r = sinew_placement_relax(NULL, p, NULL, NULL);
                assert_true(r == SINEW_OK);
            }
        }
        sinew_placement_destroy(p);
    }
    scene_free(&s);
}

/* ---- Chord length along u, arc length along v, measured independently ------------- */

static void parameterisation_follows_the_terrain(void **state)
{
    (void)state;
    scene s = {0};
    make_bumpy(&s);
    const float y0 = 0.3f;
    const float path[6] = {-8, y0, 6, 8, y0, 6};
    sinew_placement_desc d = straight_desc(&s, path, 2);
    d.width = 1.5f;
    d.count[0] = 30;
    d.count[1] = 7;
    d.oversample = 16;
    sinew_placement *p = create_ok(&d);
    sinew_lattice_info li;
    SINEW_INIT(&li);
    float *pts = lattice_points(p, &li);
    /* Reference: the chord length of the terrain along the middle line y = y0,
     * sampled densely here from the closed-form height field. */
    enum { DENSE = 20000 };
    static double cum[DENSE + 1];
    cum[0] = 0;
    for (int k = 1; k <= DENSE; ++k) {
        double xa = -8 + 16.0 * (k - 1) / DENSE, xb = -8 + 16.0 * k / DENSE;
        double dz = bumpy_height(xb, y0) - bumpy_height(xa, y0);
        cum[k] = cum[k - 1] + sqrt((xb - xa) * (xb - xa) + dz * dz);
    }
    sinew_placement_info info;
    SINEW_INIT(&info);
    assert_int_equal(sinew_placement_get_info(p, &info), SINEW_OK);
    assert_float_equal(info.contact_length, cum[DENSE], 2e-3 * cum[DENSE]);
    double spacing = cum[DENSE] / (li.count[0] - 1);
    for (uint32_t i = 0; i < li.count[0]; ++i) {
        for (uint32_t j = 0; j < li.count[1]; ++j) {
            const float *q = &pts[3 * (i + li.count[0] * j)];
            /* On the terrain, on the ruled surface, in the column's plane. */
            assert_float_equal(q[2], bumpy_height(q[0], q[1]), 1e-4);
            assert_true(fabsf(q[1] - y0) <= 1.5f + 1e-4f);
            assert_float_equal(q[0], pts[3 * i], 1e-4);
        }
        /* Column i sits where the middle line's chord length reaches g_i L. */
        double x = pts[3 * i];
        int k = (int)((x + 8) / 16 * DENSE);
        if (k < 0) k = 0;
        if (k > DENSE) k = DENSE;
        double g = ref_greville((int)li.count[0], (int)li.order[0], (int)i);
        if (fabs(cum[k] - g * cum[DENSE]) > 0.05 * spacing)
            fail_msg("column %u: chord length %g, expected %g", i, cum[k], g * cum[DENSE]);
        /* Row j sits where the column's cross-section arc length reaches g_j of it. */
        double total = 0, prev_y = y0 - 1.5, prev_z = bumpy_height(x, prev_y);
        enum { CROSS = 4000 };
        static double ccum[CROSS + 1];
        ccum[0] = 0;
        for (int m = 1; m <= CROSS; ++m) {
            double yy = y0 - 1.5 + 3.0 * m / CROSS, zz = bumpy_height(x, yy);
            total += sqrt((yy - prev_y) * (yy - prev_y) + (zz - prev_z) * (zz - prev_z));
            ccum[m] = total;
            prev_y = yy, prev_z = zz;
        }
        for (uint32_t j = 0; j < li.count[1]; ++j) {
            double yy = pts[3 * (i + li.count[0] * j) + 1];
            int m = (int)((yy - (y0 - 1.5)) / 3.0 * CROSS + 0.5);
            if (m < 0) m = 0;
            if (m > CROSS) m = CROSS;
            double gj = ref_greville((int)li.count[1], (int)li.order[1], (int)j);
            if (fabs(ccum[m] - gj * total) > 0.02 * total / (li.count[1] - 1))
                fail_msg("column %u row %u: arc length %g, expected %g", i, j, ccum[m], gj * total);
        }
    }
    free(pts);
    sinew_placement_destroy(p);
    scene_free(&s);
}

/* ---- Width and height functions ------------------------------------------------------ */

static void width_and_height_functions(void **state)
{
    (void)state;
    scene s = {0};
    add_floor(&s, -20, 20, -20, 20, 0.0);
    const float path[6] = {0, 0, 3, 10, 0, 3};
    sinew_placement_desc d = straight_desc(&s, path, 2);
    d.width = 1.0f;
    d.height = 1.0f;
    /* d(u): linear from 1 to 2 (two control values). h(u, v): 0.5 at v = 0,
     * 1.5 at v = 1 (constant in u). */
    const float ws[2] = {1, 2};
    const float hs[4] = {0.5f, 0.5f, 1.5f, 1.5f};
    d.width_scale.values = ws;
    d.width_scale.count[0] = 2;
    d.width_scale.count[1] = 50; /* ignored: d depends on u only */
    d.height_scale.values = hs;
    d.height_scale.count[0] = 2;
    d.height_scale.count[1] = 2;
    sinew_placement *p = create_ok(&d);
    sinew_placement_info info;
    SINEW_INIT(&info);
    assert_int_equal(sinew_placement_get_info(p, &info), SINEW_OK);
    assert_float_equal(info.max_width, 2.0, 1e-5);
    assert_float_equal(info.max_height, 1.5, 1e-5);
    sinew_lattice_info li;
    SINEW_INIT(&li);
    float *pts = lattice_points(p, &li);
    for (uint32_t i = 0; i < li.count[0]; ++i)
        for (uint32_t j = 0; j < li.count[1]; ++j) {
            const float *q = &pts[3 * (i + li.count[0] * j)];
            double dx = q[0] / 10.0;
            /* The offset at path fraction x / 10 is 1 + x / 10. */
            double gj = ref_greville((int)li.count[1], (int)li.order[1], (int)j);
            assert_float_equal(q[1], (2 * gj - 1) * (1 + dx), 1e-4);
            const float *top = &pts[3 * (i + li.count[0] * (j + (size_t)li.count[1] * (li.count[2] - 1)))];
            assert_float_equal(top[2], 0.5 + gj, 1e-4);
        }
    free(pts);
    sinew_placement_destroy(p);
    scene_free(&s);
}

/* ---- Editing ------------------------------------------------------------------------- */

static void push_moves_the_column(void **state)
{
    (void)state;
    scene s = {0};
    make_bumpy(&s);
    const float path[6] = {-6, 0, 6, 6, 0, 6};
    sinew_placement_desc d = straight_desc(&s, path, 2);
    d.volume = SINEW_PLACEMENT_OFFSET;
    sinew_placement *p = create_ok(&d);
    sinew_lattice_info li;
    SINEW_INIT(&li);
    float *before = lattice_points(p, &li);
    const uint32_t pi = 5, pj = 2;
    assert_int_equal(sinew_placement_push(p, pi, pj, 0.3f), SINEW_OK);
    float *after = lattice_points(p, &li);
    size_t col = pi + (size_t)li.count[0] * pj;
    /* Range outputs are indexed by column number: column col lands at col * stride. */
    float *dirs = malloc((col + 1) * 3 * sizeof(float)), *lifts = malloc((col + 1) * sizeof(float));
    assert_int_equal(sinew_placement_directions(p, dirs, 0, col, 1), SINEW_OK);
    assert_int_equal(sinew_placement_lifts(p, lifts, 0, col, 1), SINEW_OK);
    const float *dir = dirs + 3 * col;
    float lift = lifts[col];
    assert_float_equal(lift, 0.3, 1e-6);
    assert_float_equal(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2], 1.0, 1e-5);
    assert_true(dir[2] > 0.5f);
    size_t columns = (size_t)li.count[0] * li.count[1];
    for (size_t idx = 0; idx < li.point_count; ++idx)
        for (int c = 0; c < 3; ++c) {
            double want = before[3 * idx + c] + (idx % columns == col ? 0.3 * dir[c] : 0.0);
            assert_float_equal(after[3 * idx + c], want, 1e-5);
        }
    /* Bad pushes change nothing. */
    expect_error(sinew_placement_push(p, li.count[0], 0, 1), SINEW_ERROR_INDEX_OUT_OF_RANGE, "i =");
    expect_error(sinew_placement_push(p, 0, li.count[1], 1), SINEW_ERROR_INDEX_OUT_OF_RANGE, "j =");
    expect_error(sinew_placement_push(p, 0, 0, NAN), SINEW_ERROR_NON_FINITE, "push amount");
    expect_error(sinew_placement_push(NULL, 0, 0, 1), SINEW_ERROR_INVALID_ARGUMENT, "NULL");
    float *again = lattice_points(p, &li);
    assert_memory_equal(again, after, li.point_count * 3 * sizeof(float));
    /* Relaxing brings a point pushed into the scene back up. */
    assert_int_equal(sinew_placement_push(p, pi, pj, -1.0f), SINEW_OK);
    sinew_result r = sinew_placement_relax(NULL, p, NULL, NULL);
    assert_true(r == SINEW_OK);
    assert_int_equal(sinew_placement_lifts(p, lifts, 0, col, 1), SINEW_OK);
    assert_true(lifts[col] >= 0.0f);
    free(dirs);
    free(lifts);
    free(before);
    free(after);
    free(again);
    sinew_placement_destroy(p);
    scene_free(&s);
}

static double ref_falloff(int kind, double r)
{
    if (kind == SINEW_PLACEMENT_FALLOFF_HAT) return 1 - r;
    if (kind == SINEW_PLACEMENT_FALLOFF_BOX) return 1;
    return exp(-r * r * 4.5);
}

static void press_tools(void **state)
{
    (void)state;
    scene s = {0};
    add_floor(&s, -20, 20, -20, 20, 0.0);
    const float path[6] = {0, 0, 3, 10, 0, 3};
    sinew_placement_desc d = straight_desc(&s, path, 2);
    d.width = 1.0f;
    d.height = 1.0f;
    for (int kind = 0; kind < 3; ++kind) {
        sinew_placement *p = create_ok(&d);
        sinew_lattice_info li;
        SINEW_INIT(&li);
        float *before = lattice_points(p, &li);
        sinew_placement_press_desc pd;
        SINEW_INIT(&pd);
        pd.center[0] = 5.0f, pd.center[1] = 0.2f, pd.center[2] = 1.0f;
        pd.radius = 2.0f;
        pd.depth = 0.6f;
        pd.falloff = (sinew_placement_falloff)kind;
        size_t pressed = 0;
        assert_int_equal(sinew_placement_press(p, &pd, &pressed), SINEW_OK);
        float *after = lattice_points(p, &li);
        size_t columns = (size_t)li.count[0] * li.count[1], expected = 0;
        for (size_t idx = 0; idx < li.point_count; ++idx) {
            const float *b = &before[3 * idx], *a = &after[3 * idx];
            double r = sqrt((b[0] - 5.0) * (b[0] - 5.0) + (b[1] - 0.2) * (b[1] - 0.2) + (b[2] - 1.0) * (b[2] - 1.0)) / 2;
            double dz = 0;
            if (idx >= columns && r < 1) {
                ++expected;
                dz = -0.6 * ref_falloff(kind, r);
                if (b[2] + dz < 0) dz = -b[2];
            }
            assert_float_equal(a[0], b[0], 1e-6);
            assert_float_equal(a[1], b[1], 1e-6);
            assert_float_equal(a[2], b[2] + dz, 1e-5);
        }
        assert_int_equal(pressed, expected);
        assert_true(expected > 0);
        free(before);
        free(after);
        pd.radius = 0;
        expect_error(sinew_placement_press(p, &pd, NULL), SINEW_ERROR_INVALID_ARGUMENT, "radius");
        pd.radius = 1, pd.falloff = (sinew_placement_falloff)7;
        expect_error(sinew_placement_press(p, &pd, NULL), SINEW_ERROR_INVALID_ARGUMENT, "falloff");
        pd.falloff = SINEW_PLACEMENT_FALLOFF_BOX, pd.center[1] = NAN;
        expect_error(sinew_placement_press(p, &pd, NULL), SINEW_ERROR_NON_FINITE, "centre y");
        expect_error(sinew_placement_press(p, NULL, NULL), SINEW_ERROR_INVALID_ARGUMENT, "NULL");
        sinew_placement_destroy(p);
    }
    scene_free(&s);
}

/* ---- Animation --------------------------------------------------------------------------- */

static void animation_reaches_both_ends(void **state)
{
    (void)state;
    scene s = {0};
    make_bumpy(&s);
    const float path[12] = {-7, -3, 6, -2, 2, 6, 3, -2, 6, 7, 3, 6};
    sinew_placement_desc d = straight_desc(&s, path, 4);
    d.path_kind = SINEW_PLACEMENT_PATH_BSPLINE;
    d.count[0] = 40;
    sinew_placement *p = create_ok(&d);
    /* A model 2 long, 0.4 wide, 0.2 high; its front-bottom-centre (0, 0, 0)
     * and back-bottom-centre (2, 0, 0). */
    sinew_placement_map_desc md;
    SINEW_INIT(&md);
    md.box_min[0] = 0, md.box_min[1] = -0.2f, md.box_min[2] = 0;
    md.box_max[0] = 2, md.box_max[1] = 0.2f, md.box_max[2] = 0.2f;
    md.fraction = 0.2f;
    const float ends[6] = {0, 0, 0, 2, 0, 0};
    sinew_points model = {ends, 2, 0};
    float out[6];
    const float start[2] = {-7, -3}, finish[2] = {7, 3}; /* the clamped B-spline's end points */
    sinew_placement_map map;
    for (int end = 0; end < 2; ++end) {
        md.offset = end ? 0.8f : 0.0f;
        assert_int_equal(sinew_placement_map_model(p, &md, &map), SINEW_OK);
        assert_float_equal(map.scale[0], 0.1, 1e-6);
        assert_float_equal(map.offset[0], md.offset, 1e-6);
        assert_int_equal(sinew_placement_deform(p, &map, &model, out, 0, 0, 2), SINEW_OK);
        /* The model's leading end at s = 0 and its trailing end at s = 1 - q
         * sit on the path's ends, seen from V (the xy plane), on the terrain. */
        const float *q = &out[3 * end];
        const float *want = end ? finish : start;
        assert_float_equal(q[0], want[0], 2e-3);
        assert_float_equal(q[1], want[1], 2e-3);
        /* Between its control points the contact surface only follows the
         * terrain to within the sampling (about 0.2 across here). */
        assert_float_equal(q[2], bumpy_height(q[0], q[1]), 2e-2);
        /* Deform is the lattice evaluated at the mapped parameters. */
        float prm[6], ref[6];
        for (int i = 0; i < 2; ++i)
            for (int c = 0; c < 3; ++c) prm[3 * i + c] = map.offset[c] + map.scale[c] * ends[3 * i + c];
        sinew_points pv = {prm, 2, 0};
        assert_int_equal(sinew_lattice_evaluate(sinew_placement_lattice(p), &pv, ref, 0, NULL, 0, 0, 2), SINEW_OK);
        assert_memory_equal(ref, out, sizeof ref);
    }
    /* Natural length: q = model length / contact length. */
    sinew_placement_info info;
    SINEW_INIT(&info);
    assert_int_equal(sinew_placement_get_info(p, &info), SINEW_OK);
    md.fraction = 0, md.offset = 0;
    assert_int_equal(sinew_placement_map_model(p, &md, &map), SINEW_OK);
    assert_float_equal(map.scale[0], 1.0 / info.contact_length, 1e-6);
    /* Out-of-range spans and boxes. */
    md.fraction = 0.3f, md.offset = 0.71f;
    expect_error(sinew_placement_map_model(p, &md, &map), SINEW_ERROR_INVALID_ARGUMENT, "offset s");
    md.offset = -0.1f;
    expect_error(sinew_placement_map_model(p, &md, &map), SINEW_ERROR_INVALID_ARGUMENT, "offset s");
    md.offset = 0, md.fraction = 1.5f;
    expect_error(sinew_placement_map_model(p, &md, &map), SINEW_ERROR_INVALID_ARGUMENT, "fraction");
    md.fraction = 0.2f, md.box_max[2] = 0;
    expect_error(sinew_placement_map_model(p, &md, &map), SINEW_ERROR_DEGENERATE, "box z");
    md.box_max[2] = 0.2f, md.box_min[1] = NAN;
    expect_error(sinew_placement_map_model(p, &md, &map), SINEW_ERROR_NON_FINITE, "box y");
    md.box_min[1] = -0.2f, md.fraction = 0, md.box_max[0] = 1000;
    expect_error(sinew_placement_map_model(p, &md, &map), SINEW_ERROR_INVALID_ARGUMENT, "longer");
    /* Deform validation writes nothing. */
    md.box_max[0] = 2, md.fraction = 0.2f;
    assert_int_equal(sinew_placement_map_model(p, &md, &map), SINEW_OK);
    float sentinel[6] = {7, 7, 7, 7, 7, 7};
    const float bad[6] = {0, 0, 0, 1, NAN, 0};
    sinew_points badv = {bad, 2, 0};
    expect_error(sinew_placement_deform(p, &map, &badv, sentinel, 0, 0, 2), SINEW_ERROR_NON_FINITE, "model point 1");
    expect_error(sinew_placement_deform(p, &map, &model, sentinel, 0, 1, 2), SINEW_ERROR_INDEX_OUT_OF_RANGE, "past");
    expect_error(sinew_placement_deform(p, &map, &model, sentinel, 5, 0, 2), SINEW_ERROR_INVALID_ARGUMENT, "stride");
    expect_error(sinew_placement_deform(p, NULL, &model, sentinel, 0, 0, 2), SINEW_ERROR_INVALID_ARGUMENT, "map");
    for (int i = 0; i < 6; ++i) assert_float_equal(sentinel[i], 7, 0);
    sinew_placement_destroy(p);
    scene_free(&s);
}

/* ---- Misses ------------------------------------------------------------------------------ */

static void miss_policies(void **state)
{
    (void)state;
    scene s = {0};
    add_floor(&s, -1, 5, -5, 5, 1.0); /* covers only the first half of the path */
    const float path[6] = {0, 0, 4, 10, 0, 4};
    sinew_placement_desc d = straight_desc(&s, path, 2);
    sinew_placement *p = create_ok(&d);
    sinew_placement_info info;
    SINEW_INIT(&info);
    assert_int_equal(sinew_placement_get_info(p, &info), SINEW_OK);
    assert_true(info.misses > 0);
    sinew_lattice_info li;
    SINEW_INIT(&li);
    float *pts = lattice_points(p, &li);
    /* Missed columns take the nearest hit's depth: everything at z = 1. */
    for (size_t c = 0; c < (size_t)li.count[0] * li.count[1]; ++c) assert_float_equal(pts[3 * c + 2], 1.0, 1e-5);
    free(pts);
    sinew_placement_destroy(p);

    d.miss = SINEW_PLACEMENT_MISS_DEPTH;
    d.miss_depth = 7.0f;
    p = create_ok(&d);
    pts = lattice_points(p, &li);
    for (size_t c = 0; c < (size_t)li.count[0] * li.count[1]; ++c) {
        float x = pts[3 * c], z = pts[3 * c + 2];
        if (x < 4.99f) assert_float_equal(z, 1.0, 1e-5);
        else if (x > 5.01f) assert_float_equal(z, 4.0 - 7.0, 1e-5);
    }
    free(pts);
    sinew_placement_destroy(p);

    d.miss = SINEW_PLACEMENT_MISS_FAIL;
    sinew_placement *untouched = (sinew_placement *)&d;
    expect_error(sinew_placement_create(NULL, &d, &untouched), SINEW_ERROR_NO_RESULT, "missed the scene");
    assert_ptr_equal(untouched, (sinew_placement *)&d);

    /* No hits at all, whatever the policy. */
    scene far = {0};
    add_floor(&far, 100, 110, 100, 110, 0.0);
    d.scene = scene_mesh(&far);
    for (int miss = 0; miss < 3; ++miss) {
        d.miss = (sinew_placement_miss)miss;
        expect_error(sinew_placement_create(NULL, &d, &untouched), SINEW_ERROR_NO_RESULT, miss == 1 ? "missed" : "no ");
        assert_ptr_equal(untouched, (sinew_placement *)&d);
    }
    scene_free(&far);
    scene_free(&s);
}

/* ---- Validation -------------------------------------------------------------------------- */

static void create_validation(void **state)
{
    (void)state;
    scene s = {0};
    add_floor(&s, -20, 20, -20, 20, 0.0);
    float path[9] = {0, 0, 3, 5, 0, 3, 10, 1, 3};
    sinew_placement *sentinel = (sinew_placement *)&s, *out = sentinel;
    sinew_placement_desc good = straight_desc(&s, path, 3), d;
#define EXPECT(code, fragment)                                                   \
    do {                                                                         \
        out = sentinel;                                                          \
        expect_error(sinew_placement_create(NULL, &d, &out), code, fragment);    \
        assert_ptr_equal(out, sentinel);                                         \
    } while (0)
    expect_error(sinew_placement_create(NULL, NULL, &out), SINEW_ERROR_INVALID_ARGUMENT, "desc");
    expect_error(sinew_placement_create(NULL, &good, NULL), SINEW_ERROR_INVALID_ARGUMENT, "out");
    d = good, d.path.count = 1;
    EXPECT(SINEW_ERROR_INVALID_ARGUMENT, "at least 2");
    d = good, d.path.count = 0;
    EXPECT(SINEW_ERROR_INVALID_ARGUMENT, "at least 2");
    d = good, d.path.data = NULL;
    EXPECT(SINEW_ERROR_INVALID_ARGUMENT, "path point");
    d = good, d.width = 0;
    EXPECT(SINEW_ERROR_INVALID_ARGUMENT, "width is 0");
    d = good, d.width = -1;
    EXPECT(SINEW_ERROR_INVALID_ARGUMENT, "width");
    d = good, d.width = INFINITY;
    EXPECT(SINEW_ERROR_NON_FINITE, "width");
    d = good, d.height = 0;
    EXPECT(SINEW_ERROR_INVALID_ARGUMENT, "height is 0");
    d = good, d.height = NAN;
    EXPECT(SINEW_ERROR_NON_FINITE, "height");
    path[4] = NAN;
    d = good;
    EXPECT(SINEW_ERROR_NON_FINITE, "path point 1");
    path[4] = 0;
    d = good, d.view[1] = NAN;
    EXPECT(SINEW_ERROR_NON_FINITE, "view direction y");
    /* A path along V collapses to a point in the view plane. */
    const float vertical[6] = {1, 1, 3, 1, 1, 5};
    d = good, d.path.data = vertical, d.path.count = 2;
    EXPECT(SINEW_ERROR_DEGENERATE, "coincide");
    const float repeated[9] = {0, 0, 3, 5, 0, 3, 5, 0, 3};
    d = good, d.path.data = repeated;
    EXPECT(SINEW_ERROR_DEGENERATE, "path points 1 and 2");
    d = good, d.path.data = vertical, d.path.count = 2, d.path_kind = SINEW_PLACEMENT_PATH_BSPLINE;
    EXPECT(SINEW_ERROR_DEGENERATE, "one point");
    d = good, d.path_kind = (sinew_placement_path_kind)9;
    EXPECT(SINEW_ERROR_INVALID_ARGUMENT, "path kind");
    d = good, d.path_order = 1;
    EXPECT(SINEW_ERROR_INVALID_ARGUMENT, "path order");
    d = good, d.volume = (sinew_placement_volume)5;
    EXPECT(SINEW_ERROR_INVALID_ARGUMENT, "volume");
    d = good, d.miss = (sinew_placement_miss)5;
    EXPECT(SINEW_ERROR_INVALID_ARGUMENT, "miss policy");
    d = good, d.miss_depth = -1;
    EXPECT(SINEW_ERROR_INVALID_ARGUMENT, "miss depth");
    d = good, d.outside = (sinew_lattice_outside)9;
    EXPECT(SINEW_ERROR_INVALID_ARGUMENT, "outside");
    d = good, d.count[1] = 3;
    EXPECT(SINEW_ERROR_INVALID_ARGUMENT, "axis v has 3");
    d = good, d.order[2] = 9;
    EXPECT(SINEW_ERROR_INVALID_ARGUMENT, "order 9 on axis w");
    d = good, d.count[0] = 5000;
    EXPECT(SINEW_ERROR_INVALID_ARGUMENT, "at most");
    d = good, d.oversample = 65;
    EXPECT(SINEW_ERROR_INVALID_ARGUMENT, "oversample");
    const float bad_scale[3] = {1, 0, 1};
    d = good, d.width_scale.values = bad_scale, d.width_scale.count[0] = 3;
    EXPECT(SINEW_ERROR_INVALID_ARGUMENT, "width scale value (1, 0)");
    const float nan_scale[2] = {1, NAN};
    d = good, d.height_scale.values = nan_scale, d.height_scale.count[0] = 2;
    EXPECT(SINEW_ERROR_NON_FINITE, "height scale value (1, 0)");
    d = good, d.height_scale.values = NULL, d.height_scale.count[0] = 2;
    EXPECT(SINEW_ERROR_INVALID_ARGUMENT, "height scale values are NULL");
    d = good, d.scene.triangle_count = 0;
    EXPECT(SINEW_ERROR_INVALID_ARGUMENT, "no triangles");
    uint32_t bad_tri[6] = {0, 1, 2, 0, 2, 9};
    d = good, d.scene.indices = bad_tri;
    EXPECT(SINEW_ERROR_INDEX_OUT_OF_RANGE, "scene triangle 1");
    s.pos[4] = INFINITY;
    d = good;
    EXPECT(SINEW_ERROR_NON_FINITE, "scene vertex 1");
    s.pos[4] = -20;
#undef EXPECT
    /* Calls on a placement. */
    sinew_placement *p = create_ok(&good);
    sinew_placement_relax_desc rd;
    SINEW_INIT(&rd);
    rd.stiffness = -1;
    expect_error(sinew_placement_relax(NULL, p, &rd, NULL), SINEW_ERROR_INVALID_ARGUMENT, "stiffness");
    SINEW_INIT(&rd), rd.damping = NAN;
    expect_error(sinew_placement_relax(NULL, p, &rd, NULL), SINEW_ERROR_NON_FINITE, "damping");
    SINEW_INIT(&rd), rd.angle_degrees = 200;
    expect_error(sinew_placement_relax(NULL, p, &rd, NULL), SINEW_ERROR_INVALID_ARGUMENT, "angle");
    SINEW_INIT(&rd), rd.neighbourhood = 65;
    expect_error(sinew_placement_relax(NULL, p, &rd, NULL), SINEW_ERROR_INVALID_ARGUMENT, "neighbourhood");
    expect_error(sinew_placement_relax(NULL, NULL, NULL, NULL), SINEW_ERROR_INVALID_ARGUMENT, "NULL");
    float buf[3];
    expect_error(sinew_placement_directions(p, buf, 0, 24 * 6, 1), SINEW_ERROR_INDEX_OUT_OF_RANGE, "past");
    expect_error(sinew_placement_lifts(p, buf, 2, 0, 1), SINEW_ERROR_INVALID_ARGUMENT, "stride");
    expect_error(sinew_placement_lifts(p, NULL, 0, 0, 1), SINEW_ERROR_INVALID_ARGUMENT, "NULL");
    sinew_placement_info info;
    SINEW_INIT(&info);
    expect_error(sinew_placement_get_info(p, NULL), SINEW_ERROR_INVALID_ARGUMENT, "NULL");
    expect_error(sinew_placement_get_info(NULL, &info), SINEW_ERROR_INVALID_ARGUMENT, "NULL");
    assert_null(sinew_placement_lattice(NULL));
    sinew_placement_destroy(NULL);
    sinew_placement_destroy(p);
    scene_free(&s);
}

/* ---- Allocation failures and cancellation ------------------------------------------------- */

typedef struct sweep_case {
    const sinew_placement_desc *desc;
} sweep_case;

static sinew_result attempt_create_relax(sinew_context *ctx, void *user)
{
    const sweep_case *sc = user;
    sinew_placement *p = NULL;
    sinew_result r = sinew_placement_create(ctx, sc->desc, &p);
    if (r) return r;
    sinew_placement_relax_desc rd;
    SINEW_INIT(&rd);
    rd.neighbourhood = 2;
    r = sinew_placement_relax(NULL, p, &rd, NULL);
    if (r == SINEW_OK) r = sinew_placement_push(p, 1, 1, 0.1f);
    sinew_placement_destroy(p);
    return r;
}

static void allocation_failures(void **state)
{
    (void)state;
    scene s = {0};
    make_gap(&s);
    const float path[6] = {-2, 0, 5, 4, 0, 5};
    sinew_placement_desc d = straight_desc(&s, path, 2);
    d.count[0] = 12;
    d.count[1] = 4;
    for (int volume = 0; volume < 2; ++volume) {
        d.volume = (sinew_placement_volume)volume;
        sweep_case sc = {&d};
        size_t runs = 0;
        char report[256];
        if (!support_sweep_allocation_failures(attempt_create_relax, &sc, &runs, report, sizeof report))
            fail_msg("%s", report);
        assert_true(runs >= 10);
    }
    scene_free(&s);
}

static int cancel_at(void *user, const char *stage, float fraction)
{
    (void)fraction;
    return strcmp(stage, (const char *)user) == 0;
}

static void cancellation(void **state)
{
    (void)state;
    scene s = {0};
    make_gap(&s);
    const float path[6] = {-4, 0, 5, 6, 0, 5};
    sinew_placement_desc d = straight_desc(&s, path, 2);
    d.count[0] = 40;
    sinew_context_desc cd;
    SINEW_INIT(&cd);
    cd.progress = cancel_at;
    cd.progress_user = (void *)"placement: rays";
    sinew_context *ctx = NULL;
    assert_int_equal(sinew_context_create(&cd, &ctx), SINEW_OK);
    sinew_placement *p = (sinew_placement *)&s;
    expect_error(sinew_placement_create(ctx, &d, &p), SINEW_ERROR_CANCELLED, "placement: rays");
    assert_ptr_equal(p, (sinew_placement *)&s);
    sinew_context_destroy(ctx);
    /* Cancelling a relaxation leaves the contact layer as it was. */
    cd.progress_user = (void *)"placement: relax";
    assert_int_equal(sinew_context_create(&cd, &ctx), SINEW_OK);
    assert_int_equal(sinew_placement_create(ctx, &d, &p), SINEW_OK);
    sinew_lattice_info li;
    SINEW_INIT(&li);
    float *before = lattice_points(p, &li);
    expect_error(sinew_placement_relax(ctx, p, NULL, NULL), SINEW_ERROR_CANCELLED, "placement: relax");
    float *after = lattice_points(p, &li);
    assert_memory_equal(before, after, li.point_count * 3 * sizeof(float));
    free(before);
    free(after);
    sinew_placement_destroy(p);
    sinew_context_destroy(ctx);
    scene_free(&s);
}

/* A step cap too small to converge keeps the partial result and says so. */
static void step_cap_reports_not_converged(void **state)
{
    (void)state;
    scene s = {0};
    make_gap(&s);
    const float path[6] = {-4, 0, 5, 6, 0, 5};
    sinew_placement_desc d = straight_desc(&s, path, 2);
    d.count[0] = 40;
    sinew_placement *p = create_ok(&d);
    sinew_placement_relax_desc rd;
    SINEW_INIT(&rd);
    rd.max_steps = 3;
    rd.neighbourhood = 4;
    sinew_placement_relax_report rep;
    SINEW_INIT(&rep);
    expect_error(sinew_placement_relax(NULL, p, &rd, &rep), SINEW_ERROR_NOT_CONVERGED, "3 steps");
    /* The message names the cap and the criterion's bound (the default 10 degrees). */
    assert_non_null(strstr(sinew_last_error(), "cap of 3 steps"));
    assert_non_null(strstr(sinew_last_error(), "more than 10 degrees apart"));
    assert_int_equal(rep.steps, 3);
    assert_true(rep.candidates > 0);
    assert_true(rep.max_lift > 0.0f);
    sinew_placement_destroy(p);
    scene_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(flat_ground_is_rigid),
        cmocka_unit_test(staircase_contact_on_treads),
        cmocka_unit_test(springs_bridge_a_gap),
        cmocka_unit_test(nothing_sinks_on_bumpy_terrain),
        cmocka_unit_test(extrusion_never_folds_on_height_field),
        cmocka_unit_test(parameterisation_follows_the_terrain),
        cmocka_unit_test(width_and_height_functions),
        cmocka_unit_test(push_moves_the_column),
        cmocka_unit_test(press_tools),
        cmocka_unit_test(animation_reaches_both_ends),
        cmocka_unit_test(miss_policies),
        cmocka_unit_test(create_validation),
        cmocka_unit_test(allocation_failures),
        cmocka_unit_test(cancellation),
        cmocka_unit_test(step_cap_reports_not_converged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
