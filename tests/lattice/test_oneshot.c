/* One-shot deformation (sinew_lattice_deform without normals), positions-only
 * evaluation and placement's deform, which share the fast path (uniform-knot
 * basis, vector fillers, packed cubic cells): against a direct basis sum in
 * double written here from the Cox-de Boor definition, for many orders and
 * sizes and every outside policy; bit-identical under any split of a range
 * and any stride; points on knot planes and box faces; the float-range proof
 * when every point lies inside the box; placement's deform against evaluate
 * and the direct sum. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "support.h"
#include "wavy_floor.h"

/* ---- Independent reference --------------------------------------------------- */

static double knot(int n, int o, int j)
{
    int p = o - 1, cells = n - p;
    if (j <= p) return 0.0;
    if (j >= n) return 1.0;
    return (double)(j - p) / cells;
}

/* N_{i,k}(x) from the recursive definition; the last span is closed at 1. */
static double basis(int n, int o, int i, int k, double x)
{
    if (k == 1) {
        double a = knot(n, o, i), b = knot(n, o, i + 1);
        if (x >= a && x < b) return 1.0;
        return x == 1.0 && b == 1.0 && a < 1.0 ? 1.0 : 0.0;
    }
    double v = 0.0, d1 = knot(n, o, i + k - 1) - knot(n, o, i), d2 = knot(n, o, i + k) - knot(n, o, i + 1);
    if (d1 > 0) v += (x - knot(n, o, i)) / d1 * basis(n, o, i, k - 1, x);
    if (d2 > 0) v += (knot(n, o, i + k) - x) / d2 * basis(n, o, i + 1, k - 1, x);
    return v;
}

/* dN_{i,k}/dx = (k - 1) (N_{i,k-1} / (t_{i+k-1} - t_i) - N_{i+1,k-1} / (t_{i+k} - t_{i+1})). */
static double basis_slope(int n, int o, int i, int k, double x)
{
    double v = 0.0, d1 = knot(n, o, i + k - 1) - knot(n, o, i), d2 = knot(n, o, i + k) - knot(n, o, i + 1);
    if (d1 > 0) v += basis(n, o, i, k - 1, x) / d1;
    if (d2 > 0) v -= basis(n, o, i + 1, k - 1, x) / d2;
    return (k - 1) * v;
}

typedef struct ref_lattice {
    sinew_lattice_info info;
    float *disp;
} ref_lattice;

/* Every basis function of axis a at x under the policy; false = LEAVE outside. */
static bool axis_values(const ref_lattice *rl, int a, double x, double *b)
{
    const int n = (int)rl->info.count[a], o = (int)rl->info.order[a];
    double c = x < 0.0 ? 0.0 : x > 1.0 ? 1.0 : x;
    if (c != x && rl->info.outside == SINEW_LATTICE_OUTSIDE_LEAVE) return false;
    for (int i = 0; i < n; ++i) {
        b[i] = basis(n, o, i, o, c);
        if (c != x && rl->info.outside == SINEW_LATTICE_OUTSIDE_EXTEND) b[i] += (x - c) * basis_slope(n, o, i, o, c);
    }
    return true;
}

/* D(u) = sum D_ijk B_i B_j B_k; false when the point is left alone. */
static bool ref_disp(const ref_lattice *rl, const double u[3], double d[3])
{
    double *b[3];
    bool moved = true;
    for (int a = 0; a < 3; ++a) {
        b[a] = malloc(rl->info.count[a] * sizeof(double));
        moved = axis_values(rl, a, u[a], b[a]) && moved;
    }
    d[0] = d[1] = d[2] = 0.0;
    if (moved)
        for (uint32_t k = 0; k < rl->info.count[2]; ++k)
            for (uint32_t j = 0; j < rl->info.count[1]; ++j) {
                double w = b[1][j] * b[2][k];
                if (w == 0.0) continue;
                for (uint32_t i = 0; i < rl->info.count[0]; ++i) {
                    size_t idx = i + rl->info.count[0] * (j + (size_t)rl->info.count[1] * k);
                    for (int c = 0; c < 3; ++c) d[c] += w * b[0][i] * rl->disp[3 * idx + c];
                }
            }
    for (int a = 0; a < 3; ++a) free(b[a]);
    return moved;
}

