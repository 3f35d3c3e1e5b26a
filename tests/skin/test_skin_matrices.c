/* sinew_skin_vertex_matrices: the blended per-vertex matrix of every blend,
 * in closed form on small rigs and against sinew_skin_deform's positions on
 * a random rig under scale and shear; absolute range indexing; errors. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sinew.h"
#include "skin_test_util.h"
#include "support.h"

static sinew_skin *two_joint_skin(sinew_skin_blend blend, float w0, const float *dq_blend)
{
    static uint32_t joints[2];
    static float weights[2];
    joints[0] = 0, joints[1] = 1;
    weights[0] = w0, weights[1] = 1.0f - w0;
    sinew_skin_desc d;
    SINEW_INIT(&d);
    d.vertex_count = 1;
    d.joint_count = 2;
    d.influence_count = 2;
    d.joints = joints;
    d.weights = weights;
    d.blend = blend;
    d.dq_blend = dq_blend;
    sinew_skin *skin = NULL;
    assert_int_equal(sinew_skin_create(NULL, &d, &skin), SINEW_OK);
    return skin;
}

static void matrix_of(const sinew_skin *skin, const float world[32], float m[16])
{
    float palette[96];
    size_t n = sinew_skin_palette_size(skin);
    assert_int_equal(sinew_skin_palette(skin, world, 2, palette, n), SINEW_OK);
    assert_int_equal(sinew_skin_vertex_matrices(skin, palette, n, m, 0, 0, 1), SINEW_OK);
}

static void assert_matrix_near(const float *got, const double *want, double tol)
{
    for (int e = 0; e < 16; ++e)
        if (fabs(got[e] - want[e]) > tol) {
            fprintf(stderr, "element %d (row %d, column %d): %.9g, want %.9g\n", e, e % 4, e / 4, (double)got[e],
                    want[e]);
            fail();
        }
}

static void closed_forms(void **state)
{
    (void)state;
    const double z[3] = {0, 0, 1}, zero[3] = {0, 0, 0}, one[3] = {1, 1, 1};
    /* Linear: two translations blended 1/4 : 3/4. */
    float world[32];
    const double t0[3] = {1, 0, 0}, t1[3] = {0, 2, 0};
    skin_test_trs(z, 0, t0, one, world);
    skin_test_trs(z, 0, t1, one, world + 16);
    sinew_skin *skin = two_joint_skin(SINEW_SKIN_BLEND_LINEAR, 0.25f, NULL);
    float m[16];
    matrix_of(skin, world, m);
    const double lin[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0.25, 1.5, 0, 1};
    assert_matrix_near(m, lin, 1e-6);
    sinew_skin_destroy(skin);
    /* Dual quaternions: rotations by 0 and 90 degrees about z, half each,
     * blend to the rotation by 45 degrees (linear blending would shrink it). */
    skin_test_trs(z, 0, zero, one, world);
    skin_test_trs(z, 1.5707963267948966, zero, one, world + 16);
    skin = two_joint_skin(SINEW_SKIN_BLEND_DUAL_QUATERNION, 0.5f, NULL);
    matrix_of(skin, world, m);
    const double c = sqrt(0.5);
    const double rot45[16] = {c, c, 0, 0, -c, c, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    assert_matrix_near(m, rot45, 1e-6);
    sinew_skin_destroy(skin);
    /* The same about a pivot: the dual part carries the translation. Joint 1
     * rotates 90 degrees about (1, 0, 0); the blend is the 45 degree
     * rotation about the same pivot. */
    world[16 + 12] = 1, world[16 + 13] = -1;
    skin = two_joint_skin(SINEW_SKIN_BLEND_DUAL_QUATERNION, 0.5f, NULL);
    matrix_of(skin, world, m);
    double pivot[16];
    memcpy(pivot, rot45, sizeof pivot);
    pivot[12] = 1 - c, pivot[13] = -c;
    assert_matrix_near(m, pivot, 1e-6);
    sinew_skin_destroy(skin);
    /* Mixed at a = 1/4: 3/4 of the linear blend plus 1/4 of the DQ one. */
    const float a = 0.25f;
    skin = two_joint_skin(SINEW_SKIN_BLEND_MIXED, 0.5f, &a);
    matrix_of(skin, world, m);
    double mixed[16];
    for (int e = 0; e < 16; ++e) mixed[e] = 0.75 * (0.5 * (e % 5 == 0) + 0.5 * world[16 + e]) + 0.25 * pivot[e];
    mixed[15] = 1;
    assert_matrix_near(m, mixed, 1e-6);
    sinew_skin_destroy(skin);
}

enum { V = 400, J = 12, K = 4 };

/* A random rig (1..4 influences per vertex) in each blend, posed with
 * rotations, non-uniform scale and translation: M_v p matches the deform. */
