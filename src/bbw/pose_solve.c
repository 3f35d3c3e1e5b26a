/*
 * Pose time, the public calls: validation, the caller's scratch carved into
 * the solver's arrays, the local/global alternation (pose_local.c,
 * pose_global.c), and the transforms written back only once all are known
 * to be finite.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "bbw/defaults.h"
#include "bbw/pose_internal.h"

/* Offsets (in doubles, then the two handle maps) of the scratch regions. */
typedef struct scratch_layout {
    size_t x, h, w, s, q, base, g, lam, rot, doubles;
    size_t bytes;   /* SIZE_MAX on overflow */
} scratch_layout;

static scratch_layout layout_of(const sinew_bbw_pose *p, size_t nc)
{
    scratch_layout l;
    memset(&l, 0, sizeof l);
    const size_t nv = p->var_count, d = p->dim;
    size_t parts[9], at = 0;
    int ok = sn_mul_size(nv, d, &parts[0]) && sn_mul_size(nv, nv, &parts[1]) && sn_mul_size(nv, nc, &parts[2]) &&
             sn_mul_size(nc, nc, &parts[3]) && sn_mul_size(nc, d, &parts[4]) && sn_mul_size(nv, d, &parts[5]);
    parts[6] = nv;
    parts[7] = nc;
    ok = ok && sn_mul_size(p->cluster_count, d * d, &parts[8]);
    size_t *slots[9] = {&l.x, &l.h, &l.w, &l.s, &l.q, &l.base, &l.g, &l.lam, &l.rot};
    for (int i = 0; i < 9 && ok; ++i) {
        *slots[i] = at;
        ok = sn_add_size(at, parts[i], &at);
    }
    l.doubles = at;
    size_t bytes = 0, maps = 0;
    ok = ok && sn_mul_size(at, sizeof(double), &bytes) && sn_mul_size(p->handle_count, 2 * sizeof(uint32_t), &maps) &&
         sn_add_size(bytes, maps, &bytes) && sn_add_size(bytes, 64, &bytes);
    l.bytes = ok ? bytes : SIZE_MAX;
    return l;
}

size_t sinew_bbw_pose_scratch_size(const sinew_bbw_pose *p, size_t position_count)
{
    return p ? layout_of(p, position_count).bytes : 0;
}

/* Checks a transform (pose_solve.c): finite entries, last row 0 0 0 1; names `what` and handle j. */
static sinew_result sn_pose_check_transform(const float *m, size_t j, const char *what)
{
    for (int e = 0; e < 16; ++e)
        if (!isfinite(m[e]))
            return sn_fail(SINEW_ERROR_NON_FINITE, "%s of handle %zu has a non-finite entry (row %d, column %d: %g)",
                           what, j, e % 4, e / 4, (double)m[e]);
    if (m[3] != 0.0f || m[7] != 0.0f || m[11] != 0.0f || m[15] != 1.0f)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT,
                       "%s of handle %zu is not affine: last row is (%g %g %g %g), not (0 0 0 1)", what, j,
                       (double)m[3], (double)m[7], (double)m[11], (double)m[15]);
    return SINEW_OK;
}

