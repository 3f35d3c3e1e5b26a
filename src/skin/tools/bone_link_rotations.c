/* Pose time of the bone links: a joint's rotation spread over its links, the
 * swing and the twist about the bone axis each in equal shares. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "sinew/skin_tools.h"
#include "core/internal.h"

/* Quaternions in double as (x, y, z, w). */
typedef struct quat {
    double x, y, z, w;
} quat;

static quat quat_mul(quat a, quat b)
{
    quat r = {a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
              a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
    return r;
}

static quat quat_conj(quat a)
{
    quat r = {-a.x, -a.y, -a.z, a.w};
    return r;
}

/* u^(1/n) of a unit quaternion with w >= 0: the same axis, 1/n of the angle. */
static quat quat_root(quat u, double n)
{
    double s = sqrt(u.x * u.x + u.y * u.y + u.z * u.z);
    if (s == 0.0) return (quat){0, 0, 0, 1};
    double half = atan2(s, u.w) / n, k = sin(half) / s;
    quat r = {u.x * k, u.y * k, u.z * k, cos(half)};
    return r;
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
    quat q = {rotation[0], rotation[1], rotation[2], rotation[3]};
    /* Scaled by the largest component first, so lengths near the float range's
     * ends neither overflow nor vanish when squared. */
    double big = fmax(fmax(fabs(q.x), fabs(q.y)), fmax(fabs(q.z), fabs(q.w)));
    if (big == 0.0) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "link rotations: rotation is the zero quaternion");
    q.x /= big, q.y /= big, q.z /= big, q.w /= big;
    double len = sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    /* The short way: q and -q are the same rotation; w >= 0 takes it by at
     * most half a turn, so the links' shares are the smallest. */
    if (q.w < 0.0) len = -len;
    q.x /= len, q.y /= len, q.z /= len, q.w /= len;

    double a[3] = {bone_axis[0], bone_axis[1], bone_axis[2]};
    double abig = fmax(fabs(a[0]), fmax(fabs(a[1]), fabs(a[2])));
    if (abig == 0.0) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "link rotations: bone_axis is (0, 0, 0)");
    for (int i = 0; i < 3; ++i) a[i] /= abig;
    double alen = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    for (int i = 0; i < 3; ++i) a[i] /= alen;

    /* Swing-twist: the twist keeps the rotation's component along the axis;
     * a half turn about a perpendicular axis has none and no twist. */
    double along = q.x * a[0] + q.y * a[1] + q.z * a[2];
    double tlen = sqrt(along * along + q.w * q.w);
    quat twist = {0, 0, 0, 1};
    if (tlen > 1e-12) twist = (quat){along * a[0] / tlen, along * a[1] / tlen, along * a[2] / tlen, q.w / tlen};
    quat swing = quat_mul(q, quat_conj(twist));
    if (swing.w < 0.0) swing = (quat){-swing.x, -swing.y, -swing.z, -swing.w};

    const double n = (double)link_count;
    quat s = quat_root(swing, n), t = quat_root(twist, n), before = {0, 0, 0, 1};
    /* Link k's cumulative rotation is s^k t^k, so its own is
     * t^-(k-1) s t^k: a swing of s's angle (s turned about the axis) then t. */
    for (size_t k = 0; k < link_count; ++k) {
        quat after = quat_mul(before, t);
        quat r = quat_mul(quat_mul(quat_conj(before), s), after);
        double rl = sqrt(r.x * r.x + r.y * r.y + r.z * r.z + r.w * r.w);
        float *o = link_rotations + 4 * k;
        o[0] = (float)(r.x / rl), o[1] = (float)(r.y / rl), o[2] = (float)(r.z / rl), o[3] = (float)(r.w / rl);
        before = after;
    }
    return SINEW_OK;
}
