/* Point location of BBW queries against a straightforward search: at points
 * inside the domain and at points just outside it (within the query's reach),
 * sinew_bbw_point_weights gives the weights interpolated in the element an
 * independent scan of every element picks: the one holding the point, else
 * the one whose clamped barycentric point is nearest. Also on graded domains
 * (whose crowded cells the locator splits), in 2D, at vertices, edges and
 * faces, on a rig of the shared data, and split into ranges. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "bbw_dataset.h"
#include "bbw_fixture.h"
#include "sinew.h"
#include "bbw/bbw_internal.h"
#include "support.h"

/* Barycentric coordinates of q in tet t (Cramer's rule, doubles). */
static void barycentric(const float *pos, const uint32_t *t, const double q[3], double out[4])
{
    const float *p0 = pos + 3 * t[0];
    double m[3][3], r[3];
    for (int a = 0; a < 3; ++a) {
        for (int k = 0; k < 3; ++k) m[a][k] = (double)pos[3 * t[k + 1] + a] - p0[a];
        r[a] = q[a] - p0[a];
    }
    double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                 m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    double rest = 1.0;
    for (int k = 0; k < 3; ++k) {
        double c[3][3];
        memcpy(c, m, sizeof c);
        for (int a = 0; a < 3; ++a) c[a][k] = r[a];
        out[k + 1] = (c[0][0] * (c[1][1] * c[2][2] - c[1][2] * c[2][1]) -
                      c[0][1] * (c[1][0] * c[2][2] - c[1][2] * c[2][0]) +
                      c[0][2] * (c[1][0] * c[2][1] - c[1][1] * c[2][0])) / det;
        rest -= out[k + 1];
    }
    out[0] = rest;
}

/* The reference: weights at q by scanning every tet. */
static void reference_point_weights(const grid3d *g, const float *vw, size_t m, const double q[3], double *out)
{
    double best_d2 = INFINITY, best_t[4] = {0};
    size_t best = 0;
    for (size_t e = 0; e < g->tet_count; ++e) {
        double t[4], sum = 0.0, x[3] = {0, 0, 0};
        barycentric(g->positions, g->tets + 4 * e, q, t);
        if (t[0] >= 0 && t[1] >= 0 && t[2] >= 0 && t[3] >= 0) {
            best = e, best_d2 = 0.0;
            memcpy(best_t, t, sizeof t);
            break;
        }
        for (int k = 0; k < 4; ++k) sum += t[k] = fmax(t[k], 0.0);
        for (int k = 0; k < 4; ++k) {
            t[k] /= sum;
            for (int a = 0; a < 3; ++a) x[a] += t[k] * g->positions[3 * g->tets[4 * e + k] + a];
        }
        double d2 = 0.0;
        for (int a = 0; a < 3; ++a) d2 += (x[a] - q[a]) * (x[a] - q[a]);
        if (d2 < best_d2) {
            best_d2 = d2, best = e;
            memcpy(best_t, t, sizeof t);
        }
    }
    for (size_t j = 0; j < m; ++j) {
        out[j] = 0.0;
        for (int k = 0; k < 4; ++k) out[j] += best_t[k] * vw[g->tets[4 * best + k] * m + j];
    }
}

/* The unit cube's 6 x 6 x 6 grid of tets with four point handles, solved. */
static sinew_bbw *solved_cube(grid3d *g)
{
    grid3d_make(g, 6, 1.0f);
    const float handles[4 * 3] = {0.1f, 0.1f, 0.1f, 0.9f, 0.1f, 0.1f, 0.1f, 0.9f, 0.1f, 0.5f, 0.5f, 0.9f};
    sinew_tetmesh tets = {{g->positions, g->vertex_count, 0}, g->tets, g->tet_count, SINEW_INDEX_U32, 0};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.tets = &tets;
    d.points = (sinew_points){handles, 4, 0};
    sinew_bbw *b = NULL;
    assert_int_equal(sinew_bbw_create(NULL, &d, &b), SINEW_OK);
    assert_int_equal(sinew_bbw_solve(NULL, b, NULL), SINEW_OK);
    return b;
}

