/* Segment error bounds, adaptive refinement and the fold-over check. True
 * deviations are measured here by dense sampling through the public deform
 * call, independently of the Bezier machinery under test. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "support.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* ---- Helpers ------------------------------------------------------------------ */

static sinew_lattice *unit_lattice(uint32_t order, uint32_t count, sinew_lattice_outside outside)
{
    sinew_lattice_desc d;
    SINEW_INIT(&d);
    for (int a = 0; a < 3; ++a) d.order[a] = order, d.count[a] = count;
    d.outside = outside;
    sinew_lattice *lat = NULL;
    assert_int_equal(sinew_lattice_create(NULL, &d, &lat), SINEW_OK);
    return lat;
}

/* Bends the lattice along u (a sagging arc in y) and twists it about the
 * u axis through the box centre. */
static void bend_and_twist(sinew_lattice *lat, double bend, double twist)
{
    sinew_lattice_info info;
    SINEW_INIT(&info);
    sinew_lattice_get_info(lat, &info);
    float *p = malloc(info.point_count * 3 * sizeof(float));
    assert_int_equal(sinew_lattice_rest_points(lat, p, 0, 0, info.point_count), SINEW_OK);
    for (size_t i = 0; i < info.point_count; ++i) {
        float *q = p + 3 * i;
        double u = (q[0] - info.origin[0]) / info.extents[0];
        double cy = info.origin[1] + 0.5 * info.extents[1], cz = info.origin[2] + 0.5 * info.extents[2];
        double y = q[1] - cy, z = q[2] - cz, a = twist * (u - 0.5);
        q[1] = (float)(cy + cos(a) * y - sin(a) * z + bend * sin(M_PI * u) * info.extents[1]);
        q[2] = (float)(cz + sin(a) * y + cos(a) * z);
    }
    sinew_points v = {p, info.point_count, 0};
    assert_int_equal(sinew_lattice_set_points(lat, &v, 0, v.count), SINEW_OK);
    free(p);
}

static double seg_dist(const double q[3], const double a[3], const double b[3])
{
    double ab[3], aq[3], l2 = 0, s = 0;
    for (int c = 0; c < 3; ++c) {
        ab[c] = b[c] - a[c];
        aq[c] = q[c] - a[c];
        l2 += ab[c] * ab[c];
        s += aq[c] * ab[c];
    }
    s = l2 > 0 ? s / l2 : 0;
    s = s < 0 ? 0 : s > 1 ? 1 : s;
    double d = 0;
    for (int c = 0; c < 3; ++c) d += (aq[c] - s * ab[c]) * (aq[c] - s * ab[c]);
    return sqrt(d);
}

/* Largest distance of the deformed segment a-b from its deformed chord, by
 * deforming `samples` + 1 evenly spaced points. */
static double sampled_deviation(const sinew_lattice *lat, const float *a, const float *b, int samples)
{
    float buf[3 * 129], out[3 * 129];
    assert_true(samples <= 128);
    for (int k = 0; k <= samples; ++k) {
        double t = (double)k / samples;
        for (int c = 0; c < 3; ++c) buf[3 * k + c] = (float)((1 - t) * a[c] + t * b[c]);
    }
    memcpy(buf, a, 3 * sizeof(float));
    memcpy(buf + 3 * samples, b, 3 * sizeof(float));
    sinew_points v = {buf, (size_t)samples + 1, 0};
    assert_int_equal(sinew_lattice_deform(lat, &v, NULL, out, 0, NULL, 0, 0, (size_t)samples + 1), SINEW_OK);
    double fa[3] = {out[0], out[1], out[2]}, fb[3] = {out[3 * samples], out[3 * samples + 1], out[3 * samples + 2]};
    double worst = 0;
    for (int k = 1; k < samples; ++k) {
        double q[3] = {out[3 * k], out[3 * k + 1], out[3 * k + 2]};
        double d = seg_dist(q, fa, fb);
        if (d > worst) worst = d;
    }
    return worst;
}

/* A closed UV sphere of radius r about c: rings x segments. */
typedef struct test_mesh {
    float *v;
    uint32_t *t;
    size_t nv, nt;
} test_mesh;

/* Writes triangle *t of m and advances *t; refuses (fails the test) to write
 * past m->nt, which also shows the compiler every write is in bounds. */
static void put_triangle(test_mesh *m, size_t *t, uint32_t a, uint32_t b, uint32_t c)
{
    if (*t >= m->nt) {
        fail_msg("triangle %zu past the %zu allotted", *t, m->nt);
        return;
    }
    m->t[3 * *t] = a;
    m->t[3 * *t + 1] = b;
    m->t[3 * *t + 2] = c;
    ++*t;
}

