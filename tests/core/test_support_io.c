/* The test-support readers against the shared data whose counts SOURCES.md
 * records, so a reader bug shows up here rather than as a puzzling failure in
 * a technique's real-data test. Skips when ../shared/data is absent. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "support.h"

static void need(const char *relative, char *path, size_t size)
{
    if (!support_data_path(relative, path, size)) skip();
}

static void off_with_one_face_per_line(void **state)
{
    (void)state;
    char path[1024];
    need("libigl-tutorial-data/decimated-knight.off", path, sizeof path);
    support_mesh m;
    assert_true(support_read_off(path, &m));
    assert_int_equal(m.vertex_count, 502);
    assert_int_equal(m.face_count, 1000);
    assert_int_equal(m.triangle_count, 1000);
    support_mesh_free(&m);
    need("libigl-tutorial-data/cube.off", path, sizeof path);
    assert_true(support_read_off(path, &m));
    assert_int_equal(m.vertex_count, 8);
    assert_int_equal(m.triangle_count, 12);
    support_mesh_free(&m);
}

static void obj_with_polygons(void **state)
{
    (void)state;
    char path[1024];
    need("common-3d-test-models/suzanne.obj", path, sizeof path);
    support_mesh m;
    assert_true(support_read_obj(path, &m));
    assert_int_equal(m.vertex_count, 507);
    assert_int_equal(m.face_count, 500);
    assert_true(m.triangle_count > m.face_count); /* quads were split */
    support_mesh_free(&m);
}

static void medit_tets_and_tgf_skeleton(void **state)
{
    (void)state;
    char path[1024];
    need("libigl-tutorial-data/hand.mesh", path, sizeof path);
    support_mesh m;
    assert_true(support_read_medit(path, &m));
    assert_int_equal(m.vertex_count, 7234);
    assert_int_equal(m.tet_count, 29998);
    support_mesh_free(&m);
    need("libigl-tutorial-data/hand.tgf", path, sizeof path);
    float *joints;
    uint32_t *bones;
    size_t nj, nb;
    assert_true(support_read_tgf(path, &joints, &nj, &bones, &nb));
    assert_int_equal(nj, 21);
    assert_int_equal(nb, 20);
    for (size_t i = 0; i < 2 * nb; ++i) assert_true(bones[i] < nj);
    free(joints);
    free(bones);
}

static void dmat_ascii_and_binary(void **state)
{
    (void)state;
    char path[1024];
    double *d;
    size_t rows, cols;
    need("libigl-tutorial-data/hand-pose.dmat", path, sizeof path);
    assert_true(support_read_dmat(path, &d, &rows, &cols));
    assert_int_equal(rows, 80);
    assert_int_equal(cols, 1);
    free(d);
    need("libigl-tutorial-data/armadillo-weights.dmat", path, sizeof path);
    assert_true(support_read_dmat(path, &d, &rows, &cols));
    assert_int_equal(cols, 5);
    assert_int_equal(rows, 43243);
    for (size_t i = 0; i < rows * cols; ++i) assert_true(d[i] > -1.0 && d[i] < 2.0);
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(off_with_one_face_per_line),
        cmocka_unit_test(obj_with_polygons),
        cmocka_unit_test(medit_tets_and_tgf_skeleton),
        cmocka_unit_test(dmat_ascii_and_binary),
    };
    return cmocka_run_group_tests_name("support-io", tests, NULL, NULL);
}
