/* Drivers made from the skin (sinew_soffd_driver_from_skin): closed forms (a
 * box of separate patches down to its 12 corner triangles, a plane down to 2
 * with no error), the reported distances against brute force, closed
 * manifolds staying closed, joint emphasis on a tube, the error bound, the
 * defaults query, determinism and every validation path. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sinew.h"
#include "driver_meshes.h"

typedef struct driver_out {
    float *pos;
    uint32_t *tris;
    sinew_soffd_driver_report report;
} driver_out;

static sinew_polymesh polymesh_of(const test_mesh *m, uint32_t **sizes)
{
    sinew_polymesh p = {{m->pos, m->vertex_count, 0}, m->idx, NULL, m->face_count, SINEW_INDEX_U32};
    *sizes = NULL;
    if (m->face_size != 3) {
        *sizes = malloc(sizeof(uint32_t) * m->face_count);
        for (size_t f = 0; f < m->face_count; ++f) (*sizes)[f] = m->face_size;
        p.face_sizes = *sizes;
    }
    return p;
}

/* Runs the call twice (sizes, then outputs) and checks the two agree. */
static driver_out make_driver(const test_mesh *m, const sinew_soffd_driver_desc *desc)
{
    uint32_t *sizes;
    sinew_polymesh p = polymesh_of(m, &sizes);
    driver_out o;
    SINEW_INIT(&o.report);
    assert_int_equal(sinew_soffd_driver_from_skin(NULL, &p, desc, NULL, 0, NULL, 0, &o.report), SINEW_OK);
    size_t nv = o.report.vertex_count, nt = o.report.triangle_count;
    o.pos = malloc(sizeof(float) * 3 * (nv + 1));
    o.tris = malloc(sizeof(uint32_t) * 3 * (nt + 1));
    SINEW_INIT(&o.report);
    assert_int_equal(sinew_soffd_driver_from_skin(NULL, &p, desc, o.pos, nv, o.tris, nt, &o.report), SINEW_OK);
    assert_int_equal(o.report.vertex_count, nv);
    assert_int_equal(o.report.triangle_count, nt);
    for (size_t k = 0; k < 3 * nt; ++k) assert_true(o.tris[k] < nv);
    for (size_t k = 0; k < 3 * nv; ++k) assert_true(isfinite(o.pos[k]));
    free(sizes);
    return o;
}

static void driver_free(driver_out *o)
{
    free(o->pos);
    free(o->tris);
}

static sinew_soffd_driver_desc target_desc(size_t triangles)
{
    sinew_soffd_driver_desc d;
    SINEW_INIT(&d);
    d.target_triangle_count = triangles;
    return d;
}

/* Every directed edge once and its reverse once: closed, manifold and
 * consistently oriented; Euler characteristic 2 (a sphere). */
static void assert_closed_sphere(const driver_out *o)
{
    size_t nt = o->report.triangle_count, nv = o->report.vertex_count;
    for (size_t t = 0; t < nt; ++t)
        for (int k = 0; k < 3; ++k) {
            uint32_t a = o->tris[3 * t + k], b = o->tris[3 * t + (k + 1) % 3];
            assert_int_not_equal(a, b);
            size_t same = 0, reverse = 0;
            for (size_t u = 0; u < nt; ++u)
                for (int j = 0; j < 3; ++j) {
                    uint32_t c = o->tris[3 * u + j], d = o->tris[3 * u + (j + 1) % 3];
                    same += c == a && d == b;
                    reverse += c == b && d == a;
                }
            assert_int_equal(same, 1);
            assert_int_equal(reverse, 1);
        }
    assert_int_equal(3 * nt % 2, 0);
    long euler = (long)nv - (long)(3 * nt / 2) + (long)nt;
    assert_int_equal(euler, 2);
}

