/*
 * Bounded biharmonic weights through the public API: the weights' defining
 * properties, agreement with the independent dense reference, handles of
 * every kind, the automatic volume, and every validation path.
 */
#include <math.h>
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

/* ---- helpers ------------------------------------------------------------ */

static sinew_trimesh grid_view(const grid2d *g)
{
    sinew_trimesh t = {{g->positions, g->vertex_count, 0}, g->triangles, g->triangle_count, SINEW_INDEX_U32, 0};
    return t;
}

static sinew_bbw *create_ok(const sinew_bbw_desc *d)
{
    sinew_bbw *b = NULL;
    sinew_result r = sinew_bbw_create(NULL, d, &b);
    if (r != SINEW_OK) fail_msg("create: %s: %s", sinew_result_string(r), sinew_last_error());
    return b;
}

static float *solve_weights(sinew_bbw *b, const sinew_bbw_solve_desc *sd, sinew_bbw_info *info)
{
    sinew_result r = sinew_bbw_solve(NULL, b, sd);
    if (r != SINEW_OK) fail_msg("solve: %s: %s", sinew_result_string(r), sinew_last_error());
    assert_int_equal(sinew_bbw_get_info(b, info), SINEW_OK);
    float *w = malloc(info->vertex_count * info->handle_count * sizeof(float));
    assert_int_equal(sinew_bbw_vertex_weights(b, w, 0, info->vertex_count), SINEW_OK);
    return w;
}

/* Bounds and partition of unity at every reached vertex. */
static void check_properties(const float *w, size_t n, size_t m, double slack)
{
    for (size_t v = 0; v < n; ++v) {
        double s = 0.0;
        for (size_t j = 0; j < m; ++j) {
            assert_true(w[v * m + j] >= -slack);
            assert_true(w[v * m + j] <= 1.0 + slack);
            s += w[v * m + j];
        }
        if (fabs(s - 1.0) > 1e-4) fail_msg("vertex %zu: weights sum to %g", v, s);
    }
}

/* ---- agreement with the dense reference -------------------------------------- */

static void agreement_2d(int exact)
{
    grid2d g;
    grid2d_make(&g, 8, 8, 1.0f, 1.0f);
    sinew_trimesh tm = grid_view(&g);
    uint32_t hv[3] = {grid2d_vertex(8, 1, 1), grid2d_vertex(8, 7, 2), grid2d_vertex(8, 3, 7)};
    float pts[9];
    for (int h = 0; h < 3; ++h) memcpy(pts + 3 * h, g.positions + 3 * hv[h], 3 * sizeof(float));
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.triangles = &tm;
    d.points.data = pts;
    d.points.count = 3;
    sinew_bbw *b = create_ok(&d);
    sinew_bbw_solve_desc sd;
    SINEW_INIT(&sd);
    sd.partition = exact ? SINEW_BBW_PARTITION_EXACT : SINEW_BBW_PARTITION_NORMALISE;
    sd.tolerance = 1e-6;
    sinew_bbw_info info;
    SINEW_INIT(&info);
    float *w = solve_weights(b, &sd, &info);
    assert_int_equal(info.vertex_count, g.vertex_count);
    check_properties(w, info.vertex_count, 3, 1e-6);

    size_t n = g.vertex_count;
    uint8_t *fixed = calloc(n, 1);
    double *rows = calloc(n * 3, sizeof(double)), *ref = malloc(n * 3 * sizeof(double));
    for (int h = 0; h < 3; ++h) {
        fixed[hv[h]] = 1;
        rows[hv[h] * 3 + h] = 1.0;
    }
    reference_weights(2, g.positions, n, g.triangles, g.triangle_count, fixed, rows, 3, exact, 20000, ref);
    double worst = 0.0;
    for (size_t c = 0; c < n * 3; ++c) worst = fmax(worst, fabs(ref[c] - w[c]));
    printf("2D %s: max difference to the dense reference %.2e (%u iterations)\n", exact ? "exact" : "normalise", worst,
           info.iterations);
    assert_true(worst < 2e-3);
    free(fixed);
    free(rows);
    free(ref);
    free(w);
    sinew_bbw_destroy(b);
    grid2d_free(&g);
}

static void test_agreement_2d_exact(void **state)
{
    (void)state;
    agreement_2d(1);
}

static void test_agreement_2d_normalise(void **state)
{
    (void)state;
    agreement_2d(0);
}


static void test_agreement_3d_exact(void **state)
{
    (void)state;
    grid3d g;
    grid3d_make(&g, 3, 2.0f);
    sinew_tetmesh tm = {{g.positions, g.vertex_count, 0}, g.tets, g.tet_count, SINEW_INDEX_U32, 0};
    /* Three corners-ish handles at grid vertices (index = (k*4 + j)*4 + i). */
    uint32_t hv[3] = {(0 * 4 + 0) * 4 + 0, (1 * 4 + 3) * 4 + 3, (3 * 4 + 1) * 4 + 2};
    float pts[9];
    for (int h = 0; h < 3; ++h) memcpy(pts + 3 * h, g.positions + 3 * hv[h], 3 * sizeof(float));
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.tets = &tm;
    d.points.data = pts;
    d.points.count = 3;
    sinew_bbw *b = create_ok(&d);
    sinew_bbw_solve_desc sd;
    SINEW_INIT(&sd);
    sd.tolerance = 1e-6;
    sinew_bbw_info info;
    SINEW_INIT(&info);
    float *w = solve_weights(b, &sd, &info);
    size_t n = g.vertex_count;
    check_properties(w, n, 3, 1e-6);
    uint8_t *fixed = calloc(n, 1);
    double *rows = calloc(n * 3, sizeof(double)), *ref = malloc(n * 3 * sizeof(double));
    for (int h = 0; h < 3; ++h) {
        fixed[hv[h]] = 1;
        rows[hv[h] * 3 + h] = 1.0;
    }
    reference_weights(3, g.positions, n, g.tets, g.tet_count, fixed, rows, 3, 1, 20000, ref);
    double worst = 0.0;
    for (size_t c = 0; c < n * 3; ++c) worst = fmax(worst, fabs(ref[c] - w[c]));
    printf("3D exact: max difference to the dense reference %.2e\n", worst);
    assert_true(worst < 2e-3);
    free(fixed);
    free(rows);
    free(ref);
    free(w);
    sinew_bbw_destroy(b);
    grid3d_free(&g);
}

