/* White-box tests of src/geom: closest point on a triangle, the triangle BVH
 * (closest, radius traversal, ray cast) against brute force on random and real
 * meshes, and ear clipping. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "brute.h"
#include "geom/bvh.h"
#include "geom/closest_point.h"
#include "geom/polygon.h"
#include "support.h"

static void random_point(support_rng *r, float lo, float hi, float *p)
{
    for (int k = 0; k < 3; ++k) p[k] = (float)support_rng_uniform(r, lo, hi);
}

static double brute_dist2(const float *p, const float *a, const float *b, const float *c)
{
    double pd[3], ad[3], bd[3], cd[3];
    bf_load(p, pd), bf_load(a, ad), bf_load(b, bd), bf_load(c, cd);
    return bf_triangle_dist2(pd, ad, bd, cd);
}

static void closest_point_matches_brute_force(void **state)
{
    (void)state;
    support_rng r;
    support_rng_seed(&r, 7);
    for (int trial = 0; trial < 20000; ++trial) {
        float a[3], b[3], c[3], p[3], q[3], bary[3];
        random_point(&r, -1, 1, a), random_point(&r, -1, 1, b), random_point(&r, -1, 1, c);
        random_point(&r, -3, 3, p);
        float d2 = sn_closest_point_triangle(p, a, b, c, q, bary);
        double ref = brute_dist2(p, a, b, c);
        assert_true(fabs(d2 - ref) <= 1e-5 * (1 + ref));
        assert_true(bary[0] >= 0 && bary[1] >= 0 && bary[2] >= 0);
        assert_true(fabsf(bary[0] + bary[1] + bary[2] - 1) < 1e-5f);
        double back2 = 0;
        for (int k = 0; k < 3; ++k) {
            double x = bary[0] * a[k] + bary[1] * b[k] + bary[2] * c[k];
            assert_true(fabs(x - q[k]) < 1e-5);
            back2 += (x - p[k]) * (x - p[k]);
        }
        assert_true(fabs(back2 - d2) <= 1e-4 * (1 + d2));
    }
    /* Closed-form regions: above the face, beyond an edge, beyond a corner. */
    const float a[3] = {0, 0, 0}, b[3] = {2, 0, 0}, c[3] = {0, 2, 0};
    float q[3], bary[3];
    assert_float_equal(sn_closest_point_triangle((float[3]){0.5f, 0.5f, 3}, a, b, c, q, bary), 9, 1e-6);
    assert_float_equal(bary[1], 0.25f, 1e-6), assert_float_equal(bary[2], 0.25f, 1e-6);
    assert_float_equal(sn_closest_point_triangle((float[3]){1, -1, 0}, a, b, c, q, bary), 1, 1e-6);
    assert_float_equal(q[0], 1, 1e-6), assert_float_equal(bary[2], 0, 0);
    assert_float_equal(sn_closest_point_triangle((float[3]){3, 3, 0}, a, b, c, q, bary), 8, 1e-5);
    assert_float_equal(q[0], 1, 1e-6), assert_float_equal(q[1], 1, 1e-6);
    assert_float_equal(sn_closest_point_triangle((float[3]){-1, -1, 1}, a, b, c, q, bary), 3, 1e-6);
    assert_float_equal(bary[0], 1, 0);
    /* A collapsed triangle still gives a finite point on it. */
    const float d[3] = {1, 0, 0};
    float d2 = sn_closest_point_triangle((float[3]){0.5f, 1, 0}, a, b, d, q, bary);
    assert_true(isfinite(d2) && isfinite(q[0]) && isfinite(bary[0]));
    assert_float_equal(d2, 1, 1e-6);
}

typedef struct soup {
    float *pos;
    uint32_t *tri;
    size_t n;
} soup;

