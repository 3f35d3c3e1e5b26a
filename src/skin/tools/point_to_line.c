/* Point-to-line binding (the skinning chapter's binding section, after Sun et
 * al.): joint planes bisecting each bone and its parent split space into one
 * subspace per bone; a vertex belongs to the nearest bone whose subspace holds
 * it, blended across the planes near it. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "sinew/skin_tools.h"
#include "skin/skin_defaults.h"
#include "skin/tools/influence_rows.h"
#include "core/small_math.h"
#include "skin/tools/unbound_report.h"

static const char *const STAGE = "skin: point-to-line bind";

/* Below this length of the summed unit directions, a bone folds back onto its
 * parent (an angle within about 0.006 degrees of 180) and the bisecting plane's
 * normal is mostly rounding. */
#define FOLD_LIMIT 1e-4

/* A bone prepared in double: head, unit direction, length, and the plane at
 * its head (normal and band half-width) when it has a parent. */
typedef struct line_bone {
    double head[3], dir[3], length;
    double normal[3], band;
} line_bone;

/* Signed distance of p to bone b's head plane, positive on b's side. */
static double plane_side(const line_bone *b, const float p[3])
{
    double d[3] = {(double)p[0] - b->head[0], (double)p[1] - b->head[1], (double)p[2] - b->head[2]};
    return sn_dot3(d, b->normal);
}

static double segment_distance(const line_bone *b, const float p[3])
{
    double d[3] = {(double)p[0] - b->head[0], (double)p[1] - b->head[1], (double)p[2] - b->head[2]};
    double t = sn_dot3(d, b->dir);
    if (t < 0.0) t = 0.0;
    if (t > b->length) t = b->length;
    double e2 = 0.0;
    for (int i = 0; i < 3; ++i) {
        double e = d[i] - t * b->dir[i];
        e2 += e * e;
    }
    return sqrt(e2);
}

/* Share that passes to the bone across a plane at distance h >= 0 inside a
 * band of half-width w: (1 - s(h / w)) / 2 with the C1 odd step
 * s(t) = (3t - t^3) / 2, so 1/2 on the plane and 0 from the band's edge on. */
static double across_share(double h, double w)
{
    if (h >= w) return 0.0;
    double t = h / w;
    return 0.5 * (1.0 - 0.5 * t * (3.0 - t * t));
}

static sinew_result check_bones(const sinew_skin_line_bone *bones, size_t bone_count)
{
    if (!bones || bone_count == 0) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "point-to-line bind: no bones given");
    size_t bytes;
    if (!sn_mul_size(bone_count, sizeof *bones, &bytes) || bone_count >= SINEW_SKIN_NO_PARENT)
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "point-to-line bind: %zu bones overflow (at most 2^32 - 2)",
                       bone_count);
    for (size_t b = 0; b < bone_count; ++b) {
        const sinew_skin_line_bone *bone = &bones[b];
        for (int i = 0; i < 3; ++i) {
            if (!isfinite(bone->head[i]))
                return sn_fail(SINEW_ERROR_NON_FINITE, "bone %zu head %c is not finite (%g)", b, "xyz"[i],
                               (double)bone->head[i]);
            if (!isfinite(bone->tail[i]))
                return sn_fail(SINEW_ERROR_NON_FINITE, "bone %zu tail %c is not finite (%g)", b, "xyz"[i],
                               (double)bone->tail[i]);
        }
        if (bone->parent != SINEW_SKIN_NO_PARENT && bone->parent >= bone_count)
            return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE, "bone %zu names parent %u, but there are only %zu bones", b,
                           (unsigned)bone->parent, bone_count);
        if (bone->parent == b) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "bone %zu is its own parent", b);
        if (bone->head[0] == bone->tail[0] && bone->head[1] == bone->tail[1] && bone->head[2] == bone->tail[2])
            return sn_fail(SINEW_ERROR_DEGENERATE, "bone %zu has zero length (head equals tail)", b);
    }
    return SINEW_OK;
}

