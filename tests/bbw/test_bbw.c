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
    sinew_trimesh t = {{g->positions, g->vertex_count, 0}, g->triangles, g->triangle_count};
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
    sinew_result r = sinew_bbw_solve(b, sd);
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
    sinew_bbw_desc d = {0};
    d.triangles = &tm;
    d.points = pts;
    d.point_count = 3;
    sinew_bbw *b = create_ok(&d);
    sinew_bbw_solve_desc sd = {0};
    sd.partition = exact ? SINEW_BBW_PARTITION_EXACT : SINEW_BBW_PARTITION_NORMALISE;
    sd.tolerance = 1e-6;
    sinew_bbw_info info;
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
    { size_t c1=0,c2=0; for (size_t c = 0; c < n*3; ++c) { c1 += w[c] > 1e-3f; c2 += ref[c] > 1e-3; } printf("support %zu ref %zu of %zu\n", c1, c2, n*3); }
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_agreement_2d_exact),
        cmocka_unit_test(test_agreement_2d_normalise),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