/* The certificate: after any number of iterations, info.error_bound must
 * bound the mass-weighted RMS error (per vertex the Euclidean norm over
 * handles, over the free vertices) against the dense reference; a solve that
 * returns OK has it below the tolerance. A larger grid than the agreement
 * tests so that a few iterations are far from the answer. */
static void test_certificate_bounds_error(void **state)
{
    (void)state;
    const size_t nx = 12;
    grid2d g;
    grid2d_make(&g, nx, nx, 1.0f, 1.0f);
    sinew_trimesh tm = grid_view(&g);
    uint32_t hv[3] = {grid2d_vertex(nx, 1, 1), grid2d_vertex(nx, 11, 4), grid2d_vertex(nx, 5, 11)};
    float pts[9];
    for (int h = 0; h < 3; ++h) memcpy(pts + 3 * h, g.positions + 3 * hv[h], 3 * sizeof(float));
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.triangles = &tm;
    d.points.data = pts;
    d.points.count = 3;
    sinew_bbw *b = create_ok(&d);
    size_t n = g.vertex_count;
    uint8_t *fixed = calloc(n, 1);
    double *rows = calloc(n * 3, sizeof(double)), *ref = malloc(n * 3 * sizeof(double));
    double *mass = calloc(n, sizeof(double));
    float *w = malloc(n * 3 * sizeof(float));
    for (int h = 0; h < 3; ++h) {
        fixed[hv[h]] = 1;
        rows[hv[h] * 3 + h] = 1.0;
    }
    reference_weights(2, g.positions, n, g.triangles, g.triangle_count, fixed, rows, 3, 1, 60000, ref);
    /* Barycentric lumped mass, written here from the triangle areas. */
    for (size_t t = 0; t < g.triangle_count; ++t) {
        const uint32_t *v = g.triangles + 3 * t;
        const float *a = g.positions + 3 * v[0], *bp = g.positions + 3 * v[1], *c = g.positions + 3 * v[2];
        double area = 0.5 * fabs((double)(bp[0] - a[0]) * (c[1] - a[1]) - (double)(bp[1] - a[1]) * (c[0] - a[0]));
        for (int k = 0; k < 3; ++k) mass[v[k]] += area / 3.0;
    }
    double free_mass = 0.0;
    for (size_t v = 0; v < n; ++v) free_mass += fixed[v] ? 0.0 : mass[v];
    const uint32_t caps[] = {1, 3, 10, 30, 0};
    double first_error = 0.0;
    for (size_t c = 0; c < sizeof caps / sizeof caps[0]; ++c) {
        sinew_bbw_solve_desc sd;
        SINEW_INIT(&sd);
        sd.tolerance = 1e-4;
        sd.max_iterations = caps[c];
        sinew_result r = sinew_bbw_solve(NULL, b, &sd);
        assert_true(r == SINEW_OK || r == SINEW_ERROR_NOT_CONVERGED);
        sinew_bbw_info info;
        SINEW_INIT(&info);
        assert_int_equal(sinew_bbw_get_info(b, &info), SINEW_OK);
        assert_int_equal(sinew_bbw_vertex_weights(b, w, 0, n), SINEW_OK);
        double sq = 0.0;
        for (size_t k = 0; k < n * 3; ++k) sq += mass[k / 3] * (w[k] - ref[k]) * (w[k] - ref[k]);
        double rms = sqrt(sq / free_mass);
        if (c == 0) first_error = rms;
        printf("certificate: %u iterations (%s): rms error %.3g, bound %.3g\n", info.iterations,
               sinew_result_string(r), rms, info.error_bound);
        /* float output and the reference's own error (about 1e-7 here):
         * 1e-6 of slack */
        assert_true(rms <= info.error_bound * 1.001 + 1e-6);
        if (r == SINEW_OK) assert_true(info.error_bound <= sd.tolerance);
        if (caps[c] == 0) assert_int_equal(r, SINEW_OK);
    }
    /* The capped runs are genuinely away from the answer: the test would see
     * a bound that fails to bound. */
    assert_true(first_error > 1e-4);
    free(fixed);
    free(rows);
    free(ref);
    free(mass);
    free(w);
    sinew_bbw_destroy(b);
    grid2d_free(&g);
}

/* ---- properties on structured 2D domains ----------------------------------------- */

static void test_interpolation_bounds_symmetry(void **state)
{
    (void)state;
    grid2d g;
    grid2d_make(&g, 12, 12, 2.0f, 2.0f);
    sinew_trimesh tm = grid_view(&g);
    /* Two handles mirrored across x = 1. */
    float pts[6] = {0.5f, 1.0f, 0.0f, 1.5f, 1.0f, 0.0f};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.triangles = &tm;
    d.points.data = pts;
    d.points.count = 2;
    sinew_bbw *b = create_ok(&d);
    sinew_bbw_info info;
    SINEW_INIT(&info);
    float *w = solve_weights(b, NULL, &info);
    check_properties(w, info.vertex_count, 2, 1e-6);
    /* Interpolation: exactly 1 at the own handle, 0 at the other. */
    uint32_t h0 = grid2d_vertex(12, 3, 6), h1 = grid2d_vertex(12, 9, 6);
    assert_float_equal(w[h0 * 2 + 0], 1.0f, 1e-6f);
    assert_float_equal(w[h0 * 2 + 1], 0.0f, 1e-6f);
    assert_float_equal(w[h1 * 2 + 1], 1.0f, 1e-6f);
    /* Symmetry: w0(x, y) = w1(2 - x, y). */
    double worst = 0.0;
    for (size_t j = 0; j <= 12; ++j)
        for (size_t i = 0; i <= 12; ++i)
            worst = fmax(worst, fabs(w[grid2d_vertex(12, i, j) * 2] - w[grid2d_vertex(12, 12 - i, j) * 2 + 1]));
    printf("symmetry: max asymmetry %.2e\n", worst);
    assert_true(worst < 1e-3);
    free(w);
    sinew_bbw_destroy(b);
    grid2d_free(&g);
}

