/* Bone links (Weber; the skinning chapter's remedy for joints with a large
 * range of motion): a joint becomes a chain of links at its rest place, and
 * the weights it shares with its parent are spread along the chain. */
#include <math.h>
#include <string.h>

#include "sinew/skin_tools.h"
#include "skin/skin_defaults.h"
#include "skin/tools/influence_rows.h"

/* What sinew_skin_create takes. */
#define MAX_SKIN_JOINTS 65536u

static const double PI = 3.14159265358979323846;

static int misaligned(const void *p)
{
    return ((uintptr_t)p % sizeof(float)) != 0;
}

/* Rest position (skin space) of a joint from its inverse bind matrix
 * [A | t]: the point the matrix takes to the origin, -A^-1 t. Fails with
 * DEGENERATE when A is singular (relative to its columns' lengths). */
static sinew_result joint_position(const float *ib, size_t j, double out[3])
{
    double a[3][3], t[3];
    for (int c = 0; c < 3; ++c)
        for (int r = 0; r < 3; ++r) a[r][c] = ib[4 * c + r];
    for (int r = 0; r < 3; ++r) t[r] = ib[12 + r];
    double cof[3][3];
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) {
            int r1 = (r + 1) % 3, r2 = (r + 2) % 3, c1 = (c + 1) % 3, c2 = (c + 2) % 3;
            cof[r][c] = a[r1][c1] * a[r2][c2] - a[r1][c2] * a[r2][c1];
        }
    double det = a[0][0] * cof[0][0] + a[0][1] * cof[0][1] + a[0][2] * cof[0][2];
    double bound = 1.0;   /* Hadamard: |det| <= product of the column lengths */
    for (int c = 0; c < 3; ++c) bound *= sqrt(a[0][c] * a[0][c] + a[1][c] * a[1][c] + a[2][c] * a[2][c]);
    if (!(fabs(det) > 1e-9 * bound))
        return sn_fail(SINEW_ERROR_DEGENERATE, "bone links: inverse bind matrix of joint %zu is singular (det %g)", j,
                       det);
    /* A^-1 = cof^T / det. */
    for (int r = 0; r < 3; ++r) out[r] = -(cof[0][r] * t[0] + cof[1][r] * t[1] + cof[2][r] * t[2]) / det;
    return SINEW_OK;
}

/* The linear part of a column-major affine matrix applied to v. */
static void apply_linear(const float *m, const double v[3], double out[3])
{
    for (int r = 0; r < 3; ++r) out[r] = m[r] * v[0] + m[4 + r] * v[1] + m[8 + r] * v[2];
}

/* Unit bone direction in the joint's rest frame (see the report's comment). */
static sinew_result bone_axis(size_t joint_count, const uint32_t *parents, const float *ib, size_t joint, float axis[3])
{
    double pj[3], dir[3] = {0, 0, 0}, len = 0.0;
    sinew_result r = joint_position(ib + 16 * joint, joint, pj);
    if (r != SINEW_OK) return r;
    for (size_t c = 0; c < joint_count && len == 0.0; ++c) {
        if (parents[c] != joint) continue;
        double pc[3], d[3];
        if ((r = joint_position(ib + 16 * c, c, pc)) != SINEW_OK) return r;
        double scale = 0.0;
        for (int i = 0; i < 3; ++i) d[i] = pc[i] - pj[i], scale = fmax(scale, fmax(fabs(pc[i]), fabs(pj[i])));
        double dl = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        if (dl <= 1e-9 * scale || dl == 0.0) continue;   /* a child at the joint's own place */
        apply_linear(ib + 16 * joint, d, dir);
        len = sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
    }
    if (len == 0.0) {
        double pp[3], d[3];
        size_t parent = parents[joint];
        if ((r = joint_position(ib + 16 * parent, parent, pp)) != SINEW_OK) return r;
        for (int i = 0; i < 3; ++i) d[i] = pj[i] - pp[i];
        apply_linear(ib + 16 * joint, d, dir);
        len = sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
    }
    for (int i = 0; i < 3; ++i) axis[i] = len > 0.0 && isfinite(len) ? (float)(dir[i] / len) : 0.0f;
    return SINEW_OK;
}

/* Parents in range, no joint its own parent, no cycle. state: joint_count
 * bytes of scratch. */
