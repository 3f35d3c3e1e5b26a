/*
 * Real data: libigl's tutorial hand (7,234 vertices, 29,998 tets, 20 bones).
 * Solve the weights with exact partition of unity, check their defining
 * properties, bind the top-4 influences to the skinning phase (BBW -> skin
 * in two calls), pose it by hand-pose.dmat, check it against a plain LBS, and
 * write the posed surface as an OBJ. Skips when the
 * shared data is absent.
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

#include "hand_pose.h"
#include "support.h"

static void test_hand(void **state)
{
    (void)state;
    char mp[1024], tp[1024], pp[1024];
    if (!support_data_path("libigl-tutorial-data/hand.mesh", mp, sizeof mp) ||
        !support_data_path("libigl-tutorial-data/hand.tgf", tp, sizeof tp) ||
        !support_data_path("libigl-tutorial-data/hand-pose.dmat", pp, sizeof pp))
        skip();
    support_mesh mesh = {0};
    float *joints;
    uint32_t *bones;
    size_t jc, bc, rows, cols;
    double *pose;
    assert_true(support_read_medit(mp, &mesh));
    assert_true(support_read_tgf(tp, &joints, &jc, &bones, &bc));
    assert_true(support_read_dmat(pp, &pose, &rows, &cols));
    assert_int_equal(mesh.vertex_count, 7234);
    assert_int_equal(mesh.tet_count, 29998);
    assert_int_equal(bc, 20);
    assert_int_equal(rows * cols, 4 * bc);

    sinew_tetmesh tm = {support_mesh_points(&mesh), mesh.tets, mesh.tet_count, SINEW_INDEX_U32, 0};
    sinew_bbw_desc d;
    SINEW_INIT(&d);
    d.tets = &tm;
    d.joint_positions.data = joints;
    d.joint_positions.count = jc;
    d.bones = bones;
    d.bone_count = bc;
    sinew_bbw *b = NULL;
    double t0 = support_now();
    assert_int_equal(sinew_bbw_create(NULL, &d, &b), SINEW_OK);
    sinew_result r = sinew_bbw_solve(NULL, b, NULL);
    double t1 = support_now();
    sinew_bbw_info info;
    SINEW_INIT(&info);
    assert_int_equal(sinew_bbw_get_info(b, &info), SINEW_OK);
    printf("hand: %s in %.2f s, %u iterations, %u polish rounds, residuals %.2g / %.2g\n", sinew_result_string(r),
           t1 - t0, info.iterations, info.polish_rounds, info.primal_residual, info.change_residual);
    assert_true(r == SINEW_OK);
    assert_int_equal(info.unreached_vertex_count, 0);

    size_t n = info.vertex_count, m = bc;
    float *w = malloc(n * m * sizeof(float));
    assert_int_equal(sinew_bbw_vertex_weights(b, w, 0, n), SINEW_OK);
    size_t ones[20] = {0};
    for (size_t v = 0; v < n; ++v) {
        double s = 0.0;
        for (size_t j = 0; j < m; ++j) {
            assert_true(w[v * m + j] >= 0.0f && w[v * m + j] <= 1.0f);
            s += w[v * m + j];
            ones[j] += w[v * m + j] == 1.0f;
        }
        assert_float_equal(s, 1.0, 1e-5);
    }
    /* Every bone owns the domain vertices along it. */
    for (size_t j = 0; j < m; ++j) assert_true(ones[j] >= 2);

    /* BBW -> skinning: top-4 at the surface vertices (domain vertices here). */
    const uint32_t k = 4;
    uint32_t *jt = malloc(n * k * sizeof(uint32_t));
    float *wt = malloc(n * k * sizeof(float));
    assert_int_equal(sinew_bbw_top_k(b, NULL, k, jt, wt, 0, n), SINEW_OK);
    double *rot = malloc(bc * 4 * sizeof(double)), *trans = malloc(bc * 3 * sizeof(double));
    assert_true(hp_forward_kinematics(joints, bones, bc, pose, rot, trans));
    /* The second call: bind the top-4 to the skinning phase and deform. */
    sinew_skin_desc sk;
    SINEW_INIT(&sk);
    sk.vertex_count = n;
    sk.joint_count = bc;
    sk.influence_count = k;
    sk.joints = jt;
    sk.weights = wt;
    sinew_skin *skin = NULL;
    assert_int_equal(sinew_skin_create(NULL, &sk, &skin), SINEW_OK);
    float *world = malloc(bc * 16 * sizeof(float));
    for (size_t j = 0; j < bc; ++j) hp_matrix(rot, trans, j, world + 16 * j);
    float *palette = malloc(sinew_skin_palette_size(skin) * sizeof(float));
    assert_int_equal(sinew_skin_palette(skin, world, bc, palette, sinew_skin_palette_size(skin)), SINEW_OK);
    float *posed = malloc(n * 3 * sizeof(float));
    sinew_skin_input in = {mesh.positions, 0, NULL, 0, NULL, 0};
    sinew_skin_output out = {posed, 0, NULL, 0, NULL, 0};
    assert_int_equal(sinew_skin_deform(skin, palette, sinew_skin_palette_size(skin), &in, &out, 0, n), SINEW_OK);
    double moved = 0.0;
    for (size_t v = 0; v < n; ++v) {
        float ref[3];
        hp_skin(mesh.positions + 3 * v, jt + v * k, wt + v * k, k, rot, trans, ref);
        for (int a = 0; a < 3; ++a) {
            assert_true(isfinite(posed[3 * v + a]));
            assert_float_equal(posed[3 * v + a], ref[a], 1e-4f);
            moved = fmax(moved, fabs(posed[3 * v + a] - mesh.positions[3 * v + a]));
        }
        /* A vertex owned by one bone moves rigidly with it. */
        if (wt[v * k] == 1.0f) {
            float rigid[3];
            uint32_t one = jt[v * k];
            float unit = 1.0f;
            hp_skin(mesh.positions + 3 * v, &one, &unit, 1, rot, trans, rigid);
            for (int a = 0; a < 3; ++a) assert_float_equal(posed[3 * v + a], rigid[a], 1e-4f);
        }
    }
    assert_true(moved > 0.1); /* the pose bends the fingers visibly */
    assert_true(support_write_obj("bbw-hand-posed.obj", posed, n, 0, mesh.triangles, mesh.triangle_count));
    printf("hand: wrote bbw-hand-posed.obj (largest displacement %.3f)\n", moved);

    free(posed);
    free(world);
    free(palette);
    sinew_skin_destroy(skin);
    free(rot);
    free(trans);
    free(jt);
    free(wt);
    free(w);
    free(joints);
    free(bones);
    free(pose);
    sinew_bbw_destroy(b);
    support_mesh_free(&mesh);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_hand)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