static void test_locality(void **state)
{
    (void)state;
    /* A long strip with three handles in a row: the middle one shields the
     * left end from the right handle. */
    grid2d g;
    grid2d_make(&g, 30, 3, 10.0f, 1.0f);
    sinew_trimesh tm = grid_view(&g);
    float pts[9] = {1.0f, 0.0f, 0.0f, 5.0f, 0.0f, 0.0f, 9.0f, 0.0f, 0.0f};
    for (int h = 0; h < 3; ++h) pts[3 * h + 1] = 1.0f / 3.0f;
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.triangles = &tm;
    d.points.data = pts;
    d.points.count = 3;
    sinew_bbw *b = create_ok(&d);
    sinew_bbw_info info;
    SINEW_INIT(&info);
    float *w = solve_weights(b, NULL, &info);
    check_properties(w, info.vertex_count, 3, 1e-6);
    for (size_t j = 0; j <= 3; ++j)
        for (size_t i = 0; i <= 9; ++i) /* x <= 3 */
            assert_true(w[grid2d_vertex(30, i, j) * 3 + 2] < 1e-4f);
    free(w);
    sinew_bbw_destroy(b);
    grid2d_free(&g);
}

static void test_bones_share_joint(void **state)
{
    (void)state;
    grid2d g;
    grid2d_make(&g, 10, 10, 1.0f, 1.0f);
    sinew_trimesh tm = grid_view(&g);
    float joints[9] = {0.2f, 0.5f, 0.0f, 0.5f, 0.5f, 0.0f, 0.8f, 0.5f, 0.0f};
    uint32_t bones[4] = {0, 1, 1, 2};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.triangles = &tm;
    d.joint_positions.data = joints;
    d.joint_positions.count = 3;
    d.bones = bones;
    d.bone_count = 2;
    sinew_bbw *b = create_ok(&d);
    sinew_bbw_info info;
    SINEW_INIT(&info);
    float *w = solve_weights(b, NULL, &info);
    check_properties(w, info.vertex_count, 2, 1e-6);
    uint32_t joint = grid2d_vertex(10, 5, 5);
    assert_float_equal(w[joint * 2], 0.5f, 1e-6f);
    assert_float_equal(w[joint * 2 + 1], 0.5f, 1e-6f);
    for (size_t i = 2; i <= 4; ++i) assert_float_equal(w[grid2d_vertex(10, i, 5) * 2], 1.0f, 1e-6f);
    for (size_t i = 6; i <= 8; ++i) assert_float_equal(w[grid2d_vertex(10, i, 5) * 2 + 1], 1.0f, 1e-6f);
    free(w);
    sinew_bbw_destroy(b);
    grid2d_free(&g);
}

static void test_cage_linear(void **state)
{
    (void)state;
    grid2d g;
    grid2d_make(&g, 8, 8, 1.0f, 1.0f);
    sinew_trimesh tm = grid_view(&g);
    /* A closed square cage and an open two-edge cage. */
    float square[12] = {0.25f, 0.25f, 0, 0.75f, 0.25f, 0, 0.75f, 0.75f, 0, 0.25f, 0.75f, 0};
    uint32_t square_edges[8] = {0, 1, 1, 2, 2, 3, 3, 0};
    float open[9] = {0.0f, 0.0f, 0, 0.0f, 1.0f, 0, 1.0f, 1.0f, 0};
    uint32_t open_edges[4] = {0, 1, 1, 2};
    sinew_bbw_cage cages[2] = {
        {{square, 4, 0}, square_edges, 4, NULL, 0},
        {{open, 3, 0}, open_edges, 2, NULL, 0},
    };
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.triangles = &tm;
    d.cages = cages;
    d.cage_count = 2;
    sinew_bbw *b = create_ok(&d);
    sinew_bbw_info info;
    SINEW_INIT(&info);
    float *w = solve_weights(b, NULL, &info);
    assert_int_equal(info.handle_count, 7);
    check_properties(w, info.vertex_count, 7, 1e-6);
    /* Along the square's bottom edge (y = 0.25, x = 0.25 .. 0.75): linear
     * between handles 0 and 1. */
    for (size_t i = 2; i <= 6; ++i) {
        float t = (float)(i - 2) / 4.0f;
        const float *row = w + grid2d_vertex(8, i, 2) * 7;
        assert_float_equal(row[0], 1.0f - t, 1e-5f);
        assert_float_equal(row[1], t, 1e-5f);
    }
    /* Along the open cage's top edge (y = 1): linear between 5 and 6. */
    for (size_t i = 0; i <= 8; ++i) {
        float t = (float)i / 8.0f;
        const float *row = w + grid2d_vertex(8, i, 8) * 7;
        assert_float_equal(row[5], 1.0f - t, 1e-5f);
        assert_float_equal(row[6], t, 1e-5f);
    }
    free(w);
    sinew_bbw_destroy(b);
    grid2d_free(&g);
}