static sinew_result check_options(const sinew_skin_line_desc *d, const uint32_t *joints, const float *weights)
{
    if (!isfinite(d->blend)) return sn_fail(SINEW_ERROR_NON_FINITE, "point-to-line bind: blend is not finite");
    if (d->blend < 0.0f || d->blend > 1.0f)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "point-to-line bind: blend %g is not in (0, 1]", (double)d->blend);
    if (!isfinite(d->max_distance))
        return sn_fail(SINEW_ERROR_NON_FINITE, "point-to-line bind: max_distance is not finite");
    if (d->max_distance < 0.0f)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "point-to-line bind: max_distance %g is negative",
                       (double)d->max_distance);
    if (d->unbound != SINEW_SKIN_UNBOUND_REPORT && d->unbound != SINEW_SKIN_UNBOUND_NEAREST)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "point-to-line bind: unknown unbound policy %d", (int)d->unbound);
    if (!joints || !weights)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "point-to-line bind: output %s is NULL",
                       joints ? "weights" : "joints");
    if ((uintptr_t)joints % sizeof *joints || (uintptr_t)weights % sizeof *weights)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "point-to-line bind: output %s is not aligned to 4 bytes",
                       (uintptr_t)joints % sizeof *joints ? "joints" : "weights");
    return SINEW_OK;
}

/* Directions, lengths and head planes; DEGENERATE for a bone folded back
 * onto its parent. */
static sinew_result prepare_bones(const sinew_skin_line_bone *bones, size_t bone_count, double blend, line_bone *out)
{
    for (size_t b = 0; b < bone_count; ++b) {
        line_bone *lb = &out[b];
        double l2 = 0.0;
        for (int i = 0; i < 3; ++i) {
            lb->head[i] = bones[b].head[i];
            lb->dir[i] = (double)bones[b].tail[i] - bones[b].head[i];
            l2 += lb->dir[i] * lb->dir[i];
        }
        lb->length = sqrt(l2);
        for (int i = 0; i < 3; ++i) lb->dir[i] /= lb->length;
    }
    for (size_t b = 0; b < bone_count; ++b) {
        line_bone *lb = &out[b];
        memset(lb->normal, 0, sizeof lb->normal);
        lb->band = 0.0;
        uint32_t p = bones[b].parent;
        if (p == SINEW_SKIN_NO_PARENT) continue;
        double n2 = 0.0;
        for (int i = 0; i < 3; ++i) {
            lb->normal[i] = out[p].dir[i] + lb->dir[i];
            n2 += lb->normal[i] * lb->normal[i];
        }
        double n = sqrt(n2);
        if (n < FOLD_LIMIT)
            return sn_fail(SINEW_ERROR_DEGENERATE,
                           "bone %zu folds back onto its parent bone %u: no plane bisects them", b, (unsigned)p);
        for (int i = 0; i < 3; ++i) lb->normal[i] /= n;
        lb->band = blend * fmin(lb->length, out[p].length);
    }
    return SINEW_OK;
}

/* The bones' children as lists: children of b are child[start[b] .. start[b + 1]). */
static void list_children(const sinew_skin_line_bone *bones, size_t bone_count, size_t *start, uint32_t *child)
{
    memset(start, 0, (bone_count + 1) * sizeof *start);
    for (size_t b = 0; b < bone_count; ++b)
        if (bones[b].parent != SINEW_SKIN_NO_PARENT) start[bones[b].parent + 1]++;
    for (size_t b = 0; b < bone_count; ++b) start[b + 1] += start[b];
    for (size_t b = 0; b < bone_count; ++b)
        if (bones[b].parent != SINEW_SKIN_NO_PARENT) child[start[bones[b].parent]++] = (uint32_t)b;
    for (size_t b = bone_count; b > 0; --b) start[b] = start[b - 1];
    start[0] = 0;
}

/* INVALID_ARGUMENT when following parents from some bone comes back to it:
 * such a skeleton has no root, and its subspaces need not cover space.
 * state: bone_count bytes of scratch. */
