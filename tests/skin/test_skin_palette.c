/* Smooth skinning, palette phase: M_j = W_j * B_j^-1 against a double
 * product, rigid flags, the dual-quaternion split (rotation, translation,
 * scale/shear) and argument errors. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "skin_test_util.h"
#include "support.h"

/* m = T(t) * R(axis, angle) * diag(scale), column-major. */
static void mat_trs(double ax, double ay, double az, double angle, const double t[3], const double scale[3],
                    float m[16])
{
    const double axis[3] = {ax, ay, az};
    skin_test_trs(axis, angle, t, scale, m);
}

static sinew_skin *make_skin(size_t joints, const float *inverse_bind, sinew_skin_blend blend)
{
    uint32_t j = 0;
    float w = 1.0f, a = 1.0f;
    sinew_skin_desc d;
    SINEW_INIT(&d);
    d.vertex_count = 1, d.joint_count = joints, d.influence_count = 1;
    d.joints = &j, d.weights = &w, d.inverse_bind = inverse_bind, d.blend = blend, d.dq_blend = &a;
    sinew_skin *s = NULL;
    assert_int_equal(sinew_skin_create(NULL, &d, &s), SINEW_OK);
    return s;
}

/* Joints: 0 rigid, 1 rigid with uniform scale 3, 2 non-uniform scale,
 * 3 mirror, 4 shear, 5 scaled to zero (hidden geometry). */
enum { J = 6 };
static void make_pose(float *world, float *inverse_bind)
{
    const double t0[3] = {1, 2, 3}, t1[3] = {-40, 5, 1000}, t2[3] = {0.5, 0, -2}, t3[3] = {0, 1, 0}, t4[3] = {2, 2, 2};
    const double one[3] = {1, 1, 1}, uni[3] = {3, 3, 3}, non[3] = {2, 0.5, 1.25}, mir[3] = {-1, 1, 1},
                 zero[3] = {0, 0, 0};
    mat_trs(1, 2, 3, 0.7, t0, one, world);
    mat_trs(-1, 0, 1, 2.9, t1, uni, world + 16);
    mat_trs(0, 1, 0, -1.1, t2, non, world + 32);
    mat_trs(1, 1, 0, 0.3, t3, mir, world + 48);
    mat_trs(0, 0, 1, 0.0, t4, one, world + 64);
    world[64 + 4] = 0.8f; /* shear: column 1 gains an x component */
    mat_trs(0, 0, 1, 0.4, t4, zero, world + 80);
    for (int j = 0; j < J; ++j) {
        const double tb[3] = {0.1 * j, -0.2, 0.3};
        mat_trs(0.2, 1, -0.5, 0.5 + 0.3 * j, tb, one, inverse_bind + 16 * j);
    }
}

static void matrices_and_rigid_flags(void **state)
{
    (void)state;
    float world[16 * J], ib[16 * J];
    make_pose(world, ib);
    sinew_skin *skin = make_skin(J, ib, SINEW_SKIN_BLEND_LINEAR);
    float pal[16 * J];
    assert_int_equal(sinew_skin_palette(skin, world, J, pal, sinew_skin_palette_size(skin)), SINEW_OK);
    const float rigid[J] = {0, 0, 1, 1, 1, 1};
    for (int j = 0; j < J; ++j) {
        const float *w = world + 16 * j, *b = ib + 16 * j, *m = pal + 16 * j;
        for (int c = 0; c < 4; ++c)
            for (int r = 0; r < 3; ++r) {
                double e = c == 3 ? w[12 + r] : 0.0;
                for (int k = 0; k < 3; ++k) e += (double)w[4 * k + r] * b[4 * c + k];
                assert_true(fabs(m[4 * c + r] - e) <= 1e-6 * fmax(1.0, fabs(e)));
            }
        assert_true(m[3] == rigid[j]);
        assert_true(m[7] == 0.0f && m[11] == 0.0f && m[15] == 0.0f);
    }
    /* Without inverse bind matrices, M_j = W_j. */
    sinew_skin *plain = make_skin(J, NULL, SINEW_SKIN_BLEND_LINEAR);
    assert_int_equal(sinew_skin_palette(plain, world, J, pal, sinew_skin_palette_size(plain)), SINEW_OK);
    for (int j = 0; j < J; ++j)
        for (int c = 0; c < 4; ++c)
            for (int r = 0; r < 3; ++r) assert_true(pal[16 * j + 4 * c + r] == world[16 * j + 4 * c + r]);
    sinew_skin_destroy(plain);
    sinew_skin_destroy(skin);
}

/* The DQ record reproduces M: R(q) S x + t == M x for any x, q is a unit
 * quaternion with w >= 0, t = 2 d q*, and S carries no rotation when R is
 * well defined (S symmetric up to the mirror). */
