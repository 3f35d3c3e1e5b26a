/* sinew_corrective_create: checks a desc (every message names the key, the
 * point or the pose number), gathers the offsets point by point and hands
 * them to sn_corr_build. */
#include <math.h>
#include <string.h>

#include "corrective/corrective_internal.h"

static const char *const axis_name = "xyz";

static bool aligned4(const void *p)
{
    return ((uintptr_t)p & 3u) == 0;
}

static sinew_result check_options(const sinew_corrective_desc *d)
{
    if (d->point_count == 0 || d->key_count == 0)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "corrective desc: point_count (%zu) and key_count (%zu) must be >= 1",
                       d->point_count, d->key_count);
    if ((unsigned)d->kernel > SINEW_CORRECTIVE_KERNEL_WEIGHTS)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "corrective desc: unknown kernel %d", (int)d->kernel);
    if (d->point_count > UINT32_MAX)
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "corrective desc: %zu points, more than %u", d->point_count,
                       UINT32_MAX);
    if (!(d->radius >= 0.0) || !isfinite(d->radius))
        return sn_fail(d->radius >= 0.0 ? SINEW_ERROR_NON_FINITE : SINEW_ERROR_INVALID_ARGUMENT,
                       "corrective desc: radius %g must be finite and >= 0", d->radius);
    if (!(d->smoothing >= 0.0) || !isfinite(d->smoothing))
        return sn_fail(d->smoothing >= 0.0 ? SINEW_ERROR_NON_FINITE : SINEW_ERROR_INVALID_ARGUMENT,
                       "corrective desc: smoothing %g must be finite and >= 0", d->smoothing);
    if (d->kernel == SINEW_CORRECTIVE_KERNEL_WEIGHTS) {
        if (d->key_count > SN_CORR_MAX_MORPH_KEYS)
            return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "corrective desc: %zu morph targets, more than %u",
                           d->key_count, SN_CORR_MAX_MORPH_KEYS);
        return SINEW_OK;
    }
    if (d->key_count > SN_CORR_MAX_POSE_KEYS || d->pose_size == 0 || d->pose_size > SN_CORR_MAX_POSE_SIZE)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT,
                       "corrective desc: %zu keys of %zu pose numbers; interpolated correctives take 1..%u keys of "
                       "1..%u numbers",
                       d->key_count, d->pose_size, SN_CORR_MAX_POSE_KEYS, SN_CORR_MAX_POSE_SIZE);
    if (!d->poses || !aligned4(d->poses) || (d->rest_pose && !aligned4(d->rest_pose)))
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "corrective desc: poses are NULL or a pose array is not aligned "
                                                     "to 4 bytes");
    for (size_t k = 0; k < d->key_count; ++k)
        for (size_t i = 0; i < d->pose_size; ++i)
            if (!isfinite(d->poses[k * d->pose_size + i]))
                return sn_fail(SINEW_ERROR_NON_FINITE, "corrective desc: key %zu has a non-finite pose number %zu (%g)",
                               k, i, (double)d->poses[k * d->pose_size + i]);
    if (d->rest_pose)
        for (size_t i = 0; i < d->pose_size; ++i)
            if (!isfinite(d->rest_pose[i]))
                return sn_fail(SINEW_ERROR_NON_FINITE, "corrective desc: the rest pose has a non-finite number %zu (%g)",
                               i, (double)d->rest_pose[i]);
    return SINEW_OK;
}

/* Offsets: layout, indices and finiteness; *total = offsets given. */
static sinew_result check_offsets(const sinew_corrective_desc *d, size_t *total)
{
    if (!d->offsets || !aligned4(d->offsets))
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "corrective desc: offsets are NULL or not aligned to 4 bytes");
    size_t n = 0;
    if (!d->key_offset_counts) {
        if (!sn_mul_size(d->key_count, d->point_count, &n) || n > PTRDIFF_MAX / (3 * sizeof(float)))
            return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "corrective desc: %zu keys of %zu points overflow", d->key_count,
                           d->point_count);
    } else {
        if (!d->offset_points || !aligned4(d->offset_points))
            return sn_fail(SINEW_ERROR_INVALID_ARGUMENT,
                           "corrective desc: offset_points is NULL or not aligned to 4 bytes (sparse offsets)");
        for (size_t k = 0; k < d->key_count; ++k)
            if (!sn_add_size(n, d->key_offset_counts[k], &n) || n > PTRDIFF_MAX / (3 * sizeof(float)))
                return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "corrective desc: the offset counts overflow at key %zu", k);
        size_t j = 0;
        for (size_t k = 0; k < d->key_count; ++k)
            for (size_t e = 0; e < d->key_offset_counts[k]; ++e, ++j) {
                uint32_t p = d->offset_points[j];
                if (p >= d->point_count)
                    return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE,
                                   "corrective desc: key %zu offset %zu refers to point %u, but there are only %zu", k,
                                   e, p, d->point_count);
                if (e > 0 && p <= d->offset_points[j - 1])
                    return sn_fail(SINEW_ERROR_INVALID_ARGUMENT,
                                   "corrective desc: key %zu offset %zu refers to point %u after point %u (points must "
                                   "increase within a key)",
                                   k, e, p, d->offset_points[j - 1]);
            }
    }
    for (size_t j = 0; j < 3 * n; ++j)
        if (!isfinite(d->offsets[j])) {
            size_t entry = j / 3, key = 0, point = entry;
            if (d->key_offset_counts) {
                size_t before = 0;
                while (before + d->key_offset_counts[key] <= entry) before += d->key_offset_counts[key++];
                point = d->offset_points[entry];
            } else {
                key = entry / d->point_count;
                point = entry % d->point_count;
            }
            return sn_fail(SINEW_ERROR_NON_FINITE,
                           "corrective desc: key %zu offset of point %zu has a non-finite coordinate %c (%g)", key,
                           point, axis_name[j % 3], (double)d->offsets[j]);
        }
    *total = n;
    return SINEW_OK;
}