static void weights_at_points_match_a_scan_of_every_element(void **state)
{
    (void)state;
    grid3d g;
    sinew_bbw *b = solved_cube(&g);
    const size_t m = 4;
    float *vw = malloc(g.vertex_count * m * sizeof(float));
    assert_int_equal(sinew_bbw_vertex_weights(b, vw, 0, g.vertex_count), SINEW_OK);
    /* 300 points inside, 300 within a twentieth of the cube outside a face. */
    enum { N = 600 };
    float *pts = malloc(3 * N * sizeof(float)), *w = malloc(N * m * sizeof(float));
    support_rng rng;
    support_rng_seed(&rng, 11);
    for (size_t i = 0; i < N; ++i) {
        for (int a = 0; a < 3; ++a) pts[3 * i + a] = (float)support_rng_uniform(&rng, 0.0, 1.0);
        if (i >= N / 2) {
            int axis = (int)(support_rng_next(&rng) % 3);
            double off = support_rng_uniform(&rng, 1e-4, 0.05);
            pts[3 * i + axis] = (float)(support_rng_next(&rng) % 2 ? 1.0 + off : -off);
        }
    }
    sinew_points view = {pts, N, 0};
    assert_int_equal(sinew_bbw_point_weights(b, &view, w, 0, N), SINEW_OK);
    double worst = 0.0;
    for (size_t i = 0; i < N; ++i) {
        double q[3] = {pts[3 * i], pts[3 * i + 1], pts[3 * i + 2]}, ref[4];
        reference_point_weights(&g, vw, m, q, ref);
        for (size_t j = 0; j < m; ++j) worst = fmax(worst, fabs(ref[j] - (double)w[i * m + j]));
    }
    print_message("worst difference from the scan: %.3g\n", worst);
    assert_true(worst <= 1e-6);
    free(pts), free(w), free(vw);
    sinew_bbw_destroy(b);
    grid3d_free(&g);
}

/* A domain as flat arrays: per = 3 (triangles, z = 0) or 4 (tets). */
typedef struct flat_domain {
    const float *pos;
    size_t vertex_count;
    const uint32_t *el;
    size_t count;
    int per;
    bool exact; /* pos are the domain's own positions, not a rounding of them */
} flat_domain;

/* Barycentric coordinates of q in element e of d (2D by Cramer's rule too). */
static void element_barycentric(const flat_domain *d, size_t e, const double q[3], double t[4])
{
    const uint32_t *c = d->el + (size_t)d->per * e;
    if (d->per == 4) {
        barycentric(d->pos, c, q, t);
        return;
    }
    const float *a = d->pos + 3 * c[0], *b = d->pos + 3 * c[1], *cc = d->pos + 3 * c[2];
    double m00 = (double)b[0] - a[0], m01 = (double)cc[0] - a[0], m10 = (double)b[1] - a[1], m11 = (double)cc[1] - a[1];
    double r0 = q[0] - a[0], r1 = q[1] - a[1], det = m00 * m11 - m01 * m10;
    t[1] = (r0 * m11 - m01 * r1) / det;
    t[2] = (m00 * r1 - r0 * m10) / det;
    t[0] = 1.0 - t[1] - t[2];
    t[3] = 0.0;
}

/* The reference row at q: the lowest-numbered element holding q (slack
 * 1e-9), else the one whose clamped point is nearest. Returns the holding
 * element, SIZE_MAX when none holds q. */