static sinew_result check_no_cycle(const sinew_skin_line_bone *bones, size_t bone_count, unsigned char *state)
{
    enum { UNSEEN = 0, ON_PATH = 1, DONE = 2 };
    memset(state, UNSEEN, bone_count);
    for (size_t b = 0; b < bone_count; ++b) {
        size_t at = b;
        while (at != SINEW_SKIN_NO_PARENT && state[at] == UNSEEN) {
            state[at] = ON_PATH;
            at = bones[at].parent;
        }
        if (at != SINEW_SKIN_NO_PARENT && state[at] == ON_PATH)
            return sn_fail(SINEW_ERROR_INVALID_ARGUMENT,
                           "bone %zu's parents lead back to bone %zu: the bones form a cycle (a skeleton needs a "
                           "root)",
                           b, at);
        for (at = b; at != SINEW_SKIN_NO_PARENT && state[at] == ON_PATH; at = bones[at].parent) state[at] = DONE;
    }
    return SINEW_OK;
}

/* Whether p lies in bone b's subspace: on b's side of its head plane and on
 * b's side of each child's plane (a point on a plane belongs to the child). */
static int in_subspace(const sinew_skin_line_bone *bones, const line_bone *lb, const size_t *start,
                       const uint32_t *child, size_t b, const float p[3])
{
    if (bones[b].parent != SINEW_SKIN_NO_PARENT && plane_side(&lb[b], p) < 0.0) return 0;
    for (size_t i = start[b]; i < start[b + 1]; ++i)
        if (plane_side(&lb[child[i]], p) >= 0.0) return 0;
    return 1;
}

/* The owner's row: shares across the planes near p, the owner the product of
 * what each plane leaves it. Returns the entry count (room for 1 + planes). */
static size_t blend_row(const sinew_skin_line_bone *bones, const line_bone *lb, const size_t *start,
                        const uint32_t *child, size_t owner, const float p[3], sn_skin_entry *row)
{
    size_t m = 1;
    double keep = 1.0;
    uint32_t parent = bones[owner].parent;
    if (parent != SINEW_SKIN_NO_PARENT) {
        double a = across_share(plane_side(&lb[owner], p), lb[owner].band);
        if (a > 0.0) {
            row[m].joint = bones[parent].joint;
            row[m++].weight = a;
            keep *= 1.0 - a;
        }
    }
    for (size_t i = start[owner]; i < start[owner + 1]; ++i) {
        uint32_t c = child[i];
        double a = across_share(-plane_side(&lb[c], p), lb[c].band);
        if (a > 0.0) {
            row[m].joint = bones[c].joint;
            row[m++].weight = a;
            keep *= 1.0 - a;
        }
    }
    row[0].joint = bones[owner].joint;
    row[0].weight = keep;
    return m;
}