static void box_keeps_its_corners(void **state)
{
    (void)state;
    test_mesh box = make_box(6);
    sinew_soffd_driver_desc d = target_desc(12);
    driver_out o = make_driver(&box, &d);
    assert_int_equal(o.report.triangle_count, 12);
    assert_int_equal(o.report.vertex_count, 8);
    /* 6 patches of 7 x 7 vertices; the welded box has 6 * 36 + 2 = 218. */
    assert_int_equal(o.report.welded_vertices, 6 * 49 - 218);
    for (size_t v = 0; v < 8; ++v)
        for (int k = 0; k < 3; ++k) assert_true(o.pos[3 * v + k] == 0.0f || o.pos[3 * v + k] == 1.0f);
    for (size_t v = 0; v < 8; ++v)
        for (size_t w = v + 1; w < 8; ++w) assert_memory_not_equal(&o.pos[3 * v], &o.pos[3 * w], 12);
    assert_true(o.report.skin_to_driver_distance < 1e-6f);
    assert_true(o.report.driver_to_skin_distance == 0.0f);
    assert_closed_sphere(&o);
    driver_free(&o);
    test_mesh_free(&box);
}

static void plane_goes_to_two_triangles(void **state)
{
    (void)state;
    test_mesh plane = make_plane(8);
    sinew_soffd_driver_desc d = target_desc(2);
    driver_out o = make_driver(&plane, &d);
    assert_int_equal(o.report.triangle_count, 2);
    assert_int_equal(o.report.vertex_count, 4);
    for (size_t v = 0; v < 4; ++v) {
        assert_true(o.pos[3 * v] == 0.0f || o.pos[3 * v] == 1.0f);
        assert_true(o.pos[3 * v + 1] == 0.0f || o.pos[3 * v + 1] == 1.0f);
        assert_true(o.pos[3 * v + 2] == 0.0f);
    }
    assert_true(o.report.skin_to_driver_distance == 0.0f);
    assert_true(o.report.driver_to_skin_distance == 0.0f);
    driver_free(&o);
    /* An error bound alone: every collapse of a plane is free. */
    sinew_soffd_driver_desc e;
    SINEW_INIT(&e);
    e.max_error = 1e-4f;
    o = make_driver(&plane, &e);
    assert_int_equal(o.report.triangle_count, 2);
    driver_free(&o);
    test_mesh_free(&plane);
}

/* Distance from p to triangle (a, b, c) by the plane when the projection lies
 * inside, else the nearest of the three edges: independent of the library's
 * Voronoi-region routine. */
static double seg_dist2(const double p[3], const double a[3], const double b[3])
{
    double ab[3], ap[3], l2 = 0, t = 0, d2 = 0;
    for (int i = 0; i < 3; ++i) ab[i] = b[i] - a[i], ap[i] = p[i] - a[i], l2 += ab[i] * ab[i], t += ab[i] * ap[i];
    t = l2 > 0 ? fmin(1.0, fmax(0.0, t / l2)) : 0.0;
    for (int i = 0; i < 3; ++i) d2 += (ap[i] - t * ab[i]) * (ap[i] - t * ab[i]);
    return d2;
}

static double brute_dist2(const float *pf, const float *af, const float *bf, const float *cf)
{
    double p[3], a[3], b[3], c[3], u[3], v[3], n[3], w[3];
    for (int i = 0; i < 3; ++i) p[i] = pf[i], a[i] = af[i], b[i] = bf[i], c[i] = cf[i];
    for (int i = 0; i < 3; ++i) u[i] = b[i] - a[i], v[i] = c[i] - a[i], w[i] = p[i] - a[i];
    n[0] = u[1] * v[2] - u[2] * v[1], n[1] = u[2] * v[0] - u[0] * v[2], n[2] = u[0] * v[1] - u[1] * v[0];
    double nn = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
    if (nn > 0) {
        double s = (w[0] * n[0] + w[1] * n[1] + w[2] * n[2]) / nn, q[3];
        for (int i = 0; i < 3; ++i) q[i] = p[i] - s * n[i];
        /* Inside when q lies on the inner side of all three edges. */
        const double *corner[3] = {a, b, c};
        int inside = 1;
        for (int k = 0; k < 3 && inside; ++k) {
            const double *e0 = corner[k], *e1 = corner[(k + 1) % 3];
            double e[3], f[3], x[3];
            for (int i = 0; i < 3; ++i) e[i] = e1[i] - e0[i], f[i] = q[i] - e0[i];
            x[0] = e[1] * f[2] - e[2] * f[1], x[1] = e[2] * f[0] - e[0] * f[2], x[2] = e[0] * f[1] - e[1] * f[0];
            inside = x[0] * n[0] + x[1] * n[1] + x[2] * n[2] >= 0;
        }
        if (inside) return s * s * nn;
    }
    return fmin(seg_dist2(p, a, b), fmin(seg_dist2(p, b, c), seg_dist2(p, c, a)));
}