static size_t scan_weights(const flat_domain *d, const float *vw, size_t m, const double q[3], double *out)
{
    double best_d2 = INFINITY, best_t[4] = {0};
    size_t best = 0, holding = SIZE_MAX;
    for (size_t e = 0; e < d->count; ++e) {
        double t[4], sum = 0.0, x[3] = {0, 0, 0};
        element_barycentric(d, e, q, t);
        double lowest = t[0];
        for (int k = 1; k < d->per; ++k) lowest = fmin(lowest, t[k]);
        if (lowest >= -1e-9) {
            best = holding = e, best_d2 = 0.0;
            memcpy(best_t, t, sizeof t);
            break;
        }
        for (int k = 0; k < d->per; ++k) sum += t[k] = fmax(t[k], 0.0);
        for (int k = 0; k < d->per; ++k) {
            t[k] /= sum;
            for (int a = 0; a < 3; ++a) x[a] += t[k] * d->pos[3 * d->el[(size_t)d->per * e + k] + a];
        }
        double d2 = 0.0;
        for (int a = 0; a < 3; ++a) d2 += (x[a] - q[a]) * (x[a] - q[a]);
        if (d2 < best_d2) {
            best_d2 = d2, best = e;
            memcpy(best_t, t, sizeof t);
        }
    }
    for (size_t j = 0; j < m; ++j) {
        out[j] = 0.0;
        for (int k = 0; k < d->per; ++k) out[j] += best_t[k] * vw[d->el[(size_t)d->per * best + k] * m + j];
    }
    return holding;
}

/* The locator's quick search from any hint (the previous point's element,
 * or a far one) gives the element and coordinates of the search over the
 * cells' own lists, to the bit. */
static void quick_is_full(const sinew_bbw *b, const float *pts, size_t n, size_t element_count)
{
    size_t prev = SIZE_MAX, nearest = 0;
    for (size_t i = 0; i < n; ++i) {
        double q[3] = {pts[3 * i], pts[3 * i + 1], pts[3 * i + 2]}, t0[4] = {0}, t1[4] = {0}, t2[4] = {0};
        size_t full = sn_bbw_locate_with(b, q, 0.1, SIZE_MAX, false, t0, NULL);
        size_t quick = sn_bbw_locate_with(b, q, 0.1, prev, true, t1, NULL);
        size_t far = sn_bbw_locate_with(b, q, 0.1, (i * 7919) % element_count, true, t2, NULL);
        assert_int_equal(quick, full);
        assert_int_equal(far, full);
        assert_memory_equal(t0, t1, sizeof t0);
        assert_memory_equal(t0, t2, sizeof t0);
        prev = quick;
        nearest += full != SIZE_MAX && sn_bbw_locate_with(b, q, 0.0, SIZE_MAX, false, t0, NULL) == SIZE_MAX;
    }
    print_message("quick = full at %zu points (%zu located by the nearest element)\n", n, nearest);
}

/* Largest difference between point_weights and the scan over pts; also
 * checks that top_k's weights are the row's largest, renormalised, and that
 * the locator's containment test alone (no nearest-element search, which
 * would hide a holding element it missed) picks the scan's element. */
