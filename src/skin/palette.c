/* Pose time, once per pose: skinning matrices M_j = W_j * B_j^-1, their rigid
 * flags, and (for dual-quaternion blends) their split into a rotation, a
 * translation and a scale/shear part. Computed in double so that joints far
 * from the origin keep their precision until the final rounding. */
#include <math.h>
#include <string.h>

#include "core/small_math.h"
#include "skin/skin_internal.h"

/* Relative tolerance on A^T A = s^2 I for the palette's rigid flag (for the
 * caller's information; no kernel branches on it). Float animation chains
 * leave errors near 1e-6; a looser test would call visibly sheared joints
 * rigid. */
#define SN_SKIN_RIGID_TOLERANCE 1e-4

/* Affine row tolerance for world matrices (composed in float). */
#define SN_SKIN_AFFINE_TOLERANCE 1e-5f

static double sn_frobenius3(const double a[9])
{
    double s = 0.0;
    for (int i = 0; i < 9; ++i) s += a[i] * a[i];
    return sqrt(s);
}

/* Proper rotation R with A = R S: the orthogonal polar factor of A by scaled
 * Newton iteration (Higham), negated when it mirrors so the mirror stays in
 * S. A (near-)singular A, such as a joint scaled to zero to hide geometry,
 * has no unique polar factor: R = I then, and S = A carries everything. */
static void sn_skin_rotation_of(const double a[9], double r[9])
{
    double norm = sn_frobenius3(a);
    double det = sn_det3(a);
    if (!(fabs(det) > 1e-12 * norm * norm * norm)) {
        static const double identity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
        memcpy(r, identity, sizeof identity);
        return;
    }
    double x[9], it[9];
    memcpy(x, a, sizeof x);
    for (int iter = 0; iter < 40; ++iter) {
        double d = sn_det3(x);
        sn_inverse_transpose3(x, d, it);
        double gamma = sqrt(sn_frobenius3(it) / sn_frobenius3(x));
        double change = 0.0;
        for (int i = 0; i < 9; ++i) {
            double next = 0.5 * (gamma * x[i] + it[i] / gamma);
            change += (next - x[i]) * (next - x[i]);
            x[i] = next;
        }
        if (change <= 1e-26) break;
    }
    if (sn_det3(x) < 0.0)
        for (int i = 0; i < 9; ++i) x[i] = -x[i];
    memcpy(r, x, sizeof x);
}

/* Unit quaternion (x, y, z, w), w >= 0, of a proper rotation stored by
 * columns (r[3 * col + row]). */
static void sn_skin_quaternion_of(const double r[9], double q[4])
{
    const double rows[9] = {r[0], r[3], r[6], r[1], r[4], r[7], r[2], r[5], r[8]};
    sn_quat_of_rotation(rows, q);
    if (q[3] < 0.0)
        for (int i = 0; i < 4; ++i) q[i] = -q[i];
}

static bool sn_skin_is_rigid(const double a[9])
{
    if (!(sn_det3(a) > 0.0)) return false;
    double g[9];
    for (int c = 0; c < 3; ++c)
        for (int r = 0; r < 3; ++r)
            g[3 * c + r] = a[3 * r] * a[3 * c] + a[3 * r + 1] * a[3 * c + 1] + a[3 * r + 2] * a[3 * c + 2];
    double s2 = (g[0] + g[4] + g[8]) / 3.0;
    for (int c = 0; c < 3; ++c)
        for (int r = 0; r < 3; ++r)
            if (fabs(g[3 * c + r] - (r == c ? s2 : 0.0)) > SN_SKIN_RIGID_TOLERANCE * s2) return false;
    return true;
}

static void sn_skin_record(const float *w, const float *ib, size_t record_floats, float *out)
{
    /* M = W * IB, both affine column-major. */
    double m[16];
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 3; ++r) {
            double s = c == 3 ? (double)w[12 + r] : 0.0;
            for (int k = 0; k < 3; ++k) s += (double)w[4 * k + r] * (double)ib[4 * c + k];
            m[4 * c + r] = s;
        }
    double a[9] = {m[0], m[1], m[2], m[4], m[5], m[6], m[8], m[9], m[10]};
    memset(out, 0, record_floats * sizeof *out);
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 3; ++r) out[4 * c + r] = (float)m[4 * c + r];
    out[3] = sn_skin_is_rigid(a) ? 0.0f : 1.0f;
    if (record_floats == SN_SKIN_RECORD_LINEAR) return;

    double rot[9], q[4];
    sn_skin_rotation_of(a, rot);
    sn_skin_quaternion_of(rot, q);
    /* dual = 0.5 * (t, 0) * q */
    const double t_quat[4] = {m[12], m[13], m[14], 0.0};
    double d[4];
    sn_quat_mul(t_quat, q, d);
    for (int i = 0; i < 4; ++i) d[i] *= 0.5;
    for (int i = 0; i < 4; ++i) {
        out[SN_SKIN_DQ_ROTATION + i] = (float)q[i];
        out[SN_SKIN_DQ_DUAL + i] = (float)d[i];
    }
    /* S = R^T A */
    for (int c = 0; c < 3; ++c)
        for (int r = 0; r < 3; ++r) {
            double s = 0.0;
            for (int k = 0; k < 3; ++k) s += rot[3 * r + k] * a[3 * c + k];
            out[SN_SKIN_DQ_STRETCH + 4 * c + r] = (float)s;
        }
}

