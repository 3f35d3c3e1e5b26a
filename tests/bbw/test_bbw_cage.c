/*
 * Cage handles interpolate: handle i (cage vertex i) has weight 1 at its cage
 * vertex and every other handle 0 there, on a 2D and a 3D cage whose vertices
 * are not domain vertices. With the default snap, at the domain vertex the
 * cage vertex snaps to (the edges and faces around it, interpolated at that
 * vertex, must not pull it below 1); with SINEW_BBW_PLACE_MOVE_VERTEX, at the
 * cage vertex itself.
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
#include "sinew.h"
#include "support.h"

/* Float rounding of a weight near 1 and of one near 0 computed from doubles. */
#define CAGE_ONE_SLACK 1.2e-7f
#define CAGE_ZERO_SLACK 1e-7f

static sinew_bbw *create_solved(const sinew_bbw_desc *d, sinew_bbw_info *info)
{
    sinew_bbw *b = NULL;
    sinew_result r = sinew_bbw_create(NULL, d, &b);
    if (r != SINEW_OK) fail_msg("create: %s: %s", sinew_result_string(r), sinew_last_error());
    sinew_bbw_solve_desc sd;
    SINEW_INIT(&sd);
    sd.tolerance = 1e-5;
    r = sinew_bbw_solve(NULL, b, &sd);
    if (r != SINEW_OK) fail_msg("solve: %s: %s", sinew_result_string(r), sinew_last_error());
    SINEW_INIT(info);
    assert_int_equal(sinew_bbw_get_info(b, info), SINEW_OK);
    return b;
}

static void expect_unit_row(const float *row, size_t m, size_t own, const char *where, size_t i)
{
    for (size_t j = 0; j < m; ++j) {
        float want = j == own ? 1.0f : 0.0f, slack = j == own ? CAGE_ONE_SLACK : CAGE_ZERO_SLACK;
        if (!(fabsf(row[j] - want) <= slack))
            fail_msg("%s of cage vertex %zu: handle %zu has weight %.9g, want %g", where, i, j, (double)row[j],
                     (double)want);
    }
}

/* Snap: some domain vertex within half an element's diagonal of each cage
 * vertex carries exactly that handle's row. */
static void check_snapped(const sinew_bbw_desc *d, const float *cage, size_t cage_count, size_t first_handle,
                          double reach)
{
    sinew_bbw_info info;
    sinew_bbw *b = create_solved(d, &info);
    size_t n = info.vertex_count, m = info.handle_count;
    float *w = malloc(n * m * sizeof *w), *pos = malloc(n * 3 * sizeof *pos);
    assert_int_equal(sinew_bbw_vertex_weights(b, w, 0, n), SINEW_OK);
    assert_int_equal(sinew_bbw_domain_vertices(b, pos, 0, 0, n), SINEW_OK);
    for (size_t i = 0; i < cage_count; ++i) {
        size_t h = first_handle + i, at = SIZE_MAX;
        float best = -1.0f;
        for (size_t v = 0; v < n; ++v) {
            double d2 = 0.0;
            for (int a = 0; a < 3; ++a) d2 += ((double)pos[3 * v + a] - cage[3 * i + a]) * ((double)pos[3 * v + a] - cage[3 * i + a]);
            if (d2 <= reach * reach && w[v * m + h] > best) best = w[v * m + h], at = v;
        }
        assert_true(at != SIZE_MAX);
        printf("snap: cage vertex %zu: weight %.9f at its domain vertex %zu\n", i, (double)best, at);
        expect_unit_row(w + at * m, m, h, "the domain vertex", i);
    }
    free(w);
    free(pos);
    sinew_bbw_destroy(b);
}

/* Move: the weights queried at each cage vertex are exactly its own row. */
static void check_moved(sinew_bbw_desc *d, const float *cage, size_t cage_count, size_t first_handle)
{
    d->point_placement = SINEW_BBW_PLACE_MOVE_VERTEX;
    sinew_bbw_info info;
    sinew_bbw *b = create_solved(d, &info);
    size_t m = info.handle_count;
    float *w = malloc(cage_count * m * sizeof *w);
    sinew_points pts = {cage, cage_count, 0};
    assert_int_equal(sinew_bbw_point_weights(b, &pts, w, 0, cage_count), SINEW_OK);
    for (size_t i = 0; i < cage_count; ++i) {
        printf("move: cage vertex %zu: weight %.9f there\n", i, (double)w[i * m + first_handle + i]);
        expect_unit_row(w + i * m, m, first_handle + i, "the position", i);
    }
    free(w);
    sinew_bbw_destroy(b);
    d->point_placement = SINEW_BBW_PLACE_SNAP;
}

static void test_cage_2d(void **state)
{
    (void)state;
    grid2d g;
    grid2d_make(&g, 10, 10, 1.0f, 1.0f);
    sinew_trimesh tm = {{g.positions, g.vertex_count, 0}, g.triangles, g.triangle_count, SINEW_INDEX_U32, 0};
    /* A closed quad between the grid lines (spacing 0.1), and a point handle. */
    float cage[12] = {0.23f, 0.27f, 0, 0.77f, 0.24f, 0, 0.74f, 0.78f, 0, 0.26f, 0.73f, 0};
    uint32_t edges[8] = {0, 1, 1, 2, 2, 3, 3, 0};
    sinew_bbw_cage cages[1] = {{{cage, 4, 0}, edges, 4, NULL, 0}};
    float point[3] = {0.5f, 0.5f, 0.0f};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.triangles = &tm;
    d.points.data = point;
    d.points.count = 1;
    d.cages = cages;
    d.cage_count = 1;
    check_snapped(&d, cage, 4, 1, 0.5 * sqrt(2.0) * 0.1 + 1e-6);
    check_moved(&d, cage, 4, 1);
    grid2d_free(&g);
}

static void test_cage_3d(void **state)
{
    (void)state;
    grid3d g;
    grid3d_make(&g, 6, 1.0f);
    sinew_tetmesh tm = {{g.positions, g.vertex_count, 0}, g.tets, g.tet_count, SINEW_INDEX_U32, 0};
    /* A closed tetrahedral cage (faces and wires) off the grid (spacing 1/6). */
    float cage[12] = {0.22f, 0.20f, 0.21f, 0.80f, 0.23f, 0.19f, 0.52f, 0.79f, 0.24f, 0.48f, 0.47f, 0.80f};
    uint32_t edges[12] = {0, 1, 1, 2, 2, 0, 0, 3, 1, 3, 2, 3};
    uint32_t faces[12] = {0, 2, 1, 0, 1, 3, 1, 2, 3, 2, 0, 3};
    sinew_bbw_cage cages[1] = {{{cage, 4, 0}, edges, 6, faces, 4}};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.tets = &tm;
    d.cages = cages;
    d.cage_count = 1;
    check_snapped(&d, cage, 4, 0, 0.5 * sqrt(3.0) / 6.0 + 1e-6);
    check_moved(&d, cage, 4, 0);
    grid3d_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cage_2d),
        cmocka_unit_test(test_cage_3d),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