static void matrices_reproduce_deform(void **state)
{
    (void)state;
    static uint32_t joints[V * K];
    static float weights[V * K], blend[V], rest[V * 3], world[J * 16], deformed[V * 3];
    support_rng rng;
    support_rng_seed(&rng, 5);
    for (size_t v = 0; v < V; ++v) {
        size_t used = 1 + v % K;
        float sum = 0;
        for (size_t s = 0; s < K; ++s) {
            joints[v * K + s] = (uint32_t)(support_rng_next(&rng) % J);
            weights[v * K + s] = s < used ? (float)support_rng_uniform(&rng, 0.05, 1) : 0.0f;
            sum += weights[v * K + s];
        }
        for (size_t s = 0; s < K; ++s) weights[v * K + s] /= sum;
        blend[v] = (float)support_rng_uniform(&rng, 0, 1);
        for (int a = 0; a < 3; ++a) rest[3 * v + a] = (float)support_rng_uniform(&rng, -2, 2);
    }
    for (size_t j = 0; j < J; ++j) {
        const double axis[3] = {support_rng_uniform(&rng, -1, 1), support_rng_uniform(&rng, -1, 1), 1};
        const double t[3] = {support_rng_uniform(&rng, -3, 3), support_rng_uniform(&rng, -3, 3), 0.5};
        const double s[3] = {support_rng_uniform(&rng, 0.7, 1.3), support_rng_uniform(&rng, 0.7, 1.3), 1.1};
        skin_test_trs(axis, support_rng_uniform(&rng, -2.5, 2.5), t, s, world + 16 * j);
    }
    const size_t stride = 20 * sizeof(float); /* 16 floats and 4 of padding per vertex */
    float *mats = malloc(V * stride);
    for (int b = SINEW_SKIN_BLEND_LINEAR; b <= SINEW_SKIN_BLEND_MIXED; ++b) {
        sinew_skin_desc d;
        SINEW_INIT(&d);
        d.vertex_count = V;
        d.joint_count = J;
        d.influence_count = K;
        d.joints = joints;
        d.weights = weights;
        d.blend = (sinew_skin_blend)b;
        d.dq_blend = blend;
        sinew_skin *skin = NULL;
        assert_int_equal(sinew_skin_create(NULL, &d, &skin), SINEW_OK);
        size_t n = sinew_skin_palette_size(skin);
        float *palette = malloc(n * sizeof(float));
        assert_int_equal(sinew_skin_palette(skin, world, J, palette, n), SINEW_OK);
        sinew_skin_input in = {rest, 0, NULL, 0, NULL, 0};
        sinew_skin_output out = {deformed, 0, NULL, 0, NULL, 0};
        assert_int_equal(sinew_skin_deform(skin, palette, n, &in, &out, 0, V), SINEW_OK);
        for (size_t i = 0; i < V * 20; ++i) mats[i] = NAN;
        /* Two ranges into one buffer, indexed by absolute vertex number. */
        assert_int_equal(sinew_skin_vertex_matrices(skin, palette, n, mats, stride, 150, V - 150), SINEW_OK);
        for (size_t i = 0; i < 150 * 20; ++i) assert_true(isnan(mats[i]));
        assert_int_equal(sinew_skin_vertex_matrices(skin, palette, n, mats, stride, 0, 150), SINEW_OK);
        double worst = 0;
        for (size_t v = 0; v < V; ++v) {
            const float *m = mats + 20 * v, *p = rest + 3 * v;
            assert_true(m[3] == 0 && m[7] == 0 && m[11] == 0 && m[15] == 1);
            assert_true(isnan(m[16]) && isnan(m[19]));
            for (int r = 0; r < 3; ++r) {
                double x = (double)m[r] * p[0] + (double)m[4 + r] * p[1] + (double)m[8 + r] * p[2] + m[12 + r];
                worst = fmax(worst, fabs(x - deformed[3 * v + r]));
            }
        }
        printf("blend %d: largest |M p - deform| %.3g (coordinates up to about 8)\n", b, worst);
        assert_true(worst <= 1e-5);
        free(palette);
        sinew_skin_destroy(skin);
    }
    free(mats);
}

static void errors_leave_the_output_untouched(void **state)
{
    (void)state;
    const float a = 0.5f;
    sinew_skin *skin = two_joint_skin(SINEW_SKIN_BLEND_MIXED, 0.5f, &a);
    float world[32], palette[96];
    skin_test_identity(world);
    skin_test_identity(world + 16);
    size_t n = sinew_skin_palette_size(skin);
    assert_int_equal(sinew_skin_palette(skin, world, 2, palette, n), SINEW_OK);
    _Alignas(16) float out[40];
    for (int i = 0; i < 40; ++i) out[i] = -7;
    assert_int_equal(sinew_skin_vertex_matrices(NULL, palette, n, out, 0, 0, 1), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_skin_vertex_matrices(skin, NULL, n, out, 0, 0, 1), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_skin_vertex_matrices(skin, palette, n - 48, out, 0, 0, 1), SINEW_ERROR_MISMATCH);
    assert_non_null(strstr(sinew_last_error(), "this skin needs 96"));
    assert_int_equal(sinew_skin_vertex_matrices(skin, palette, n, NULL, 0, 0, 1), SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_skin_vertex_matrices(skin, palette, n, (float *)((char *)out + 2), 0, 0, 1),
                     SINEW_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sinew_skin_vertex_matrices(skin, palette, n, out, 60, 0, 1), SINEW_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(sinew_last_error(), "skin matrix output stride 60 bytes"));
    assert_int_equal(sinew_skin_vertex_matrices(skin, palette, n, out, 0, 1, 1), SINEW_ERROR_INDEX_OUT_OF_RANGE);
    for (int i = 0; i < 40; ++i) assert_true(out[i] == -7);
    assert_int_equal(sinew_skin_vertex_matrices(skin, palette, n, out, 0, 1, 0), SINEW_OK);
    for (int i = 0; i < 40; ++i) assert_true(out[i] == -7);
    assert_int_equal(sinew_skin_vertex_matrices(skin, palette, n, out, 0, 0, 1), SINEW_OK);
    const double id[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    assert_matrix_near(out, id, 1e-7);
    assert_true(out[16] == -7);
    sinew_skin_destroy(skin);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(closed_forms),
        cmocka_unit_test(matrices_reproduce_deform),
        cmocka_unit_test(errors_leave_the_output_untouched),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