static double worst_against_scan(const sinew_bbw *b, const flat_domain *d, size_t m, const float *pts, size_t n)
{
    float *vw = malloc(d->vertex_count * m * sizeof(float)), *w = malloc(n * m * sizeof(float));
    float *tw = malloc(n * 4 * sizeof(float));
    uint32_t *tj = malloc(n * 4 * sizeof(uint32_t));
    double *ref = malloc(m * sizeof(double));
    assert_non_null(vw), assert_non_null(w), assert_non_null(tw), assert_non_null(tj), assert_non_null(ref);
    assert_int_equal(sinew_bbw_vertex_weights(b, vw, 0, d->vertex_count), SINEW_OK);
    sinew_points view = {pts, n, 0};
    quick_is_full(b, pts, n, d->count);
    assert_int_equal(sinew_bbw_point_weights(b, &view, w, 0, n), SINEW_OK);
    assert_int_equal(sinew_bbw_top_k(b, &view, 4, tj, tw, 0, n), SINEW_OK);
    double worst = 0.0;
    for (size_t i = 0; i < n; ++i) {
        double q[3] = {pts[3 * i], pts[3 * i + 1], d->per == 4 ? pts[3 * i + 2] : 0.0}, kept = 0.0;
        size_t holding = scan_weights(d, vw, m, q, ref);
        double t[4];
        size_t found = sn_bbw_locate(b, q, 0.0, t);
        if (d->exact) {
            assert_int_equal(found, holding);
        } else if (holding != SIZE_MAX) {
            /* Positions read back as floats: a point the scan finds clearly
             * inside is found, in an element holding it within their rounding. */
            element_barycentric(d, holding, q, t);
            double lowest = t[0];
            for (int k = 1; k < d->per; ++k) lowest = fmin(lowest, t[k]);
            if (lowest >= 1e-5) {
                found = sn_bbw_locate(b, q, 0.0, t);
                assert_true(found != SIZE_MAX);
                element_barycentric(d, found, q, t);
                for (int k = 0; k < d->per; ++k) assert_true(t[k] >= -1e-5);
            }
        }
        for (size_t j = 0; j < m; ++j) worst = fmax(worst, fabs(ref[j] - (double)w[i * m + j]));
        for (int s = 0; s < 4; ++s) kept += tw[4 * i + s] > 0.0f ? ref[tj[4 * i + s]] : 0.0;
        for (int s = 0; s < 4 && kept > 0.0; ++s)
            if (tw[4 * i + s] > 0.0f) worst = fmax(worst, fabs(ref[tj[4 * i + s]] / kept - (double)tw[4 * i + s]));
        /* No weight left out exceeds the smallest kept one. */
        float smallest = tw[4 * i + 3];
        for (size_t j = 0; j < m && smallest > 0.0f; ++j) {
            bool in = false;
            for (int s = 0; s < 4; ++s) in = in || tj[4 * i + s] == j;
            if (!in) assert_true(ref[j] <= ref[tj[4 * i + 3]] + 1e-6);
        }
    }
    free(vw), free(w), free(tw), free(tj), free(ref);
    return worst;
}

/* Points of every kind on domain d: inside random elements (which favours
 * the small, crowded ones), at vertices, edge midpoints and face centres,
 * uniform over the box, and just outside it. */
static float *mixed_points(const flat_domain *d, size_t n, uint64_t seed)
{
    float *pts = malloc(3 * n * sizeof(float));
    assert_non_null(pts);
    support_rng rng;
    support_rng_seed(&rng, seed);
    for (size_t i = 0; i < n; ++i) {
        const uint32_t *c = d->el + (size_t)d->per * (support_rng_next(&rng) % d->count);
        double w[4] = {0, 0, 0, 0}, sum = 0.0;
        switch (i % 6) {
        case 0: case 1: /* inside an element */
            for (int k = 0; k < d->per; ++k) sum += w[k] = support_rng_uniform(&rng, 0.0, 1.0);
            break;
        case 2: w[0] = sum = 1.0; break;                       /* a vertex */
        case 3: w[0] = w[1] = 1.0, sum = 2.0; break;           /* an edge */
        case 4: w[0] = w[1] = w[2] = 1.0, sum = 3.0; break;    /* a face (2D: inside) */
        default: break;
        }
        for (int a = 0; a < 3; ++a) {
            double x = 0.0;
            for (int k = 0; k < d->per; ++k) x += w[k] / (sum > 0 ? sum : 1) * d->pos[3 * c[k] + a];
            pts[3 * i + a] = (float)x;
        }
        if (i % 6 == 5) { /* uniform in the unit box, or just outside a face of it */
            for (int a = 0; a < 3; ++a) pts[3 * i + a] = (float)support_rng_uniform(&rng, 0.0, 1.0);
            if (i % 12 == 11) {
                int axis = (int)(support_rng_next(&rng) % (d->per == 4 ? 3 : 2));
                double off = support_rng_uniform(&rng, 1e-4, 0.03);
                pts[3 * i + axis] = (float)(support_rng_next(&rng) % 2 ? 1.0 + off : -off);
            } else if (i % 24 == 17) {
                /* Off an edge or a corner on its diagonal: equally near
                 * elements meet there (the tie the order breaks). */
                float off = (float)support_rng_uniform(&rng, 1e-3, 0.03);
                for (int a = 0; a < (i % 48 == 17 ? 3 : 2); ++a) pts[3 * i + a] = a % 2 ? -off : 1.0f + off;
            }
        }
        if (d->per == 3) pts[3 * i + 2] = 0.0f;
    }
    return pts;
}

