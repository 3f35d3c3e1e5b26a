/* Pose time of correctives: key weights at a pose, and the points moved by
 * the weighted offsets over a range. Const, allocation-free, and every point
 * is computed from its own row alone, so any split of a range gives the same
 * bits. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "corrective/corrective_internal.h"

sinew_result sinew_corrective_get_info(const sinew_corrective *c, sinew_corrective_info *info)
{
    /* Leaves the thread's message alone: it is read after a failure (api.md). */
    if (!c) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "corrective is NULL");
    if (sn_check_struct_out(info, "info") != SINEW_OK) return SINEW_ERROR_INVALID_ARGUMENT;
    sinew_corrective_info i;
    memset(&i, 0, sizeof i);
    i.point_count = c->point_count;
    i.key_count = c->key_count;
    i.pose_size = c->pose_size;
    i.offset_count = c->entry_count;
    i.kernel = c->kernel;
    i.radius = c->radius;
    i.smoothing = c->smoothing;
    i.memory_bytes = c->held_bytes;
    sn_write_struct(info, &i, sizeof i);
    return SINEW_OK;
}

static sinew_result check_pose(const sinew_corrective *c, const float *pose, size_t pose_size)
{
    if (!pose || ((uintptr_t)pose & 3u)) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "pose is NULL or misaligned");
    if (pose_size != c->pose_size)
        return sn_fail(SINEW_ERROR_MISMATCH, "pose_size is %zu, but the corrective's poses have %zu numbers", pose_size,
                       c->pose_size);
    for (size_t i = 0; i < pose_size; ++i)
        if (!isfinite(pose[i]))
            return sn_fail(SINEW_ERROR_NON_FINITE, "pose number %zu is not finite (%g)", i, (double)pose[i]);
    return SINEW_OK;
}

sinew_result sinew_corrective_weights(const sinew_corrective *c, const float *pose, size_t pose_size, float *weights,
                                      size_t weight_floats)
{
    sn_clear_error();
    if (!c || !weights || ((uintptr_t)weights & 3u))
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "corrective or weights is NULL, or weights is misaligned");
    sinew_result res = check_pose(c, pose, pose_size);
    if (res != SINEW_OK) return res;
    if (weight_floats != c->key_count)
        return sn_fail(SINEW_ERROR_MISMATCH, "weight_floats is %zu, but the corrective has %zu keys", weight_floats,
                       c->key_count);
    return sn_corr_weights(c, pose, weights);
}

/* Everything apply checks before it writes: arguments, the range, finite
 * base points, and a bound on every output coordinate (the largest base
 * coordinate plus the weighted largest offsets) within the float range. */
static sinew_result check_apply(const sinew_corrective *c, const float *weights, const sinew_points *base,
                                const float *out, size_t out_stride, size_t first, size_t count)
{
    if (!c || !weights || !base || ((uintptr_t)weights & 3u))
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "corrective, weights or base is NULL, or weights is misaligned");
    double reach = 0.0;
    for (size_t k = 0; k < c->key_count; ++k) {
        if (!isfinite(weights[k]))
            return sn_fail(SINEW_ERROR_NON_FINITE, "weight %zu is not finite (%g)", k, (double)weights[k]);
        reach += fabs((double)weights[k]) * (double)c->key_largest[k];
    }
    size_t end;
    if (!sn_add_size(first, count, &end) || end > c->point_count)
        return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE, "range [%zu, %zu + %zu) passes the corrective's %zu points",
                       first, first, count, c->point_count);
    if (end > base->count)
        return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE, "range [%zu, %zu + %zu) passes the base view's %zu points", first,
                       first, count, base->count);
    if (count == 0) return SINEW_OK;
    sinew_result res = sn_check_float_array(base->data, base->stride, 3, end, "base points");
    if (res == SINEW_OK) res = sn_check_float_array(out, out_stride, 3, end, "output points");
    if (res != SINEW_OK) return res;
    /* One branch-free pass for the common case; the offender is looked for
     * only when there is one. */
    float largest = 0.0f;
    bool bad = false;
    for (size_t i = first; i < end; ++i) {
        const float *b = sn_point(base, i);
        for (int a = 0; a < 3; ++a) {
            const float v = fabsf(b[a]);
            bad |= !(v <= FLT_MAX);
            largest = v > largest ? v : largest;
        }
    }
    for (size_t i = first; bad && i < end; ++i) {
        const float *b = sn_point(base, i);
        for (int a = 0; a < 3; ++a)
            if (!isfinite(b[a]))
                return sn_fail(SINEW_ERROR_NON_FINITE, "base point %zu has a non-finite coordinate %c (%g)", i, "xyz"[a],
                               (double)b[a]);
    }
    if (!((double)largest + reach <= (double)FLT_MAX))
        return sn_fail(SINEW_ERROR_NON_FINITE,
                       "base coordinates up to %g moved by offsets up to %g could leave the float range",
                       (double)largest, reach);
    return SINEW_OK;
}

/* Writes points [first, end): base plus the weighted offsets of each row,
 * summed in key order in double, rounded once. */
