/* Containment binding from bone capsules (the skinning chapter's binding
 * section): score each vertex against each capsule, keep the k best joints. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sinew/skin_tools.h"
#include "skin/skin_defaults.h"
#include "skin/tools/influence_rows.h"
#include "skin/tools/unbound_report.h"

static const char *const STAGE = "skin: capsule bind";

/* Distance from p to the segment a-b, in double so that mirrored setups give
 * mirrored results to the last bit and long bones far from the origin keep
 * their precision. */
static double segment_distance(const float p[3], const float a[3], const float b[3])
{
    double ab[3], ap[3], len2 = 0.0, t = 0.0;
    for (int i = 0; i < 3; ++i) {
        ab[i] = (double)b[i] - a[i];
        ap[i] = (double)p[i] - a[i];
        len2 += ab[i] * ab[i];
        t += ab[i] * ap[i];
    }
    t = len2 > 0.0 ? t / len2 : 0.0;
    if (t < 0.0) t = 0.0;
    if (t > 1.0) t = 1.0;
    double d2 = 0.0;
    for (int i = 0; i < 3; ++i) {
        double e = ap[i] - t * ab[i];
        d2 += e * e;
    }
    return sqrt(d2);
}

/* 1 inside the capsule, smoothstep down to 0 across the band, 0 beyond. */
static double capsule_score(double distance, double radius, double band)
{
    if (radius <= 0.0) return distance == 0.0 ? 1.0 : 0.0;
    double s = distance / radius;
    if (s <= 1.0) return 1.0;
    double t = (s - 1.0) / band;
    if (t >= 1.0) return 0.0;
    return 1.0 - t * t * (3.0 - 2.0 * t);
}

static sinew_result check_inputs(const sinew_points *positions, const sinew_skin_capsule *capsules,
                                 size_t capsule_count, const sinew_skin_capsule_desc *d, const uint32_t *joints,
                                 const float *weights)
{
    sinew_result r = sn_check_points(positions, "mesh vertex");
    if (r != SINEW_OK) return r;
    if (positions->count == 0) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "capsule bind: mesh has no vertices");
    if (!capsules || capsule_count == 0)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "capsule bind: no capsules given");
    /* A count whose array cannot exist is refused before any capsule is read;
     * capsules are numbered with 32 bits (as vertices are). */
    size_t bytes;
    if (!sn_mul_size(capsule_count, sizeof *capsules, &bytes) || capsule_count > UINT32_MAX)
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "capsule bind: %zu capsules overflow (at most 2^32 - 1)",
                       capsule_count);
    for (size_t c = 0; c < capsule_count; ++c) {
        const sinew_skin_capsule *cap = &capsules[c];
        for (int i = 0; i < 3; ++i) {
            if (!isfinite(cap->head[i]))
                return sn_fail(SINEW_ERROR_NON_FINITE, "capsule %zu head %c is not finite (%g)", c, "xyz"[i],
                               (double)cap->head[i]);
            if (!isfinite(cap->tail[i]))
                return sn_fail(SINEW_ERROR_NON_FINITE, "capsule %zu tail %c is not finite (%g)", c, "xyz"[i],
                               (double)cap->tail[i]);
        }
        if (!isfinite(cap->radius))
            return sn_fail(SINEW_ERROR_NON_FINITE, "capsule %zu radius is not finite (%g)", c, (double)cap->radius);
        if (cap->radius < 0.0f)
            return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "capsule %zu has a negative radius (%g)", c,
                           (double)cap->radius);
    }
    if (!isfinite(d->falloff)) return sn_fail(SINEW_ERROR_NON_FINITE, "capsule bind: falloff is not finite");
    if (d->falloff < 0.0f)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "capsule bind: falloff %g is negative", (double)d->falloff);
    if (!isfinite(d->radius_quantile) || d->radius_quantile < 0.0f || d->radius_quantile > 1.0f)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "capsule bind: radius_quantile %g is not in (0, 1]",
                       (double)d->radius_quantile);
    if ((unsigned)d->scoring > SINEW_SKIN_CAPSULE_SCORE_NEAREST_SEGMENT)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "capsule bind: unknown scoring %d", (int)d->scoring);
    if (d->unbound != SINEW_SKIN_UNBOUND_REPORT && d->unbound != SINEW_SKIN_UNBOUND_NEAREST)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "capsule bind: unknown unbound policy %d", (int)d->unbound);
    if (!joints || !weights)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "capsule bind: output %s is NULL", joints ? "weights" : "joints");
    return SINEW_OK;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Radii of the capsules given as 0: the quantile of the distances of the
 * vertices each such capsule is nearest to. */