/* Splits of [0, n) into ranges give the same bits as one call. */
static void ranges_give_the_same_bits(const sinew_bbw *b, size_t m, const float *pts, size_t n)
{
    sinew_points view = {pts, n, 0};
    float *whole = malloc(n * m * sizeof(float)), *parts = malloc(n * m * sizeof(float));
    float *tw0 = malloc(n * 4 * sizeof(float)), *tw1 = malloc(n * 4 * sizeof(float));
    uint32_t *tj0 = malloc(n * 4 * sizeof(uint32_t)), *tj1 = malloc(n * 4 * sizeof(uint32_t));
    assert_int_equal(sinew_bbw_point_weights(b, &view, whole, 0, n), SINEW_OK);
    assert_int_equal(sinew_bbw_top_k(b, &view, 4, tj0, tw0, 0, n), SINEW_OK);
    support_rng rng;
    support_rng_seed(&rng, 5);
    for (size_t first = 0; first < n;) {
        size_t count = 1 + support_rng_next(&rng) % 37;
        if (count > n - first) count = n - first;
        assert_int_equal(sinew_bbw_point_weights(b, &view, parts, first, count), SINEW_OK);
        assert_int_equal(sinew_bbw_top_k(b, &view, 4, tj1, tw1, first, count), SINEW_OK);
        first += count;
    }
    assert_memory_equal(whole, parts, n * m * sizeof(float));
    assert_memory_equal(tw0, tw1, n * 4 * sizeof(float));
    assert_memory_equal(tj0, tj1, n * 4 * sizeof(uint32_t));
    free(whole), free(parts), free(tw0), free(tw1), free(tj0), free(tj1);
}

/* x -> x^3 on every axis: the elements near the origin become hundreds of
 * times smaller than the rest, so the cells there list many (a graded
 * volume's shape); a monotone map per axis keeps every element positive. */
static void grade(float *pos, size_t n, int axes)
{
    for (size_t i = 0; i < 3 * n; ++i)
        if ((int)(i % 3) < axes) pos[i] = pos[i] * pos[i] * pos[i];
}

/* Solves the domain of d (its handles given) and compares point weights at
 * points spread over dom (inside, on faces, just off it) against the scan of
 * every element, and over range splits. */
static void graded_domain_matches_the_scan(const sinew_bbw_desc *d, const flat_domain *dom, size_t handles,
                                           uint64_t seed, const char *what)
{
    sinew_bbw *b = NULL;
    assert_int_equal(sinew_bbw_create(NULL, d, &b), SINEW_OK);
    assert_int_equal(sinew_bbw_solve(NULL, b, NULL), SINEW_OK);
    enum { N = 1200 };
    float *pts = mixed_points(dom, N, seed);
    double worst = worst_against_scan(b, dom, handles, pts, N);
    print_message("%s: worst difference from the scan %.3g\n", what, worst);
    assert_true(worst <= 1e-6);
    ranges_give_the_same_bits(b, handles, pts, N);
    free(pts);
    sinew_bbw_destroy(b);
}

static void graded_tets_match_the_scan(void **state)
{
    (void)state;
    grid3d g;
    grid3d_make(&g, 8, 1.0f);
    grade(g.positions, g.vertex_count, 3);
    const float handles[4 * 3] = {0.02f, 0.02f, 0.02f, 0.9f, 0.1f, 0.1f, 0.1f, 0.9f, 0.1f, 0.5f, 0.5f, 0.9f};
    sinew_tetmesh tets = {{g.positions, g.vertex_count, 0}, g.tets, g.tet_count, SINEW_INDEX_U32, 0};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.tets = &tets;
    d.points = (sinew_points){handles, 4, 0};
    flat_domain dom = {g.positions, g.vertex_count, g.tets, g.tet_count, 4, true};
    graded_domain_matches_the_scan(&d, &dom, 4, 3, "graded tets");
    grid3d_free(&g);
}