static void test_shape_mask(void **state)
{
    (void)state;
    grid2d g;
    grid2d_make(&g, 16, 4, 4.0f, 1.0f);
    sinew_trimesh tm = grid_view(&g);
    float pts[6] = {0.0f, 0.5f, 0.0f, 4.0f, 0.5f, 0.0f};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.triangles = &tm;
    d.points.data = pts;
    d.points.count = 2;
    sinew_bbw *b = create_ok(&d);
    sinew_bbw_info info;
    SINEW_INIT(&info);
    float *plain = solve_weights(b, NULL, &info);
    /* Mask the middle band 1.5 <= x <= 2.5: its weights should flatten. */
    float *mask = calloc(g.triangle_count, sizeof(float));
    for (size_t t = 0; t < g.triangle_count; ++t) {
        float cx = 0.0f;
        for (int k = 0; k < 3; ++k) cx += g.positions[3 * g.triangles[3 * t + k]] / 3.0f;
        mask[t] = cx > 1.5f && cx < 2.5f ? 1.0f : 0.0f;
    }
    sinew_bbw_solve_desc sd;
    SINEW_INIT(&sd);
    sd.shape_mask = mask;
    sd.shape_mask_count = g.triangle_count;
    sd.shape_strength = 100.0;
    float *masked = solve_weights(b, &sd, &info);
    check_properties(masked, info.vertex_count, 2, 1e-6);
    float a = plain[grid2d_vertex(16, 10, 2) * 2] - plain[grid2d_vertex(16, 6, 2) * 2];
    float c = masked[grid2d_vertex(16, 10, 2) * 2] - masked[grid2d_vertex(16, 6, 2) * 2];
    printf("shape mask: weight change across the band %.3f plain, %.3f masked\n", (double)a, (double)c);
    assert_true(fabsf(c) < 0.5f * fabsf(a));
    free(mask);
    free(plain);
    free(masked);
    sinew_bbw_destroy(b);
    grid2d_free(&g);
}

/* ---- queries --------------------------------------------------------------------- */

static void test_queries(void **state)
{
    (void)state;
    grid2d g;
    grid2d_make(&g, 6, 6, 1.0f, 1.0f);
    sinew_trimesh tm = grid_view(&g);
    float pts[9] = {0.0f, 0.0f, 0, 1.0f, 0.0f, 0, 0.5f, 1.0f, 0};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.triangles = &tm;
    d.points.data = pts;
    d.points.count = 3;
    sinew_bbw *b = create_ok(&d);
    float tmp[3];
    uint32_t jt[4];
    float wt[4];
    assert_int_equal(sinew_bbw_vertex_weights(b, tmp, 0, 1), SINEW_ERROR_INVALID_STATE);
    assert_int_equal(sinew_bbw_top_k(b, NULL, 4, jt, wt, 0, 1), SINEW_ERROR_INVALID_STATE);
    sinew_bbw_info info;
    SINEW_INIT(&info);
    float *w = solve_weights(b, NULL, &info);
    /* Point weights at a vertex and at a triangle's centroid. */
    uint32_t t0 = 7;
    float q[6];
    memcpy(q, g.positions + 3 * g.triangles[3 * t0], 3 * sizeof(float));
    for (int a = 0; a < 3; ++a)
        q[3 + a] = (g.positions[3 * g.triangles[3 * t0] + a] + g.positions[3 * g.triangles[3 * t0 + 1] + a] +
                    g.positions[3 * g.triangles[3 * t0 + 2] + a]) / 3.0f;
    sinew_points qp = {q, 2, 0};
    float pw[6];
    assert_int_equal(sinew_bbw_point_weights(b, &qp, pw, 0, 2), SINEW_OK);
    for (int j = 0; j < 3; ++j) {
        assert_float_equal(pw[j], w[g.triangles[3 * t0] * 3 + j], 1e-6f);
        float avg = (w[g.triangles[3 * t0] * 3 + j] + w[g.triangles[3 * t0 + 1] * 3 + j] +
                     w[g.triangles[3 * t0 + 2] * 3 + j]) / 3.0f;
        assert_float_equal(pw[3 + j], avg, 1e-5f);
    }
    /* Top-k in the skinning layout: k = 4 > 3 handles leaves slot 3 empty. */
    uint32_t *joints = malloc(info.vertex_count * 4 * sizeof(uint32_t));
    float *weights = malloc(info.vertex_count * 4 * sizeof(float));
    assert_int_equal(sinew_bbw_top_k(b, NULL, 4, joints, weights, 0, info.vertex_count), SINEW_OK);
    for (size_t v = 0; v < info.vertex_count; ++v) {
        float s = 0.0f;
        for (int k = 0; k < 4; ++k) {
            s += weights[v * 4 + k];
            if (k > 0) assert_true(weights[v * 4 + k] <= weights[v * 4 + k - 1]);
            if (weights[v * 4 + k] > 0.0f)
                assert_float_equal(weights[v * 4 + k], w[v * 3 + joints[v * 4 + k]], 1e-5f);
        }
        assert_float_equal(s, 1.0f, 1e-5f);
        assert_int_equal(joints[v * 4 + 3], 0);
        assert_float_equal(weights[v * 4 + 3], 0.0f, 0.0f);
    }
    /* k = 1 renormalises the single largest weight to 1. */
    assert_int_equal(sinew_bbw_top_k(b, &qp, 1, jt, wt, 1, 1), SINEW_OK);
    assert_float_equal(wt[1], 1.0f, 1e-6f);   /* point 1's row (ranges index outputs by point number) */
    /* Errors: bad k, bad range, far point, NaN point. */
    assert_int_equal(sinew_bbw_top_k(b, NULL, 0, jt, wt, 0, 1), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_bbw_top_k(b, NULL, 65, jt, wt, 0, 1), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_bbw_vertex_weights(b, tmp, info.vertex_count, 1), SINEW_ERROR_INDEX_OUT_OF_RANGE);
    float far[3] = {50.0f, 0.0f, 0.0f}, nan_pt[3] = {NAN, 0.0f, 0.0f};
    sinew_points fp = {far, 1, 0}, np = {nan_pt, 1, 0};
    pw[0] = 42.0f;
    assert_int_equal(sinew_bbw_point_weights(b, &fp, pw, 0, 1), SINEW_ERROR_OUTSIDE_DOMAIN);
    assert_non_null(strstr(sinew_last_error(), "point 0"));
    assert_float_equal(pw[0], 42.0f, 0.0f); /* untouched */
    assert_int_equal(sinew_bbw_point_weights(b, &np, pw, 0, 1), SINEW_ERROR_NON_FINITE);
    assert_int_equal(sinew_bbw_point_weights(b, &qp, pw, 1, 2), SINEW_ERROR_INDEX_OUT_OF_RANGE);
    /* Domain accessors. */
    /* Range outputs are indexed by element number: vertex 5 lands at dv[15]. */
    float dv[3 * 6];
    uint32_t de[3 * 3];
    assert_int_equal(sinew_bbw_domain_vertices(b, dv, 0, 5, 1), SINEW_OK);
    assert_float_equal(dv[15], g.positions[15], 0.0f);
    assert_int_equal(sinew_bbw_domain_elements(b, de, 2, 1), SINEW_OK);
    assert_memory_equal(de + 6, g.triangles + 6, 3 * sizeof(uint32_t));
    assert_int_equal(sinew_bbw_domain_elements(b, de, info.element_count, 1), SINEW_ERROR_INDEX_OUT_OF_RANGE);
    free(joints);
    free(weights);
    free(w);
    sinew_bbw_destroy(b);
    grid2d_free(&g);
}