static sinew_result check_parents(size_t joint_count, const uint32_t *parents, unsigned char *state)
{
    for (size_t j = 0; j < joint_count; ++j) {
        uint32_t p = parents[j];
        if (p == SINEW_SKIN_NO_PARENT) continue;
        if (p >= joint_count)
            return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE, "bone links: joint %zu has parent %u, but there are only %zu joints",
                           j, p, joint_count);
        if (p == j) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "bone links: joint %zu is its own parent", j);
    }
    /* 0 = not seen, 1 = on the path being walked, 2 = known to reach a root. */
    memset(state, 0, joint_count);
    for (size_t j = 0; j < joint_count; ++j) {
        size_t at = j;
        while (at != SINEW_SKIN_NO_PARENT && state[at] == 0) {
            state[at] = 1;
            at = parents[at] == SINEW_SKIN_NO_PARENT ? (size_t)SINEW_SKIN_NO_PARENT : parents[at];
        }
        if (at != SINEW_SKIN_NO_PARENT && state[at] == 1)
            return sn_fail(SINEW_ERROR_INVALID_ARGUMENT,
                           "bone links: the parents of joint %zu form a cycle (through joint %zu, parent %u)", j, at,
                           parents[at]);
        for (at = j; at != SINEW_SKIN_NO_PARENT && state[at] == 1;)
            state[at] = 2, at = parents[at] == SINEW_SKIN_NO_PARENT ? (size_t)SINEW_SKIN_NO_PARENT : parents[at];
    }
    return SINEW_OK;
}

static sinew_result check_inverse_binds(size_t joint_count, const float *ib)
{
    for (size_t j = 0; j < joint_count; ++j) {
        const float *m = ib + 16 * j;
        for (int i = 0; i < 16; ++i)
            if (!isfinite(m[i]))
                return sn_fail(SINEW_ERROR_NON_FINITE,
                               "bone links: inverse bind matrix of joint %zu has a non-finite element (row %d, column %d) (%g)",
                               j, i % 4, i / 4, (double)m[i]);
        if (m[3] != 0.0f || m[7] != 0.0f || m[11] != 0.0f || m[15] != 1.0f)
            return sn_fail(SINEW_ERROR_INVALID_ARGUMENT,
                           "bone links: inverse bind matrix of joint %zu is not affine: last row is (%g %g %g %g), not (0 0 0 1)",
                           j, (double)m[3], (double)m[7], (double)m[11], (double)m[15]);
    }
    return SINEW_OK;
}

/* The number of links from the options. */
static sinew_result link_count_of(const sinew_skin_links_desc *d, uint32_t *out)
{
    if (!isfinite(d->max_link_angle))
        return sn_fail(SINEW_ERROR_NON_FINITE, "bone links: max_link_angle is not finite (%g)", (double)d->max_link_angle);
    if (!isfinite(d->range_of_motion))
        return sn_fail(SINEW_ERROR_NON_FINITE, "bone links: range_of_motion is not finite (%g)", (double)d->range_of_motion);
    if (d->max_link_angle < 0.0f || d->max_link_angle > (float)PI)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "bone links: max_link_angle %g is not in (0, pi]",
                       (double)d->max_link_angle);
    if (d->link_count > SINEW_SKIN_MAX_LINKS)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "bone links: link_count %zu is above SINEW_SKIN_MAX_LINKS (%u)",
                       d->link_count, SINEW_SKIN_MAX_LINKS);
    if (d->link_count > 0) {
        *out = d->link_count;
        return SINEW_OK;
    }
    if (d->range_of_motion == 0.0f)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "bone links: link_count is 0 and no range_of_motion is given");
    if (d->range_of_motion < 0.0f || d->range_of_motion > (float)(2.0 * PI))
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "bone links: range_of_motion %g is not in (0, 2 pi]",
                       (double)d->range_of_motion);
    /* Valid angles whose count the resolve left 0 (sn_skin_links_resolve): too many links. */
    const double step = (double)d->max_link_angle;
    return sn_fail(SINEW_ERROR_INVALID_ARGUMENT,
                   "bone links: range_of_motion %g in links of %g needs %.0f links, above SINEW_SKIN_MAX_LINKS (%u)",
                   (double)d->range_of_motion, step, ceil((double)d->range_of_motion / step * (1.0 - 1e-6)),
                   SINEW_SKIN_MAX_LINKS);
}

/* Every positive-weight slot names a joint of the skeleton. */
static sinew_result check_weighted_joints(size_t vertex_count, size_t k, const uint32_t *joints, const float *weights,
                                          size_t joint_count)
{
    for (size_t v = 0; v < vertex_count; ++v)
        for (size_t s = 0; s < k; ++s)
            if (weights[v * k + s] > 0.0f && joints[v * k + s] >= joint_count)
                return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE,
                               "bone links: vertex %zu slot %zu names joint %u, but there are only %zu joints", v, s,
                               joints[v * k + s], joint_count);
    return SINEW_OK;
}