static test_mesh uv_sphere(int rings, int segments, const double c[3], double r)
{
    test_mesh m;
    m.nv = 2 + (size_t)(rings - 1) * segments;
    m.nt = 2 * (size_t)segments * (rings - 1);
    m.v = malloc(m.nv * 3 * sizeof(float));
    m.t = malloc(m.nt * 3 * sizeof(uint32_t));
    size_t n = 0;
    m.v[0] = (float)c[0], m.v[1] = (float)c[1], m.v[2] = (float)(c[2] + r);
    ++n;
    for (int i = 1; i < rings; ++i)
        for (int j = 0; j < segments; ++j, ++n) {
            double th = M_PI * i / rings, ph = 2 * M_PI * j / segments;
            m.v[3 * n] = (float)(c[0] + r * sin(th) * cos(ph));
            m.v[3 * n + 1] = (float)(c[1] + r * sin(th) * sin(ph));
            m.v[3 * n + 2] = (float)(c[2] + r * cos(th));
        }
    m.v[3 * n] = (float)c[0], m.v[3 * n + 1] = (float)c[1], m.v[3 * n + 2] = (float)(c[2] - r);
    uint32_t south = (uint32_t)n;
    size_t t = 0;
#define RING(i, j) (uint32_t)(1 + (size_t)((i) - 1) * segments + (size_t)(((j) + segments) % segments))
    for (int j = 0; j < segments; ++j) put_triangle(&m, &t, 0, RING(1, j), RING(1, j + 1));
    for (int i = 1; i < rings - 1; ++i)
        for (int j = 0; j < segments; ++j) {
            uint32_t a = RING(i, j), b = RING(i, j + 1), cc = RING(i + 1, j), d = RING(i + 1, j + 1);
            put_triangle(&m, &t, a, cc, d);
            put_triangle(&m, &t, a, d, b);
        }
    for (int j = 0; j < segments; ++j) put_triangle(&m, &t, RING(rings - 1, j), south, RING(rings - 1, j + 1));
#undef RING
    assert_int_equal(t, m.nt);
    return m;
}

static void mesh_free(test_mesh *m)
{
    free(m->v);
    free(m->t);
}

/* Directed edge uses: for a closed, consistently oriented mesh every directed
 * edge appears once and its reverse once. Returns the number of undirected
 * edges with more than two triangles or unmatched directions. */
static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static size_t unmatched_directed_edges(const uint32_t *tri, size_t nt)
{
    uint64_t *e = malloc(3 * nt * sizeof(uint64_t));
    for (size_t t = 0; t < nt; ++t)
        for (int k = 0; k < 3; ++k) e[3 * t + k] = ((uint64_t)tri[3 * t + k] << 32) | tri[3 * t + (k + 1) % 3];
    qsort(e, 3 * nt, sizeof *e, cmp_u64);
    size_t bad = 0;
    for (size_t i = 0; i < 3 * nt; ++i) {
        if (i + 1 < 3 * nt && e[i + 1] == e[i]) ++bad; /* same directed edge twice: > 2 triangles or flipped */
        uint64_t rev = (e[i] << 32) | (e[i] >> 32);
        if (!bsearch(&rev, e, 3 * nt, sizeof *e, cmp_u64)) ++bad;
    }
    free(e);
    return bad;
}

/* Brute force: vertices lying inside an edge (strictly between its ends, in
 * rest space) that is not split at them, i.e. T-junctions. */
static size_t vertices_inside_edges(const float *v, size_t nv, const uint32_t *tri, size_t nt)
{
    size_t found = 0;
    for (size_t t = 0; t < nt; ++t)
        for (int e = 0; e < 3; ++e) {
            uint32_t a = tri[3 * t + e], b = tri[3 * t + (e + 1) % 3];
            const float *pa = v + 3 * (size_t)a, *pb = v + 3 * (size_t)b;
            double ab[3] = {pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]};
            double l2 = ab[0] * ab[0] + ab[1] * ab[1] + ab[2] * ab[2];
            if (l2 == 0) continue;
            for (size_t k = 0; k < nv; ++k) {
                if (k == a || k == b) continue;
                const float *q = v + 3 * k;
                double aq[3] = {q[0] - pa[0], q[1] - pa[1], q[2] - pa[2]};
                double s = (aq[0] * ab[0] + aq[1] * ab[1] + aq[2] * ab[2]) / l2;
                if (s <= 1e-4 || s >= 1 - 1e-4) continue;
                double d2 = 0;
                for (int c = 0; c < 3; ++c) d2 += (aq[c] - s * ab[c]) * (aq[c] - s * ab[c]);
                if (d2 < 1e-12 * l2) ++found;
            }
        }
    return found;
}

/* ---- Segment bound -------------------------------------------------------------- */