static bool nonzero(const float *o)
{
    return o[0] != 0.0f || o[1] != 0.0f || o[2] != 0.0f;
}

/* Point of offset e of key k, and the offset itself. */
static size_t offset_point(const sinew_corrective_desc *d, size_t j)
{
    return d->key_offset_counts ? d->offset_points[j] : j % d->point_count;
}

/* Gathers the nonzero offsets point by point, keys increasing, into
 * scratch arrays (the counting pass, then the filling pass). */
static sinew_result gather(const sn_env *env, const sinew_corrective_desc *d, size_t total, sn_corr_parts *p,
                           size_t **row_start, uint32_t **keys, float **offsets)
{
    *row_start = (size_t *)sn_calloc_array(env, d->point_count + 1, sizeof(size_t), "corrective rows");
    if (!*row_start) return sn_alloc_failure();
    size_t *rows = *row_start;
    for (size_t j = 0; j < total; ++j)
        if (nonzero(d->offsets + 3 * j)) rows[offset_point(d, j) + 1]++;
    for (size_t i = 0; i < d->point_count; ++i) rows[i + 1] += rows[i];
    const size_t entries = rows[d->point_count];
    *keys = (uint32_t *)sn_alloc_array(env, entries, sizeof(uint32_t), "corrective keys");
    *offsets = (float *)sn_alloc_array(env, entries, 3 * sizeof(float), "corrective offsets");
    if (!*keys || !*offsets) return sn_alloc_failure();
    /* rows[i] runs as point i's cursor, then is shifted back. */
    size_t j = 0;
    for (size_t k = 0; k < d->key_count; ++k) {
        size_t n = d->key_offset_counts ? d->key_offset_counts[k] : d->point_count;
        for (size_t e = 0; e < n; ++e, ++j) {
            if (!nonzero(d->offsets + 3 * j)) continue;
            size_t at = rows[offset_point(d, j)]++;
            (*keys)[at] = (uint32_t)k;
            memcpy(*offsets + 3 * at, d->offsets + 3 * j, 3 * sizeof(float));
        }
    }
    for (size_t i = d->point_count; i > 0; --i) rows[i] = rows[i - 1];
    rows[0] = 0;
    p->entry_count = entries;
    p->row_start = rows;
    p->entry_key = *keys;
    p->entry_offset = *offsets;
    return SINEW_OK;
}

sinew_result sinew_corrective_create(sinew_context *ctx, const sinew_corrective_desc *caller_desc,
                                     sinew_corrective **out)
{
    sn_clear_error();
    if (!out) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "out is NULL");
    sinew_corrective_desc d;
    sinew_result res = sn_read_struct(&d, sizeof d, caller_desc, "corrective desc");
    size_t total = 0;
    if (res != SINEW_OK || (res = check_options(&d)) != SINEW_OK || (res = check_offsets(&d, &total)) != SINEW_OK)
        return res;
    sn_env env;
    sn_env_from_context(&env, ctx);
    sn_corr_parts p = {d.point_count, d.key_count, d.pose_size, d.kernel, d.radius, d.smoothing,
                       d.poses, d.rest_pose, 0, NULL, NULL, NULL};
    size_t *rows = NULL;
    uint32_t *keys = NULL;
    float *offsets = NULL;
    res = gather(&env, &d, total, &p, &rows, &keys, &offsets);
    if (res == SINEW_OK) res = sn_corr_build(&env, &p, "corrective desc", out);
    sn_free(&env, rows);
    sn_free(&env, keys);
    sn_free(&env, offsets);
    return res;
}