/* Chain member c (0 = parent, n = the split joint, else an appended link). */
static uint32_t chain_joint(uint32_t c, uint32_t n, uint32_t parent, uint32_t joint, size_t joint_count)
{
    if (c == 0) return parent;
    if (c >= n) return joint;
    return (uint32_t)(joint_count + c - 1);
}

/* Row entries (distinct joints, from sn_skin_gather_row) with the
 * parent-joint pair spread along the chain; returns the entry count (never
 * more than before) and sets *moved when the pair was split. */
static size_t redistribute_row(sn_skin_entry *e, size_t count, uint32_t n, uint32_t parent, uint32_t joint,
                               size_t joint_count, int *moved)
{
    double a = 0.0, b = 0.0;
    for (size_t i = 0; i < count; ++i) {
        if (e[i].joint == parent) a = e[i].weight;
        if (e[i].joint == joint) b = e[i].weight;
    }
    *moved = a > 0.0 && b > 0.0 && n > 1;
    if (!*moved) return count;
    size_t rest = 0;
    for (size_t i = 0; i < count; ++i)
        if (e[i].joint != parent && e[i].joint != joint) e[rest++] = e[i];
    const double pair = a + b, s = (double)n * b / pair;
    double whole = floor(s);
    if (whole > (double)n) whole = (double)n;
    const uint32_t k = (uint32_t)whole;
    const double upper = s - whole;
    e[rest].joint = chain_joint(k, n, parent, joint, joint_count);
    e[rest++].weight = pair * (1.0 - upper);
    if (upper > 0.0) {
        e[rest].joint = chain_joint(k + 1, n, parent, joint, joint_count);
        e[rest++].weight = pair * upper;
    }
    return rest;
}