static void bound_closed_form_quadratic(void **state)
{
    (void)state;
    /* Order 3, one Bezier cell: lifting the middle layer i = 1 by h in y gives
     * D(u) = 2u(1-u) h. Along the u axis the curve is degree 6 (2+2+2); the
     * quadratic's Bezier coefficients 0, h, 0 elevate to 2h m(6-m)/30, largest
     * 0.6 h at m = 3, Greville parameter 1/2. The true deviation is h/2. */
    sinew_lattice *lat = unit_lattice(3, 3, SINEW_LATTICE_OUTSIDE_LEAVE);
    const float h = 0.1f;
    float d[27 * 3];
    memset(d, 0, sizeof d);
    for (int k = 0; k < 3; ++k)
        for (int j = 0; j < 3; ++j) d[3 * (1 + 3 * (j + 3 * k)) + 1] = h;
    sinew_points v = {d, 27, 0};
    assert_int_equal(sinew_lattice_set_displacements(lat, &v, 0, v.count), SINEW_OK);
    float a[3] = {0, 0.5f, 0.5f}, b[3] = {1, 0.5f, 0.5f};
    double bound = 0, t = 0;
    assert_int_equal(sinew_lattice_segment_bound(lat, a, b, &bound, &t), SINEW_OK);
    assert_true(fabs(bound - 0.6 * h) < 1e-6);
    assert_true(fabs(t - 0.5) < 1e-12);
    assert_true(fabs(sampled_deviation(lat, a, b, 128) - 0.5 * h) < 1e-6);
    /* untouched lattice: every control point lies on the chord */
    sinew_lattice_reset(lat);
    assert_int_equal(sinew_lattice_segment_bound(lat, a, b, &bound, NULL), SINEW_OK);
    assert_true(bound < 1e-12);
    sinew_lattice_destroy(lat);
}

static void bound_exceeds_sampled_deviation(void **state)
{
    (void)state;
    support_rng rng;
    support_rng_seed(&rng, 11);
    for (uint32_t o = 2; o <= 6; ++o)
        for (int pol = 0; pol < 3; ++pol) {
            sinew_lattice *lat = unit_lattice(o, o + 2, (sinew_lattice_outside)pol);
            sinew_lattice_info info;
            SINEW_INIT(&info);
            sinew_lattice_get_info(lat, &info);
            float *d = malloc(info.point_count * 3 * sizeof(float));
            for (size_t i = 0; i < 3 * info.point_count; ++i) d[i] = (float)support_rng_uniform(&rng, -0.05, 0.05);
            sinew_points v = {d, info.point_count, 0};
            assert_int_equal(sinew_lattice_set_displacements(lat, &v, 0, v.count), SINEW_OK);
            for (int n = 0; n < 30; ++n) {
                /* CLAMP and EXTEND segments may leave the box; LEAVE ones stay
                 * inside, where F is continuous */
                double lo = pol == 0 ? 0.0 : -0.3, hi = pol == 0 ? 1.0 : 1.3;
                float a[3], b[3];
                for (int c = 0; c < 3; ++c) {
                    a[c] = (float)support_rng_uniform(&rng, lo, hi);
                    b[c] = (float)support_rng_uniform(&rng, lo, hi);
                }
                double bound, t;
                assert_int_equal(sinew_lattice_segment_bound(lat, a, b, &bound, &t), SINEW_OK);
                double sampled = sampled_deviation(lat, a, b, 128);
                assert_true(sampled <= bound + 1e-6);
                assert_true(t >= 0.0 && t <= 1.0);
            }
            free(d);
            sinew_lattice_destroy(lat);
        }
}

/* ---- Refinement -------------------------------------------------------------------- */

typedef struct refine_check {
    double max_sampled;     /* true deviation over every output edge */
    double max_bound;       /* public bound over every output edge */
    size_t bad_edges;       /* directed-edge mismatches (non-manifold, T-junction, flip) */
} refine_check;