sinew_result sinew_skin_point_to_line_weights(sinew_context *ctx, const sinew_points *positions,
                                              const sinew_skin_line_bone *bones, size_t bone_count,
                                              const sinew_skin_line_desc *desc, uint32_t *joints, float *weights,
                                              sinew_skin_line_report *caller_report)
{
    sn_clear_error();
    sinew_skin_line_desc d = {0};
    sinew_result r = SINEW_OK;
    if (desc && (r = sn_read_struct(&d, sizeof d, desc, "point-to-line bind: desc")) != SINEW_OK) return r;
    sn_skin_line_resolve(&d);
    sinew_skin_line_report local_report = {0};
    sinew_skin_line_report *report = NULL;
    if (caller_report) {
        r = sn_read_struct(&local_report, sizeof local_report, caller_report, "point-to-line bind: report");
        if (r != SINEW_OK) return r;
        report = &local_report;
    }
    if ((r = sn_check_points(positions, "mesh vertex")) != SINEW_OK) return r;
    if (positions->count == 0)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "point-to-line bind: mesh has no vertices");
    if ((r = check_bones(bones, bone_count)) != SINEW_OK) return r;
    if ((r = check_options(&d, joints, weights)) != SINEW_OK) return r;
    if (report &&
        (r = sn_skin_unbound_list_check(report->unbound, report->unbound_capacity, "point-to-line bind")) != SINEW_OK)
        return r;
    size_t k = d.influence_count;
    double blend = d.blend;
    size_t n = positions->count;
    if (n > UINT32_MAX)   /* the report lists vertices as 32-bit indices */
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "point-to-line bind: %zu vertices exceed 32-bit indices", n);
    size_t total, out_bytes;
    if (!sn_mul_size(n, k, &total) || !sn_mul_size(total, sizeof *weights, &out_bytes))
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "point-to-line bind: %zu vertices of %zu slots overflow", n, k);

    sn_env env;
    sn_env_from_context(&env, ctx);
    line_bone *lb = (line_bone *)sn_alloc_array(&env, bone_count, sizeof *lb, "point-to-line bones");
    size_t *start = (size_t *)sn_alloc_array(&env, bone_count + 1, sizeof *start, "point-to-line child lists");
    uint32_t *child = (uint32_t *)sn_alloc_array(&env, bone_count, sizeof *child, "point-to-line children");
    /* A row holds the owner and, at most, one bone across each of its planes. */
    sn_skin_entry *row = (sn_skin_entry *)sn_alloc_array(&env, bone_count + 1, sizeof *row, "point-to-line row");
    uint32_t *out_j = (uint32_t *)sn_alloc_array(&env, total, sizeof *out_j, "bound joints");
    float *out_w = (float *)sn_alloc_array(&env, total, sizeof *out_w, "bound weights");
    /* Also the cycle check's scratch, before the flags are needed. */
    unsigned char *is_unbound =
        (unsigned char *)sn_alloc(&env, n > bone_count ? n : bone_count, "unbound flags");
    if (!lb || !start || !child || !row || !out_j || !out_w || !is_unbound) {
        r = sn_alloc_failure();
        goto done;
    }
    if ((r = check_no_cycle(bones, bone_count, is_unbound)) != SINEW_OK) goto done;
    if ((r = prepare_bones(bones, bone_count, blend, lb)) != SINEW_OK) goto done;
    list_children(bones, bone_count, start, child);
    memset(is_unbound, 0, n);

    size_t unbound = 0, first_unbound = 0;
    for (size_t v = 0; v < n; ++v) {
        if (v % SN_SKIN_TOOLS_PROGRESS_EVERY == 0 && (r = sn_progress(&env, STAGE, (float)v / (float)n)) != SINEW_OK)
            goto done;
        const float *p = sn_point(positions, v);
        size_t owner = SIZE_MAX, nearest = 0;
        double owner_d = INFINITY, nearest_d = INFINITY;
        for (size_t b = 0; b < bone_count; ++b) {
            double dist = segment_distance(&lb[b], p);
            if (dist < nearest_d) {
                nearest_d = dist;
                nearest = b;
            }
            if (dist < owner_d && in_subspace(bones, lb, start, child, b, p)) {
                owner_d = dist;
                owner = b;
            }
        }
        size_t m;
        /* Every point has an owner (see the header: the same plane_side
         * value decides both sides of a plane, so rounding cannot open a gap). */
        if (owner == SIZE_MAX || (d.max_distance > 0.0f && owner_d > d.max_distance)) {
            if (unbound == 0) first_unbound = v;
            is_unbound[v] = 1;
            ++unbound;
            row[0].joint = bones[nearest].joint;
            row[0].weight = 1.0;
            m = 1;
        } else {
            m = blend_row(bones, lb, start, child, owner, p, row);
        }
        /* Two bones of one joint (a pelvis with a segment to each hip) share it. */
        m = sn_skin_merge_joints(row, m);
        sn_skin_sort_by_weight(row, m);
        sn_skin_write_row(row, m, k, out_j + v * k, out_w + v * k);
    }
    if (report) {
        report->unbound_count = unbound;
        sn_skin_unbound_list_fill(report->unbound, report->unbound_capacity, is_unbound, n);
        sn_write_struct(caller_report, report, sizeof *report);
    }
    if (unbound > 0 && d.unbound == SINEW_SKIN_UNBOUND_REPORT) {
        r = sn_fail(SINEW_ERROR_OUTSIDE_DOMAIN,
                    "vertex %zu lies farther than max_distance %g from its bone (%zu vertices unbound); raise "
                    "max_distance or bind them to the nearest bone",
                    first_unbound, (double)d.max_distance, unbound);
        goto done;
    }
    memcpy(joints, out_j, total * sizeof *joints);
    memcpy(weights, out_w, total * sizeof *weights);
    r = SINEW_OK;
done:
    sn_free(&env, lb);
    sn_free(&env, start);
    sn_free(&env, child);
    sn_free(&env, row);
    sn_free(&env, out_j);
    sn_free(&env, out_w);
    sn_free(&env, is_unbound);
    return r;
}