static void box_point(const sinew_lattice_info *info, const double u[3], double out[3])
{
    for (int c = 0; c < 3; ++c) {
        out[c] = info->origin[c];
        for (int a = 0; a < 3; ++a) out[c] += (double)info->axes[a][c] * info->extents[a] * u[a];
    }
}

/* Parameters of a world point in an orthonormal box. */
static void box_params(const sinew_lattice_info *info, const float p[3], double u[3])
{
    for (int a = 0; a < 3; ++a) {
        double s = 0.0;
        for (int c = 0; c < 3; ++c) s += ((double)p[c] - info->origin[c]) * info->axes[a][c];
        u[a] = s / info->extents[a];
    }
}

/* ---- Fixtures ------------------------------------------------------------------- */

/* A lattice in a rotated box with random displacements (of `amount` times
 * the box size), and the reference's copy of it. */
static sinew_lattice *make_lattice(const uint32_t order[3], const uint32_t count[3], sinew_lattice_outside outside,
                                   const float origin[3], float size, double amount, support_rng *rng,
                                   ref_lattice *rl)
{
    sinew_lattice_desc d;
    SINEW_INIT(&d);
    memcpy(d.order, order, sizeof d.order);
    memcpy(d.count, count, sizeof d.count);
    memcpy(d.origin, origin, sizeof d.origin);
    const float c = 0.8f, s = 0.6f;
    const float axes[3][3] = {{c, 0, s}, {0, 1, 0}, {-s, 0, c}};
    memcpy(d.axes, axes, sizeof axes);
    d.extents[0] = 2.0f * size, d.extents[1] = 1.5f * size, d.extents[2] = size;
    d.outside = outside;
    sinew_lattice *lat = NULL;
    assert_int_equal(sinew_lattice_create(NULL, &d, &lat), SINEW_OK);
    SINEW_INIT(&rl->info);
    assert_int_equal(sinew_lattice_get_info(lat, &rl->info), SINEW_OK);
    const size_t n = rl->info.point_count;
    rl->disp = malloc(3 * n * sizeof(float));
    for (size_t i = 0; i < 3 * n; ++i) rl->disp[i] = (float)(size * support_rng_uniform(rng, -amount, amount));
    sinew_points v = {rl->disp, n, 0};
    assert_int_equal(sinew_lattice_set_displacements(lat, &v, 0, n), SINEW_OK);
    return lat;
}

/* World points at random parameters in [lo, hi]^3 of the box. */
static float *random_points(const sinew_lattice_info *info, size_t n, double lo, double hi, support_rng *rng)
{
    float *p = malloc(3 * n * sizeof(float));
    for (size_t i = 0; i < n; ++i) {
        double u[3] = {support_rng_uniform(rng, lo, hi), support_rng_uniform(rng, lo, hi),
                       support_rng_uniform(rng, lo, hi)}, w[3];
        box_point(info, u, w);
        for (int c = 0; c < 3; ++c) p[3 * i + c] = (float)w[c];
    }
    return p;
}

/* Deformed world points against the reference, relative to the box size.
 * The reference finds parameters from the info's float axes, the library from
 * its own double frame: a LEAVE point within rounding of a box face may be
 * moved or not, and either is right. */