/* ---- automatic volume ------------------------------------------------------------ */

/* Unit cube surface, outward triangles; drop_top removes the top face to
 * make it open. */
static size_t cube_surface(float *pos, uint32_t *tri, int drop_top)
{
    for (int c = 0; c < 8; ++c) {
        pos[3 * c] = (float)(c & 1);
        pos[3 * c + 1] = (float)(c >> 1 & 1);
        pos[3 * c + 2] = (float)(c >> 2 & 1);
    }
    static const uint32_t faces[12][3] = {
        {0, 2, 1}, {1, 2, 3}, /* z = 0 */
        {4, 5, 6}, {5, 7, 6}, /* z = 1 (top) */
        {0, 1, 4}, {1, 5, 4}, /* y = 0 */
        {2, 6, 3}, {3, 6, 7}, /* y = 1 */
        {0, 4, 2}, {2, 4, 6}, /* x = 0 */
        {1, 3, 5}, {3, 7, 5}, /* x = 1 */
    };
    size_t n = 0;
    for (int f = 0; f < 12; ++f) {
        if (drop_top && (f == 2 || f == 3)) continue;
        memcpy(tri + 3 * n++, faces[f], sizeof faces[f]);
    }
    return n;
}

static void automatic_volume(int open)
{
    float pos[24];
    uint32_t tri[36];
    size_t tc = cube_surface(pos, tri, open);
    sinew_trimesh surf = {{pos, 8, 0}, tri, tc, SINEW_INDEX_U32, 0};
    float pts[6] = {0.2f, 0.5f, 0.5f, 0.8f, 0.5f, 0.5f};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.surface = &surf;
    d.grid_resolution = 6;
    d.points.data = pts;
    d.points.count = 2;
    sinew_bbw *b = create_ok(&d);
    sinew_bbw_info info;
    SINEW_INIT(&info);
    float *w = solve_weights(b, NULL, &info);
    printf("automatic volume (%s): %zu vertices, %zu tets\n", open ? "open" : "closed", info.vertex_count,
           info.element_count);
    /* A closed cube at 6 cells: the 6^3 inside cells (the spare border cells
     * are outside), 6 tets each. The open cube still judges its inside
     * cells inside (winding number >= 1/2 below the missing face). */
    if (!open) assert_int_equal(info.element_count, 6 * 6 * 6 * 6);
    else assert_true(info.element_count >= 6 * 6 * 6 * 3);
    check_properties(w, info.vertex_count, 2, 1e-6);
    /* The surface's own corners get weights (just outside or on the grid),
     * summing to one and favouring the nearer handle. */
    float out[16];
    sinew_points corners = {pos, 8, 0};
    assert_int_equal(sinew_bbw_point_weights(b, &corners, out, 0, 8), SINEW_OK);
    for (int c = 0; c < 8; ++c) {
        assert_float_equal(out[2 * c] + out[2 * c + 1], 1.0f, 1e-5f);
        if (c & 1) assert_true(out[2 * c + 1] > out[2 * c]);
        else assert_true(out[2 * c] > out[2 * c + 1]);
    }
    free(w);
    sinew_bbw_destroy(b);
}

static void test_automatic_volume_closed(void **state)
{
    (void)state;
    automatic_volume(0);
}

static void test_automatic_volume_open(void **state)
{
    (void)state;
    automatic_volume(1);
}

/* ---- validation ---------------------------------------------------------------- */

static sinew_result try_create(const sinew_bbw_desc *d)
{
    sinew_bbw *b = (sinew_bbw *)(uintptr_t)1; /* must stay untouched on failure */
    sinew_result r = sinew_bbw_create(NULL, d, &b);
    if (r == SINEW_OK) sinew_bbw_destroy(b);
    else assert_true(b == (sinew_bbw *)(uintptr_t)1);
    return r;
}

static void expect_create(const sinew_bbw_desc *d, sinew_result want, const char *text)
{
    sinew_result r = try_create(d);
    if (r != want)
        fail_msg("expected %s, got %s (%s)", sinew_result_string(want), sinew_result_string(r), sinew_last_error());
    if (text && !strstr(sinew_last_error(), text)) fail_msg("message '%s' lacks '%s'", sinew_last_error(), text);
}

