/*
 * Small helpers shared by the skinning test suites: column-major 4x4 float
 * matrices, element (row r, column c) at m[4 * c + r], built in double, and
 * which kernels this build and CPU run.
 */
#ifndef SINEW_SKIN_TEST_UTIL_H
#define SINEW_SKIN_TEST_UTIL_H

#include <math.h>
#include <string.h>

#include "sinew.h"

/* What creating a one-vertex skin with kernel k gives: SINEW_OK where this
 * build and CPU run it, SINEW_ERROR_UNSUPPORTED where they do not. */
static inline sinew_result skin_test_kernel_status(sinew_skin_kernel k)
{
    uint32_t j = 0;
    float w = 1.0f;
    sinew_skin_desc d;
    SINEW_INIT(&d);
    d.vertex_count = d.joint_count = d.influence_count = 1;
    d.joints = &j;
    d.weights = &w;
    d.kernel = k;
    sinew_skin *s = NULL;
    sinew_result r = sinew_skin_create(NULL, &d, &s);
    sinew_skin_destroy(s);
    return r;
}

static inline void skin_test_identity(float m[16])
{
    memset(m, 0, 16 * sizeof *m);
    m[0] = m[5] = m[10] = m[15] = 1.0f;
}

/* m = T(t) * R(axis, angle) * diag(scale); axis need not be unit length. */
static inline void skin_test_trs(const double axis[3], double angle, const double t[3], const double scale[3],
                                 float m[16])
{
    double n = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
    double x = axis[0] / n, y = axis[1] / n, z = axis[2] / n, c = cos(angle), s = sin(angle), C = 1.0 - c;
    double r[9] = {x * x * C + c,     y * x * C + z * s, z * x * C - y * s, x * y * C - z * s, y * y * C + c,
                   z * y * C + x * s, x * z * C + y * s, y * z * C - x * s, z * z * C + c};
    skin_test_identity(m);
    for (int col = 0; col < 3; ++col)
        for (int row = 0; row < 3; ++row) m[4 * col + row] = (float)(r[3 * col + row] * scale[col]);
    for (int row = 0; row < 3; ++row) m[12 + row] = (float)t[row];
}

/* out = a * b (out may alias either), accumulated in double. */
static inline void skin_test_mul(const float a[16], const float b[16], float out[16])
{
    float r[16];
    for (int c = 0; c < 4; ++c)
        for (int row = 0; row < 4; ++row) {
            double s = 0.0;
            for (int k = 0; k < 4; ++k) s += (double)a[4 * k + row] * (double)b[4 * c + k];
            r[4 * c + row] = (float)s;
        }
    memcpy(out, r, sizeof r);
}

#endif /* SINEW_SKIN_TEST_UTIL_H */