static soup random_soup(support_rng *r, size_t n)
{
    soup s = {malloc(9 * n * sizeof(float)), malloc(3 * n * sizeof(uint32_t)), n};
    for (size_t t = 0; t < n; ++t) {
        float c[3];
        random_point(r, -10, 10, c);
        for (int v = 0; v < 3; ++v) {
            for (int k = 0; k < 3; ++k) s.pos[9 * t + 3 * v + k] = c[k] + (float)support_rng_uniform(r, -1, 1);
            s.tri[3 * t + v] = (uint32_t)(3 * t + v);
        }
    }
    return s;
}

static const float *corner(const float *pos, const uint32_t *tri, size_t t, int v)
{
    return &pos[3 * (size_t)tri[3 * t + v]];
}

typedef struct collect {
    size_t hits, culled;
    uint8_t *seen;
} collect;

static float collect_hit(void *user, const sn_bvh_hit *hit, float radius2)
{
    collect *c = (collect *)user;
    ++c->hits;
    c->seen[hit->triangle]++;
    return radius2;
}

static void collect_culled(void *user, uint32_t node, float dist2, size_t count)
{
    (void)dist2, (void)node;
    ((collect *)user)->culled += count;
}

/* Closest and radius queries against a loop over every triangle. */
static void check_bvh(const float *pos, size_t vcount, const uint32_t *tri, size_t n, float lo, float hi,
                      float radius, uint64_t seed)
{
    (void)vcount;
    sn_env env;
    sn_env_from_context(&env, NULL);
    sn_bvh bvh;
    assert_int_equal(sn_bvh_build(&bvh, &env, pos, 0, tri, n), SINEW_OK);
    assert_true(bvh.node_count <= 2 * n);
    support_rng r;
    support_rng_seed(&r, seed);
    uint8_t *seen = calloc(n, 1);
    for (int i = 0; i < 300; ++i) {
        float p[3];
        random_point(&r, lo, hi, p);
        double best = INFINITY;
        for (size_t t = 0; t < n; ++t)
            best = fmin(best, brute_dist2(p, corner(pos, tri, t, 0), corner(pos, tri, t, 1), corner(pos, tri, t, 2)));
        sn_bvh_hit hit;
        assert_true(sn_bvh_closest(&bvh, p, INFINITY, &hit));
        assert_true(fabs(hit.dist2 - best) <= 1e-5 * (1 + best));
        double own = brute_dist2(p, corner(pos, tri, hit.triangle, 0), corner(pos, tri, hit.triangle, 1),
                                 corner(pos, tri, hit.triangle, 2));
        assert_true(fabs(own - best) <= 1e-5 * (1 + best));
        /* Nothing within a radius smaller than the closest distance. */
        if (best > 1e-6) assert_false(sn_bvh_closest(&bvh, p, (float)(best * 0.99), &hit));

        memset(seen, 0, n);
        collect c = {0, 0, seen};
        sn_bvh_visitor v = {collect_hit, collect_culled, &c};
        float r2 = radius * radius;
        sn_bvh_visit(&bvh, p, r2, &v);
        assert_int_equal(c.hits + c.culled, n); /* every triangle accounted once */
        for (size_t t = 0; t < n; ++t) {
            double d2 = brute_dist2(p, corner(pos, tri, t, 0), corner(pos, tri, t, 1), corner(pos, tri, t, 2));
            if (fabs(d2 - r2) < 1e-4 * r2) continue; /* on the boundary, rounding decides */
            assert_int_equal(seen[t], d2 < r2 ? 1 : 0);
        }
    }
    free(seen);
    sn_bvh_free(&bvh, &env);
}

static void bvh_equals_brute_force_on_random_soups(void **state)
{
    (void)state;
    support_rng r;
    support_rng_seed(&r, 11);
    size_t sizes[] = {1, 3, 5, 64, 1500};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; ++i) {
        soup s = random_soup(&r, sizes[i]);
        check_bvh(s.pos, 3 * s.n, s.tri, s.n, -12, 12, 3.0f, 100 + i);
        free(s.pos);
        free(s.tri);
    }
}