static void dual_quaternion_split_reproduces_the_matrix(void **state)
{
    (void)state;
    float world[16 * J], ib[16 * J];
    make_pose(world, ib);
    sinew_skin *skin = make_skin(J, ib, SINEW_SKIN_BLEND_DUAL_QUATERNION);
    assert_int_equal(sinew_skin_palette_size(skin), 48 * J);
    float pal[48 * J];
    assert_int_equal(sinew_skin_palette(skin, world, J, pal, sinew_skin_palette_size(skin)), SINEW_OK);
    const double xs[3][3] = {{1, 0, 0}, {0.3, -2, 5}, {-7, 1, 0.25}};
    for (int j = 0; j < J; ++j) {
        const float *rec = pal + 48 * j, *q = rec + 16, *d = rec + 20, *s = rec + 24;
        double qn = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
        assert_true(fabs(qn - 1.0) < 1e-6 && q[3] >= 0.0f);
        /* q . d = 0 for a unit dual quaternion. */
        assert_true(fabs(q[0] * d[0] + q[1] * d[1] + q[2] * d[2] + q[3] * d[3]) < 1e-3);
        for (int i = 36; i < 48; ++i) assert_true(rec[i] == 0.0f);
        for (int x = 0; x < 3; ++x) {
            double sx[3], rx[3], t[3], e[3];
            for (int r = 0; r < 3; ++r) sx[r] = s[r] * xs[x][0] + s[4 + r] * xs[x][1] + s[8 + r] * xs[x][2];
            /* rotate by q: v + 2 qv x (qv x v + w v) */
            double c1[3] = {q[1] * sx[2] - q[2] * sx[1] + q[3] * sx[0], q[2] * sx[0] - q[0] * sx[2] + q[3] * sx[1],
                            q[0] * sx[1] - q[1] * sx[0] + q[3] * sx[2]};
            double c2[3] = {q[1] * c1[2] - q[2] * c1[1], q[2] * c1[0] - q[0] * c1[2], q[0] * c1[1] - q[1] * c1[0]};
            for (int r = 0; r < 3; ++r) rx[r] = sx[r] + 2.0 * c2[r];
            double vxd[3] = {q[1] * d[2] - q[2] * d[1], q[2] * d[0] - q[0] * d[2], q[0] * d[1] - q[1] * d[0]};
            for (int r = 0; r < 3; ++r) t[r] = 2.0 * (q[3] * d[r] - d[3] * q[r] + vxd[r]);
            for (int r = 0; r < 3; ++r)
                e[r] = rec[r] * xs[x][0] + rec[4 + r] * xs[x][1] + rec[8 + r] * xs[x][2] + rec[12 + r];
            for (int r = 0; r < 3; ++r) {
                double got = rx[r] + t[r];
                if (!(fabs(got - e[r]) <= 2e-5 * fmax(1.0, fabs(e[r]))))
                    fail_msg("joint %d point %d row %d: %g vs %g", j, x, r, got, e[r]);
            }
        }
    }
    /* Rigid joint: S = I. Uniform scale: S = 3 I. Mirror: det S < 0. */
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) {
            assert_true(fabsf(pal[24 + 4 * c + r] - (r == c ? 1.0f : 0.0f)) < 1e-5f);
            assert_true(fabsf(pal[48 + 24 + 4 * c + r] - (r == c ? 3.0f : 0.0f)) < 1e-5f);
        }
    const float *sm = pal + 3 * 48 + 24;
    double det = sm[0] * (sm[5] * sm[10] - sm[9] * sm[6]) - sm[4] * (sm[1] * sm[10] - sm[9] * sm[2]) +
                 sm[8] * (sm[1] * sm[6] - sm[5] * sm[2]);
    assert_true(det < -0.99 && det > -1.01);
    /* Zero scale: rotation is identity, S = 0. */
    const float *z = pal + 5 * 48;
    assert_true(z[19] == 1.0f);
    for (int i = 24; i < 36; ++i) assert_true(z[i] == 0.0f);
    sinew_skin_destroy(skin);
}

/* Far from the origin the product is formed in double: a joint 1e5 units away
 * whose world and inverse bind cancel gives back the identity to float
 * precision of the result, not of the inputs' magnitude. */
static void precision_far_from_the_origin(void **state)
{
    (void)state;
    const double t[3] = {1e5 + 0.125, -2e5, 3e5}, tn[3] = {-1e5 - 0.125, 2e5, -3e5}, one[3] = {1, 1, 1};
    float w[16], ib[16];
    mat_trs(0, 0, 1, 0.0, t, one, w);
    mat_trs(0, 0, 1, 0.0, tn, one, ib);
    sinew_skin *skin = make_skin(1, ib, SINEW_SKIN_BLEND_LINEAR);
    float pal[16];
    assert_int_equal(sinew_skin_palette(skin, w, 1, pal, sinew_skin_palette_size(skin)), SINEW_OK);
    for (int r = 0; r < 3; ++r) assert_true(pal[12 + r] == 0.0f);
    assert_true(pal[0] == 1.0f && pal[5] == 1.0f && pal[10] == 1.0f && pal[3] == 0.0f);
    sinew_skin_destroy(skin);
}