static refine_check check_refinement(const sinew_lattice *lat, const test_mesh *in,
                                     const sinew_lattice_refined_mesh *m, int samples)
{
    refine_check rc = {0, 0, 0};
    assert_int_equal(m->input_vertex_count, in->nv);
    assert_memory_equal(m->rest_positions, in->v, in->nv * 3 * sizeof(float));
    /* the deformed positions are the deformation of the rest positions */
    float *def = malloc(m->vertex_count * 3 * sizeof(float));
    sinew_points rv = {m->rest_positions, m->vertex_count, 0};
    assert_int_equal(sinew_lattice_deform(lat, &rv, NULL, def, 0, NULL, 0, 0, m->vertex_count), SINEW_OK);
    for (size_t i = 0; i < 3 * m->vertex_count; ++i) assert_true(fabsf(def[i] - m->positions[i]) < 1e-5f);
    free(def);
    /* every new vertex lies on its parent edge, parents come first */
    for (size_t v = m->input_vertex_count; v < m->vertex_count; ++v) {
        size_t k = v - m->input_vertex_count;
        uint32_t a = m->parents[2 * k], b = m->parents[2 * k + 1];
        float t = m->parameters[k];
        assert_true(a < v && b < v && t > 0.0f && t < 1.0f);
        for (int c = 0; c < 3; ++c) {
            float want = (1 - t) * m->rest_positions[3 * a + c] + t * m->rest_positions[3 * b + c];
            assert_true(fabsf(want - m->rest_positions[3 * v + c]) < 1e-5f);
        }
    }
    rc.bad_edges = unmatched_directed_edges(m->indices, m->triangle_count);
    for (size_t t = 0; t < m->triangle_count; ++t)
        for (int e = 0; e < 3; ++e) {
            uint32_t a = m->indices[3 * t + e], b = m->indices[3 * t + (e + 1) % 3];
            if (a > b) continue; /* each undirected edge once (closed mesh) */
            const float *pa = m->rest_positions + 3 * (size_t)a, *pb = m->rest_positions + 3 * (size_t)b;
            double bound;
            assert_int_equal(sinew_lattice_segment_bound(lat, pa, pb, &bound, NULL), SINEW_OK);
            if (bound > rc.max_bound) rc.max_bound = bound;
            double s = sampled_deviation(lat, pa, pb, samples);
            if (s > rc.max_sampled) rc.max_sampled = s;
        }
    return rc;
}

static void refine_meets_tolerance_and_conforms(void **state)
{
    (void)state;
    const double c[3] = {0.5, 0.5, 0.5};
    test_mesh sphere = uv_sphere(10, 16, c, 0.42);
    assert_int_equal(unmatched_directed_edges(sphere.t, sphere.nt), 0);
    sinew_trimesh tm = {{sphere.v, sphere.nv, 0}, sphere.t, sphere.nt, SINEW_INDEX_U32, 0};
    for (uint32_t o = 3; o <= 5; o += 1) {
        sinew_lattice *lat = unit_lattice(o, o + 3, SINEW_LATTICE_OUTSIDE_CLAMP);
        bend_and_twist(lat, 0.15, 1.2);
        for (int split = 0; split < 2; ++split) {
            sinew_lattice_refinement_desc rd;
            SINEW_INIT(&rd);
            rd.tolerance = 2e-3;
            rd.split = (sinew_lattice_split)split;
            sinew_lattice_refinement *ref = NULL;
            assert_int_equal(sinew_lattice_refinement_create(NULL, lat, &tm, &rd, &ref), SINEW_OK);
            sinew_lattice_refined_mesh m;
            SINEW_INIT(&m);
            assert_int_equal(sinew_lattice_refinement_mesh(ref, &m), SINEW_OK);
            assert_true(m.triangle_count > 2 * tm.triangle_count);
            assert_true(m.rounds > 0);
            assert_true(m.max_error <= rd.tolerance);
            /* The info reports the figures of the mesh it describes. */
            sinew_lattice_refinement_info info;
            SINEW_INIT(&info);
            assert_int_equal(sinew_lattice_refinement_get_info(ref, &info), SINEW_OK);
            assert_int_equal(info.vertex_count, m.vertex_count);
            assert_int_equal(info.input_vertex_count, tm.positions.count);
            assert_int_equal(info.triangle_count, m.triangle_count);
            assert_int_equal(info.rounds, m.rounds);
            assert_true(info.max_error == m.max_error);
            assert_true(info.memory_bytes > m.vertex_count * 6 * sizeof(float));
            assert_int_equal(info.memory_bytes, m.memory_bytes);
            refine_check rc = check_refinement(lat, &sphere, &m, 24);
            assert_int_equal(rc.bad_edges, 0);
            if (o == 3)
                assert_int_equal(vertices_inside_edges(m.rest_positions, m.vertex_count, m.indices, m.triangle_count), 0);
            assert_true(rc.max_bound <= rd.tolerance * (1 + 1e-6));
            assert_true(rc.max_sampled <= rd.tolerance);
            sinew_lattice_refinement_destroy(ref);
        }
        sinew_lattice_destroy(lat);
    }
    mesh_free(&sphere);
}

