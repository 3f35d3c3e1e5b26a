/*
 * sinew_bbw_auto_weights: a surface and a skeleton in, the skinning layout
 * out. Prepares the surface (auto_surface.c), builds and solves the bbw at
 * the fast path's tolerance, takes the top k at the welded vertices, gives
 * the vertices the domain does not weight the row of the nearest reached
 * domain vertex (auto_attach.c) and scatters the rows to the input vertices.
 */
#include <string.h>

#include "bbw/auto_attach.h"
#include "bbw/auto_surface.h"
#include "bbw/bbw_internal.h"
#include "bbw/defaults.h"

/* The handles in the prepared surface's coordinates (2D: projected into
 * its plane; copies owned by the caller, NULL in 3D). */
typedef struct auto_handles {
    float *joints, *points;
} auto_handles;

static sinew_result project_handles(const sn_env *env, const sinew_bbw_auto_desc *d, const sn_bbw_prepared *p,
                                    sinew_bbw_desc *bd, auto_handles *h)
{
    bd->joint_positions = d->joint_positions;
    bd->points = d->points;
    if (p->dimension == 3) return SINEW_OK;
    const sinew_points *src[2] = {&d->joint_positions, &d->points};
    sinew_points *dst[2] = {&bd->joint_positions, &bd->points};
    float **copy[2] = {&h->joints, &h->points};
    for (int i = 0; i < 2; ++i) {
        if (!src[i]->count || !src[i]->data) continue;
        sinew_result r = sn_check_float_array(src[i]->data, src[i]->stride, 3, src[i]->count,
                                              i ? "point handles" : "joint positions");
        if (r != SINEW_OK) return r;
        *copy[i] = sn_alloc_array(env, src[i]->count, 3 * sizeof(float), "projected handles");
        if (!*copy[i]) return sn_alloc_failure();
        for (size_t k = 0; k < src[i]->count; ++k) sn_bbw_prepared_point(p, sn_point(src[i], k), *copy[i] + 3 * k);
        *dst[i] = (sinew_points){.data = *copy[i], .count = src[i]->count};
    }
    return SINEW_OK;
}

/* Builds the bbw over the prepared surface (3D) or its own triangles (2D). */
static sinew_result build(sinew_context *ctx, const sn_env *env, const sinew_bbw_auto_desc *d,
                          const sn_bbw_prepared *p, sinew_bbw **out)
{
    sinew_trimesh mesh = {.positions = {.data = p->positions, .count = p->vertex_count},
                          .indices = p->triangles,
                          .triangle_count = p->triangle_count};
    sinew_bbw_desc bd;
    SINEW_INIT(&bd);
    if (p->dimension == 3) bd.surface = &mesh;
    else bd.triangles = &mesh;
    bd.grid_resolution = d->grid_resolution;
    bd.bones = d->bones;
    bd.bone_count = d->bone_count;
    bd.handle_outside = d->handle_outside;
    auto_handles h = {0};
    sinew_result r = project_handles(env, d, p, &bd, &h);
    if (r == SINEW_OK) r = sinew_bbw_create(ctx, &bd, out);
    sn_free(env, h.joints);
    sn_free(env, h.points);
    return r;
}

/* Top k at the welded vertices; rows the domain cannot weight stay zero. */
static sinew_result rows_at_vertices(const sinew_bbw *b, const sn_bbw_prepared *p, uint32_t k, uint32_t *joints,
                                     float *weights)
{
    sinew_points pts = {.data = p->positions, .count = p->vertex_count};
    sinew_result r = sinew_bbw_top_k(b, &pts, k, joints, weights, 0, p->vertex_count);
    if (r != SINEW_ERROR_OUTSIDE_DOMAIN) return r;
    /* Some vertex lies beyond the volume's reach: one at a time. */
    for (size_t v = 0; v < p->vertex_count; ++v) {
        r = sinew_bbw_top_k(b, &pts, k, joints, weights, v, 1);
        if (r == SINEW_ERROR_OUTSIDE_DOMAIN) {
            memset(joints + v * k, 0, k * sizeof *joints);
            memset(weights + v * k, 0, k * sizeof *weights);
        } else if (r != SINEW_OK) {
            return r;
        }
    }
    return SINEW_OK;
}

static sinew_result check_desc(const sinew_bbw_auto_desc *d, const uint32_t *joints, const float *weights,
                               size_t entry_count, uint32_t *k)
{
    if (d->influence_count > SN_BBW_MAX_INFLUENCES)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "influence count %zu exceeds %u", d->influence_count,
                       SN_BBW_MAX_INFLUENCES);
    *k = (uint32_t)d->influence_count;   /* resolved: 1..SN_BBW_MAX_INFLUENCES */
    if (!d->surface) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "surface is NULL");
    if (!(d->tolerance >= 0.0) || d->tolerance > 1.0)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "tolerance %g is not in [0, 1]", d->tolerance);
    size_t need;
    if (!sn_mul_size(d->surface->positions.count, *k, &need))
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "%zu vertices times %u influences overflow",
                       d->surface->positions.count, *k);
    if (entry_count != need)
        return sn_fail(SINEW_ERROR_MISMATCH, "entry count %zu is not the %zu vertices times %u influences (%zu)",
                       entry_count, d->surface->positions.count, *k, need);
    if (!joints || !weights) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s is NULL", joints ? "weights" : "joints");
    sinew_result r = sn_check_float_array(joints, 0, 1, need, "joints");
    return r == SINEW_OK ? sn_check_float_array(weights, 0, 1, need, "weights") : r;
}

