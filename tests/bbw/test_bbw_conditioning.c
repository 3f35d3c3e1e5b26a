/* A domain the solve cannot certify because of ill-shaped elements is
 * diagnosed: a grid of Kuhn tets with one sliver planted (a vertex moved
 * almost onto the plane of the opposite face of one of its tets) stops at
 * its cap with a NOT_CONVERGED message naming that tet and its quality, as
 * an independent computation gives them; the same grid without the sliver
 * blames no element. And a capped solve's result agrees with its certificate. */
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
#include "sinew.h"

/* Signed volume of tet t (doubles from the float positions). */
static double tet_volume(const float *pos, const uint32_t *t)
{
    double e[3][3];
    for (int k = 0; k < 3; ++k)
        for (int a = 0; a < 3; ++a) e[k][a] = (double)pos[3 * t[k + 1] + a] - pos[3 * t[0] + a];
    return (e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) - e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
            e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0])) / 6.0;
}

/* Volume over that of the regular tet with the same RMS edge length. */
static double tet_quality(const float *pos, const uint32_t *t)
{
    double sum2 = 0.0;
    for (int i = 0; i < 4; ++i)
        for (int j = i + 1; j < 4; ++j)
            for (int a = 0; a < 3; ++a) {
                double d = (double)pos[3 * t[i] + a] - pos[3 * t[j] + a];
                sum2 += d * d;
            }
    double l = sqrt(sum2 / 6.0);
    return fabs(tet_volume(pos, t)) / (l * l * l / (6.0 * sqrt(2.0)));
}

/* Moves vertex v of g towards the plane of the face opposite it in one of
 * its tets until that tet's height is `left` of what it was, choosing a tet
 * for which every tet around v stays positive. Returns the tet, or SIZE_MAX. */
static size_t plant_sliver(grid3d *g, uint32_t v, double left)
{
    float keep[3];
    memcpy(keep, g->positions + 3 * v, sizeof keep);
    for (size_t t = 0; t < g->tet_count; ++t) {
        const uint32_t *c = g->tets + 4 * t;
        int at = -1;
        for (int k = 0; k < 4; ++k)
            if (c[k] == v) at = k;
        if (at < 0) continue;
        /* The foot of v on the opposite face's plane. */
        const float *f[3];
        for (int k = 0, n = 0; k < 4; ++k)
            if (k != at) f[n++] = g->positions + 3 * c[k];
        double u[3], w[3], nrm[3], d = 0.0, nn = 0.0;
        for (int a = 0; a < 3; ++a) u[a] = (double)f[1][a] - f[0][a], w[a] = (double)f[2][a] - f[0][a];
        nrm[0] = u[1] * w[2] - u[2] * w[1], nrm[1] = u[2] * w[0] - u[0] * w[2], nrm[2] = u[0] * w[1] - u[1] * w[0];
        for (int a = 0; a < 3; ++a) d += nrm[a] * ((double)keep[a] - f[0][a]), nn += nrm[a] * nrm[a];
        for (int a = 0; a < 3; ++a) g->positions[3 * v + a] = (float)(keep[a] - (1.0 - left) * d / nn * nrm[a]);
        int positive = 1;
        for (size_t s = 0; s < g->tet_count && positive; ++s)
            positive = tet_volume(g->positions, g->tets + 4 * s) > 0.0;
        if (positive) return t;
        memcpy(g->positions + 3 * v, keep, sizeof keep);
    }
    return SIZE_MAX;
}

/* Solves g with 8 point handles (inside and at corners, so the bounds are
 * active and one iteration cannot finish), capped at one iteration;
 * returns the failure's message (copied). */
static void capped_solve(const grid3d *g, char *message, size_t size)
{
    const float handles[8 * 3] = {0.25f, 0.25f, 0.25f, 0.75f, 0.25f, 0.5f,  0.5f, 0.75f, 0.25f, 0.25f, 0.5f, 0.75f,
                                  0.75f, 0.75f, 0.75f, 0.0f,  0.0f,  1.0f, 1.0f, 0.0f,  0.0f,  0.5f,  1.0f, 0.5f};
    sinew_tetmesh tets = {{g->positions, g->vertex_count, 0}, g->tets, g->tet_count, SINEW_INDEX_U32, 0};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.tets = &tets;
    d.points = (sinew_points){handles, 8, 0};
    sinew_bbw *b = NULL;
    assert_int_equal(sinew_bbw_create(NULL, &d, &b), SINEW_OK);
    sinew_bbw_solve_desc sd;
    SINEW_INIT(&sd);
    sd.max_iterations = 1;
    sd.coarse_levels = SINEW_BBW_COARSE_NONE;
    assert_int_equal(sinew_bbw_solve(NULL, b, &sd), SINEW_ERROR_NOT_CONVERGED);
    snprintf(message, size, "%s", sinew_last_error());
    sinew_bbw_destroy(b);
}