static void farthest_split_finds_the_deformed_end(void **state)
{
    (void)state;
    /* Deformation concentrated at one end (paper, Fig. 9): the lattice lifts
     * y as (u - 0.6)^2 beyond u = 0.6 only. Along the u axis the farthest
     * control point, and so the split, lies in the deformed part, where the
     * midpoint split would land on the straight part. */
    for (uint32_t o = 3; o <= 5; ++o) {
        sinew_lattice *lat = unit_lattice(o, o + 5, SINEW_LATTICE_OUTSIDE_LEAVE);
        sinew_lattice_info info;
        SINEW_INIT(&info);
        sinew_lattice_get_info(lat, &info);
        float *p = malloc(info.point_count * 3 * sizeof(float));
        assert_int_equal(sinew_lattice_rest_points(lat, p, 0, 0, info.point_count), SINEW_OK);
        for (size_t i = 0; i < info.point_count; ++i) {
            double s = p[3 * i] < 0.6f ? 0.0 : (p[3 * i] - 0.6) / 0.4;
            p[3 * i + 1] += (float)(0.3 * s * s);
        }
        sinew_points pv = {p, info.point_count, 0};
        assert_int_equal(sinew_lattice_set_points(lat, &pv, 0, pv.count), SINEW_OK);
        float a[3] = {0, 0.5f, 0.5f}, b[3] = {1, 0.5f, 0.5f};
        double bound, t;
        assert_int_equal(sinew_lattice_segment_bound(lat, a, b, &bound, &t), SINEW_OK);
        assert_true(t > 0.6 && t < 1.0);
        assert_true(bound >= sampled_deviation(lat, a, b, 128));
        free(p);
        sinew_lattice_destroy(lat);
    }
}

static void midpoint_test_misses_s_curves(void **state)
{
    (void)state;
    /* Order 4, one cell, y displacements 0, h, -h, 0 along u: an S whose
     * midpoint lies on the chord. The midpoint test keeps the edge; the bound
     * test splits it. */
    sinew_lattice *lat = unit_lattice(4, 4, SINEW_LATTICE_OUTSIDE_LEAVE);
    const float h = 0.2f;
    float d[64 * 3];
    memset(d, 0, sizeof d);
    for (int k = 0; k < 4; ++k)
        for (int j = 0; j < 4; ++j) {
            d[3 * (1 + 4 * (j + 4 * k)) + 1] = h;
            d[3 * (2 + 4 * (j + 4 * k)) + 1] = -h;
        }
    sinew_points dv = {d, 64, 0};
    assert_int_equal(sinew_lattice_set_displacements(lat, &dv, 0, dv.count), SINEW_OK);
    /* A quad across the box: its u-running edges and its diagonal all follow
     * the same S (D depends on u alone), its w-running edges stay straight. */
    float v[12] = {0.0f, 0.5f, 0.3f, 1.0f, 0.5f, 0.3f, 1.0f, 0.5f, 0.7f, 0.0f, 0.5f, 0.7f};
    uint32_t t[6] = {0, 1, 2, 0, 2, 3};
    sinew_trimesh tm = {{v, 4, 0}, t, 2, SINEW_INDEX_U32, 0};
    const double tol = 1e-3;
    sinew_lattice_refinement_desc rd;
    SINEW_INIT(&rd);
    rd.tolerance = tol;
    rd.test = SINEW_LATTICE_TEST_MIDPOINT;
    sinew_lattice_refinement *ref = NULL;
    assert_int_equal(sinew_lattice_refinement_create(NULL, lat, &tm, &rd, &ref), SINEW_OK);
    sinew_lattice_refined_mesh m;
    SINEW_INIT(&m);
    sinew_lattice_refinement_mesh(ref, &m);
    /* nothing was split, although the edges deviate far beyond tol */
    assert_int_equal(m.triangle_count, 2);
    assert_int_equal(m.rounds, 0);
    assert_true(sampled_deviation(lat, v, v + 3, 128) > 10 * tol);
    sinew_lattice_refinement_destroy(ref);
    rd.test = SINEW_LATTICE_TEST_BOUND;
    assert_int_equal(sinew_lattice_refinement_create(NULL, lat, &tm, &rd, &ref), SINEW_OK);
    sinew_lattice_refinement_mesh(ref, &m);
    assert_true(m.triangle_count > 4);
    sinew_lattice_refinement_destroy(ref);
    sinew_lattice_destroy(lat);
}