static void bvh_equals_brute_force_on_a_real_mesh(void **state)
{
    (void)state;
    char path[4096];
    if (!support_data_path("common-3d-test-models/beetle.obj", path, sizeof path)) skip();
    support_mesh m;
    assert_true(support_read_obj(path, &m));
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t v = 0; v < m.vertex_count; ++v)
        for (int k = 0; k < 3; ++k) lo[k] = fminf(lo[k], m.positions[3 * v + k]), hi[k] = fmaxf(hi[k], m.positions[3 * v + k]);
    float size = fmaxf(hi[0] - lo[0], fmaxf(hi[1] - lo[1], hi[2] - lo[2]));
    check_bvh(m.positions, m.vertex_count, m.triangles, m.triangle_count, lo[0] - 0.1f * size, hi[0] + 0.1f * size,
              0.1f * size, 5);
    support_mesh_free(&m);
}

static void raycast_equals_brute_force(void **state)
{
    (void)state;
    support_rng r;
    support_rng_seed(&r, 13);
    soup s = random_soup(&r, 800);
    sn_env env;
    sn_env_from_context(&env, NULL);
    sn_bvh bvh;
    assert_int_equal(sn_bvh_build(&bvh, &env, s.pos, 0, s.tri, s.n), SINEW_OK);
    int hits = 0;
    for (int i = 0; i < 2000; ++i) {
        float o[3], d[3];
        random_point(&r, -15, 15, o);
        random_point(&r, -1, 1, d);
        if (i % 10 == 0) d[0] = 0, d[1] = 0; /* axis-parallel rays exercise the infinite slabs */
        if (d[2] == 0) d[2] = 1;
        /* Brute force: plane intersection, then an inside test by edge signs. */
        double best = 30, od[3], dd[3];
        bf_load(o, od), bf_load(d, dd);
        long best_t = -1;
        for (size_t t = 0; t < s.n; ++t) {
            double a[3], b[3], c[3], ab[3], ac[3], n[3], ao[3];
            bf_load(corner(s.pos, s.tri, t, 0), a), bf_load(corner(s.pos, s.tri, t, 1), b);
            bf_load(corner(s.pos, s.tri, t, 2), c);
            bf_sub(b, a, ab), bf_sub(c, a, ac), bf_cross(ab, ac, n), bf_sub(a, od, ao);
            double den = bf_dot(n, dd);
            if (den == 0) continue;
            double tt = bf_dot(n, ao) / den;
            if (tt < 0 || tt > best) continue;
            double x[3] = {od[0] + tt * dd[0], od[1] + tt * dd[1], od[2] + tt * dd[2]};
            const double *v[3] = {a, b, c};
            int in = 1;
            for (int k = 0; k < 3; ++k) {
                double e[3], w[3], cr[3];
                bf_sub(v[(k + 1) % 3], v[k], e), bf_sub(x, v[k], w), bf_cross(e, w, cr);
                if (bf_dot(cr, n) < 0) in = 0;
            }
            if (in) best = tt, best_t = (long)t;
        }
        sn_bvh_hit hit;
        bool got = sn_bvh_raycast(&bvh, o, d, 30, &hit);
        if (best_t < 0) {
            if (got) assert_true(hit.t > 29.99f); /* grazing the far end at most */
            continue;
        }
        assert_true(got);
        ++hits;
        assert_true(fabs(hit.t - best) < 1e-4 * (1 + best));
        for (int k = 0; k < 3; ++k) {
            double x = o[k] + hit.t * d[k];
            assert_true(fabs(x - hit.point[k]) < 1e-3);
        }
    }
    assert_true(hits > 100);
    sn_bvh_free(&bvh, &env);
    free(s.pos);
    free(s.tri);
}

static double polygon_area(const float *pos, const uint32_t *face, size_t n)
{
    double a = 0;
    for (size_t i = 0; i < n; ++i) {
        const float *p = &pos[3 * face[i]], *q = &pos[3 * face[(i + 1) % n]];
        a += (double)p[0] * q[1] - (double)q[0] * p[1];
    }
    return a / 2;
}