static void carve(sn_pose_state *st, const scratch_layout *l, void *scratch)
{
    double *base = (double *)(void *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
    st->x = base + l->x, st->h = base + l->h, st->w = base + l->w, st->s = base + l->s;
    st->q = base + l->q, st->base = base + l->base, st->g = base + l->g, st->lam = base + l->lam;
    st->rot = base + l->rot;
    st->free_of = (uint32_t *)(void *)(base + l->doubles);
    st->free_list = st->free_of + st->p->handle_count;
}

static sinew_result check_inputs(const sinew_bbw_pose *p, const sinew_bbw_pose_solve_desc *d, const float *transforms)
{
    const size_t m = p->handle_count;
    if (d->position_count && !d->positions)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "positions is NULL but position_count is %zu", d->position_count);
    size_t fixed = 0;
    for (size_t j = 0; j < m; ++j) {
        int is_fixed = d->fixed && d->fixed[j];
        fixed += is_fixed != 0;
        if (is_fixed) {
            sinew_result r = sn_pose_check_transform(transforms + 16 * j, j, "fixed transform");
            if (r != SINEW_OK) return r;
        } else if (!d->cold_start) {
            for (int e = 0; e < 16; ++e)
                if (!isfinite(transforms[16 * j + e]))
                    return sn_fail(SINEW_ERROR_NON_FINITE,
                                   "warm-start transform of handle %zu has a non-finite entry (row %d, column %d: %g); "
                                   "give finite values or set cold_start",
                                   j, e % 4, e / 4, (double)transforms[16 * j + e]);
        }
    }
    for (size_t i = 0; i < d->position_count; ++i) {
        const sinew_bbw_pose_position *pc = &d->positions[i];
        if (pc->handle >= m)
            return sn_fail(SINEW_ERROR_INDEX_OUT_OF_RANGE, "position %zu names handle %u, but there are only %zu", i,
                           pc->handle, m);
        for (uint32_t a = 0; a < p->dim; ++a) {
            if (!isfinite(pc->rest[a]))
                return sn_fail(SINEW_ERROR_NON_FINITE, "position %zu has a non-finite rest %c (%g)", i, "xyz"[a],
                               (double)pc->rest[a]);
            if (!isfinite(pc->target[a]))
                return sn_fail(SINEW_ERROR_NON_FINITE, "position %zu has a non-finite target %c (%g)", i, "xyz"[a],
                               (double)pc->target[a]);
        }
        if (d->fixed && d->fixed[pc->handle])
            return sn_fail(SINEW_ERROR_INVALID_ARGUMENT,
                           "position %zu is on handle %u, whose transform is fixed: give one or the other", i,
                           pc->handle);
    }
    if (fixed == 0 && d->position_count == 0)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT,
                       "no constraint: fix at least one handle's transform or give at least one position");
    return SINEW_OK;
}

/* Handle j's transform from the normalised unknowns, column-major 4x4;
 * false when an entry leaves the float range. */
static int to_transform(const sinew_bbw_pose *p, const double *x, size_t j, float out[16])
{
    const uint32_t d = p->dim, per = p->per;
    const size_t nv = p->var_count;
    double m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    for (uint32_t c = 0; c < d; ++c) {
        const double *xc = x + c * nv + j * per;
        double t = p->centre[c] + p->scale * xc[d];
        for (uint32_t b = 0; b < d; ++b) {
            m[4 * b + c] = xc[b];
            t -= xc[b] * p->centre[b];
        }
        m[12 + c] = t;
    }
    for (int e = 0; e < 16; ++e) {
        if (!(fabs(m[e]) <= FLT_MAX)) return 0;
        out[e] = (float)m[e];
    }
    return 1;
}