static double brute_largest(const float *pts, size_t np, const float *pos, const uint32_t *tris, size_t nt)
{
    double worst = 0;
    for (size_t v = 0; v < np; ++v) {
        double best = INFINITY;
        for (size_t t = 0; t < nt; ++t) {
            const uint32_t *c = &tris[3 * t];
            best = fmin(best, brute_dist2(&pts[3 * v], &pos[3 * c[0]], &pos[3 * c[1]], &pos[3 * c[2]]));
        }
        worst = fmax(worst, best);
    }
    return sqrt(worst);
}

static void distances_match_brute_force(void **state)
{
    (void)state;
    test_mesh s = make_sphere(16, 24);
    sinew_soffd_driver_desc d = target_desc(80);
    driver_out o = make_driver(&s, &d);
    assert_true(o.report.triangle_count <= 80);
    assert_true(o.report.triangle_count >= 60);
    double s2d = brute_largest(s.pos, s.vertex_count, o.pos, o.tris, o.report.triangle_count);
    double d2s = brute_largest(o.pos, o.report.vertex_count, s.pos, s.idx, s.face_count);
    assert_true(s2d > 1e-3);
    assert_true(fabs(o.report.skin_to_driver_distance - s2d) <= 1e-5 * (1 + s2d));
    assert_true(fabs(o.report.driver_to_skin_distance - d2s) <= 1e-5 * (1 + d2s));
    /* A coarse driver of a unit sphere stays within a tenth of its radius. */
    assert_true(s2d < 0.1 && d2s < 0.1);
    assert_closed_sphere(&o);
    driver_free(&o);
    test_mesh_free(&s);
}

static void sphere_stays_closed_at_every_budget(void **state)
{
    (void)state;
    test_mesh s = make_sphere(12, 16);
    size_t budgets[] = {4, 8, 20, 50, 120};
    for (size_t i = 0; i < sizeof budgets / sizeof *budgets; ++i) {
        sinew_soffd_driver_desc d = target_desc(budgets[i]);
        driver_out o = make_driver(&s, &d);
        assert_true(o.report.triangle_count >= 4);
        assert_closed_sphere(&o);
        driver_free(&o);
    }
    test_mesh_free(&s);
}

/* Driver vertices per unit length of the tube within the joint's reach
 * (0.35 of a bone) of x = 1, and along the spans [0.1, 0.65] and [1.35, 1.9]
 * (the tube's end rings left out). */
static void tube_density(const driver_out *o, double *near, double *span)
{
    size_t n_near = 0, n_span = 0;
    for (size_t v = 0; v < o->report.vertex_count; ++v) {
        double x = o->pos[3 * v];
        n_near += fabs(x - 1.0) <= 0.35;
        n_span += (x >= 0.1 && x <= 0.65) || (x >= 1.35 && x <= 1.9);
    }
    *near = (double)n_near / 0.7;
    *span = (double)n_span / 1.1;
}