static void assert_matches_reference(const ref_lattice *rl, const float *pts, const float *out, size_t n, double size)
{
    for (size_t i = 0; i < n; ++i) {
        double u[3], d[3], clamped[3], dc[3];
        box_params(&rl->info, pts + 3 * i, u);
        ref_disp(rl, u, d);
        bool near_face = false;
        for (int a = 0; a < 3; ++a) {
            near_face |= fabs(u[a]) < 1e-6 || fabs(u[a] - 1.0) < 1e-6;
            clamped[a] = u[a] < 0.0 ? 0.0 : u[a] > 1.0 ? 1.0 : u[a];
        }
        ref_disp(rl, clamped, dc);
        for (int c = 0; c < 3; ++c) {
            double want = (double)pts[3 * i + c] + d[c];
            double tol = 3e-5 * size + 2e-7 * fabs(want);
            if (near_face && rl->info.outside == SINEW_LATTICE_OUTSIDE_LEAVE &&
                (fabs(out[3 * i + c] - pts[3 * i + c]) <= tol ||
                 fabs(out[3 * i + c] - (pts[3 * i + c] + dc[c])) <= tol))
                continue;
            if (!(fabs(out[3 * i + c] - want) <= tol))
                fail_msg("point %zu (u = %.9g %.9g %.9g) coordinate %d: %.9g, reference %.9g", i, u[0], u[1], u[2], c,
                         (double)out[3 * i + c], want);
        }
    }
}

static const uint32_t cases[][2][3] = {
    {{4, 4, 4}, {8, 8, 8}},   {{4, 4, 4}, {4, 4, 4}},   {{4, 4, 4}, {64, 6, 4}}, {{4, 4, 4}, {16, 16, 16}},
    {{2, 2, 2}, {2, 2, 2}},   {{2, 2, 2}, {9, 5, 3}},   {{3, 3, 3}, {8, 8, 8}},  {{3, 3, 3}, {64, 6, 4}},
    {{6, 6, 6}, {6, 6, 6}},   {{6, 6, 6}, {12, 9, 7}},  {{8, 7, 2}, {11, 9, 4}}, {{4, 2, 5}, {7, 3, 9}},
    {{5, 3, 6}, {8, 5, 13}},  {{2, 4, 3}, {20, 4, 5}},
};
enum { CASES = sizeof cases / sizeof cases[0] };

/* ---- Against the reference -------------------------------------------------------- */

static void deform_matches_direct_basis_sum(void **state)
{
    (void)state;
    support_rng rng;
    support_rng_seed(&rng, 101);
    const float origin[3] = {-1.0f, 0.5f, 2.0f};
    for (size_t k = 0; k < CASES; ++k)
        for (int pol = 0; pol < 3; ++pol) {
            ref_lattice rl;
            sinew_lattice *lat = make_lattice(cases[k][0], cases[k][1], (sinew_lattice_outside)pol, origin, 1.0f, 0.1,
                                              &rng, &rl);
            enum { N = 203 };
            float *pts = random_points(&rl.info, N, -0.15, 1.15, &rng), out[3 * N];
            sinew_points v = {pts, N, 0};
            assert_int_equal(sinew_lattice_deform(lat, &v, NULL, out, 0, NULL, 0, 0, N), SINEW_OK);
            assert_matches_reference(&rl, pts, out, N, 1.0);
            free(pts);
            free(rl.disp);
            sinew_lattice_destroy(lat);
        }
}

static void evaluate_positions_match_direct_basis_sum(void **state)
{
    (void)state;
    support_rng rng;
    support_rng_seed(&rng, 102);
    const float origin[3] = {3.0f, -2.0f, 0.25f};
    for (size_t k = 0; k < CASES; ++k)
        for (int pol = 0; pol < 3; ++pol) {
            ref_lattice rl;
            sinew_lattice *lat = make_lattice(cases[k][0], cases[k][1], (sinew_lattice_outside)pol, origin, 1.0f, 0.1,
                                              &rng, &rl);
            enum { N = 131 };
            float params[3 * N], out[3 * N], with_jac[3 * N], jac[9 * N];
            for (int i = 0; i < 3 * N; ++i) params[i] = (float)support_rng_uniform(&rng, -0.1, 1.1);
            sinew_points v = {params, N, 0};
            assert_int_equal(sinew_lattice_evaluate(lat, &v, out, 0, NULL, 0, 0, N), SINEW_OK);
            /* the double-precision path (positions with Jacobians) agrees */
            assert_int_equal(sinew_lattice_evaluate(lat, &v, with_jac, 0, jac, 0, 0, N), SINEW_OK);
            for (int i = 0; i < N; ++i) {
                double u[3] = {params[3 * i], params[3 * i + 1], params[3 * i + 2]}, d[3], box[3];
                ref_disp(&rl, u, d);
                box_point(&rl.info, u, box);
                for (int c = 0; c < 3; ++c) {
                    double want = box[c] + d[c];
                    assert_true(fabs(out[3 * i + c] - want) <= 3e-5 + 2e-7 * fabs(want));
                    assert_true(fabs(out[3 * i + c] - with_jac[3 * i + c]) <= 3e-5 + 2e-7 * fabs(want));
                }
            }
            free(rl.disp);
            sinew_lattice_destroy(lat);
        }
}

