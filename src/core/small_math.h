/* Double-precision 3-vector, 3x3 and quaternion helpers shared by the modules.
 *
 * The geometry (bind-time fits, frames, palette records) runs in double, which
 * cglm's float types cannot carry; the float pose-time kernels use cglm. A
 * 3x3 is nine doubles in either layout: the determinant and the inverse are the
 * same formulas for a matrix and its transpose, so they do not care whether a
 * caller stores rows or columns. Quaternions are (x, y, z, w). */
#ifndef SN_CORE_SMALL_MATH_H
#define SN_CORE_SMALL_MATH_H

#include <math.h>

static inline double sn_dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* out = a x b; out may alias a or b. */
static inline void sn_cross3(const double a[3], const double b[3], double out[3])
{
    double r0 = a[1] * b[2] - a[2] * b[1];
    double r1 = a[2] * b[0] - a[0] * b[2];
    double r2 = a[0] * b[1] - a[1] * b[0];
    out[0] = r0, out[1] = r1, out[2] = r2;
}

/* Scales v to unit length and returns its length; a zero v stays zero. */
static inline double sn_normalize3(double v[3])
{
    double len = sqrt(sn_dot3(v, v));
    if (len > 0.0)
        for (int c = 0; c < 3; ++c) v[c] /= len;
    return len;
}

/* Determinant, by cofactors of the entries m[0], m[3], m[6]. */
static inline double sn_det3(const double m[9])
{
    return m[0] * (m[4] * m[8] - m[7] * m[5]) + m[3] * (m[7] * m[2] - m[1] * m[8]) +
           m[6] * (m[1] * m[5] - m[4] * m[2]);
}

/* inv = m^-1 (cofactors / determinant); returns the determinant. A zero
 * determinant returns 0 and leaves inv untouched. */
static inline double sn_inverse3(const double m[9], double inv[9])
{
    double det = sn_det3(m);
    if (det == 0.0) return 0.0;
    double r = 1.0 / det;
    inv[0] = (m[4] * m[8] - m[7] * m[5]) * r;
    inv[1] = (m[7] * m[2] - m[1] * m[8]) * r;
    inv[2] = (m[1] * m[5] - m[4] * m[2]) * r;
    inv[3] = (m[6] * m[5] - m[3] * m[8]) * r;
    inv[4] = (m[0] * m[8] - m[6] * m[2]) * r;
    inv[5] = (m[3] * m[2] - m[0] * m[5]) * r;
    inv[6] = (m[3] * m[7] - m[6] * m[4]) * r;
    inv[7] = (m[6] * m[1] - m[0] * m[7]) * r;
    inv[8] = (m[0] * m[4] - m[3] * m[1]) * r;
    return det;
}

/* out = m^-T given det = det(m) != 0: the cofactor matrix / determinant, for
 * callers that already hold the determinant. */
static inline void sn_inverse_transpose3(const double m[9], double det, double out[9])
{
    /* With m's storage triples c0, c1, c2, the triples of m^-T are
     * (c1 x c2, c2 x c0, c0 x c1) / det. */
    double r = 1.0 / det;
    sn_cross3(m + 3, m + 6, out);
    sn_cross3(m + 6, m, out + 3);
    sn_cross3(m, m + 3, out + 6);
    for (int i = 0; i < 9; ++i) out[i] *= r;
}

/* out = a b (Hamilton product); out may alias a or b. */
static inline void sn_quat_mul(const double a[4], const double b[4], double out[4])
{
    double x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    double y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    double z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    double w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    out[0] = x, out[1] = y, out[2] = z, out[3] = w;
}

/* out = the conjugate of q (its inverse when q is unit). */
static inline void sn_quat_conj(const double q[4], double out[4])
{
    out[0] = -q[0], out[1] = -q[1], out[2] = -q[2], out[3] = q[3];
}

/* Unit quaternion of a proper rotation stored row by row (r[3 * row + col]).
 * Shepperd's choice of the largest of 4w^2, 4x^2, 4y^2, 4z^2 as the pivot keeps
 * it accurate at every angle. The sign is whatever the pivot gives. */
static inline void sn_quat_of_rotation(const double r[9], double q[4])
{
    double tr = r[0] + r[4] + r[8];
    if (tr >= r[0] && tr >= r[4] && tr >= r[8]) {
        double s = 2.0 * sqrt(fmax(1.0 + tr, 0.0));
        q[3] = 0.25 * s;
        q[0] = (r[7] - r[5]) / s;
        q[1] = (r[2] - r[6]) / s;
        q[2] = (r[3] - r[1]) / s;
    } else if (r[0] >= r[4] && r[0] >= r[8]) {
        double s = 2.0 * sqrt(fmax(1.0 + r[0] - r[4] - r[8], 0.0));
        q[0] = 0.25 * s;
        q[3] = (r[7] - r[5]) / s;
        q[1] = (r[1] + r[3]) / s;
        q[2] = (r[2] + r[6]) / s;
    } else if (r[4] >= r[8]) {
        double s = 2.0 * sqrt(fmax(1.0 + r[4] - r[0] - r[8], 0.0));
        q[1] = 0.25 * s;
        q[3] = (r[2] - r[6]) / s;
        q[0] = (r[1] + r[3]) / s;
        q[2] = (r[5] + r[7]) / s;
    } else {
        double s = 2.0 * sqrt(fmax(1.0 + r[8] - r[0] - r[4], 0.0));
        q[2] = 0.25 * s;
        q[3] = (r[3] - r[1]) / s;
        q[0] = (r[2] + r[6]) / s;
        q[1] = (r[5] + r[7]) / s;
    }
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int k = 0; k < 4; ++k) q[k] /= n;
}

/* Rotation matrix, row by row, of a unit quaternion. */
static inline void sn_rotation_of_quat(const double q[4], double r[9])
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    r[0] = 1 - 2 * (y * y + z * z), r[1] = 2 * (x * y - z * w), r[2] = 2 * (x * z + y * w);
    r[3] = 2 * (x * y + z * w), r[4] = 1 - 2 * (x * x + z * z), r[5] = 2 * (y * z - x * w);
    r[6] = 2 * (x * z - y * w), r[7] = 2 * (y * z + x * w), r[8] = 1 - 2 * (x * x + y * y);
}

#endif
