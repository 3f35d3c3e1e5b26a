/* Pose numbers from joint rotations (sinew_corrective_swing_twist): each
 * local rotation q split as q = swing * twist, the twist about the joint's
 * axis t, the swing about an axis perpendicular to t. The swing is kept as
 * its rotation vector in a fixed basis of the plane perpendicular to t, so
 * pose space is flat near the rest pose and a bend of angle a lies at
 * distance a from it. */
#include <math.h>
#include <string.h>

#include "corrective/corrective_internal.h"

#define SN_CORR_PI 3.14159265358979323846

/* The plane basis of t: u = t x e normalised (e the world axis least aligned
 * with t), v = t x u. */
static void plane_basis(const double t[3], double u[3], double v[3])
{
    int least = 0;
    for (int a = 1; a < 3; ++a)
        if (fabs(t[a]) < fabs(t[least])) least = a;
    double e[3] = {0.0, 0.0, 0.0};
    e[least] = 1.0;
    u[0] = t[1] * e[2] - t[2] * e[1];
    u[1] = t[2] * e[0] - t[0] * e[2];
    u[2] = t[0] * e[1] - t[1] * e[0];
    double len = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    for (int a = 0; a < 3; ++a) u[a] /= len;
    v[0] = t[1] * u[2] - t[2] * u[1];
    v[1] = t[2] * u[0] - t[0] * u[2];
    v[2] = t[0] * u[1] - t[1] * u[0];
}

/* One joint: q (x, y, z, w) unit, t unit; out = (swing . u, swing . v, twist). */
static void split(const double q[4], const double t[3], float out[3])
{
    /* The twist is q's projection on rotations about t. */
    double along = q[0] * t[0] + q[1] * t[1] + q[2] * t[2];
    double tw[4] = {along * t[0], along * t[1], along * t[2], q[3]};
    double tl = sqrt(along * along + q[3] * q[3]);
    double twist = 0.0;
    if (tl > 0.0) {
        for (int a = 0; a < 4; ++a) tw[a] /= tl;
        twist = 2.0 * atan2(along, q[3]);
    } else {
        /* A half turn of swing: the twist is undefined, take none. */
        tw[0] = tw[1] = tw[2] = 0.0;
        tw[3] = 1.0;
    }
    if (twist > SN_CORR_PI) twist -= 2.0 * SN_CORR_PI;
    if (twist <= -SN_CORR_PI) twist += 2.0 * SN_CORR_PI;
    /* swing = q * conj(twist). */
    const double cx = -tw[0], cy = -tw[1], cz = -tw[2], cw = tw[3];
    double s[4] = {q[3] * cx + q[0] * cw + q[1] * cz - q[2] * cy, q[3] * cy - q[0] * cz + q[1] * cw + q[2] * cx,
                   q[3] * cz + q[0] * cy - q[1] * cx + q[2] * cw, q[3] * cw - q[0] * cx - q[1] * cy - q[2] * cz};
    if (s[3] < 0.0)
        for (int a = 0; a < 4; ++a) s[a] = -s[a];
    double sl = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
    double rv[3] = {0.0, 0.0, 0.0};
    if (sl > 0.0) {
        double angle = 2.0 * atan2(sl, s[3]);
        for (int a = 0; a < 3; ++a) rv[a] = s[a] / sl * angle;
    }
    double u[3], v[3];
    plane_basis(t, u, v);
    out[0] = (float)(rv[0] * u[0] + rv[1] * u[1] + rv[2] * u[2]);
    out[1] = (float)(rv[0] * v[0] + rv[1] * v[1] + rv[2] * v[2]);
    out[2] = (float)twist;
}

/* Reads and normalises n doubles of joint j; false (with the message) when
 * one is not finite or all are zero. */
static sinew_result unit(const float *src, int n, size_t j, const char *what, double *dst)
{
    double len = 0.0;
    for (int a = 0; a < n; ++a) {
        if (!isfinite(src[a]))
            return sn_fail(SINEW_ERROR_NON_FINITE, "joint %zu has a non-finite %s component %d (%g)", j, what, a,
                           (double)src[a]);
        dst[a] = (double)src[a];
        len += dst[a] * dst[a];
    }
    len = sqrt(len);
    if (!(len > 0.0) || !isfinite(len))
        return sn_fail(SINEW_ERROR_DEGENERATE, "joint %zu has a %s of length %g", j, what, len);
    for (int a = 0; a < n; ++a) dst[a] /= len;
    return SINEW_OK;
}

sinew_result sinew_corrective_swing_twist(const float *rotations, const float *twist_axes, size_t joint_count,
                                          float *pose, size_t pose_size)
{
    sn_clear_error();
    if (!rotations || !pose || ((uintptr_t)rotations & 3u) || ((uintptr_t)pose & 3u) ||
        (twist_axes && ((uintptr_t)twist_axes & 3u)))
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "rotations or pose is NULL, or an array is misaligned");
    if (joint_count > SIZE_MAX / 4 / sizeof(float) || pose_size != 3 * joint_count)
        return sn_fail(SINEW_ERROR_MISMATCH, "pose_size is %zu, but %zu joints give %zu pose numbers", pose_size,
                       joint_count, joint_count <= SIZE_MAX / 4 / sizeof(float) ? 3 * joint_count : 0);
    /* Everything is checked before the first pose number is written. */
    for (size_t j = 0; j < joint_count; ++j) {
        double q[4], t[3];
        sinew_result res = unit(rotations + 4 * j, 4, j, "rotation", q);
        if (res == SINEW_OK && twist_axes) res = unit(twist_axes + 3 * j, 3, j, "twist axis", t);
        if (res != SINEW_OK) return res;
    }
    for (size_t j = 0; j < joint_count; ++j) {
        double q[4], t[3] = {0.0, 1.0, 0.0};
        unit(rotations + 4 * j, 4, j, "rotation", q);
        if (twist_axes) unit(twist_axes + 3 * j, 3, j, "twist axis", t);
        split(q, t, pose + 3 * j);
    }
    return SINEW_OK;
}