/* Far from the origin and in a tiny box the parameters come from a world
 * point whose coordinates dwarf the box. */
static void far_and_tiny_boxes(void **state)
{
    (void)state;
    support_rng rng;
    support_rng_seed(&rng, 103);
    const uint32_t order[3] = {4, 3, 4}, count[3] = {8, 6, 5};
    const struct {
        float origin[3];
        float size;
    } boxes[] = {{{1e5f, -2e5f, 3e5f}, 100.0f}, {{1e-3f, 0.0f, -1e-3f}, 1e-5f}, {{0, 0, 0}, 1e-30f}};
    for (size_t b = 0; b < 3; ++b)
        for (int pol = 0; pol < 3; ++pol) {
            ref_lattice rl;
            sinew_lattice *lat = make_lattice(order, count, (sinew_lattice_outside)pol, boxes[b].origin,
                                              boxes[b].size, 0.1, &rng, &rl);
            enum { N = 97 };
            float *pts = random_points(&rl.info, N, -0.1, 1.1, &rng), out[3 * N];
            sinew_points v = {pts, N, 0};
            assert_int_equal(sinew_lattice_deform(lat, &v, NULL, out, 0, NULL, 0, 0, N), SINEW_OK);
            /* the points' own float spacing limits what any path can do */
            double size = boxes[b].size;
            for (int i = 0; i < N; ++i) {
                double u[3], d[3];
                box_params(&rl.info, pts + 3 * i, u);
                ref_disp(&rl, u, d);
                for (int c = 0; c < 3; ++c) {
                    double want = (double)pts[3 * i + c] + d[c];
                    assert_true(fabs(out[3 * i + c] - want) <= 3e-5 * size + 4e-7 * fabs(want));
                }
            }
            free(pts);
            free(rl.disp);
            sinew_lattice_destroy(lat);
        }
}

/* Parameters exactly on knot planes (k / cells), one float step either side,
 * and on and just beyond the box faces. */
static void knot_planes_and_box_faces(void **state)
{
    (void)state;
    support_rng rng;
    support_rng_seed(&rng, 104);
    const float origin[3] = {0, 0, 0};
    for (size_t k = 0; k < CASES; ++k)
        for (int pol = 0; pol < 3; ++pol) {
            ref_lattice rl;
            sinew_lattice *lat = make_lattice(cases[k][0], cases[k][1], (sinew_lattice_outside)pol, origin, 1.0f, 0.1,
                                              &rng, &rl);
            /* parameter points: each axis on a knot value (or beside it) */
            enum { N = 240 };
            float params[3 * N], out[3 * N];
            for (int i = 0; i < N; ++i)
                for (int a = 0; a < 3; ++a) {
                    uint32_t cells = rl.info.cells[a];
                    float x = (float)((double)(support_rng_next(&rng) % (cells + 1)) / cells);
                    switch (support_rng_next(&rng) % 4) {
                    case 1: x = nextafterf(x, 2.0f); break;
                    case 2: x = nextafterf(x, -1.0f); break;
                    default: break;
                    }
                    params[3 * i + a] = x;
                }
            sinew_points v = {params, N, 0};
            assert_int_equal(sinew_lattice_evaluate(lat, &v, out, 0, NULL, 0, 0, N), SINEW_OK);
            for (int i = 0; i < N; ++i) {
                double u[3] = {params[3 * i], params[3 * i + 1], params[3 * i + 2]}, d[3], box[3];
                ref_disp(&rl, u, d);
                box_point(&rl.info, u, box);
                for (int c = 0; c < 3; ++c)
                    assert_true(fabs(out[3 * i + c] - (box[c] + d[c])) <= 3e-5 + 2e-7 * fabs(box[c] + d[c]));
            }
            /* the same points as world points of the unit-size box */
            float world[3 * N], wout[3 * N];
            for (int i = 0; i < N; ++i) {
                double u[3] = {params[3 * i], params[3 * i + 1], params[3 * i + 2]}, w[3];
                box_point(&rl.info, u, w);
                for (int c = 0; c < 3; ++c) world[3 * i + c] = (float)w[c];
            }
            sinew_points wv = {world, N, 0};
            assert_int_equal(sinew_lattice_deform(lat, &wv, NULL, wout, 0, NULL, 0, 0, N), SINEW_OK);
            assert_matches_reference(&rl, world, wout, N, 1.0);
            free(rl.disp);
            sinew_lattice_destroy(lat);
        }
}