static void test_validation(void **state)
{
    (void)state;
    grid2d g;
    grid2d_make(&g, 4, 4, 1.0f, 1.0f);
    sinew_trimesh tm = grid_view(&g);
    float pts[6] = {0.0f, 0.0f, 0.0f, 1.0f, 1.0f, 0.0f};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.triangles = &tm;
    d.points.data = pts;
    d.points.count = 2;
    sinew_bbw *b = NULL;
    assert_int_equal(sinew_bbw_create(NULL, NULL, &b), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_bbw_create(NULL, &d, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    sinew_bbw_destroy(NULL);

    sinew_bbw_desc e = d;
    e.triangles = NULL;
    expect_create(&e, SINEW_ERROR_INVALID_ARGUMENT, "exactly one domain");
    sinew_tetmesh tet = {{g.positions, g.vertex_count, 0}, g.triangles, 1, SINEW_INDEX_U32, 0};
    e = d;
    e.tets = &tet;
    expect_create(&e, SINEW_ERROR_INVALID_ARGUMENT, "exactly one domain");
    e = d;
    e.points.count = 0;
    expect_create(&e, SINEW_ERROR_INVALID_ARGUMENT, "no handles");
    e = d;
    e.points.data = NULL;
    expect_create(&e, SINEW_ERROR_INVALID_ARGUMENT, NULL);
    e = d;
    e.handle_tolerance = -1.0f;
    expect_create(&e, SINEW_ERROR_INVALID_ARGUMENT, "tolerance");

    /* Non-finite vertex, bad index, zero-area triangle. */
    float saved = g.positions[3 * 7 + 1];
    g.positions[3 * 7 + 1] = NAN;
    expect_create(&d, SINEW_ERROR_NON_FINITE, "domain vertex 7");
    g.positions[3 * 7 + 1] = saved;
    uint32_t keep = g.triangles[3 * 5 + 2];
    g.triangles[3 * 5 + 2] = 999;
    expect_create(&d, SINEW_ERROR_INDEX_OUT_OF_RANGE, "triangle 5");
    g.triangles[3 * 5 + 2] = g.triangles[3 * 5 + 1];
    expect_create(&d, SINEW_ERROR_DEGENERATE, "triangle 5");
    g.triangles[3 * 5 + 2] = keep;

    /* Handles: non-finite, outside, collapsing, zero-length bone, bad bone index. */
    float bad[6] = {0.0f, NAN, 0.0f, 1.0f, 1.0f, 0.0f};
    e = d;
    e.points.data = bad;
    expect_create(&e, SINEW_ERROR_NON_FINITE, "point handle 0");
    float outside[6] = {0.0f, 0.0f, 0.0f, 3.0f, 1.0f, 0.0f};
    e.points.data = outside;
    e.handle_outside = SINEW_BBW_OUTSIDE_REFUSE;
    expect_create(&e, SINEW_ERROR_OUTSIDE_DOMAIN, "point handle 1");
    e.handle_outside = SINEW_BBW_OUTSIDE_CLIP;
    float same[6] = {0.5f, 0.5f, 0.0f, 0.51f, 0.5f, 0.0f};
    e.points.data = same;
    expect_create(&e, SINEW_ERROR_DEGENERATE, "handle 0");
    float joints[6] = {0.25f, 0.25f, 0.0f, 0.25f, 0.25f, 0.0f};
    uint32_t bones[2] = {0, 1};
    e = d;
    e.joint_positions.data = joints;
    e.joint_positions.count = 2;
    e.bones = bones;
    e.bone_count = 1;
    expect_create(&e, SINEW_ERROR_DEGENERATE, "bone 0");
    uint32_t far_bone[2] = {0, 5};
    e.bones = far_bone;
    expect_create(&e, SINEW_ERROR_INDEX_OUT_OF_RANGE, "bone 0");
    /* Cage with triangles in 2D; cage edge index out of range. */
    float cv[6] = {0.25f, 0.25f, 0, 0.75f, 0.25f, 0};
    uint32_t ce[2] = {0, 2}, ct[3] = {0, 1, 1};
    sinew_bbw_cage cage = {{cv, 2, 0}, ce, 1, NULL, 0};
    e = d;
    e.points.count = 0;
    e.cages = &cage;
    e.cage_count = 1;
    expect_create(&e, SINEW_ERROR_INDEX_OUT_OF_RANGE, "cage edge 0");
    cage.edges = NULL;
    cage.edge_count = 0;
    cage.triangles = ct;
    cage.triangle_count = 1;
    expect_create(&e, SINEW_ERROR_INVALID_ARGUMENT, "2D");

    /* Tets: zero volume and inverted. */
    grid3d g3;
    grid3d_make(&g3, 1, 1.0f);
    sinew_tetmesh t3 = {{g3.positions, g3.vertex_count, 0}, g3.tets, g3.tet_count, SINEW_INDEX_U32, 0};
    float p3[6] = {0, 0, 0, 1, 1, 1};
    sinew_bbw_desc d3;
    SINEW_INIT(&d3);
    d3.tets = &t3;
    d3.points.data = p3;
    d3.points.count = 2;
    assert_int_equal(try_create(&d3), SINEW_OK);
    uint32_t swap = g3.tets[4 * 2 + 2];
    g3.tets[4 * 2 + 2] = g3.tets[4 * 2 + 3];
    g3.tets[4 * 2 + 3] = swap;
    expect_create(&d3, SINEW_ERROR_DEGENERATE, "tet 2 is inverted");
    g3.tets[4 * 2 + 3] = g3.tets[4 * 2 + 2];
    expect_create(&d3, SINEW_ERROR_DEGENERATE, "tet 2");
    grid3d_free(&g3);

    /* Automatic volume: surface enclosing nothing; resolution too large. */
    float flat[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    uint32_t ft[3] = {0, 1, 2};
    sinew_trimesh fs = {{flat, 3, 0}, ft, 1, SINEW_INDEX_U32, 0};
    sinew_bbw_desc ds;
    SINEW_INIT(&ds);
    ds.surface = &fs;
    ds.points.data = p3;
    ds.points.count = 1;
    expect_create(&ds, SINEW_ERROR_DEGENERATE, "encloses no cell");
    expect_create(&ds, SINEW_ERROR_DEGENERATE, "all its vertices lie in one plane");
    /* A sheet folded up along its diagonal is not flat but still bounds
     * nothing (folded down, its concave side would: winding number). */
    float fold[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0.2f};
    uint32_t fold_triangles[6] = {0, 1, 2, 1, 3, 2};
    sinew_trimesh folded = {{fold, 4, 0}, fold_triangles, 2, SINEW_INDEX_U32, 0};
    ds.surface = &folded;
    expect_create(&ds, SINEW_ERROR_DEGENERATE, "an open sheet bounds no volume");
    ds.surface = &fs;
    ds.grid_resolution = 100000;
    expect_create(&ds, SINEW_ERROR_INVALID_ARGUMENT, "resolution");

    /* Solve options. */
    b = create_ok(&d);
    sinew_bbw_solve_desc sd;
    SINEW_INIT(&sd);
    sd.partition = (sinew_bbw_partition)7;
    assert_int_equal(sinew_bbw_solve(NULL, b, &sd), SINEW_ERROR_INVALID_ARGUMENT);
    SINEW_INIT(&sd);
    sd.tolerance = NAN;
    assert_int_equal(sinew_bbw_solve(NULL, b, &sd), SINEW_ERROR_INVALID_ARGUMENT);
    SINEW_INIT(&sd);
    float mask[3] = {1, 1, 1};
    sd.shape_mask = mask;
    sd.shape_mask_count = 3;
    assert_int_equal(sinew_bbw_solve(NULL, b, &sd), SINEW_ERROR_MISMATCH);
    float *m2 = calloc(g.triangle_count, sizeof(float));
    m2[4] = -1.0f;
    sd.shape_mask = m2;
    sd.shape_mask_count = g.triangle_count;
    assert_int_equal(sinew_bbw_solve(NULL, b, &sd), SINEW_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(sinew_last_error(), "element 4"));
    m2[4] = INFINITY;
    assert_int_equal(sinew_bbw_solve(NULL, b, &sd), SINEW_ERROR_NON_FINITE);
    free(m2);
    assert_int_equal(sinew_bbw_solve(NULL, NULL, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    sinew_bbw_info info;
    SINEW_INIT(&info);
    assert_int_equal(sinew_bbw_get_info(NULL, &info), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_bbw_get_info(b, &info), SINEW_OK);
    assert_int_equal(info.solved, 0);
    sinew_bbw_destroy(b);
    grid2d_free(&g);
}

static void test_unreached_region(void **state)
{
    (void)state;
    /* Two separate squares; handles only in the first. */
    grid2d g;
    grid2d_make(&g, 4, 4, 1.0f, 1.0f);
    size_t n = g.vertex_count, t = g.triangle_count;
    float *pos = malloc(2 * n * 3 * sizeof(float));
    uint32_t *tri = malloc(2 * t * 3 * sizeof(uint32_t));
    memcpy(pos, g.positions, n * 3 * sizeof(float));
    for (size_t v = 0; v < n; ++v) {
        pos[3 * (n + v)] = g.positions[3 * v] + 3.0f;
        pos[3 * (n + v) + 1] = g.positions[3 * v + 1];
        pos[3 * (n + v) + 2] = 0.0f;
    }
    memcpy(tri, g.triangles, t * 3 * sizeof(uint32_t));
    for (size_t k = 0; k < 3 * t; ++k) tri[3 * t + k] = g.triangles[k] + (uint32_t)n;
    sinew_trimesh tm = {{pos, 2 * n, 0}, tri, 2 * t, SINEW_INDEX_U32, 0};
    float pts[6] = {0, 0, 0, 1, 1, 0};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.triangles = &tm;
    d.points.data = pts;
    d.points.count = 2;
    sinew_bbw *b = create_ok(&d);
    sinew_bbw_info info;
    SINEW_INIT(&info);
    assert_int_equal(sinew_bbw_get_info(b, &info), SINEW_OK);
    assert_int_equal(info.unreached_region_count, 1);
    assert_int_equal(info.unreached_vertex_count, n);
    assert_int_equal(info.first_unreached_vertex, n);
    float *w = solve_weights(b, NULL, &info);
    check_properties(w, n, 2, 1e-6); /* the reached square */
    for (size_t k = n * 2; k < 2 * n * 2; ++k) assert_float_equal(w[k], 0.0f, 0.0f);
    free(w);
    free(pos);
    free(tri);
    sinew_bbw_destroy(b);
    grid2d_free(&g);
}

static int cancel_after(void *user, const char *stage, float fraction)
{
    (void)stage;
    (void)fraction;
    int *calls = user;
    return ++*calls > 2;
}

static void test_not_converged_and_cancel(void **state)
{
    (void)state;
    grid2d g;
    grid2d_make(&g, 10, 10, 1.0f, 1.0f);
    sinew_trimesh tm = grid_view(&g);
    float pts[9] = {0.1f, 0.1f, 0, 0.9f, 0.2f, 0, 0.5f, 0.9f, 0};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.triangles = &tm;
    d.points.data = pts;
    d.points.count = 3;
    sinew_bbw *b = create_ok(&d);
    sinew_bbw_solve_desc sd;
    SINEW_INIT(&sd);
    sd.max_iterations = 1;
    assert_int_equal(sinew_bbw_solve(NULL, b, &sd), SINEW_ERROR_NOT_CONVERGED);
    assert_non_null(strstr(sinew_last_error(), "1 iterations"));
    sinew_bbw_info info;
    SINEW_INIT(&info);
    assert_int_equal(sinew_bbw_get_info(b, &info), SINEW_OK);
    assert_int_equal(info.solved, 1);
    assert_true(info.primal_residual > 0.0);
    float *w = malloc(info.vertex_count * 3 * sizeof(float));
    assert_int_equal(sinew_bbw_vertex_weights(b, w, 0, info.vertex_count), SINEW_OK);
    check_properties(w, info.vertex_count, 3, 1e-6); /* best weights are still feasible */
    sinew_bbw_destroy(b);

    /* Cancellation: a solved handle keeps its weights. */
    int calls = 0;
    sinew_context_desc cd;
    SINEW_INIT(&cd);
    cd.progress = cancel_after;
    cd.progress_user = &calls;
    sinew_context *ctx;
    assert_int_equal(sinew_context_create(&cd, &ctx), SINEW_OK);
    b = NULL;
    calls = 2;
    assert_int_equal(sinew_bbw_create(ctx, &d, &b), SINEW_ERROR_CANCELLED);
    assert_null(b);
    calls = -1000000;
    assert_int_equal(sinew_bbw_create(ctx, &d, &b), SINEW_OK);
    assert_int_equal(sinew_bbw_solve(NULL, b, &sd), SINEW_ERROR_NOT_CONVERGED);
    float *before = malloc(info.vertex_count * 3 * sizeof(float)), *after = malloc(info.vertex_count * 3 * sizeof(float));
    assert_int_equal(sinew_bbw_vertex_weights(b, before, 0, info.vertex_count), SINEW_OK);
    calls = 2; /* the solve's first report cancels */
    assert_int_equal(sinew_bbw_solve(ctx, b, NULL), SINEW_ERROR_CANCELLED);
    assert_int_equal(sinew_bbw_vertex_weights(b, after, 0, info.vertex_count), SINEW_OK);
    assert_memory_equal(before, after, info.vertex_count * 3 * sizeof(float));
    sinew_bbw_destroy(b);
    sinew_context_destroy(ctx);
    free(before);
    free(after);
    free(w);
    grid2d_free(&g);
}

/* ---- allocation failures ------------------------------------------------------- */

typedef struct sweep_case {
    const sinew_bbw_desc *desc;
    sinew_bbw_partition partition;
    double tolerance; /* 0: the default */
} sweep_case;

static sinew_result sweep_attempt(sinew_context *ctx, void *user)
{
    const sweep_case *c = user;
    sinew_bbw *b = NULL;
    sinew_result r = sinew_bbw_create(ctx, c->desc, &b);
    if (r != SINEW_OK) return r;
    sinew_bbw_solve_desc sd;
    SINEW_INIT(&sd);
    sd.partition = c->partition;
    sd.tolerance = c->tolerance;
    r = sinew_bbw_solve(NULL, b, &sd);
    sinew_bbw_destroy(b);
    return r;
}

static void test_allocation_failures(void **state)
{
    (void)state;
    grid2d g;
    grid2d_make(&g, 4, 4, 1.0f, 1.0f);
    sinew_trimesh tm = grid_view(&g);
    float pts[6] = {0, 0, 0, 1, 1, 0};
    float joints[6] = {0.25f, 0.75f, 0, 0.75f, 0.75f, 0};
    uint32_t bones[2] = {0, 1};
    float cv[6] = {0.0f, 0.5f, 0, 1.0f, 0.5f, 0};
    uint32_t ce[2] = {0, 1};
    sinew_bbw_cage cage = {{cv, 2, 0}, ce, 1, NULL, 0};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.triangles = &tm;
    d.points.data = pts;
    d.points.count = 2;
    d.joint_positions.data = joints;
    d.joint_positions.count = 2;
    d.bones = bones;
    d.bone_count = 1;
    d.cages = &cage;
    d.cage_count = 1;
    char report[256];
    size_t runs;
    for (int mode = 0; mode < 2; ++mode) {
        sweep_case c = {&d, mode ? SINEW_BBW_PARTITION_NORMALISE : SINEW_BBW_PARTITION_EXACT, 0.0};
        if (!support_sweep_allocation_failures(sweep_attempt, &c, &runs, report, sizeof report)) fail_msg("%s", report);
        assert_true(runs > 20);
    }
    /* The automatic volume's own allocations. */
    float pos[24];
    uint32_t tri[36];
    size_t tc = cube_surface(pos, tri, 0);
    sinew_trimesh surf = {{pos, 8, 0}, tri, tc, SINEW_INDEX_U32, 0};
    float p2[6] = {0.3f, 0.5f, 0.5f, 0.7f, 0.5f, 0.5f};
    sinew_bbw_desc ds;
    SINEW_INIT(&ds);
    ds.surface = &surf;
    ds.grid_resolution = 3;
    ds.points.data = p2;
    ds.points.count = 2;
    sweep_case c = {&ds, SINEW_BBW_PARTITION_EXACT, 0.0};
    if (!support_sweep_allocation_failures(sweep_attempt, &c, &runs, report, sizeof report)) fail_msg("%s", report);
    grid2d_free(&g);
    /* The interior-point method's: a 14 x 14 square whose first polish
     * does not finish at 1e-6 (37 iterations in all). */
    grid2d_make(&g, 14, 14, 1.0f, 1.0f);
    sinew_trimesh sq = grid_view(&g);
    float p3[9] = {0, 0, 0, 1, 0, 0, 0.5f, 0.5f, 0};
    sinew_bbw_desc di;
    SINEW_INIT(&di);
    di.triangles = &sq;
    di.points.data = p3;
    di.points.count = 3;
    sinew_bbw *b = create_ok(&di);
    sinew_bbw_solve_desc sd;
    SINEW_INIT(&sd);
    sd.tolerance = 1e-6;
    assert_int_equal(sinew_bbw_solve(NULL, b, &sd), SINEW_OK);
    sinew_bbw_info info;
    SINEW_INIT(&info);
    assert_int_equal(sinew_bbw_get_info(b, &info), SINEW_OK);
    assert_true(info.iterations > 20); /* past the first polish: the method ran */
    sinew_bbw_destroy(b);
    sweep_case ci = {&di, SINEW_BBW_PARTITION_EXACT, 1e-6};
    if (!support_sweep_allocation_failures(sweep_attempt, &ci, &runs, report, sizeof report)) fail_msg("%s", report);
    grid2d_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_agreement_2d_exact),
        cmocka_unit_test(test_certificate_bounds_error),
        cmocka_unit_test(test_agreement_2d_normalise),
        cmocka_unit_test(test_agreement_3d_exact),
        cmocka_unit_test(test_interpolation_bounds_symmetry),
        cmocka_unit_test(test_locality),
        cmocka_unit_test(test_bones_share_joint),
        cmocka_unit_test(test_cage_linear),
        cmocka_unit_test(test_shape_mask),
        cmocka_unit_test(test_queries),
        cmocka_unit_test(test_automatic_volume_closed),
        cmocka_unit_test(test_automatic_volume_open),
        cmocka_unit_test(test_validation),
        cmocka_unit_test(test_unreached_region),
        cmocka_unit_test(test_not_converged_and_cancel),
        cmocka_unit_test(test_allocation_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