static void joints_keep_more_vertices(void **state)
{
    (void)state;
    test_mesh tube = make_tube(2.0f, 0.2f, 80, 16);
    float joints[9] = {0, 0, 0, 1, 0, 0, 2, 0, 0};
    uint32_t bones[4] = {0, 1, 1, 2};
    sinew_soffd_driver_desc d = target_desc(200);
    driver_out plain = make_driver(&tube, &d);
    d.joint_positions = (sinew_points){joints, 3, 0};
    d.bones = bones;
    d.bone_count = 2;
    driver_out jointed = make_driver(&tube, &d);
    double near_plain, span_plain, near_j, span_j;
    tube_density(&plain, &near_plain, &span_plain);
    tube_density(&jointed, &near_j, &span_j);
    assert_true(near_j > 2.0 * span_j);
    assert_true(near_j > 1.25 * near_plain);
    assert_true(span_j < span_plain);
    driver_free(&plain);
    driver_free(&jointed);
    test_mesh_free(&tube);
}

static void same_input_same_driver(void **state)
{
    (void)state;
    test_mesh s = make_sphere(10, 14);
    sinew_soffd_driver_desc d = target_desc(40);
    driver_out a = make_driver(&s, &d), b = make_driver(&s, &d);
    assert_int_equal(a.report.vertex_count, b.report.vertex_count);
    assert_memory_equal(a.pos, b.pos, 12 * a.report.vertex_count);
    assert_memory_equal(a.tris, b.tris, 12 * a.report.triangle_count);
    /* The resolved defaults give the same driver. */
    sinew_soffd_driver_desc r;
    SINEW_INIT(&r);
    assert_int_equal(sinew_soffd_driver_desc_defaults(&d, &r), SINEW_OK);
    assert_true(r.weld_tolerance == 1e-5f && r.joint_emphasis == 3.0f && r.joint_radius == 0.35f);
    assert_int_equal(r.target_triangle_count, 40);
    driver_out c = make_driver(&s, &r);
    assert_memory_equal(a.pos, c.pos, 12 * a.report.vertex_count);
    driver_free(&a);
    driver_free(&b);
    driver_free(&c);
    test_mesh_free(&s);
}

static sinew_result call(const test_mesh *m, const sinew_soffd_driver_desc *d, float *pos, size_t pc,
                         uint32_t *tris, size_t tc, sinew_soffd_driver_report *rep)
{
    uint32_t *sizes;
    sinew_polymesh p = polymesh_of(m, &sizes);
    sinew_result r = sinew_soffd_driver_from_skin(NULL, &p, d, pos, pc, tris, tc, rep);
    free(sizes);
    return r;
}

static void assert_message(const char *part)
{
    if (!strstr(sinew_last_error(), part)) fail_msg("message \"%s\" lacks \"%s\"", sinew_last_error(), part);
}