/* ---- Splits and strides --------------------------------------------------------- */

static void splits_and_strides_give_the_same_bits(void **state)
{
    (void)state;
    support_rng rng;
    support_rng_seed(&rng, 105);
    const float origin[3] = {0.5f, -0.5f, 1.0f};
    for (size_t k = 0; k < CASES; ++k)
        for (int pol = 0; pol < 3; ++pol) {
            ref_lattice rl;
            sinew_lattice *lat = make_lattice(cases[k][0], cases[k][1], (sinew_lattice_outside)pol, origin, 1.0f, 0.1,
                                              &rng, &rl);
            enum { N = 301 };
            float *pts = random_points(&rl.info, N, -0.2, 1.2, &rng);
            float whole[3 * N], split[3 * N], wide[5 * N], pwhole[3 * N], psplit[3 * N];
            sinew_points v = {pts, N, 0};
            assert_int_equal(sinew_lattice_deform(lat, &v, NULL, whole, 0, NULL, 0, 0, N), SINEW_OK);
            /* random pieces, 1 to 40 points, each call a different offset into the blocks */
            for (size_t at = 0; at < N;) {
                size_t len = 1 + support_rng_next(&rng) % 40;
                if (len > N - at) len = N - at;
                assert_int_equal(sinew_lattice_deform(lat, &v, NULL, split, 0, NULL, 0, at, len), SINEW_OK);
                at += len;
            }
            assert_memory_equal(whole, split, sizeof whole);
            /* point by point, from a strided copy of the input into a strided output */
            float *strided = malloc(4 * N * sizeof(float));
            for (int i = 0; i < N; ++i) {
                memcpy(strided + 4 * i, pts + 3 * i, 3 * sizeof(float));
                strided[4 * i + 3] = NAN; /* padding is never read */
            }
            sinew_points sv = {strided, N, 4 * sizeof(float)};
            for (size_t i = 0; i < N; ++i)
                assert_int_equal(sinew_lattice_deform(lat, &sv, NULL, wide, 5 * sizeof(float), NULL, 0, i, 1),
                                 SINEW_OK);
            for (int i = 0; i < N; ++i) assert_memory_equal(whole + 3 * i, wide + 5 * i, 3 * sizeof(float));
            /* parameter points through evaluate, likewise */
            float params[3 * N];
            for (int i = 0; i < 3 * N; ++i) params[i] = (float)support_rng_uniform(&rng, -0.2, 1.2);
            sinew_points pv = {params, N, 0};
            assert_int_equal(sinew_lattice_evaluate(lat, &pv, pwhole, 0, NULL, 0, 0, N), SINEW_OK);
            for (size_t at = 0; at < N;) {
                size_t len = 1 + support_rng_next(&rng) % 20;
                if (len > N - at) len = N - at;
                assert_int_equal(sinew_lattice_evaluate(lat, &pv, psplit, 0, NULL, 0, at, len), SINEW_OK);
                at += len;
            }
            assert_memory_equal(pwhole, psplit, sizeof pwhole);
            free(strided);
            free(pts);
            free(rl.disp);
            sinew_lattice_destroy(lat);
        }
}

/* ---- Float range ----------------------------------------------------------------- */