sinew_result sinew_bbw_pose_solve(const sinew_bbw_pose *p, const sinew_bbw_pose_solve_desc *caller,
                                  float *transforms, size_t transform_floats, void *scratch, size_t scratch_bytes,
                                  sinew_bbw_pose_report *report)
{
    sn_clear_error();
    if (!p) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "pose is NULL");
    sinew_bbw_pose_solve_desc desc;
    sinew_result r = sn_read_struct(&desc, sizeof desc, caller, "desc");
    if (r != SINEW_OK) return r;
    if (!transforms) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "transforms is NULL");
    if ((r = sn_check_float_array(transforms, 0, 16, p->handle_count, "transforms")) != SINEW_OK) return r;
    if (transform_floats != 16 * p->handle_count)
        return sn_fail(SINEW_ERROR_MISMATCH, "transform_floats is %zu, but %zu handles need %zu", transform_floats,
                       p->handle_count, 16 * p->handle_count);
    if (report && sn_check_struct_out(report, "report") != SINEW_OK) return SINEW_ERROR_INVALID_ARGUMENT;
    scratch_layout l = layout_of(p, desc.position_count);
    if (l.bytes == SIZE_MAX)
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "the scratch for %zu positions overflows", desc.position_count);
    if (!scratch) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "scratch is NULL");
    if (scratch_bytes < l.bytes)
        return sn_fail(SINEW_ERROR_BUFFER_TOO_SMALL, "scratch_bytes is %zu, but this solve needs %zu", scratch_bytes,
                       l.bytes);
    if ((r = check_inputs(p, &desc, transforms)) != SINEW_OK) return r;
    sn_pose_state st = {p, &desc, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, 0};
    carve(&st, &l, scratch);
    if ((r = sn_pose_prepare(&st, transforms)) != SINEW_OK) return r;
    const uint32_t iterations = desc.iterations ? desc.iterations : SN_BBW_POSE_DEFAULT_ITERATIONS;
    sn_pose_identity_rotations(p, st.rot);
    if (!desc.cold_start) sn_pose_local_step(p, st.x, st.rot, SN_POSE_COLD_STEPS);
    for (uint32_t it = 0; it < iterations; ++it) {
        sn_pose_global_step(&st);
        if (it + 1 < iterations) sn_pose_local_step(p, st.x, st.rot, SN_POSE_WARM_STEPS);
    }
    if (p->transform == SINEW_BBW_POSE_SIMILARITY)
        for (size_t f = 0; f < st.nf / p->per; ++f) sn_pose_project_similarity(&st, st.free_list[f]);
    /* Check every output before writing any. */
    float m[16];
    for (size_t j = 0; j < p->handle_count; ++j)
        if (st.free_of[j] != UINT32_MAX && !to_transform(p, st.x, j, m))
            return sn_fail(SINEW_ERROR_NON_FINITE, "the transform of handle %zu leaves the float range", j);
    sinew_bbw_pose_report rep;
    SINEW_INIT(&rep);
    rep.iterations = iterations;
    if (report) rep.energy = sn_pose_energy_of(p, st.x, st.rot, SN_POSE_WARM_STEPS);
    for (size_t j = 0; j < p->handle_count; ++j)
        if (st.free_of[j] != UINT32_MAX) to_transform(p, st.x, j, transforms + 16 * j);
    if (report) sn_write_struct(report, &rep, sizeof rep);
    return SINEW_OK;
}

sinew_result sinew_bbw_pose_energy(const sinew_bbw_pose *p, const float *transforms, size_t transform_floats,
                                   void *scratch, size_t scratch_bytes, double *energy)
{
    sn_clear_error();
    if (!p) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "pose is NULL");
    if (!transforms) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "transforms is NULL");
    if (!energy) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "energy is NULL");
    sinew_result r = sn_check_float_array(transforms, 0, 16, p->handle_count, "transforms");
    if (r != SINEW_OK) return r;
    if (transform_floats != 16 * p->handle_count)
        return sn_fail(SINEW_ERROR_MISMATCH, "transform_floats is %zu, but %zu handles need %zu", transform_floats,
                       p->handle_count, 16 * p->handle_count);
    scratch_layout l = layout_of(p, 0);
    if (l.bytes == SIZE_MAX) return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "the scratch size overflows");
    if (!scratch) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "scratch is NULL");
    if (scratch_bytes < l.bytes)
        return sn_fail(SINEW_ERROR_BUFFER_TOO_SMALL, "scratch_bytes is %zu, but the energy needs %zu", scratch_bytes,
                       l.bytes);
    for (size_t j = 0; j < p->handle_count; ++j)
        if ((r = sn_pose_check_transform(transforms + 16 * j, j, "transform")) != SINEW_OK) return r;
    sn_pose_state st;
    memset(&st, 0, sizeof st);
    st.p = p;
    carve(&st, &l, scratch);
    for (size_t j = 0; j < p->handle_count; ++j) sn_pose_to_unknowns(p, j, transforms + 16 * j, st.x);
    sn_pose_identity_rotations(p, st.rot);
    *energy = sn_pose_energy_of(p, st.x, st.rot, SN_POSE_COLD_STEPS);
    return SINEW_OK;
}