static void refine_real_mesh(void **state)
{
    (void)state;
    char path[1024];
    /* (an OBJ: the OFF reader of tests/support skips every other face line) */
    if (!support_data_path("common-3d-test-models/spot.obj", path, sizeof path)) skip();
    support_mesh sm;
    assert_true(support_read_obj(path, &sm));
    /* box around the mesh */
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < sm.vertex_count; ++i)
        for (int c = 0; c < 3; ++c) {
            lo[c] = fminf(lo[c], sm.positions[3 * i + c]);
            hi[c] = fmaxf(hi[c], sm.positions[3 * i + c]);
        }
    sinew_lattice_desc d;
    SINEW_INIT(&d);
    double diag = 0;
    for (int c = 0; c < 3; ++c) {
        d.count[c] = 6;
        d.origin[c] = lo[c] - 0.01f * (hi[c] - lo[c]);
        d.extents[c] = 1.02f * (hi[c] - lo[c]);
        diag += (double)(hi[c] - lo[c]) * (hi[c] - lo[c]);
    }
    diag = sqrt(diag);
    sinew_lattice *lat = NULL;
    assert_int_equal(sinew_lattice_create(NULL, &d, &lat), SINEW_OK);
    bend_and_twist(lat, 0.15, 1.5);
    test_mesh in = {sm.positions, sm.triangles, sm.vertex_count, sm.triangle_count};
    sinew_trimesh tm = support_mesh_trimesh(&sm);
    size_t bad_in = unmatched_directed_edges(sm.triangles, sm.triangle_count);
    sinew_lattice_refinement_desc rd;
    SINEW_INIT(&rd);
    rd.tolerance = 3e-4 * diag;
    sinew_lattice_refinement *ref = NULL;
    assert_int_equal(sinew_lattice_refinement_create(NULL, lat, &tm, &rd, &ref), SINEW_OK);
    sinew_lattice_refined_mesh m;
    SINEW_INIT(&m);
    sinew_lattice_refinement_mesh(ref, &m);
    refine_check rc = check_refinement(lat, &in, &m, 16);
    assert_true(m.triangle_count > sm.triangle_count + sm.triangle_count / 10);
    print_message("spot: %zu -> %zu triangles, bound %.3g, sampled %.3g, tolerance %.3g\n", sm.triangle_count,
                  m.triangle_count, rc.max_bound, rc.max_sampled, rd.tolerance);
    assert_int_equal(rc.bad_edges, bad_in); /* closed input stays closed */
    assert_true(rc.max_bound <= rd.tolerance * (1 + 1e-6));
    assert_true(rc.max_sampled <= rd.tolerance);
    sinew_lattice_refinement_destroy(ref);
    sinew_lattice_destroy(lat);
    support_mesh_free(&sm);
}

static int cancel_at_second(void *user, const char *stage, float fraction)
{
    (void)stage;
    (void)fraction;
    return ++*(int *)user >= 2;
}