static void inside_points_still_get_the_float_range_proof(void **state)
{
    (void)state;
    /* Displacements near FLT_MAX at a box corner that is itself far out: the
     * points are all inside, finite, yet their outputs could overflow. */
    sinew_lattice_desc d;
    SINEW_INIT(&d);
    d.count[0] = d.count[1] = d.count[2] = 5;
    d.origin[0] = 3e38f;
    sinew_lattice *lat = NULL;
    assert_int_equal(sinew_lattice_create(NULL, &d, &lat), SINEW_OK);
    /* an interior control point: 62 = 2 + 5 (2 + 5 * 2); range calls read
     * element 62 of the view */
    float big[3 * 125] = {0};
    big[3 * 62] = -3e38f, big[3 * 62 + 1] = 3e38f;
    sinew_points bv = {big, 125, 0};
    assert_int_equal(sinew_lattice_set_displacements(lat, &bv, 62, 1), SINEW_OK);
    enum { N = 40 };
    float pts[3 * N], out[3 * N];
    for (int i = 0; i < N; ++i) pts[3 * i] = 3e38f, pts[3 * i + 1] = 0.5f, pts[3 * i + 2] = 0.5f;
    for (int i = 0; i < 3 * N; ++i) out[i] = 7.0f;
    sinew_points v = {pts, N, 0};
    assert_int_equal(sinew_lattice_deform(lat, &v, NULL, out, 0, NULL, 0, 0, N), SINEW_ERROR_NON_FINITE);
    for (int i = 0; i < 3 * N; ++i) assert_true(out[i] == 7.0f);
    /* parameter points likewise */
    float params[3 * N];
    for (int i = 0; i < 3 * N; ++i) params[i] = 0.5f;
    sinew_points pv = {params, N, 0};
    assert_int_equal(sinew_lattice_evaluate(lat, &pv, out, 0, NULL, 0, 0, N), SINEW_ERROR_NON_FINITE);
    for (int i = 0; i < 3 * N; ++i) assert_true(out[i] == 7.0f);
    sinew_lattice_destroy(lat);
}

static void a_bad_point_among_inside_points_is_named(void **state)
{
    (void)state;
    sinew_lattice_desc d;
    SINEW_INIT(&d);
    d.count[0] = d.count[1] = d.count[2] = 6;
    d.outside = SINEW_LATTICE_OUTSIDE_EXTEND;
    sinew_lattice *lat = NULL;
    assert_int_equal(sinew_lattice_create(NULL, &d, &lat), SINEW_OK);
    float one[3] = {0.1f, 0.1f, 0.1f};
    sinew_points ov = {one, 1, 0};
    assert_int_equal(sinew_lattice_set_displacements(lat, &ov, 0, 1), SINEW_OK);
    enum { N = 100 };
    float pts[3 * N], out[3 * N];
    support_rng rng;
    support_rng_seed(&rng, 106);
    for (int i = 0; i < 3 * N; ++i) pts[i] = (float)support_rng_uniform(&rng, 0.0, 1.0);
    for (int i = 0; i < 3 * N; ++i) out[i] = 7.0f;
    sinew_points v = {pts, N, 0};
    /* a non-finite coordinate */
    pts[3 * 77 + 1] = NAN;
    assert_int_equal(sinew_lattice_deform(lat, &v, NULL, out, 0, NULL, 0, 0, N), SINEW_ERROR_NON_FINITE);
    assert_non_null(strstr(sinew_last_error(), "point 77"));
    /* a point so far outside the EXTEND lattice that its basis overflows */
    pts[3 * 77 + 1] = 3e38f;
    assert_int_equal(sinew_lattice_deform(lat, &v, NULL, out, 0, NULL, 0, 0, N), SINEW_ERROR_NON_FINITE);
    assert_non_null(strstr(sinew_last_error(), "point 77"));
    for (int i = 0; i < 3 * N; ++i) assert_true(out[i] == 7.0f);
    /* the rest of the range is fine */
    assert_int_equal(sinew_lattice_deform(lat, &v, NULL, out, 0, NULL, 0, 0, 77), SINEW_OK);
    assert_int_equal(sinew_lattice_deform(lat, &v, NULL, out, 0, NULL, 0, 78, N - 78), SINEW_OK);
    for (int i = 0; i < 3 * N; ++i)
        if (i / 3 != 77) assert_true(isfinite(out[i]));
    sinew_lattice_destroy(lat);
}

