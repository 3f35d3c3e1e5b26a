/* Hardening of the bbw API: index arrays whose byte size overflows
 * fail before anything is read, misaligned float/index pointers are refused
 * naming the argument, and every failure (NOT_CONVERGED included) leaves a
 * specific message. */
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

static void expect(sinew_result got, sinew_result want, const char *fragment)
{
    if (got != want)
        fail_msg("expected %s, got %s (%s)", sinew_result_string(want), sinew_result_string(got), sinew_last_error());
    if (fragment && !strstr(sinew_last_error(), fragment))
        fail_msg("message '%s' lacks '%s'", sinew_last_error(), fragment);
}

static sinew_result create(const sinew_bbw_desc *d)
{
    sinew_bbw *b = (sinew_bbw *)(uintptr_t)1;
    sinew_result r = sinew_bbw_create(NULL, d, &b);
    if (r == SINEW_OK) sinew_bbw_destroy(b);
    else assert_true(b == (sinew_bbw *)(uintptr_t)1); /* untouched */
    return r;
}

/* Counts whose index arrays span more than the address space: SIZE_MAX / 3
 * triangles of 3 indices are SIZE_MAX indices, 4 * SIZE_MAX bytes. */
static void overflowing_index_counts(void **state)
{
    (void)state;
    float v[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    float tv[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    uint32_t idx[4] = {0, 1, 2, 3};
    float handle[3] = {0.2f, 0.2f, 0.0f};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.points.data = handle;
    d.points.count = 1;

    sinew_trimesh tri = {{v, 3, 0}, idx, SIZE_MAX / 3, SINEW_INDEX_U32, 0};
    d.triangles = &tri;
    expect(create(&d), SINEW_ERROR_SIZE_OVERFLOW, "overflow");
    tri.triangle_count = SIZE_MAX / 12 + 1; /* count * 3 fits, count * 12 bytes does not */
    expect(create(&d), SINEW_ERROR_SIZE_OVERFLOW, "triangles of 3 indices");

    d.triangles = NULL;
    sinew_tetmesh tet = {{tv, 4, 0}, idx, SIZE_MAX / 3, SINEW_INDEX_U32, 0};
    d.tets = &tet;
    expect(create(&d), SINEW_ERROR_SIZE_OVERFLOW, "overflow");
    tet.tet_count = SIZE_MAX / 16 + 1;
    expect(create(&d), SINEW_ERROR_SIZE_OVERFLOW, "tets of 4 indices");

    d.tets = NULL;
    sinew_trimesh surface = {{tv, 4, 0}, idx, SIZE_MAX / 3, SINEW_INDEX_U32, 0};
    d.surface = &surface;
    expect(create(&d), SINEW_ERROR_SIZE_OVERFLOW, "surface triangles");

    /* A points view whose span overflows: 3 points 2^63 bytes apart. */
    sinew_trimesh big = {{v, 3, (size_t)1 << (sizeof(size_t) * 8 - 1)}, idx, 1, SINEW_INDEX_U32, 0};
    d.surface = NULL;
    d.triangles = &big;
    expect(create(&d), SINEW_ERROR_SIZE_OVERFLOW, "domain vertex");

    /* Bones: 2 indices each. */
    grid2d g;
    grid2d_make(&g, 2, 2, 1.0f, 1.0f);
    sinew_trimesh tm = {{g.positions, g.vertex_count, 0}, g.triangles, g.triangle_count, SINEW_INDEX_U32, 0};
    float joints[6] = {0.25f, 0.25f, 0, 0.75f, 0.75f, 0};
    uint32_t bones[2] = {0, 1};
    SINEW_INIT(&d);
    d.triangles = &tm;
    d.joint_positions.data = joints;
    d.joint_positions.count = 2;
    d.bones = bones;
    d.bone_count = SIZE_MAX / 2;
    expect(create(&d), SINEW_ERROR_SIZE_OVERFLOW, "2^32"); /* bones are handles too */
    grid2d_free(&g);
}

static sinew_bbw *solved_grid(grid2d *g)
{
    grid2d_make(g, 6, 6, 1.0f, 1.0f);
    static float pts[6] = {0.1f, 0.1f, 0, 0.9f, 0.8f, 0};
    static sinew_trimesh tm;
    tm = (sinew_trimesh){{g->positions, g->vertex_count, 0}, g->triangles, g->triangle_count, SINEW_INDEX_U32, 0};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.triangles = &tm;
    d.points.data = pts;
    d.points.count = 2;
    sinew_bbw *b = NULL;
    assert_int_equal(sinew_bbw_create(NULL, &d, &b), SINEW_OK);
    assert_int_equal(sinew_bbw_solve(NULL, b, NULL), SINEW_OK);
    return b;
}

/* A pointer one byte past an aligned buffer. */
static void *misaligned(void *p)
{
    return (char *)p + 1;
}

static void misaligned_pointers_refused(void **state)
{
    (void)state;
    grid2d g;
    sinew_bbw *b = solved_grid(&g);
    sinew_bbw_info info;
    SINEW_INIT(&info);
    assert_int_equal(sinew_bbw_get_info(b, &info), SINEW_OK);
    float buf[64];
    uint32_t ibuf[64];
    memset(buf, 0x5a, sizeof buf);
    memset(ibuf, 0x5a, sizeof ibuf);
    float *bad = misaligned(buf);
    uint32_t *ibad = misaligned(ibuf);

    expect(sinew_bbw_vertex_weights(b, bad, 0, 2), SINEW_ERROR_INVALID_ARGUMENT, "vertex weight output pointer");
    expect(sinew_bbw_domain_vertices(b, bad, 0, 0, 2), SINEW_ERROR_INVALID_ARGUMENT,
           "domain vertex output pointer");
    expect(sinew_bbw_domain_vertices(b, buf, 14, 0, 2), SINEW_ERROR_INVALID_ARGUMENT, "stride 14");
    expect(sinew_bbw_domain_elements(b, ibad, 0, 2), SINEW_ERROR_INVALID_ARGUMENT, "domain element output pointer");
    float q[6] = {0.5f, 0.5f, 0, 0.25f, 0.5f, 0};
    sinew_points pv = {q, 2, 0};
    expect(sinew_bbw_point_weights(b, &pv, bad, 0, 2), SINEW_ERROR_INVALID_ARGUMENT, "point weight output pointer");
    expect(sinew_bbw_top_k(b, &pv, 2, ibuf, bad, 0, 2), SINEW_ERROR_INVALID_ARGUMENT, "top-k weight output pointer");
    expect(sinew_bbw_top_k(b, &pv, 2, ibad, buf, 0, 2), SINEW_ERROR_INVALID_ARGUMENT, "top-k joint output pointer");
    /* Misaligned input points. */
    float qq[8];
    float *qbad = misaligned(qq);
    memcpy(qbad, q, 6 * sizeof(float));
    sinew_points pbad = {qbad, 2, 0};
    expect(sinew_bbw_point_weights(b, &pbad, buf, 0, 2), SINEW_ERROR_INVALID_ARGUMENT, "points pointer");
    for (size_t i = 0; i < 64; ++i) {
        uint32_t x;
        memcpy(&x, &buf[i], 4);
        assert_true(x == 0x5a5a5a5au && ibuf[i] == 0x5a5a5a5au); /* untouched */
    }
    /* Shape mask. */
    float mask[80];
    sinew_bbw_solve_desc sd;
    SINEW_INIT(&sd);
    sd.shape_mask = misaligned(mask);
    sd.shape_mask_count = info.element_count;
    expect(sinew_bbw_solve(NULL, b, &sd), SINEW_ERROR_INVALID_ARGUMENT, "shape mask pointer");
    sinew_bbw_destroy(b);

    /* Handle arrays and domain views at create. */
    float hp[8] = {0};
    float *hbad = misaligned(hp);
    float one[3] = {0.3f, 0.3f, 0};
    memcpy(hbad, one, sizeof one);
    sinew_trimesh tm = {{g.positions, g.vertex_count, 0}, g.triangles, g.triangle_count, SINEW_INDEX_U32, 0};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.triangles = &tm;
    d.points.data = hbad;
    d.points.count = 1;
    expect(create(&d), SINEW_ERROR_INVALID_ARGUMENT, "point handles pointer");
    d.points.data = one;
    sinew_trimesh tmbad = tm;
    tmbad.indices = misaligned(g.triangles);
    d.triangles = &tmbad;
    expect(create(&d), SINEW_ERROR_INVALID_ARGUMENT, "triangle index pointer");
    grid2d_free(&g);
}

/* NOT_CONVERGED says how many iterations ran and the error bound reached, for
 * every cap below the first polish (iteration 20: on this small grid it
 * finishes the solve exactly, even at 1e-12) and both partition modes. */
static void not_converged_messages(void **state)
{
    (void)state;
    grid2d g;
    grid2d_make(&g, 8, 8, 1.0f, 1.0f);
    float pts[9] = {0.1f, 0.1f, 0, 0.9f, 0.2f, 0, 0.5f, 0.9f, 0};
    sinew_trimesh tm = {{g.positions, g.vertex_count, 0}, g.triangles, g.triangle_count, SINEW_INDEX_U32, 0};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.triangles = &tm;
    d.points.data = pts;
    d.points.count = 3;
    sinew_bbw *b = NULL;
    assert_int_equal(sinew_bbw_create(NULL, &d, &b), SINEW_OK);
    for (int exact = 0; exact < 2; ++exact)
        for (uint32_t cap = 1; cap < 20; ++cap) {
            sinew_bbw_solve_desc sd;
            SINEW_INIT(&sd);
            sd.partition = exact ? SINEW_BBW_PARTITION_EXACT : SINEW_BBW_PARTITION_NORMALISE;
            sd.max_iterations = cap;
            sd.tolerance = 1e-12;
            sinew_result r = sinew_bbw_solve(NULL, b, &sd);
            assert_int_equal(r, SINEW_ERROR_NOT_CONVERGED);
            char want[64];
            snprintf(want, sizeof want, "%u iterations", cap);
            if (!strstr(sinew_last_error(), want) || !strstr(sinew_last_error(), "error bound"))
                fail_msg("cap %u (%s): message '%s'", cap, exact ? "exact" : "normalise", sinew_last_error());
        }
    sinew_bbw_destroy(b);
    grid2d_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(overflowing_index_counts),
        cmocka_unit_test(misaligned_pointers_refused),
        cmocka_unit_test(not_converged_messages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
