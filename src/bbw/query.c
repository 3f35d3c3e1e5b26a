/*
 * Pose-side queries on solved weights: at domain vertices, at arbitrary
 * points (barycentric interpolation in the containing element), and the top-k
 * influences in the skinning layout. None allocates; all read a const handle.
 */
#include <math.h>
#include <string.h>

#include "bbw/bbw_internal.h"

static sinew_result check_solved(const sinew_bbw *b)
{
    if (!b) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "bbw is NULL");
    if (!b->weights) return sn_fail(SINEW_ERROR_INVALID_STATE, "weights are not solved yet: call sinew_bbw_solve");
    return SINEW_OK;
}

sinew_result sinew_bbw_vertex_weights(const sinew_bbw *b, float *out, size_t first, size_t count)
{
    sn_clear_error();
    sinew_result r = check_solved(b);
    if (r != SINEW_OK) return r;
    if (!out && count) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "out is NULL");
    if (first > b->vertex_count || count > b->vertex_count - first)
        return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE, "vertex range [%zu, %zu + %zu) exceeds the %zu vertices", first,
                       first, count, b->vertex_count);
    /* Rows are indexed by vertex number: the span reaches row first + count - 1. */
    if ((r = sn_check_float_array(out, 0, b->handle_count, count ? first + count : 0, "vertex weight output")) !=
        SINEW_OK)
        return r;
    if (count)
        memcpy(out + first * b->handle_count, b->weights + first * b->handle_count,
               count * b->handle_count * sizeof(float));
    return SINEW_OK;
}

/* Element and barycentric coordinates of point i, or a failure naming it;
 * *element holds on entry the element of a point located before (SIZE_MAX:
 * none), which speeds the search without changing its answer. */
static sinew_result locate_point(const sinew_bbw *b, const sinew_points *pts, size_t i, size_t *element,
                                 double bary[4])
{
    const float *p = sn_point(pts, i);
    for (int a = 0; a < 3; ++a)
        if (!isfinite(p[a]))
            return sn_fail(SINEW_ERROR_NON_FINITE, "point %zu has a non-finite coordinate %c (%g)", i, "xyz"[a],
                           (double)p[a]);
    double q[3] = {p[0], p[1], p[2]};
    *element = sn_bbw_locate_with(b, q, b->reach, *element, true, bary, NULL);
    if (*element == SIZE_MAX)
        return sn_fail(SINEW_ERROR_OUTSIDE_DOMAIN, "point %zu at (%g, %g, %g) lies outside the domain", i, q[0], q[1],
                       q[2]);
    /* The containment test allows a little slack, so a point on an element's
     * side can get a coordinate of -1e-17: clamped and renormalised, the
     * interpolated weights stay a convex combination, in [0, 1] and summing
     * to one like the vertices' own. */
    double sum = 0.0;
    for (uint32_t k = 0; k < b->per; ++k) {
        if (!(bary[k] > 0.0)) bary[k] = 0.0;
        sum += bary[k];
    }
    if (sum > 0.0)
        for (uint32_t k = 0; k < b->per; ++k) bary[k] /= sum;
    else
        bary[0] = 1.0;
    return SINEW_OK;
}

/* Whether every point of [first, first + count) can be located, so that a
 * failure leaves the outputs untouched. Most points pass a test of a few
 * products (sn_bbw_locate_certain); the rest are located in full. */
static sinew_result check_locatable(const sinew_bbw *b, const sinew_points *pts, size_t first, size_t count)
{
    size_t e = SIZE_MAX; /* an element near the last point: nearby in a coherent order */
    for (size_t i = first; i < first + count; ++i) {
        const float *p = sn_point(pts, i);
        double q[3] = {p[0], p[1], p[2]};
        if (isfinite(q[0]) && isfinite(q[1]) && isfinite(q[2]) && sn_bbw_locate_certain(b, q, b->reach, &e)) continue;
        double bary[4];
        sinew_result r = locate_point(b, pts, i, &e, bary);
        if (r != SINEW_OK) return r;
    }
    return SINEW_OK;
}

static sinew_result check_points_view(const sinew_points *pts, size_t first, size_t count)
{
    if (!pts) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "points is NULL");
    if (first > pts->count || count > pts->count - first)
        return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE, "point range [%zu, %zu + %zu) exceeds the %zu points", first,
                       first, count, pts->count);
    return sn_check_float_array(pts->data, pts->stride, 3, pts->count, "points");
}

sinew_result sinew_bbw_point_weights(const sinew_bbw *b, const sinew_points *pts, float *out, size_t first,
                                     size_t count)
{
    sn_clear_error();
    sinew_result r = check_solved(b);
    if (r != SINEW_OK) return r;
    if ((r = check_points_view(pts, first, count)) != SINEW_OK) return r;
    if (!out && count) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "out is NULL");
    if ((r = sn_check_float_array(out, 0, b->handle_count, count ? first + count : 0, "point weight output")) !=
        SINEW_OK)
        return r;
    if ((r = check_locatable(b, pts, first, count)) != SINEW_OK) return r;
    size_t m = b->handle_count, e = SIZE_MAX;
    for (size_t i = first; i < first + count; ++i) {
        double bary[4];
        locate_point(b, pts, i, &e, bary);
        float *row = out + i * m;
        for (size_t j = 0; j < m; ++j) row[j] = 0.0f;
        for (uint32_t k = 0; k < b->per; ++k) {
            const float *wv = b->weights + (size_t)b->elements[e * b->per + k] * m;
            for (size_t j = 0; j < m; ++j) row[j] += (float)bary[k] * wv[j];
        }
    }
    return SINEW_OK;
}