/* ---- Placement ------------------------------------------------------------------- */

static void placement_deform_is_evaluate_at_the_mapped_parameters(void **state)
{
    (void)state;
    /* A wavy floor under a straight path: a 20x6x4 cubic placement. */
    enum { G = 24 };
    float floor_v[3 * (G + 1) * (G + 1)];
    uint32_t floor_t[6 * G * G];
    wavy_floor(G, floor_v, floor_t);
    sinew_placement *p = wavy_placement(G, floor_v, floor_t, 8.0f, 20, 6);
    assert_non_null(p);
    sinew_placement_map_desc md;
    SINEW_INIT(&md);
    md.box_min[0] = 0, md.box_min[1] = -0.5f, md.box_min[2] = 0;
    md.box_max[0] = 4, md.box_max[1] = 0.5f, md.box_max[2] = 0.5f;
    md.offset = 0.3f;
    sinew_placement_map map;
    assert_int_equal(sinew_placement_map_model(p, &md, &map), SINEW_OK);
    enum { N = 333 };
    float model[3 * N], out[3 * N], split[3 * N], params[3 * N], ref[3 * N];
    support_rng rng;
    support_rng_seed(&rng, 107);
    for (int i = 0; i < N; ++i)
        for (int a = 0; a < 3; ++a) {
            model[3 * i + a] = (float)support_rng_uniform(&rng, md.box_min[a], md.box_max[a]);
            params[3 * i + a] = map.offset[a] + map.scale[a] * model[3 * i + a];
        }
    sinew_points mv = {model, N, 0}, pv = {params, N, 0};
    assert_int_equal(sinew_placement_deform(p, &map, &mv, out, 0, 0, N), SINEW_OK);
    for (size_t at = 0; at < N;) {
        size_t len = 1 + support_rng_next(&rng) % 150;
        if (len > N - at) len = N - at;
        assert_int_equal(sinew_placement_deform(p, &map, &mv, split, 0, at, len), SINEW_OK);
        at += len;
    }
    assert_memory_equal(out, split, sizeof out);
    const sinew_lattice *lat = sinew_placement_lattice(p);
    assert_int_equal(sinew_lattice_evaluate(lat, &pv, ref, 0, NULL, 0, 0, N), SINEW_OK);
    assert_memory_equal(out, ref, sizeof out);
    /* and the lattice there by a direct basis sum of its world control points */
    ref_lattice rl;
    SINEW_INIT(&rl.info);
    assert_int_equal(sinew_lattice_get_info(lat, &rl.info), SINEW_OK);
    float *ctrl = malloc(3 * rl.info.point_count * sizeof(float));
    assert_int_equal(sinew_lattice_points(lat, ctrl, 0, 0, rl.info.point_count), SINEW_OK);
    rl.disp = ctrl; /* the sum of the world points themselves is F (the basis sums to 1) */
    for (int i = 0; i < N; ++i) {
        double u[3] = {params[3 * i], params[3 * i + 1], params[3 * i + 2]}, f[3];
        assert_true(ref_disp(&rl, u, f));
        for (int c = 0; c < 3; ++c) assert_true(fabs(out[3 * i + c] - f[c]) <= 3e-5 * (1.0 + fabs(f[c])));
    }
    free(ctrl);
    sinew_placement_destroy(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(deform_matches_direct_basis_sum),
        cmocka_unit_test(evaluate_positions_match_direct_basis_sum),
        cmocka_unit_test(far_and_tiny_boxes),
        cmocka_unit_test(knot_planes_and_box_faces),
        cmocka_unit_test(splits_and_strides_give_the_same_bits),
        cmocka_unit_test(inside_points_still_get_the_float_range_proof),
        cmocka_unit_test(a_bad_point_among_inside_points_is_named),
        cmocka_unit_test(placement_deform_is_evaluate_at_the_mapped_parameters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