static void apply_sparse_rows(const sinew_corrective *c, const float *weights, const sinew_points *base, float *out,
                              size_t out_stride, size_t first, size_t end)
{
    const size_t os = sn_stride(out_stride, 3 * sizeof(float));
    for (size_t i = first; i < end; ++i) {
        const float *b = sn_point(base, i);
        double s[3] = {0.0, 0.0, 0.0};
        for (size_t e = c->row_start[i]; e < c->row_start[i + 1]; ++e) {
            const double w = (double)weights[c->entry_key[e]];
            const float *o = c->entry_offset + 3 * e;
            s[0] += w * (double)o[0];
            s[1] += w * (double)o[1];
            s[2] += w * (double)o[2];
        }
        float r[3] = {(float)((double)b[0] + s[0]), (float)((double)b[1] + s[1]), (float)((double)b[2] + s[2])};
        memcpy((char *)out + i * os, r, sizeof r);
    }
}

/* Points a block of the dense path sums at once: enough independent sums to
 * hide the multiply-add latency, few enough to stay in L1 with their rows. */
#define SN_CORR_DENSE_BLOCK 64

/* apply_rows when every point holds every key (rows of key_count entries,
 * keys 0..K-1 in order): keys outer, points inner, so the sums of a block
 * run side by side instead of one dependent chain per point. Each point is
 * still summed in key order, so the bits are apply_rows'. */
static void apply_dense_rows(const sinew_corrective *c, const float *weights, const sinew_points *base, float *out,
                             size_t out_stride, size_t first, size_t end)
{
    const size_t os = sn_stride(out_stride, 3 * sizeof(float)), keys = c->key_count;
    double s[SN_CORR_DENSE_BLOCK][3];
    for (size_t b0 = first; b0 < end; b0 += SN_CORR_DENSE_BLOCK) {
        const size_t n = end - b0 < SN_CORR_DENSE_BLOCK ? end - b0 : SN_CORR_DENSE_BLOCK;
        memset(s, 0, sizeof s);
        for (size_t k = 0; k < keys; ++k) {
            const double w = (double)weights[k];
            const float *o = c->entry_offset + 3 * (b0 * keys + k);
            for (size_t i = 0; i < n; ++i, o += 3 * keys) {
                s[i][0] += w * (double)o[0];
                s[i][1] += w * (double)o[1];
                s[i][2] += w * (double)o[2];
            }
        }
        for (size_t i = 0; i < n; ++i) {
            const float *b = sn_point(base, b0 + i);
            float r[3] = {(float)((double)b[0] + s[i][0]), (float)((double)b[1] + s[i][1]),
                          (float)((double)b[2] + s[i][2])};
            memcpy((char *)out + (b0 + i) * os, r, sizeof r);
        }
    }
}

/* The rows of [first, end): the dense path when every point holds every key. */
static void apply_rows(const sinew_corrective *c, const float *weights, const sinew_points *base, float *out,
                       size_t out_stride, size_t first, size_t end)
{
    if (c->entry_count == c->point_count * c->key_count)
        apply_dense_rows(c, weights, base, out, out_stride, first, end);
    else
        apply_sparse_rows(c, weights, base, out, out_stride, first, end);
}

sinew_result sinew_corrective_apply(const sinew_corrective *c, const float *weights, size_t weight_floats,
                                    const sinew_points *base, float *out, size_t out_stride, size_t first, size_t count)
{
    sn_clear_error();
    sinew_result res = check_apply(c, weights, base, out, out_stride, first, count);
    if (res != SINEW_OK) return res;
    if (weight_floats != c->key_count)
        return sn_fail(SINEW_ERROR_MISMATCH, "weight_floats is %zu, but the corrective has %zu keys", weight_floats,
                       c->key_count);
    apply_rows(c, weights, base, out, out_stride, first, first + count);
    return SINEW_OK;
}

sinew_result sinew_corrective_deform(const sinew_corrective *c, const float *pose, size_t pose_size,
                                     const sinew_points *base, float *out, size_t out_stride, size_t first, size_t count)
{
    sn_clear_error();
    if (!c) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "corrective is NULL");
    float weights[SN_CORR_MAX_POSE_KEYS];
    if (c->kernel == SINEW_CORRECTIVE_KERNEL_WEIGHTS) {
        /* The pose is the weights: no copy (morph targets may be many). */
        sinew_result res = check_pose(c, pose, pose_size);
        if (res == SINEW_OK) res = check_apply(c, pose, base, out, out_stride, first, count);
        if (res != SINEW_OK) return res;
        apply_rows(c, pose, base, out, out_stride, first, first + count);
        return SINEW_OK;
    }
    sinew_result res = check_pose(c, pose, pose_size);
    if (res == SINEW_OK) res = sn_corr_weights(c, pose, weights);
    if (res == SINEW_OK) res = check_apply(c, weights, base, out, out_stride, first, count);
    if (res != SINEW_OK) return res;
    apply_rows(c, weights, base, out, out_stride, first, first + count);
    return SINEW_OK;
}
