/* The double-precision helpers of src/core/small_math.h against closed forms
 * and straightforward reference formulas: known determinants, inverse times
 * matrix = identity in both storage layouts, Hamilton's i j = k, the
 * quaternion of a rotation by a known angle about a known axis (every pivot
 * branch), and the round trip quaternion -> matrix -> quaternion. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "core/small_math.h"

static const double pi = 3.14159265358979323846;

static void assert_close(double got, double want, double tolerance)
{
    if (!(fabs(got - want) <= tolerance)) fail_msg("got %.17g, want %.17g (tolerance %g)", got, want, tolerance);
}

static void transpose3(const double m[9], double t[9])
{
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) t[3 * c + r] = m[3 * r + c];
}

/* Row-major product, written out as the textbook sum. */
static void mul3(const double a[9], const double b[9], double out[9])
{
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) out[3 * r + c] = a[3 * r] * b[c] + a[3 * r + 1] * b[3 + c] + a[3 * r + 2] * b[6 + c];
}

/* Rodrigues' formula, row-major: the reference rotation by angle about a unit axis. */
static void axis_angle(const double axis[3], double angle, double r[9])
{
    double c = cos(angle), s = sin(angle), x = axis[0], y = axis[1], z = axis[2];
    double m[9] = {c + x * x * (1 - c),     x * y * (1 - c) - z * s, x * z * (1 - c) + y * s,
                   y * x * (1 - c) + z * s, c + y * y * (1 - c),     y * z * (1 - c) - x * s,
                   z * x * (1 - c) - y * s, z * y * (1 - c) + x * s, c + z * z * (1 - c)};
    memcpy(r, m, sizeof m);
}

static void vectors_products_and_length(void **state)
{
    (void)state;
    const double a[3] = {1, 2, 3}, b[3] = {-4, 5, 0.5};
    assert_close(sn_dot3(a, b), -4 + 10 + 1.5, 0.0);
    double c[3];
    sn_cross3(a, b, c);
    /* (2*0.5 - 3*5, 3*(-4) - 1*0.5, 1*5 - 2*(-4)) */
    assert_close(c[0], -14.0, 0.0);
    assert_close(c[1], -12.5, 0.0);
    assert_close(c[2], 13.0, 0.0);
    assert_close(sn_dot3(c, a), 0.0, 1e-12);
    assert_close(sn_dot3(c, b), 0.0, 1e-12);
    double alias[3] = {1, 2, 3};
    sn_cross3(alias, b, alias);
    for (int i = 0; i < 3; ++i) assert_close(alias[i], c[i], 0.0);

    double v[3] = {3, 0, -4};
    assert_close(sn_normalize3(v), 5.0, 0.0);
    assert_close(v[0], 0.6, 1e-16);
    assert_close(v[2], -0.8, 1e-16);
    double zero[3] = {0, 0, 0};
    assert_close(sn_normalize3(zero), 0.0, 0.0);
    for (int i = 0; i < 3; ++i) assert_close(zero[i], 0.0, 0.0);
}

static void determinant_of_known_matrices(void **state)
{
    (void)state;
    /* Row-major [[2 -1 0] [1 3 2] [0 1 4]]: 2 (12 - 2) + 1 (4 - 0) = 24. */
    const double m[9] = {2, -1, 0, 1, 3, 2, 0, 1, 4};
    double t[9];
    transpose3(m, t);
    assert_close(sn_det3(m), 24.0, 0.0);
    assert_close(sn_det3(t), 24.0, 0.0);
    const double swapped[9] = {1, 3, 2, 2, -1, 0, 0, 1, 4};
    assert_close(sn_det3(swapped), -24.0, 0.0);
    const double singular[9] = {1, 2, 3, 2, 4, 6, 7, 8, 9};
    assert_close(sn_det3(singular), 0.0, 0.0);
    double r[9];
    const double axis[3] = {0.48, 0.6, 0.64};
    axis_angle(axis, 2.0, r);
    assert_close(sn_det3(r), 1.0, 1e-15);
}

static void inverse_times_matrix_is_identity(void **state)
{
    (void)state;
    const double m[9] = {2, -1, 0.5, 1, 3, 2, -0.25, 1, 4};
    double t[9], inv[9], inv_t[9], p[9], it[9];
    transpose3(m, t);
    double det = sn_inverse3(m, inv);
    assert_close(det, sn_det3(m), 0.0);
    /* Both layouts: inverse of the transpose is the transpose of the inverse. */
    assert_close(sn_inverse3(t, inv_t), det, 0.0);
    mul3(m, inv, p);
    for (int i = 0; i < 9; ++i) assert_close(p[i], i % 4 == 0 ? 1.0 : 0.0, 1e-15);
    mul3(inv, m, p);
    for (int i = 0; i < 9; ++i) assert_close(p[i], i % 4 == 0 ? 1.0 : 0.0, 1e-15);
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) assert_close(inv_t[3 * r + c], inv[3 * c + r], 1e-16);
    sn_inverse_transpose3(m, det, it);
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) assert_close(it[3 * r + c], inv[3 * c + r], 1e-16);

    const double singular[9] = {1, 2, 3, 2, 4, 6, 7, 8, 9};
    double untouched[9] = {7, 7, 7, 7, 7, 7, 7, 7, 7};
    assert_close(sn_inverse3(singular, untouched), 0.0, 0.0);
    for (int i = 0; i < 9; ++i) assert_close(untouched[i], 7.0, 0.0);
}