static sinew_result derive_radii(const sn_env *env, const sinew_points *positions,
                                 const sinew_skin_capsule *capsules, size_t capsule_count, double quantile,
                                 double *radius)
{
    size_t n = positions->count;
    uint32_t *owner = (uint32_t *)sn_alloc_array(env, n, sizeof *owner, "capsule owners");
    double *dist = (double *)sn_alloc_array(env, n, sizeof *dist, "capsule distances");
    size_t *start = (size_t *)sn_calloc_array(env, capsule_count + 1, sizeof *start, "capsule buckets");
    double *bucket = (double *)sn_alloc_array(env, n, sizeof *bucket, "capsule distance buckets");
    sinew_result r = SINEW_OK;
    if (!owner || !dist || !start || !bucket) {
        r = sn_alloc_failure();
        goto done;
    }
    for (size_t v = 0; v < n; ++v) {
        if (v % SN_SKIN_TOOLS_PROGRESS_EVERY == 0 &&
            (r = sn_progress(env, STAGE, 0.5f * (float)v / (float)n)) != SINEW_OK)
            goto done;
        const float *p = sn_point(positions, v);
        double best = INFINITY;
        uint32_t who = 0;
        for (size_t c = 0; c < capsule_count; ++c) {
            double d = segment_distance(p, capsules[c].head, capsules[c].tail);
            if (d < best) {
                best = d;
                who = (uint32_t)c;
            }
        }
        owner[v] = who;
        dist[v] = best;
        start[who + 1]++;
    }
    for (size_t c = 0; c < capsule_count; ++c) start[c + 1] += start[c];
    for (size_t v = 0; v < n; ++v) bucket[start[owner[v]]++] = dist[v];
    for (size_t c = capsule_count; c > 0; --c) start[c] = start[c - 1];
    start[0] = 0;
    for (size_t c = 0; c < capsule_count; ++c) {
        radius[c] = capsules[c].radius;
        if (capsules[c].radius > 0.0f) continue;
        size_t owned = start[c + 1] - start[c];
        if (owned == 0) {
            radius[c] = 0.0;
            continue;
        }
        double *d = bucket + start[c];
        qsort(d, owned, sizeof *d, by_value);
        size_t at = (size_t)ceil(quantile * (double)owned);
        radius[c] = d[at > 0 ? at - 1 : 0];
    }
done:
    sn_free(env, owner);
    sn_free(env, dist);
    sn_free(env, start);
    sn_free(env, bucket);
    return r;
}

/* The joint of the capsule whose segment is nearest p; the first on ties. */
static uint32_t nearest_segment_joint(const float p[3], const sinew_skin_capsule *capsules, size_t capsule_count)
{
    double best = INFINITY;
    uint32_t joint = capsules[0].joint;
    for (size_t c = 0; c < capsule_count; ++c) {
        double dist = segment_distance(p, capsules[c].head, capsules[c].tail);
        if (dist < best) {
            best = dist;
            joint = capsules[c].joint;
        }
    }
    return joint;
}

/* Blend scoring of vertex p: the capsules scoring above 0 into row (their
 * count returned) and, for the fallback, the joint of the capsule nearest in
 * radii, then in plain distance. */
static size_t score_vertex(const float p[3], const sinew_skin_capsule *capsules, size_t capsule_count,
                           const double *radius, double band, sn_skin_entry *row, uint32_t *near_joint)
{
    size_t m = 0;
    double near_s = INFINITY, near_d = INFINITY;
    for (size_t c = 0; c < capsule_count; ++c) {
        double dist = segment_distance(p, capsules[c].head, capsules[c].tail);
        float score = (float)capsule_score(dist, radius[c], band);
        if (score > 0.0f) {   /* in float: a score that rounds to 0 does not bind */
            row[m].joint = capsules[c].joint;
            row[m].weight = (double)score;
            ++m;
        }
        double s = radius[c] > 0.0 ? dist / radius[c] : (dist == 0.0 ? 0.0 : INFINITY);
        if (s < near_s || (s == near_s && dist < near_d)) {
            near_s = s;
            near_d = dist;
            *near_joint = capsules[c].joint;
        }
    }
    return m;
}