static void ear_clipping_covers_concave_polygons(void **state)
{
    (void)state;
    /* An L shape, a comb with three teeth, and a square with a vertex in the middle of an edge. */
    const float l_shape[] = {0, 0, 0, 2, 0, 0, 2, 1, 0, 1, 1, 0, 1, 3, 0, 0, 3, 0};
    const float comb[] = {0, 0, 0, 5, 0, 0, 5, 3, 0, 4, 3, 0, 4, 1, 0, 3, 1, 0, 3, 3, 0,
                          2, 3, 0, 2, 1, 0, 1, 1, 0, 1, 3, 0, 0, 3, 0};
    const float square[] = {0, 0, 0, 1, 0, 0, 2, 0, 0, 2, 2, 0, 0, 2, 0};
    const float *shapes[] = {l_shape, comb, square};
    const size_t sizes[] = {6, 12, 5};
    for (int s = 0; s < 3; ++s) {
        size_t n = sizes[s];
        uint32_t face[12], scratch[12], tris[30];
        for (size_t i = 0; i < n; ++i) face[i] = (uint32_t)i;
        for (int reversed = 0; reversed < 2; ++reversed) {
            if (reversed)
                for (size_t i = 0; i < n / 2; ++i) {
                    uint32_t t = face[i];
                    face[i] = face[n - 1 - i];
                    face[n - 1 - i] = t;
                }
            size_t written;
            assert_true(sn_triangulate_polygon(shapes[s], 0, face, n, tris, &written, scratch));
            assert_true(written <= n - 2 && written >= n - 3);
            double want = polygon_area(shapes[s], face, n), got = 0;
            for (size_t t = 0; t < written; ++t) {
                double a = polygon_area(shapes[s], &tris[3 * t], 3);
                assert_true(a * want > 0); /* same winding as the polygon */
                got += a;
            }
            assert_true(fabs(got - want) < 1e-6);
        }
    }
    /* A bow tie has no consistent area; a polygon of coincident points none at all. */
    const float bowtie[] = {0, 0, 0, 1, 1, 0, 1, 0, 0, 0, 1, 0};
    const float dots[] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    uint32_t face[4] = {0, 1, 2, 3}, scratch[4], tris[6];
    size_t written;
    assert_false(sn_triangulate_polygon(bowtie, 0, face, 4, tris, &written, scratch));
    assert_false(sn_triangulate_polygon(dots, 0, face, 4, tris, &written, scratch));
}

static sinew_result build_attempt(sinew_context *ctx, void *user)
{
    const soup *s = (const soup *)user;
    sn_env env;
    sn_env_from_context(&env, ctx);
    sn_bvh bvh;
    sinew_result r = sn_bvh_build(&bvh, &env, s->pos, 0, s->tri, s->n);
    if (r == SINEW_OK) {
        assert_non_null(bvh.nodes);
        sn_bvh_free(&bvh, &env);
    } else {
        assert_null(bvh.nodes);
    }
    return r;
}

static void bvh_build_survives_allocation_failures(void **state)
{
    (void)state;
    support_rng r;
    support_rng_seed(&r, 3);
    soup s = random_soup(&r, 100);
    size_t runs;
    char report[256];
    assert_true(support_sweep_allocation_failures(build_attempt, &s, &runs, report, sizeof report));
    assert_true(runs > 3);
    free(s.pos);
    free(s.tri);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(closest_point_matches_brute_force),
        cmocka_unit_test(bvh_equals_brute_force_on_random_soups),
        cmocka_unit_test(bvh_equals_brute_force_on_a_real_mesh),
        cmocka_unit_test(raycast_equals_brute_force),
        cmocka_unit_test(ear_clipping_covers_concave_polygons),
        cmocka_unit_test(bvh_build_survives_allocation_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