static void fill_report(sinew_bbw_auto_report *rep, const sn_bbw_prepared *p, const sinew_bbw *b, double tolerance)
{
    const sinew_bbw_info *i = &b->info;
    rep->dimension = p->dimension;
    rep->welded_vertex_count = p->vertex_count;
    rep->component_count = p->component_count;
    rep->flipped_component_count = p->flipped_count;
    rep->clipped_handle_count = i->clipped_handle_count;
    rep->first_clipped_handle = i->first_clipped_handle;
    rep->max_clip_distance = i->max_clip_distance;
    rep->unreached_region_count = i->unreached_region_count;
    rep->grid_resolution = i->grid_resolution;
    rep->domain_vertex_count = i->vertex_count;
    rep->iterations = i->iterations;
    rep->error_bound = i->error_bound;
    rep->converged = i->error_bound <= tolerance;
    rep->seconds_domain = i->seconds_domain;
    rep->seconds_operators = i->seconds_operators;
    rep->seconds_solve = i->seconds_solve;
}

/* Scatters the welded rows to the input vertices, counting the attached
 * and still unweighted input vertices. */
static void scatter(const sn_bbw_prepared *p, size_t n, uint32_t k, const uint32_t *wj, const float *ww,
                    const uint8_t *attached, uint32_t *joints, float *weights, sinew_bbw_auto_report *rep)
{
    for (size_t v = 0; v < n; ++v) {
        size_t w = p->vertex_map[v];
        memcpy(joints + v * k, wj + w * k, k * sizeof *joints);
        memcpy(weights + v * k, ww + w * k, k * sizeof *weights);
        rep->attached_surface_vertex_count += attached[w];
        rep->unweighted_surface_vertex_count += ww[w * k] == 0.0f;
    }
}

sinew_result sinew_bbw_auto_weights(sinew_context *ctx, const sinew_bbw_auto_desc *caller, uint32_t *joints,
                                    float *weights, size_t entry_count, sinew_bbw_auto_report *report)
{
    sn_clear_error();
    double t0 = sn_bbw_seconds();
    sinew_bbw_auto_desc d;
    uint32_t k = 0;
    sinew_result r = sn_read_struct(&d, sizeof d, caller, "desc");
    if (r == SINEW_OK && report) r = sn_check_struct_out(report, "report");
    sn_bbw_auto_resolve(&d);
    if (r == SINEW_OK) r = check_desc(&d, joints, weights, entry_count, &k);
    if (r != SINEW_OK) return r;
    sn_env env;
    sn_env_from_context(&env, ctx);
    sn_bbw_prepared p;
    if ((r = sn_bbw_prepare_surface(&env, d.surface, &p)) != SINEW_OK) return r;
    double t1 = sn_bbw_seconds();
    sinew_bbw *b = NULL;
    uint32_t *wj = sn_alloc_array(&env, p.vertex_count, k * sizeof *wj, "welded joints");
    float *ww = sn_alloc_array(&env, p.vertex_count, k * sizeof *ww, "welded weights");
    uint8_t *attached = sn_calloc_array(&env, p.vertex_count, 1, "attached vertices");
    sinew_result solved = SINEW_OK;
    const double tolerance = d.tolerance;
    char message[SN_MESSAGE_CAPACITY] = {0};
    sinew_bbw_auto_report rep = {0};
    if (!wj || !ww || !attached) r = sn_alloc_failure();
    if (r == SINEW_OK) r = build(ctx, &env, &d, &p, &b);
    if (r == SINEW_OK) {
        sinew_bbw_solve_desc sd;
        SINEW_INIT(&sd);
        sd.tolerance = tolerance;
        sd.max_iterations = d.max_iterations;
        sd.penalty = SN_BBW_AUTO_PENALTY;
        solved = sinew_bbw_solve(ctx, b, &sd);
        if (solved == SINEW_ERROR_NOT_CONVERGED) sn_save_error(message);
        else r = solved;
    }
    double t2 = sn_bbw_seconds();
    if (r == SINEW_OK) r = rows_at_vertices(b, &p, k, wj, ww);
    size_t attached_count = 0, unweighted = 0;
    for (size_t v = 0; r == SINEW_OK && v < p.vertex_count; ++v) attached[v] = ww[v * k] == 0.0f;
    if (r == SINEW_OK) r = sn_bbw_attach_rows(b, p.positions, p.vertex_count, k, wj, ww, &attached_count, &unweighted);
    for (size_t v = 0; r == SINEW_OK && v < p.vertex_count; ++v) attached[v] = attached[v] && ww[v * k] != 0.0f;
    if (r == SINEW_OK) {
        fill_report(&rep, &p, b, tolerance);
        scatter(&p, d.surface->positions.count, k, wj, ww, attached, joints, weights, &rep);
        rep.seconds_prepare = t1 - t0;
        rep.seconds_weights = sn_bbw_seconds() - t2;
        rep.seconds_total = sn_bbw_seconds() - t0;
        if (report) sn_write_struct(report, &rep, sizeof rep);
    }
    sinew_bbw_destroy(b);
    sn_free(&env, wj);
    sn_free(&env, ww);
    sn_free(&env, attached);
    sn_bbw_prepared_free(&env, &p);
    if (r != SINEW_OK) return r;
    if (solved == SINEW_ERROR_NOT_CONVERGED) {
        sn_restore_error(message);
        return solved;
    }
    sn_clear_error();
    return SINEW_OK;
}