static void a_planted_sliver_is_named_when_the_solve_stops(void **state)
{
    (void)state;
    grid3d g;
    grid3d_make(&g, 12, 1.0f);
    char message[600];
    capped_solve(&g, message, sizeof message);
    print_message("regular grid: %s\n", message);
    assert_null(strstr(message, "ill-shaped"));
    const uint32_t centre = (6 * 13 + 6) * 13 + 6;
    size_t sliver = plant_sliver(&g, centre, 1e-4);
    assert_true(sliver != SIZE_MAX);
    assert_true(tet_quality(g.positions, g.tets + 4 * sliver) < 1e-3);
    /* The independent scan's worst quality (the move flattens every tet
     * whose opposite face lies in that plane, so several may tie). */
    double worst = INFINITY;
    for (size_t t = 0; t < g.tet_count; ++t) worst = fmin(worst, tet_quality(g.positions, g.tets + 4 * t));
    capped_solve(&g, message, sizeof message);
    print_message("with a sliver: %s\n", message);
    const char *at = strstr(message, "worst tet ");
    assert_non_null(at);
    char *end = NULL;
    size_t named = strtoull(at + strlen("worst tet "), &end, 10);
    assert_true(named < g.tet_count);
    assert_true(strncmp(end, " at ", 4) == 0);
    double reported = strtod(end + 4, NULL);
    assert_true(fabs(tet_quality(g.positions, g.tets + 4 * named) - worst) <= 0.01 * worst);
    assert_true(fabs(reported - worst) <= 0.01 * worst);
    assert_non_null(strstr(message, "Ill-conditioned by "));
    grid3d_free(&g);
}

/* The result agrees with the certificate it reports: a solve stopped by its
 * cap whose last certificate already meets the tolerance is OK, and
 * NOT_CONVERGED always carries a bound above it (caps of 1 to 40 iterations
 * on the regular grid, whose first certificates are already tight). */
static void a_capped_solve_is_ok_exactly_when_its_bound_meets_the_tolerance(void **state)
{
    (void)state;
    grid3d g;
    grid3d_make(&g, 4, 1.0f);
    const float handles[4 * 3] = {0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f, 1.0f};
    sinew_tetmesh tets = {{g.positions, g.vertex_count, 0}, g.tets, g.tet_count, SINEW_INDEX_U32, 0};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.tets = &tets;
    d.points = (sinew_points){handles, 4, 0};
    sinew_bbw *b = NULL;
    assert_int_equal(sinew_bbw_create(NULL, &d, &b), SINEW_OK);
    const double tolerance = 1e-4;
    for (uint32_t cap = 1; cap <= 40; ++cap) {
        sinew_bbw_solve_desc sd;
        SINEW_INIT(&sd);
        sd.tolerance = tolerance;
        sd.max_iterations = cap;
        sd.coarse_levels = SINEW_BBW_COARSE_NONE;
        sinew_result r = sinew_bbw_solve(NULL, b, &sd);
        sinew_bbw_info info;
        SINEW_INIT(&info);
        assert_int_equal(sinew_bbw_get_info(b, &info), SINEW_OK);
        if (r == SINEW_OK) {
            assert_true(info.error_bound <= tolerance);
        } else {
            assert_int_equal(r, SINEW_ERROR_NOT_CONVERGED);
            if (!(info.error_bound > tolerance))
                fail_msg("cap %u: NOT_CONVERGED with a bound of %g, within the tolerance %g", cap, info.error_bound,
                         tolerance);
        }
    }
    sinew_bbw_destroy(b);
    grid3d_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_planted_sliver_is_named_when_the_solve_stops),
        cmocka_unit_test(a_capped_solve_is_ok_exactly_when_its_bound_meets_the_tolerance),
    };
    return cmocka_run_group_tests_name("bbw-conditioning", tests, NULL, NULL);
}