static void refine_budget_cancel_and_validation(void **state)
{
    (void)state;
    const double c[3] = {0.5, 0.5, 0.5};
    test_mesh s = uv_sphere(6, 8, c, 0.4);
    sinew_trimesh tm = {{s.v, s.nv, 0}, s.t, s.nt, SINEW_INDEX_U32, 0};
    sinew_lattice *lat = unit_lattice(4, 6, SINEW_LATTICE_OUTSIDE_CLAMP);
    bend_and_twist(lat, 0.2, 1.0);
    sinew_lattice_refinement_desc rd;
    SINEW_INIT(&rd);
    rd.tolerance = 1e-4;
    rd.max_triangles = 200;
    sinew_lattice_refinement *ref = (sinew_lattice_refinement *)(uintptr_t)0x1;
    assert_int_equal(sinew_lattice_refinement_create(NULL, lat, &tm, &rd, &ref), SINEW_ERROR_BUDGET_EXCEEDED);
    assert_non_null(strstr(sinew_last_error(), "200 triangles"));
    rd.max_triangles = 0;
    /* cancelled by the progress callback */
    int calls = 0;
    sinew_context_desc cd;
    SINEW_INIT(&cd);
    cd.progress = cancel_at_second;
    cd.progress_user = &calls;
    sinew_context *ctx = NULL;
    assert_int_equal(sinew_context_create(&cd, &ctx), SINEW_OK);
    assert_int_equal(sinew_lattice_refinement_create(ctx, lat, &tm, &rd, &ref), SINEW_ERROR_CANCELLED);
    sinew_context_destroy(ctx);
    /* validation */
    rd.tolerance = 0;
    assert_int_equal(sinew_lattice_refinement_create(NULL, lat, &tm, &rd, &ref), SINEW_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(sinew_last_error(), "tolerance"));
    rd.tolerance = -1;
    assert_int_equal(sinew_lattice_refinement_create(NULL, lat, &tm, &rd, &ref), SINEW_ERROR_INVALID_ARGUMENT);
    rd.tolerance = NAN;
    assert_int_equal(sinew_lattice_refinement_create(NULL, lat, &tm, &rd, &ref), SINEW_ERROR_INVALID_ARGUMENT);
    rd.tolerance = 1e-3;
    rd.test = (sinew_lattice_error_test)5;
    assert_int_equal(sinew_lattice_refinement_create(NULL, lat, &tm, &rd, &ref), SINEW_ERROR_INVALID_ARGUMENT);
    rd.test = SINEW_LATTICE_TEST_BOUND;
    rd.split = (sinew_lattice_split)5;
    assert_int_equal(sinew_lattice_refinement_create(NULL, lat, &tm, &rd, &ref), SINEW_ERROR_INVALID_ARGUMENT);
    rd.split = SINEW_LATTICE_SPLIT_FARTHEST;
    sinew_trimesh empty = tm;
    empty.triangle_count = 0;
    assert_int_equal(sinew_lattice_refinement_create(NULL, lat, &empty, &rd, &ref), SINEW_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(sinew_last_error(), "no triangles"));
    sinew_trimesh bad = tm;
    uint32_t bad_idx[3] = {0, 1, (uint32_t)s.nv};
    bad.indices = bad_idx;
    bad.triangle_count = 1;
    assert_int_equal(sinew_lattice_refinement_create(NULL, lat, &bad, &rd, &ref), SINEW_ERROR_INDEX_OUT_OF_RANGE);
    s.v[4] = NAN;
    assert_int_equal(sinew_lattice_refinement_create(NULL, lat, &tm, &rd, &ref), SINEW_ERROR_NON_FINITE);
    assert_non_null(strstr(sinew_last_error(), "vertex 1"));
    assert_int_equal(sinew_lattice_refinement_create(NULL, NULL, &tm, &rd, &ref), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_lattice_refinement_create(NULL, lat, &tm, NULL, &ref), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_lattice_refinement_create(NULL, lat, &tm, &rd, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    assert_true(ref == (sinew_lattice_refinement *)(uintptr_t)0x1);
    float nanp[3] = {NAN, 0, 0};
    assert_int_equal(sinew_lattice_segment_bound(lat, nanp, s.v, NULL, NULL), SINEW_ERROR_NON_FINITE);
    assert_int_equal(sinew_lattice_refinement_mesh(NULL, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    sinew_lattice_refinement_destroy(NULL);
    sinew_lattice_destroy(lat);
    mesh_free(&s);
}

typedef struct sweep_input {
    const sinew_trimesh *mesh;
} sweep_input;

static sinew_result attempt_refine(sinew_context *ctx, void *user)
{
    const sweep_input *in = (const sweep_input *)user;
    sinew_lattice_desc d;
    SINEW_INIT(&d);
    d.count[0] = d.count[1] = d.count[2] = 5;
    sinew_lattice *lat = NULL;
    sinew_result r = sinew_lattice_create(ctx, &d, &lat);
    if (r != SINEW_OK) return r;
    bend_and_twist(lat, 0.2, 1.0);
    sinew_lattice_refinement_desc rd;
    SINEW_INIT(&rd);
    rd.tolerance = 4e-3;
    sinew_lattice_refinement *ref = NULL;
    r = sinew_lattice_refinement_create(ctx, lat, in->mesh, &rd, &ref);
    sinew_lattice_refinement_destroy(ref);
    sinew_lattice_destroy(lat);
    return r;
}

static void refine_allocation_failures(void **state)
{
    (void)state;
    const double c[3] = {0.5, 0.5, 0.5};
    test_mesh s = uv_sphere(5, 6, c, 0.4);
    sinew_trimesh tm = {{s.v, s.nv, 0}, s.t, s.nt, SINEW_INDEX_U32, 0};
    sweep_input in = {&tm};
    size_t runs = 0;
    char report[256];
    bool ok = support_sweep_allocation_failures(attempt_refine, &in, &runs, report, sizeof report);
    if (!ok) fail_msg("%s", report);
    assert_true(runs >= 8);
    mesh_free(&s);
}

/* ---- Fold-over check ----------------------------------------------------------------- */

static void fold_check(void **state)
{
    (void)state;
    for (uint32_t o = 2; o <= 5; ++o) {
        sinew_lattice *lat = unit_lattice(o, o + 2, SINEW_LATTICE_OUTSIDE_LEAVE);
        sinew_lattice_info info;
        SINEW_INIT(&info);
        sinew_lattice_get_info(lat, &info);
        uint8_t flags[512];
        sinew_lattice_fold_report rep;
        SINEW_INIT(&rep);
        /* identity: det J = 1 everywhere, nothing flagged */
        assert_int_equal(sinew_lattice_check_folds(NULL, lat, 3, flags, info.cell_count, &rep), SINEW_OK);
        assert_int_equal(rep.cell_count, info.cell_count);
        assert_int_equal(rep.cells_may_fold, 0);
        assert_true(fabsf(rep.min_sampled_det - 1.0f) < 1e-5f);
        assert_true(fabsf(rep.min_coefficient - 1.0f) < 1e-5f);
        /* a bent and twisted lattice that stays unfolded */
        bend_and_twist(lat, 0.1, 0.8);
        assert_int_equal(sinew_lattice_check_folds(NULL, lat, 3, flags, info.cell_count, &rep), SINEW_OK);
        assert_int_equal(rep.cells_may_fold, 0);
        assert_true(rep.min_sampled_det > 0.0f);
        assert_true(rep.min_coefficient <= rep.min_sampled_det + 1e-5f); /* coefficients bound from below */
        /* fold: push the layer i = 1 beyond the layer i = 2 */
        float *p = malloc(info.point_count * 3 * sizeof(float));
        assert_int_equal(sinew_lattice_rest_points(lat, p, 0, 0, info.point_count), SINEW_OK);
        for (uint32_t k = 0; k < info.count[2]; ++k)
            for (uint32_t j = 0; j < info.count[1]; ++j) {
                size_t i1 = 1 + info.count[0] * (j + (size_t)info.count[1] * k);
                p[3 * i1] = 0.95f;
            }
        sinew_points pv = {p, info.point_count, 0};
        assert_int_equal(sinew_lattice_set_points(lat, &pv, 0, pv.count), SINEW_OK);
        assert_int_equal(sinew_lattice_check_folds(NULL, lat, 5, flags, info.cell_count, &rep), SINEW_OK);
        assert_true(rep.cells_may_fold > 0);
        assert_true(rep.min_sampled_det < 0.0f);
        assert_true(rep.min_sampled_at[0] < 0.75f);
        size_t flagged = 0;
        for (size_t cidx = 0; cidx < info.cell_count; ++cidx) flagged += flags[cidx];
        assert_int_equal(flagged, rep.cells_may_fold);
        free(p);
        /* validation */
        /* The flag buffer holds exactly the cell count (callers know it): any other size is a mismatch. */
        assert_int_equal(sinew_lattice_check_folds(NULL, lat, 3, flags, 1, &rep), SINEW_ERROR_MISMATCH);
        assert_int_equal(sinew_lattice_check_folds(NULL, lat, 3, flags, info.cell_count + 1, &rep), SINEW_ERROR_MISMATCH);
        assert_int_equal(sinew_lattice_check_folds(NULL, lat, 65, NULL, 0, &rep), SINEW_ERROR_INVALID_ARGUMENT);
        assert_int_equal(sinew_lattice_check_folds(NULL, lat, 3, NULL, 0, NULL), SINEW_ERROR_INVALID_ARGUMENT);
        sinew_lattice_destroy(lat);
    }
}

static void fold_check_cancelled(void **state)
{
    (void)state;
    int calls = 0;
    sinew_context_desc cd;
    SINEW_INIT(&cd);
    cd.progress = cancel_at_second;
    cd.progress_user = &calls;
    sinew_context *ctx = NULL;
    assert_int_equal(sinew_context_create(&cd, &ctx), SINEW_OK);
    sinew_lattice_desc d;
    SINEW_INIT(&d);
    d.count[0] = d.count[1] = d.count[2] = 12; /* 729 cells: progress is reported every 64 */
    sinew_lattice *lat = NULL;
    assert_int_equal(sinew_lattice_create(ctx, &d, &lat), SINEW_OK);
    uint8_t flags[729];
    memset(flags, 7, sizeof flags);
    sinew_lattice_fold_report rep;
    SINEW_INIT(&rep);
    /* Progress is per call: the lattice keeps no callback of its creating context. */
    calls = 1;
    assert_int_equal(sinew_lattice_check_folds(NULL, lat, 1, flags, sizeof flags, &rep), SINEW_OK);
    assert_int_equal(calls, 1);
    memset(flags, 7, sizeof flags);
    SINEW_INIT(&rep);
    calls = 0;
    assert_int_equal(sinew_lattice_check_folds(ctx, lat, 1, flags, sizeof flags, &rep), SINEW_ERROR_CANCELLED);
    sinew_context_destroy(ctx);
    for (size_t i = 0; i < sizeof flags; ++i) assert_int_equal(flags[i], 7);
    assert_int_equal(rep.cell_count, 0);
    sinew_lattice_destroy(lat);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bound_closed_form_quadratic),
        cmocka_unit_test(bound_exceeds_sampled_deviation),
        cmocka_unit_test(refine_meets_tolerance_and_conforms),
        cmocka_unit_test(farthest_split_finds_the_deformed_end),
        cmocka_unit_test(midpoint_test_misses_s_curves),
        cmocka_unit_test(refine_real_mesh),
        cmocka_unit_test(refine_budget_cancel_and_validation),
        cmocka_unit_test(refine_allocation_failures),
        cmocka_unit_test(fold_check),
        cmocka_unit_test(fold_check_cancelled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
