/* Joint emphasis: the factor a collapse's cost is multiplied by near the
 * joints where bones meet, so the decimation keeps vertices where the skin
 * bends and spends few along the rigid spans between. */
#include <math.h>

#include "soffd/driver/driver_internal.h"

static sinew_result check_skeleton(const sinew_soffd_driver_desc *d)
{
    if (d->bone_count == 0) return SINEW_OK;
    if (!d->bones) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "bones is NULL with bone_count %zu", d->bone_count);
    if ((uintptr_t)d->bones % sizeof(uint32_t))
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "bones is not aligned to 4 bytes");
    if (!sn_span_fits(d->bone_count, 2 * sizeof(uint32_t), 2 * sizeof(uint32_t)))
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "%zu bones overflow the bones array size", d->bone_count);
    sinew_result r = sn_check_points(&d->joint_positions, "joint");
    if (r != SINEW_OK) return r;
    for (size_t b = 0; b < d->bone_count; ++b) {
        uint32_t i = d->bones[2 * b], k = d->bones[2 * b + 1];
        if (i >= d->joint_positions.count || k >= d->joint_positions.count)
            return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE, "bone %zu refers to joint %u, but there are only %zu", b,
                           i >= d->joint_positions.count ? i : k, d->joint_positions.count);
        if (i == k) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "bone %zu joins joint %u to itself", b, i);
    }
    return SINEW_OK;
}

sinew_result sn_driver_joints_build(const sn_env *env, const sinew_soffd_driver_desc *d, sn_driver_joints *j)
{
    sinew_result r = check_skeleton(d);
    if (r != SINEW_OK) return r;
    sn_driver_joints out = {NULL, NULL, 0, d->joint_emphasis};
    if (d->bone_count == 0) {
        *j = out;
        return SINEW_OK;
    }
    size_t n = d->joint_positions.count;
    uint32_t *degree = (uint32_t *)sn_calloc_array(env, n, sizeof(uint32_t), "joint degrees");
    double *shortest = (double *)sn_alloc_array(env, n, sizeof(double), "joint bone lengths");
    out.centre = (double *)sn_alloc_array(env, n, 3 * sizeof(double), "emphasised joints");
    out.reach = (double *)sn_alloc_array(env, n, sizeof(double), "joint reaches");
    if (!degree || !shortest || !out.centre || !out.reach) {
        r = sn_alloc_failure();
        goto done;
    }
    for (size_t i = 0; i < n; ++i) shortest[i] = INFINITY;
    for (size_t b = 0; b < d->bone_count; ++b) {
        uint32_t e[2] = {d->bones[2 * b], d->bones[2 * b + 1]};
        const float *p = sn_point(&d->joint_positions, e[0]), *q = sn_point(&d->joint_positions, e[1]);
        double len = sqrt(((double)p[0] - q[0]) * ((double)p[0] - q[0]) + ((double)p[1] - q[1]) * ((double)p[1] - q[1]) +
                          ((double)p[2] - q[2]) * ((double)p[2] - q[2]));
        for (int k = 0; k < 2; ++k) {
            ++degree[e[k]];
            /* A zero-length bone (two joints at one place) sets no scale. */
            if (len > 0 && len < shortest[e[k]]) shortest[e[k]] = len;
        }
    }
    for (size_t i = 0; i < n; ++i) {
        if (degree[i] < 2 || !isfinite(shortest[i])) continue;
        const float *p = sn_point(&d->joint_positions, i);
        for (int k = 0; k < 3; ++k) out.centre[3 * out.count + k] = p[k];
        out.reach[out.count++] = (double)d->joint_radius * shortest[i];
    }
    *j = out;
    out.centre = out.reach = NULL;
done:
    sn_free(env, degree);
    sn_free(env, shortest);
    sn_free(env, out.centre);
    sn_free(env, out.reach);
    return r;
}

void sn_driver_joints_free(const sn_env *env, sn_driver_joints *j)
{
    sn_free(env, j->centre);
    sn_free(env, j->reach);
    j->centre = j->reach = NULL;
    j->count = 0;
}

double sn_driver_joint_factor(const sn_driver_joints *j, const float p[3])
{
    double bump = 0;
    for (size_t i = 0; i < j->count; ++i) {
        const double *c = &j->centre[3 * i];
        double d2 = ((double)p[0] - c[0]) * ((double)p[0] - c[0]) + ((double)p[1] - c[1]) * ((double)p[1] - c[1]) +
                    ((double)p[2] - c[2]) * ((double)p[2] - c[2]);
        if (d2 >= j->reach[i] * j->reach[i]) continue;
        double s = 1.0 - sqrt(d2) / j->reach[i];
        double b = s * s * (3.0 - 2.0 * s);  /* smoothstep: C1 at the joint's reach */
        if (b > bump) bump = b;
    }
    /* The quadric error and the length term grow as the fourth power of the
     * edge length, so this power makes edges near the joint come out about
     * 1 + emphasis times shorter than along the spans. */
    double f = 1.0 + j->emphasis * bump;
    return (f * f) * (f * f);
}