static void graded_triangles_match_the_scan(void **state)
{
    (void)state;
    grid2d g;
    grid2d_make(&g, 24, 24, 1.0f, 1.0f);
    grade(g.positions, g.vertex_count, 2);
    const float handles[3 * 3] = {0.01f, 0.01f, 0.0f, 0.9f, 0.2f, 0.0f, 0.3f, 0.8f, 0.0f};
    sinew_trimesh tri = {{g.positions, g.vertex_count, 0}, g.triangles, g.triangle_count, SINEW_INDEX_U32, 0};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.triangles = &tri;
    d.points = (sinew_points){handles, 3, 0};
    flat_domain dom = {g.positions, g.vertex_count, g.triangles, g.triangle_count, 3, true};
    graded_domain_matches_the_scan(&d, &dom, 3, 4, "graded triangles");
    grid2d_free(&g);
}

/* libigl's arm with its skeleton (an automatic volume): at the mesh's own
 * vertices in file order (many just off the volume) and inside it. */
static void a_rig_matches_the_scan(void **state)
{
    (void)state;
    size_t i = bbw_dataset_find("arm-obj-skeleton");
    bbw_case c;
    const char *why = NULL;
    if (i == SIZE_MAX || !bbw_dataset_load(i, &c, &why)) skip();
    sinew_bbw_desc desc;
    bbw_dataset_desc(&c, &desc);
    sinew_bbw *b = NULL;
    sinew_bbw_solve_desc sd;
    SINEW_INIT(&sd);
    sd.tolerance = 1e-3; /* location does not depend on the weights' accuracy */
    assert_int_equal(sinew_bbw_create(NULL, &desc, &b), SINEW_OK);
    sinew_result r = sinew_bbw_solve(NULL, b, &sd);
    assert_true(r == SINEW_OK || r == SINEW_ERROR_NOT_CONVERGED);
    sinew_bbw_info info;
    SINEW_INIT(&info);
    sinew_bbw_get_info(b, &info);
    float *pos = malloc(3 * info.vertex_count * sizeof(float));
    uint32_t *el = malloc(4 * info.element_count * sizeof(uint32_t));
    assert_int_equal(sinew_bbw_domain_vertices(b, pos, 0, 0, info.vertex_count), SINEW_OK);
    assert_int_equal(sinew_bbw_domain_elements(b, el, 0, info.element_count), SINEW_OK);
    flat_domain dom = {pos, info.vertex_count, el, info.element_count, 4, false};
    size_t m = info.handle_count;
    double worst = worst_against_scan(b, &dom, m, c.mesh.positions, c.mesh.vertex_count);
    print_message("arm, mesh vertices: worst difference from the scan %.3g\n", worst);
    assert_true(worst <= 1e-6);
    ranges_give_the_same_bits(b, m, c.mesh.positions, c.mesh.vertex_count);
    enum { N = 600 };
    float *pts = mixed_points(&dom, N, 9);
    for (size_t k = 0; k < N; ++k)
        if (k % 6 == 5) /* the unit box means nothing here: a vertex instead */
            memcpy(pts + 3 * k, pos + 3 * el[4 * (k % info.element_count)], 3 * sizeof(float));
    worst = worst_against_scan(b, &dom, m, pts, N);
    print_message("arm, inside: worst difference from the scan %.3g\n", worst);
    assert_true(worst <= 1e-6);
    free(pts), free(pos), free(el);
    sinew_bbw_destroy(b);
    bbw_dataset_free(&c);
}