static void bad_input_is_named(void **state)
{
    (void)state;
    test_mesh s = make_sphere(6, 8);
    sinew_soffd_driver_desc d = target_desc(10);
    sinew_soffd_driver_report rep;
    SINEW_INIT(&rep);
    float pos[3 * 64];
    uint32_t tris[3 * 128];
    assert_int_equal(sinew_soffd_driver_from_skin(NULL, NULL, &d, NULL, 0, NULL, 0, &rep),
                     SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(call(&s, NULL, NULL, 0, NULL, 0, &rep), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(call(&s, &d, NULL, 0, NULL, 0, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    sinew_soffd_driver_desc none;
    SINEW_INIT(&none);
    assert_int_equal(call(&s, &none, NULL, 0, NULL, 0, &rep), SINEW_ERROR_INVALID_ARGUMENT);
    assert_message("neither");
    sinew_soffd_driver_desc zeroed;
    memset(&zeroed, 0, sizeof zeroed);
    assert_int_equal(call(&s, &zeroed, NULL, 0, NULL, 0, &rep), SINEW_ERROR_INVALID_ARGUMENT);
    assert_message("SINEW_INIT");
    sinew_soffd_driver_desc bad = d;
    bad.max_error = -1.0f;
    assert_int_equal(call(&s, &bad, NULL, 0, NULL, 0, &rep), SINEW_ERROR_INVALID_ARGUMENT);
    assert_message("max_error");
    bad = d, bad.weld_tolerance = 0.5f;
    assert_int_equal(call(&s, &bad, NULL, 0, NULL, 0, &rep), SINEW_ERROR_INVALID_ARGUMENT);
    assert_message("weld_tolerance");
    bad = d, bad.joint_emphasis = NAN;
    assert_int_equal(call(&s, &bad, NULL, 0, NULL, 0, &rep), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(call(&s, &d, pos, 64, NULL, 0, &rep), SINEW_ERROR_INVALID_ARGUMENT);
    assert_message("out_triangles");
    /* A non-finite vertex, a face past the vertices, a bad bone. */
    float keep = s.pos[3 * 5 + 1];
    s.pos[3 * 5 + 1] = NAN;
    assert_int_equal(call(&s, &d, NULL, 0, NULL, 0, &rep), SINEW_ERROR_NON_FINITE);
    assert_message("5");
    s.pos[3 * 5 + 1] = keep;
    uint32_t keep_i = s.idx[3 * 7 + 2];
    s.idx[3 * 7 + 2] = 999;
    assert_int_equal(call(&s, &d, NULL, 0, NULL, 0, &rep), SINEW_ERROR_INDEX_OUT_OF_RANGE);
    assert_message("skin face 7 refers to vertex 999");
    s.idx[3 * 7 + 2] = keep_i;
    float joints[6] = {0, 0, 0, 0, 0, 1};
    uint32_t bones[4] = {0, 1, 1, 2};
    bad = d, bad.joint_positions = (sinew_points){joints, 2, 0}, bad.bones = bones, bad.bone_count = 2;
    assert_int_equal(call(&s, &bad, NULL, 0, NULL, 0, &rep), SINEW_ERROR_INDEX_OUT_OF_RANGE);
    assert_message("bone 1 refers to joint 2");
    bones[3] = 1;
    assert_int_equal(call(&s, &bad, NULL, 0, NULL, 0, &rep), SINEW_ERROR_INVALID_ARGUMENT);
    assert_message("bone 1 joins joint 1 to itself");
    /* A skin with no extent. */
    test_mesh flat = s;
    flat.pos = calloc(3 * s.vertex_count, sizeof(float));
    assert_int_equal(call(&flat, &d, NULL, 0, NULL, 0, &rep), SINEW_ERROR_DEGENERATE);
    free(flat.pos);
    /* Too small a buffer: the report holds the sizes, the outputs stay as they were. */
    assert_int_equal(call(&s, &d, NULL, 0, NULL, 0, &rep), SINEW_OK);
    size_t nv = rep.vertex_count;
    memset(pos, 0x5a, sizeof pos);
    SINEW_INIT(&rep);
    assert_int_equal(call(&s, &d, pos, nv - 1, tris, 128, &rep), SINEW_ERROR_BUFFER_TOO_SMALL);
    assert_int_equal(rep.vertex_count, nv);
    for (size_t i = 0; i < sizeof pos; ++i) assert_int_equal(((unsigned char *)pos)[i], 0x5a);
    /* A failure leaves the report untouched. */
    sinew_soffd_driver_report untouched;
    memset(&untouched, 0x33, sizeof untouched);
    untouched.struct_size = sizeof untouched;
    sinew_soffd_driver_report copy = untouched;
    assert_int_equal(call(&s, &none, NULL, 0, NULL, 0, &untouched), SINEW_ERROR_INVALID_ARGUMENT);
    assert_memory_equal(&untouched, &copy, sizeof copy);
    test_mesh_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(box_keeps_its_corners),
        cmocka_unit_test(plane_goes_to_two_triangles),
        cmocka_unit_test(distances_match_brute_force),
        cmocka_unit_test(sphere_stays_closed_at_every_budget),
        cmocka_unit_test(joints_keep_more_vertices),
        cmocka_unit_test(same_input_same_driver),
        cmocka_unit_test(bad_input_is_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