static void bad_world_matrices_are_named(void **state)
{
    (void)state;
    float world[16 * J], ib[16 * J];
    make_pose(world, ib);
    sinew_skin *skin = make_skin(J, ib, SINEW_SKIN_BLEND_LINEAR);
    float pal[16 * J];
    for (int i = 0; i < 16 * J; ++i) pal[i] = 5.0f;
    assert_int_equal(sinew_skin_palette(NULL, world, J, pal, sinew_skin_palette_size(NULL)), SINEW_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(sinew_last_error(), "skin is NULL"));
    assert_int_equal(sinew_skin_palette(skin, NULL, J, pal, sinew_skin_palette_size(skin)), SINEW_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(sinew_last_error(), "joint_world matrices are NULL"));
    assert_int_equal(sinew_skin_palette(skin, world, J, NULL, sinew_skin_palette_size(skin)), SINEW_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(sinew_last_error(), "palette buffer is NULL"));
    world[16 * 4 + 13] = NAN;
    assert_int_equal(sinew_skin_palette(skin, world, J, pal, sinew_skin_palette_size(skin)), SINEW_ERROR_NON_FINITE);
    assert_non_null(strstr(sinew_last_error(), "world matrix of joint 4 has a non-finite element (row 1, column 3)"));
    make_pose(world, ib);
    world[16 * 2 + 7] = 0.25f;
    assert_int_equal(sinew_skin_palette(skin, world, J, pal, sinew_skin_palette_size(skin)), SINEW_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(sinew_last_error(), "world matrix of joint 2 is not affine: last row is (0 0.25 0 1)"));
    make_pose(world, ib);
    /* Sizes are checked before anything is read: fewer matrices than joints,
     * or a buffer sized for another skin, would be read or written past. */
    assert_int_equal(sinew_skin_palette(skin, world, J - 1, pal, sinew_skin_palette_size(skin)), SINEW_ERROR_MISMATCH);
    assert_non_null(strstr(sinew_last_error(), "skin has 6 joints, but 5 world matrices were given"));
    assert_int_equal(sinew_skin_palette(skin, world, J, pal, 16 * J - 1), SINEW_ERROR_MISMATCH);
    assert_non_null(strstr(sinew_last_error(), "skin palette needs 96 floats (6 joints x 16), but 95 were given"));
    assert_int_equal(sinew_skin_palette(skin, world, J, (float *)((char *)pal + 2), 16 * J), SINEW_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(sinew_last_error(), "palette pointer"));
    for (int i = 0; i < 16 * J; ++i) assert_true(pal[i] == 5.0f);
    sinew_skin_destroy(skin);
}

/* Finite world and inverse bind matrices whose product overflows float: the
 * palette call fails NON_FINITE naming the joint and leaves the palette as it
 * was (found by tests/fuzz/fuzz_skin). */
static void overflowing_product_is_non_finite(void **state)
{
    (void)state;
    float inverse_bind[32] = {0}, world[32] = {0};
    for (int j = 0; j < 2; ++j)
        for (int d = 0; d < 4; ++d) inverse_bind[16 * j + 5 * d] = world[16 * j + 5 * d] = 1.0f;
    inverse_bind[16 + 0] = 1e20f;   /* joint 1: scale 1e20 in x ... */
    world[16 + 0] = 1e20f;          /* ... times 1e20 = 1e40 > FLT_MAX */
    for (int blend = 0; blend < 2; ++blend) {
        sinew_skin *skin = make_skin(2, inverse_bind, (sinew_skin_blend)blend);
        size_t n = sinew_skin_palette_size(skin);
        float palette[96], before[96];
        for (size_t i = 0; i < n; ++i) palette[i] = before[i] = 7.0f;
        assert_int_equal(sinew_skin_palette(skin, world, 2, palette, n), SINEW_ERROR_NON_FINITE);
        assert_non_null(strstr(sinew_last_error(), "joint 1"));
        assert_memory_equal(palette, before, n * sizeof(float));
        sinew_skin_destroy(skin);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(matrices_and_rigid_flags),
        cmocka_unit_test(dual_quaternion_split_reproduces_the_matrix),
        cmocka_unit_test(precision_far_from_the_origin),
        cmocka_unit_test(bad_world_matrices_are_named),
        cmocka_unit_test(overflowing_product_is_non_finite),
    };
    return cmocka_run_group_tests_name("skin palette", tests, NULL, NULL);
}