/* Weight of handle j at a point given by its element corners and
 * barycentric coordinates. */
static double weight_at(const sinew_bbw *b, const uint32_t *corners, const double *bary, size_t j)
{
    double w = 0.0;
    for (uint32_t k = 0; k < b->per; ++k) w += bary[k] * b->weights[(size_t)corners[k] * b->handle_count + j];
    return w;
}

/* Fills one point's k slots with its largest weights, in (weight desc,
 * index asc) order, positive ones only: one pass over the handles keeping
 * the best so far sorted (k <= SN_BBW_MAX_INFLUENCES), so each weight is interpolated once
 * and no scratch memory is needed. */
static void select_top(const sinew_bbw *b, const uint32_t *corners, const double *bary, uint32_t k,
                       uint32_t *joints, float *weights)
{
    size_t m = b->handle_count;
    double best_w[SN_BBW_MAX_INFLUENCES];
    uint32_t best_j[SN_BBW_MAX_INFLUENCES], used = 0;
    for (size_t j = 0; j < m; ++j) {
        double w = weight_at(b, corners, bary, j);
        /* Handles come in index order, so a weight equal to the last kept
         * one ranks after it. */
        if (!(w > 0.0) || (used == k && !(w > best_w[k - 1]))) continue;
        uint32_t at = used < k ? used++ : k - 1;
        for (; at > 0 && w > best_w[at - 1]; --at) {
            best_w[at] = best_w[at - 1];
            best_j[at] = best_j[at - 1];
        }
        best_w[at] = w;
        best_j[at] = (uint32_t)j;
    }
    double sum = 0.0;
    for (uint32_t s = 0; s < used; ++s) {
        joints[s] = best_j[s];
        weights[s] = (float)best_w[s];
        sum += best_w[s];
    }
    for (uint32_t s = used; s < k; ++s) {
        joints[s] = 0;
        weights[s] = 0.0f;
    }
    if (sum > 0.0)
        for (uint32_t s = 0; s < used; ++s) weights[s] = (float)(weights[s] / sum);
}

/* Corners and barycentric coordinates of point i (pts), or of vertex i
 * (pts NULL); *e as in locate_point. */
static void corners_of(const sinew_bbw *b, const sinew_points *pts, size_t i, size_t *e, uint32_t corners[4],
                       double bary[4])
{
    if (pts) {
        memset(corners, 0, 4 * sizeof(uint32_t));
        locate_point(b, pts, i, e, bary);
        memcpy(corners, b->elements + *e * b->per, b->per * sizeof(uint32_t));
        return;
    }
    for (uint32_t c = 0; c < 4; ++c) corners[c] = (uint32_t)i;
    bary[0] = 1.0, bary[1] = bary[2] = bary[3] = 0.0;
}

/* Asks the cache for the corners' weight rows (a hint only). */
static void fetch_rows(const sinew_bbw *b, const uint32_t corners[4])
{
#if defined(__GNUC__) || defined(__clang__)
    size_t bytes = b->handle_count * sizeof(float);
    for (uint32_t c = 0; c < b->per; ++c) {
        const char *row = (const char *)(b->weights + (size_t)corners[c] * b->handle_count);
        for (size_t at = 0; at < bytes; at += 64) __builtin_prefetch(row + at);
        if (bytes) __builtin_prefetch(row + bytes - 1);
    }
#else
    (void)b, (void)corners;
#endif
}

sinew_result sinew_bbw_top_k(const sinew_bbw *b, const sinew_points *pts, size_t influence_count,
                             uint32_t *joints, float *weights, size_t first, size_t count)
{
    sn_clear_error();
    sinew_result r = check_solved(b);
    if (r != SINEW_OK) return r;
    if (influence_count < 1 || influence_count > SN_BBW_MAX_INFLUENCES)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "influence_count = %zu is outside 1 .. %u", influence_count,
                       SN_BBW_MAX_INFLUENCES);
    const uint32_t k = (uint32_t)influence_count;
    if ((!joints || !weights) && count)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s is NULL", joints ? "weights" : "joints");
    /* The range first (a wrapped range is out of range, not an overflowing
     * output), then the outputs, then the points' elements. */
    if (pts) {
        if ((r = check_points_view(pts, first, count)) != SINEW_OK) return r;
    } else if (first > b->vertex_count || count > b->vertex_count - first) {
        return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE, "vertex range [%zu, %zu + %zu) exceeds the %zu vertices", first,
                       first, count, b->vertex_count);
    }
    const size_t rows = count ? first + count : 0;   /* rows are indexed by point number */
    if ((r = sn_check_float_array(joints, 0, k, rows, "top-k joint output")) != SINEW_OK ||
        (r = sn_check_float_array(weights, 0, k, rows, "top-k weight output")) != SINEW_OK)
        return r;
    if (pts && (r = check_locatable(b, pts, first, count)) != SINEW_OK) return r;
    /* Point i + 1 is located (and its weight rows fetched) before point i's
     * rows are read, so the memory of one overlaps the work of the other. */
    size_t e = SIZE_MAX;
    uint32_t corners[2][4];
    double bary[2][4];
    for (size_t i = first; i <= first + count; ++i) {
        size_t at = (i - first) & 1;
        if (i < first + count) {
            corners_of(b, pts, i, &e, corners[at], bary[at]);
            fetch_rows(b, corners[at]);
        }
        if (i > first)
            select_top(b, corners[at ^ 1], bary[at ^ 1], k, joints + (i - 1) * k, weights + (i - 1) * k);
    }
    return SINEW_OK;
}