static void hamilton_product(void **state)
{
    (void)state;
    const double i[4] = {1, 0, 0, 0}, j[4] = {0, 1, 0, 0}, k[4] = {0, 0, 1, 0};
    double p[4];
    sn_quat_mul(i, j, p);
    for (int c = 0; c < 4; ++c) assert_close(p[c], k[c], 0.0);
    sn_quat_mul(j, i, p);
    for (int c = 0; c < 4; ++c) assert_close(p[c], -k[c], 0.0);
    sn_quat_mul(k, k, p);
    assert_close(p[3], -1.0, 0.0);

    /* q conj(q) = |q|^2, and the product against the vector formula
     * (a_w b_v + b_w a_v + a_v x b_v, a_w b_w - a_v . b_v). */
    const double a[4] = {0.3, -0.2, 0.5, 0.7}, b[4] = {-0.1, 0.4, 0.25, -0.6};
    double ac[4], n[4];
    sn_quat_conj(a, ac);
    sn_quat_mul(a, ac, n);
    for (int c = 0; c < 3; ++c) assert_close(n[c], 0.0, 1e-16);
    assert_close(n[3], 0.09 + 0.04 + 0.25 + 0.49, 1e-15);
    double x[3];
    sn_cross3(a, b, x);
    sn_quat_mul(a, b, p);
    for (int c = 0; c < 3; ++c) assert_close(p[c], a[3] * b[c] + b[3] * a[c] + x[c], 1e-15);
    assert_close(p[3], a[3] * b[3] - sn_dot3(a, b), 1e-15);
    double alias[4];
    memcpy(alias, a, sizeof alias);
    sn_quat_mul(alias, b, alias);
    for (int c = 0; c < 4; ++c) assert_close(alias[c], p[c], 0.0);
}

/* q must be +-(sin(angle/2) axis, cos(angle/2)). */
static void assert_quat_of_axis_angle(const double axis[3], double angle)
{
    double r[9], q[4];
    axis_angle(axis, angle, r);
    sn_quat_of_rotation(r, q);
    const double want[4] = {sin(angle / 2) * axis[0], sin(angle / 2) * axis[1], sin(angle / 2) * axis[2],
                            cos(angle / 2)};
    double sign = q[0] * want[0] + q[1] * want[1] + q[2] * want[2] + q[3] * want[3] < 0.0 ? -1.0 : 1.0;
    for (int c = 0; c < 4; ++c) assert_close(sign * q[c], want[c], 1e-15);
}

static void quaternion_of_known_rotations(void **state)
{
    (void)state;
    const double x[3] = {1, 0, 0}, y[3] = {0, 1, 0}, z[3] = {0, 0, 1}, tilted[3] = {0.48, 0.6, 0.64};
    /* Small angles take the w pivot; half turns about each axis the x, y and z pivots. */
    const double angles[] = {0.0, 1e-9, 0.3, 2.0, 3.0, pi - 1e-7, pi};
    for (size_t a = 0; a < sizeof angles / sizeof *angles; ++a) {
        assert_quat_of_axis_angle(x, angles[a]);
        assert_quat_of_axis_angle(y, angles[a]);
        assert_quat_of_axis_angle(z, angles[a]);
        assert_quat_of_axis_angle(tilted, angles[a]);
        assert_quat_of_axis_angle(tilted, -angles[a]);
    }
    /* 90 degrees about z takes x to y. */
    const double q[4] = {0, 0, sqrt(0.5), sqrt(0.5)};
    double r[9];
    sn_rotation_of_quat(q, r);
    assert_close(r[0], 0.0, 1e-15);
    assert_close(r[3], 1.0, 1e-15);
    assert_close(r[6], 0.0, 0.0);
}

static void quaternion_matrix_round_trip(void **state)
{
    (void)state;
    /* A spread of axes and angles: matrix -> quaternion -> matrix is the identity map. */
    for (int s = 0; s < 200; ++s) {
        double axis[3] = {sin(1.7 * s + 0.3), cos(2.3 * s), sin(0.7 * s - 1.1)};
        sn_normalize3(axis);
        double angle = fmod(0.37 * s, 2 * pi) - pi;
        double r[9], q[4], back[9];
        axis_angle(axis, angle, r);
        sn_quat_of_rotation(r, q);
        assert_close(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], 1.0, 1e-15);
        sn_rotation_of_quat(q, back);
        for (int i = 0; i < 9; ++i) assert_close(back[i], r[i], 1e-15);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(vectors_products_and_length),
        cmocka_unit_test(determinant_of_known_matrices),
        cmocka_unit_test(inverse_times_matrix_is_identity),
        cmocka_unit_test(hamilton_product),
        cmocka_unit_test(quaternion_of_known_rotations),
        cmocka_unit_test(quaternion_matrix_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