sinew_result sinew_skin_capsule_weights(sinew_context *ctx, const sinew_points *positions,
                                        const sinew_skin_capsule *capsules, size_t capsule_count,
                                        const sinew_skin_capsule_desc *desc, uint32_t *joints, float *weights,
                                        sinew_skin_capsule_report *caller_report)
{
    sn_clear_error();
    sinew_skin_capsule_desc d = {0};
    sinew_result r = SINEW_OK;
    if (desc && (r = sn_read_struct(&d, sizeof d, desc, "capsule bind: desc")) != SINEW_OK) return r;
    sn_skin_capsule_resolve(&d);
    /* The report is read (its list and capacity) and written back (its count) through a local copy. */
    sinew_skin_capsule_report local_report = {0};
    sinew_skin_capsule_report *report = NULL;
    if (caller_report) {
        r = sn_read_struct(&local_report, sizeof local_report, caller_report, "capsule bind: report");
        if (r != SINEW_OK) return r;
        report = &local_report;
    }
    r = check_inputs(positions, capsules, capsule_count, &d, joints, weights);
    if (r != SINEW_OK) return r;
    if (report && (r = sn_skin_unbound_list_check(report->unbound, report->unbound_capacity, "capsule bind")) !=
                      SINEW_OK)
        return r;
    size_t k = d.influence_count;
    double band = d.falloff;
    double quantile = d.radius_quantile;
    size_t n = positions->count;
    if (n > UINT32_MAX)   /* the report lists vertices as 32-bit indices, as the skin bind counts them */
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "capsule bind: %zu vertices exceed 32-bit indices", n);
    size_t total, out_bytes;
    if (!sn_mul_size(n, k, &total) || !sn_mul_size(total, sizeof *weights, &out_bytes) || out_bytes > PTRDIFF_MAX)
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "capsule bind: %zu vertices of %zu slots overflow", n, k);

    sn_env env;
    sn_env_from_context(&env, ctx);
    double *radius = (double *)sn_alloc_array(&env, capsule_count, sizeof *radius, "capsule radii");
    sn_skin_entry *row = (sn_skin_entry *)sn_alloc_array(&env, capsule_count, sizeof *row, "capsule scores");
    uint32_t *out_j = (uint32_t *)sn_alloc_array(&env, total, sizeof *out_j, "bound joints");
    float *out_w = (float *)sn_alloc_array(&env, total, sizeof *out_w, "bound weights");
    /* Flags rather than the caller's list, which must stay untouched if the
     * call is cancelled part way. */
    unsigned char *is_unbound = (unsigned char *)sn_calloc(&env, n, "unbound flags");
    if (!radius || !row || !out_j || !out_w || !is_unbound) {
        r = sn_alloc_failure();
        goto done;
    }
    /* The rigid scoring reads no radius, so none is derived for it. */
    const bool rigid = d.scoring == SINEW_SKIN_CAPSULE_SCORE_NEAREST_SEGMENT;
    int derive = 0;
    for (size_t c = 0; c < capsule_count && !rigid; ++c) derive |= capsules[c].radius == 0.0f;
    if (derive) {
        r = derive_radii(&env, positions, capsules, capsule_count, quantile, radius);
        if (r != SINEW_OK) goto done;
    } else {
        for (size_t c = 0; c < capsule_count; ++c) radius[c] = capsules[c].radius;
    }

    size_t unbound = 0, first_unbound = 0;
    for (size_t v = 0; v < n; ++v) {
        if (v % SN_SKIN_TOOLS_PROGRESS_EVERY == 0 &&
            (r = sn_progress(&env, STAGE, (derive ? 0.5f : 0.0f) + (derive ? 0.5f : 1.0f) * (float)v / (float)n)) !=
                SINEW_OK)
            goto done;
        const float *p = sn_point(positions, v);
        uint32_t near_joint = 0;
        size_t m = rigid ? 0 : score_vertex(p, capsules, capsule_count, radius, band, row, &near_joint);
        if (rigid) {
            row[0].joint = nearest_segment_joint(p, capsules, capsule_count);
            row[0].weight = 1.0;
            m = 1;
        }
        if (m == 0) {
            if (unbound == 0) first_unbound = v;
            is_unbound[v] = 1;
            ++unbound;
            row[0].joint = near_joint;
            row[0].weight = 1.0;
            m = 1;
        }
        /* A joint with several capsules takes its best score, not their sum,
         * so extra segments do not make a joint heavier. */
        size_t merged = 0;
        sn_skin_sort_by_weight(row, m);
        for (size_t i = 0; i < m; ++i) {
            size_t j = 0;
            while (j < merged && row[j].joint != row[i].joint) ++j;
            if (j == merged) row[merged++] = row[i];
        }
        sn_skin_write_row(row, merged, k, out_j + v * k, out_w + v * k);
    }
    if (report) {
        report->unbound_count = unbound;
        sn_skin_unbound_list_fill(report->unbound, report->unbound_capacity, is_unbound, n);
        sn_write_struct(caller_report, report, sizeof *report);
    }
    if (unbound > 0 && d.unbound == SINEW_SKIN_UNBOUND_REPORT) {
        r = sn_fail(SINEW_ERROR_OUTSIDE_DOMAIN,
                    "vertex %zu lies outside every capsule (%zu vertices unbound); widen the radii or falloff, or "
                    "bind them to the nearest capsule",
                    first_unbound, unbound);
        goto done;
    }
    memcpy(joints, out_j, total * sizeof *joints);
    memcpy(weights, out_w, total * sizeof *weights);
    r = SINEW_OK;
done:
    sn_free(&env, radius);
    sn_free(&env, row);
    sn_free(&env, out_j);
    sn_free(&env, out_w);
    sn_free(&env, is_unbound);
    return r;
}
