/* Pose time of the bone links: a joint's rotation spread over its links, the
 * swing and the twist about the bone axis each in equal shares. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "sinew/skin_tools.h"
#include "core/internal.h"
#include "core/small_math.h"

/* u^(1/n) of a unit quaternion (x, y, z, w) with w >= 0: the same axis, 1/n of the angle. */
static void quat_root(const double u[4], double n, double out[4])
{
    double s = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    if (s == 0.0) {
        out[0] = 0.0, out[1] = 0.0, out[2] = 0.0, out[3] = 1.0;
        return;
    }
    double half = atan2(s, u[3]) / n, k = sin(half) / s;
    out[0] = u[0] * k, out[1] = u[1] * k, out[2] = u[2] * k, out[3] = cos(half);
}

static int misaligned(const void *p)
{
    return ((uintptr_t)p % sizeof(float)) != 0;
}

sinew_result sinew_skin_link_rotations(const float *rotation, const float *bone_axis, size_t link_count,
                                       float *link_rotations)
{
    sn_clear_error();
    if (!rotation || !bone_axis || !link_rotations)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "link rotations: %s is NULL",
                       !rotation ? "rotation" : !bone_axis ? "bone_axis" : "link_rotations");
    if (misaligned(rotation) || misaligned(bone_axis) || misaligned(link_rotations))
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "link rotations: %s is not aligned to 4 bytes",
                       misaligned(rotation) ? "rotation" : misaligned(bone_axis) ? "bone_axis" : "link_rotations");
    if (link_count == 0 || link_count > SINEW_SKIN_MAX_LINKS)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "link rotations: link_count %zu is not in 1 .. %u", link_count,
                       SINEW_SKIN_MAX_LINKS);
    for (int i = 0; i < 4; ++i)
        if (!isfinite(rotation[i]))
            return sn_fail(SINEW_ERROR_NON_FINITE, "link rotations: rotation %c is not finite (%g)", "xyzw"[i],
                           (double)rotation[i]);
    for (int i = 0; i < 3; ++i)
        if (!isfinite(bone_axis[i]))
            return sn_fail(SINEW_ERROR_NON_FINITE, "link rotations: bone_axis %c is not finite (%g)", "xyz"[i],
                           (double)bone_axis[i]);
    double q[4] = {rotation[0], rotation[1], rotation[2], rotation[3]};
    /* Scaled by the largest component first, so lengths near the float range's
     * ends neither overflow nor vanish when squared. */
    double big = fmax(fmax(fabs(q[0]), fabs(q[1])), fmax(fabs(q[2]), fabs(q[3])));
    if (big == 0.0) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "link rotations: rotation is the zero quaternion");
    for (int i = 0; i < 4; ++i) q[i] /= big;
    double len = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    /* The short way: q and -q are the same rotation; w >= 0 takes it by at
     * most half a turn, so the links' shares are the smallest. */
    if (q[3] < 0.0) len = -len;
    for (int i = 0; i < 4; ++i) q[i] /= len;

    double a[3] = {bone_axis[0], bone_axis[1], bone_axis[2]};
    double abig = fmax(fabs(a[0]), fmax(fabs(a[1]), fabs(a[2])));
    if (abig == 0.0) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "link rotations: bone_axis is (0, 0, 0)");
    for (int i = 0; i < 3; ++i) a[i] /= abig;
    double alen = sqrt(sn_dot3(a, a));
    for (int i = 0; i < 3; ++i) a[i] /= alen;

    /* Swing-twist: the twist keeps the rotation's component along the axis;
     * a half turn about a perpendicular axis has none and no twist. */
    double along = sn_dot3(q, a);
    double tlen = sqrt(along * along + q[3] * q[3]);
    double twist[4] = {0, 0, 0, 1}, swing[4], inverse[4];
    if (tlen > 1e-12)
        for (int i = 0; i < 4; ++i) twist[i] = i < 3 ? along * a[i] / tlen : q[3] / tlen;
    sn_quat_conj(twist, inverse);
    sn_quat_mul(q, inverse, swing);
    if (swing[3] < 0.0)
        for (int i = 0; i < 4; ++i) swing[i] = -swing[i];

    const double n = (double)link_count;
    double s[4], t[4], before[4] = {0, 0, 0, 1};
    quat_root(swing, n, s);
    quat_root(twist, n, t);
    /* Link k's cumulative rotation is s^k t^k, so its own is
     * t^-(k-1) s t^k: a swing of s's angle (s turned about the axis) then t. */
    for (size_t k = 0; k < link_count; ++k) {
        double after[4], r[4];
        sn_quat_mul(before, t, after);
        sn_quat_conj(before, r);
        sn_quat_mul(r, s, r);
        sn_quat_mul(r, after, r);
        double rl = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
        float *o = link_rotations + 4 * k;
        for (int i = 0; i < 4; ++i) o[i] = (float)(r[i] / rl);
        memcpy(before, after, sizeof before);
    }
    return SINEW_OK;
}