sinew_result sinew_skin_bone_links(sinew_context *ctx, size_t joint_count, const uint32_t *parents,
                                   const float *inverse_bind, uint32_t joint, const sinew_skin_links_desc *desc,
                                   size_t vertex_count, size_t influence_count, const uint32_t *in_joints,
                                   const float *in_weights, uint32_t *out_parents, float *out_inverse_bind,
                                   size_t joint_capacity, size_t *out_joint_count, uint32_t *out_joints,
                                   float *out_weights, sinew_skin_links_report *report)
{
    sn_clear_error();
    sinew_skin_links_desc d;
    SINEW_INIT(&d);
    sinew_result r;
    if (desc && (r = sn_read_struct(&d, sizeof d, desc, "bone links desc")) != SINEW_OK) return r;
    sn_skin_links_resolve(&d);
    if (report && (r = sn_check_struct_out(report, "bone links report")) != SINEW_OK) return r;
    if (joint_count == 0) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "bone links: the skeleton has no joints");
    if (joint_count > MAX_SKIN_JOINTS)
        return sn_fail(SINEW_ERROR_UNSUPPORTED, "bone links: %zu joints, more than sinew_skin_create takes (%u)",
                       joint_count, MAX_SKIN_JOINTS);
    if (!parents || !inverse_bind)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "bone links: %s is NULL", parents ? "inverse_bind" : "parents");
    if (!out_joint_count) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "bone links: out_joint_count is NULL");
    const int query = !out_parents && !out_inverse_bind;
    if (!query && (!out_parents || !out_inverse_bind))
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "bone links: %s is NULL but %s is not",
                       out_parents ? "out_inverse_bind" : "out_parents", out_parents ? "out_parents" : "out_inverse_bind");
    if (!query && (!out_joints || !out_weights))
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "bone links: %s is NULL", out_joints ? "out_weights" : "out_joints");
    const void *aligned[] = {parents, inverse_bind, in_joints, in_weights, out_parents, out_inverse_bind, out_joints, out_weights};
    static const char *const names[] = {"parents", "inverse_bind", "in_joints", "in_weights",
                                        "out_parents", "out_inverse_bind", "out_joints", "out_weights"};
    for (int i = 0; i < 8; ++i)
        if (misaligned(aligned[i]))
            return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "bone links: %s is not aligned to 4 bytes", names[i]);
    if (joint >= joint_count)
        return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE, "bone links: joint %u to split, but there are only %zu joints",
                       joint, joint_count);
    uint32_t n = 0;
    if ((r = link_count_of(&d, &n)) != SINEW_OK) return r;
    const size_t new_count = joint_count + n - 1;
    if (new_count > MAX_SKIN_JOINTS)
        return sn_fail(SINEW_ERROR_UNSUPPORTED,
                       "bone links: %zu joints and %u links make %zu joints, more than sinew_skin_create takes (%u)",
                       joint_count, n, new_count, MAX_SKIN_JOINTS);
    if ((r = check_inverse_binds(joint_count, inverse_bind)) != SINEW_OK) return r;
    /* api.md: arrays whose bytes pass PTRDIFF_MAX cannot exist, so they are
     * refused before a weight is read (products past SIZE_MAX are refused by
     * the shared check below). */
    size_t slots = 0;
    if (sn_mul_size(vertex_count, influence_count, &slots) && !sn_span_fits(slots, sizeof(float), sizeof(float)))
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "bone links weights: %zu vertices of %zu slots overflow", vertex_count,
                       influence_count);
    if ((r = sn_skin_check_influences(vertex_count, influence_count, in_joints, in_weights, "bone links weights")) != SINEW_OK)
        return r;
    if ((r = check_weighted_joints(vertex_count, influence_count, in_joints, in_weights, joint_count)) != SINEW_OK)
        return r;

    sn_env env;
    sn_env_from_context(&env, ctx);
    const size_t total = slots;
    unsigned char *state = (unsigned char *)sn_alloc(&env, joint_count, "bone links joint states");
    sn_skin_entry *row = (sn_skin_entry *)sn_alloc_array(&env, influence_count, sizeof *row, "bone links row");
    uint32_t *joints = NULL;
    float *weights = NULL;
    if (!state || !row) {
        r = sn_alloc_failure();
        goto done;
    }
    if ((r = check_parents(joint_count, parents, state)) != SINEW_OK) goto done;
    const uint32_t parent = parents[joint];
    if (parent == SINEW_SKIN_NO_PARENT) {
        r = sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "bone links: joint %u is a root: it has no parent bone to link to", joint);
        goto done;
    }
    sinew_skin_links_report rep;
    SINEW_INIT(&rep);
    rep.link_count = n;
    if ((r = bone_axis(joint_count, parents, inverse_bind, joint, rep.bone_axis)) != SINEW_OK) goto done;
    if (!query && joint_capacity < new_count) {
        *out_joint_count = new_count;
        r = sn_fail(SINEW_ERROR_BUFFER_TOO_SMALL, "bone links: joint capacity %zu is below the %zu joints written",
                    joint_capacity, new_count);
        goto done;
    }

    /* Weights go to scratch first: the outputs may be the inputs, and must
     * stay untouched on failure. A query still counts the moved vertices for
     * the report. */
    if (!query) {
        joints = (uint32_t *)sn_alloc_array(&env, total, sizeof *joints, "bone links joints");
        weights = (float *)sn_alloc_array(&env, total, sizeof *weights, "bone links weights");
        if (!joints || !weights) {
            r = sn_alloc_failure();
            goto done;
        }
    }
    for (size_t v = 0; v < vertex_count; ++v) {
        size_t count = sn_skin_gather_row(in_joints, in_weights, influence_count, v, row);
        int moved = 0;
        count = redistribute_row(row, count, n, parent, joint, joint_count, &moved);
        rep.vertices_redistributed += (size_t)moved;
        if (query) continue;
        sn_skin_sort_by_weight(row, count);
        sn_skin_write_row(row, count, influence_count, joints + v * influence_count, weights + v * influence_count);
    }

    *out_joint_count = new_count;
    if (!query) {
        memmove(out_parents, parents, joint_count * sizeof *parents);
        memmove(out_inverse_bind, inverse_bind, joint_count * 16 * sizeof *inverse_bind);
        for (uint32_t c = 1; c < n; ++c) {
            out_parents[joint_count + c - 1] = chain_joint(c - 1, n, parent, joint, joint_count);
            memcpy(out_inverse_bind + 16 * (joint_count + c - 1), inverse_bind + 16 * (size_t)joint, 16 * sizeof(float));
        }
        out_parents[joint] = chain_joint(n - 1, n, parent, joint, joint_count);
        memcpy(out_joints, joints, total * sizeof *joints);
        memcpy(out_weights, weights, total * sizeof *weights);
    }
    if (report) sn_write_struct(report, &rep, sizeof rep);
    r = SINEW_OK;
done:
    sn_free(&env, state);
    sn_free(&env, row);
    sn_free(&env, joints);
    sn_free(&env, weights);
    return r;
}