/* The pre-check that every point can be located, whatever certifies the
 * points before: a point beyond the reach after located ones (inside, and
 * just outside a face) fails naming it, with the outputs untouched; within
 * the reach the same range succeeds. top_k at vertices keeps (weight desc,
 * index asc) order for any k, padding with zero slots. */
static void a_point_beyond_the_reach_fails_after_located_ones(void **state)
{
    (void)state;
    grid3d g;
    sinew_bbw *b = solved_cube(&g);
    enum { N = 40 };
    float pts[3 * N], w[N * 4], sentinel[N * 4];
    for (size_t i = 0; i < N; ++i) {
        pts[3 * i] = 0.3f + 0.01f * (float)i, pts[3 * i + 1] = 0.4f, pts[3 * i + 2] = 0.5f;
        if (i >= N / 2) pts[3 * i + 1] = 1.0f + (float)(0.3 * b->reach) * (float)(i - N / 2) / N;
    }
    pts[3 * (N - 3) + 1] = 1.0f + (float)(1.5 * b->reach);
    for (size_t i = 0; i < N * 4; ++i) sentinel[i] = w[i] = -7.0f;
    sinew_points view = {pts, N, 0};
    assert_int_equal(sinew_bbw_point_weights(b, &view, w, 0, N), SINEW_ERROR_OUTSIDE_DOMAIN);
    assert_non_null(strstr(sinew_last_error(), "point 37 "));
    assert_memory_equal(w, sentinel, sizeof w);
    uint32_t tj[N * 4];
    assert_int_equal(sinew_bbw_top_k(b, &view, 4, tj, w, 0, N), SINEW_ERROR_OUTSIDE_DOMAIN);
    assert_memory_equal(w, sentinel, sizeof w);
    assert_int_equal(sinew_bbw_point_weights(b, &view, w, 0, N - 3), SINEW_OK);
    assert_int_equal(sinew_bbw_point_weights(b, &view, w, N - 2, 2), SINEW_OK);

    /* top_k at vertices against repeated selection of the largest. */
    float *vw = malloc(g.vertex_count * 4 * sizeof(float));
    assert_int_equal(sinew_bbw_vertex_weights(b, vw, 0, g.vertex_count), SINEW_OK);
    for (size_t k = 1; k <= 6; ++k) {
        uint32_t *joints = malloc(g.vertex_count * k * sizeof(uint32_t));
        float *weights = malloc(g.vertex_count * k * sizeof(float));
        assert_int_equal(sinew_bbw_top_k(b, NULL, k, joints, weights, 0, g.vertex_count), SINEW_OK);
        for (size_t v = 0; v < g.vertex_count; ++v) {
            const float *row = vw + 4 * v;
            bool taken[4] = {false, false, false, false};
            double sum = 0.0, kept[6];
            size_t used = 0;
            for (; used < k; ++used) {
                size_t best = SIZE_MAX;
                for (size_t j = 0; j < 4; ++j)
                    if (!taken[j] && row[j] > 0.0f && (best == SIZE_MAX || row[j] > row[best])) best = j;
                if (best == SIZE_MAX) break;
                taken[best] = true;
                assert_int_equal(joints[v * k + used], best);
                sum += kept[used] = row[best];
            }
            for (size_t s = 0; s < used; ++s) assert_true(weights[v * k + s] == (float)(kept[s] / sum));
            for (size_t s = used; s < k; ++s) {
                assert_int_equal(joints[v * k + s], 0);
                assert_true(weights[v * k + s] == 0.0f);
            }
        }
        free(joints), free(weights);
    }
    free(vw);
    sinew_bbw_destroy(b);
    grid3d_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(weights_at_points_match_a_scan_of_every_element),
        cmocka_unit_test(graded_tets_match_the_scan),
        cmocka_unit_test(graded_triangles_match_the_scan),
        cmocka_unit_test(a_rig_matches_the_scan),
        cmocka_unit_test(a_point_beyond_the_reach_fails_after_located_ones),
    };
    return cmocka_run_group_tests_name("bbw-locate", tests, NULL, NULL);
}