/* max|w| * max|ib| over the 3x4 parts of one joint, in double. */
static double sn_skin_record_bound(const float *w, const float *ib)
{
    double mw = 0.0, mb = 0.0;
    for (int e = 0; e < 16; ++e) {
        if (e % 4 == 3) continue;   /* the last row is 0 0 0 1 */
        mw = fmax(mw, fabs((double)w[e]));
        mb = fmax(mb, fabs((double)ib[e]));
    }
    return fmax(mw, 1.0) * fmax(mb, 1.0);
}

sinew_result sinew_skin_palette(const sinew_skin *skin, const float *joint_world, size_t joint_world_count,
                                float *palette, size_t palette_floats)
{
    sn_clear_error();
    if (!skin) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "skin is NULL");
    if (!joint_world) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "skin joint_world matrices are NULL");
    if (!palette) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "skin palette buffer is NULL");
    if ((uintptr_t)joint_world % sizeof(float))
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "skin joint_world pointer %p is not aligned to 4 bytes",
                       (const void *)joint_world);
    if ((uintptr_t)palette % sizeof(float))
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "skin palette pointer %p is not aligned to 4 bytes",
                       (void *)palette);
    if (joint_world_count != skin->joint_count)
        return sn_fail(SINEW_ERROR_MISMATCH, "skin has %zu joints, but %zu world matrices were given", skin->joint_count,
                       joint_world_count);
    if (palette_floats != skin->joint_count * skin->record_floats)
        return sn_fail(SINEW_ERROR_MISMATCH, "skin palette needs %zu floats (%zu joints x %zu), but %zu were given",
                       skin->joint_count * skin->record_floats, skin->joint_count, skin->record_floats,
                       palette_floats);
    /* Validate everything first: on failure the palette stays untouched. */
    for (size_t j = 0; j < skin->joint_count; ++j) {
        const float *w = joint_world + 16 * j;
        for (int e = 0; e < 16; ++e)
            if (!isfinite(w[e]))
                return sn_fail(SINEW_ERROR_NON_FINITE,
                               "world matrix of joint %zu has a non-finite element (row %d, column %d) (%g)", j,
                               e % 4, e / 4, (double)w[e]);
        if (fabsf(w[3]) > SN_SKIN_AFFINE_TOLERANCE || fabsf(w[7]) > SN_SKIN_AFFINE_TOLERANCE ||
            fabsf(w[11]) > SN_SKIN_AFFINE_TOLERANCE || fabsf(w[15] - 1.0f) > SN_SKIN_AFFINE_TOLERANCE)
            return sn_fail(SINEW_ERROR_INVALID_ARGUMENT,
                           "world matrix of joint %zu is not affine: last row is (%g %g %g %g), not (0 0 0 1)", j,
                           (double)w[3], (double)w[7], (double)w[11], (double)w[15]);
    }
    /* Finite matrices can still overflow float in W_j * B_j^-1 (elements near
     * 1e38). Every record entry is at most a small multiple of
     * max|W_j| * max|B_j^-1| (products of 4-term sums; the dual-quaternion
     * parts are unit, half the translation, or the stretch R^T M), so a joint
     * whose bound is far below FLT_MAX needs no trial; the rare others are
     * computed and checked before anything is written. */
    for (size_t j = 0; j < skin->joint_count; ++j) {
        if (sn_skin_record_bound(joint_world + 16 * j, skin->inverse_bind + 16 * j) < 1e30) continue;
        float record[SN_SKIN_RECORD_DQ];
        sn_skin_record(joint_world + 16 * j, skin->inverse_bind + 16 * j, skin->record_floats, record);
        for (size_t e = 0; e < skin->record_floats; ++e)
            if (!isfinite(record[e]))
                return sn_fail(SINEW_ERROR_NON_FINITE,
                               "skinning matrix of joint %zu (world x inverse bind) overflows float: palette "
                               "element %zu is %g",
                               j, e, (double)record[e]);
    }
    for (size_t j = 0; j < skin->joint_count; ++j)
        sn_skin_record(joint_world + 16 * j, skin->inverse_bind + 16 * j, skin->record_floats,
                       palette + skin->record_floats * j);
    return SINEW_OK;
}
