/* sinew_soffd_driver_from_skin: checks, weld, decimation, the distance
 * report and the outputs. */
#include <float.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "geom/bvh.h"
#include "soffd/driver/driver_defaults.h"
#include "soffd/driver/driver_internal.h"

static double wall_seconds(void)
{
    struct timespec ts;
    if (timespec_get(&ts, TIME_UTC) != TIME_UTC) return 0.0;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static sinew_result check_options(const sinew_soffd_driver_desc *d)
{
    if (d->target_triangle_count == 0 && d->max_error == 0.0f)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "desc sets neither target_triangle_count nor max_error");
    if (!(d->max_error >= 0.0f) || !isfinite(d->max_error))
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "desc->max_error is %g (needs a finite value >= 0)",
                       (double)d->max_error);
    if (!(d->weld_tolerance >= 1e-9f && d->weld_tolerance < 0.1f))
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "desc->weld_tolerance is %g (needs 1e-9 to 0.1)",
                       (double)d->weld_tolerance);
    if (!(d->joint_emphasis > 0.0f) || !isfinite(d->joint_emphasis))
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "desc->joint_emphasis is %g (needs a finite value > 0)",
                       (double)d->joint_emphasis);
    if (!(d->joint_radius > 0.0f) || !isfinite(d->joint_radius))
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "desc->joint_radius is %g (needs a finite value > 0)",
                       (double)d->joint_radius);
    return SINEW_OK;
}

static sinew_result check_outputs(const float *out_positions, const uint32_t *out_triangles)
{
    if (!out_positions != !out_triangles)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s is NULL but %s is not (give both, or neither to ask the sizes)",
                       out_positions ? "out_triangles" : "out_positions",
                       out_positions ? "out_positions" : "out_triangles");
    if ((uintptr_t)out_positions % sizeof(float) || (uintptr_t)out_triangles % sizeof(uint32_t))
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s is not aligned to 4 bytes",
                       (uintptr_t)out_positions % sizeof(float) ? "out_positions" : "out_triangles");
    return SINEW_OK;
}

/* The box of the vertices the faces use. */
static void skin_box(const sn_driver_skin *s, double lo[3], double hi[3])
{
    for (int i = 0; i < 3; ++i) lo[i] = INFINITY, hi[i] = -INFINITY;
    for (size_t k = 0; k < 3 * s->triangle_count; ++k) {
        const float *p = (const float *)((const char *)s->positions + s->triangles[k] * s->stride);
        for (int i = 0; i < 3; ++i) {
            if (p[i] < lo[i]) lo[i] = p[i];
            if (p[i] > hi[i]) hi[i] = p[i];
        }
    }
}

/* Largest distance from the vertices `used` (flags over `points`) to the
 * surface of `bvh`. */
static float largest_distance(const sn_bvh *bvh, const float *points, size_t stride, size_t count,
                              const uint8_t *used)
{
    double worst = 0;
    for (size_t v = 0; v < count; ++v) {
        if (used && !used[v]) continue;
        const float *p = (const float *)((const char *)points + v * stride);
        sn_bvh_hit hit;
        if (!sn_bvh_closest(bvh, p, INFINITY, &hit)) continue;
        /* In double from the closest point: the float dist2 of far-apart
         * points near the float range overflows. */
        double d2 = 0;
        for (int i = 0; i < 3; ++i) d2 += ((double)p[i] - hit.point[i]) * ((double)p[i] - hit.point[i]);
        if (d2 > worst) worst = d2;
    }
    return (float)sqrt(worst);
}

/* Fills the report's distances: skin vertices to the driver and back. */
static sinew_result measure(const sn_env *env, const sn_driver_skin *s, const float *pos, size_t nv,
                            const uint32_t *tris, size_t nt, sinew_soffd_driver_report *rep)
{
    sn_bvh driver = {0}, skin = {0};
    uint8_t *used = (uint8_t *)sn_calloc(env, s->vertex_count, "used skin vertices");
    if (!used) return sn_alloc_failure();
    for (size_t k = 0; k < 3 * s->triangle_count; ++k) used[s->triangles[k]] = 1;
    sinew_result r = sn_bvh_build(&driver, env, pos, 0, tris, nt);
    if (r == SINEW_OK) r = sn_bvh_build(&skin, env, s->positions, s->stride, s->triangles, s->triangle_count);
    if (r == SINEW_OK) {
        rep->skin_to_driver_distance = largest_distance(&driver, s->positions, s->stride, s->vertex_count, used);
        rep->driver_to_skin_distance = largest_distance(&skin, pos, 3 * sizeof(float), nv, NULL);
    }
    sn_bvh_free(&driver, env);
    sn_bvh_free(&skin, env);
    sn_free(env, used);
    return r;
}

typedef struct driver_work {
    sn_driver_skin skin;
    sn_driver_joints joints;
    uint32_t *rep;      /* weld representative per skin vertex, then driver index per survivor */
    float *pos;         /* working positions, per skin vertex */
    uint32_t *tris;     /* welded triangles, then the driver's */
    size_t vertex_count, triangle_count;
} driver_work;

/* Renumbers the surviving vertices in skin order and packs their positions. */
static size_t compact(driver_work *w)
{
    size_t n = w->skin.vertex_count, count = 0;
    for (size_t v = 0; v < n; ++v) w->rep[v] = UINT32_MAX;
    for (size_t k = 0; k < 3 * w->triangle_count; ++k) w->rep[w->tris[k]] = 0;
    for (size_t v = 0; v < n; ++v) {
        if (w->rep[v] == UINT32_MAX) continue;
        memmove(&w->pos[3 * count], &w->pos[3 * v], 3 * sizeof(float));
        w->rep[v] = (uint32_t)count++;
    }
    for (size_t k = 0; k < 3 * w->triangle_count; ++k) w->tris[k] = w->rep[w->tris[k]];
    return count;
}

static sinew_result build(const sn_env *env, const sinew_soffd_driver_desc *d, driver_work *w,
                          sinew_soffd_driver_report *rep)
{
    double lo[3], hi[3];
    skin_box(&w->skin, lo, hi);
    double diag = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                       (hi[2] - lo[2]) * (hi[2] - lo[2]));
    if (!(diag > 0))
        return sn_fail(SINEW_ERROR_DEGENERATE, "the skin's faces span no extent (box diagonal %g)", diag);
    /* Every distance reported is at most the diagonal: within it, all are floats. */
    if (diag > FLT_MAX)
        return sn_fail(SINEW_ERROR_OUTSIDE_DOMAIN, "the skin's box diagonal (%g) passes the float range", diag);
    size_t nv = w->skin.vertex_count;
    w->rep = (uint32_t *)sn_alloc_array(env, nv, sizeof(uint32_t), "weld map");
    w->pos = (float *)sn_alloc_array(env, nv, 3 * sizeof(float), "driver positions");
    w->tris = (uint32_t *)sn_alloc_array(env, w->skin.triangle_count, 3 * sizeof(uint32_t), "driver triangles");
    if (!w->rep || !w->pos || !w->tris) return sn_alloc_failure();
    sinew_result r = sn_driver_weld(env, &w->skin, (double)d->weld_tolerance * diag, lo, w->rep,
                                    &rep->welded_vertices);
    if (r != SINEW_OK) return r;
    for (size_t v = 0; v < nv; ++v)
        memcpy(&w->pos[3 * v], (const char *)w->skin.positions + v * w->skin.stride, 3 * sizeof(float));
    for (size_t k = 0; k < 3 * w->skin.triangle_count; ++k) w->tris[k] = w->rep[w->skin.triangles[k]];
    sn_driver_decimate_args args = {w->pos, nv, w->tris, w->skin.triangle_count, d->target_triangle_count,
                                    (double)d->max_error * diag, &w->joints};
    r = sn_driver_decimate(env, &args);
    if (r != SINEW_OK) return r;
    if (args.tri_count == 0)
        return sn_fail(SINEW_ERROR_DEGENERATE, "every skin triangle collapsed in the weld (weld_tolerance %g)",
                       (double)d->weld_tolerance);
    w->triangle_count = args.tri_count;
    w->vertex_count = compact(w);
    rep->vertex_count = w->vertex_count;
    rep->triangle_count = w->triangle_count;
    rep->diagonal = (float)diag;
    return measure(env, &w->skin, w->pos, w->vertex_count, w->tris, w->triangle_count, rep);
}

sinew_result sinew_soffd_driver_from_skin(sinew_context *ctx, const sinew_polymesh *mesh,
                                          const sinew_soffd_driver_desc *desc, float *out_positions,
                                          size_t position_capacity, uint32_t *out_triangles,
                                          size_t triangle_capacity, sinew_soffd_driver_report *report)
{
    sn_clear_error();
    double start = wall_seconds();
    if (!mesh || !desc) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "%s is NULL", mesh ? "desc" : "mesh");
    sinew_result r = sn_check_struct_out(report, "report");
    if (r != SINEW_OK) return r;
    sinew_soffd_driver_desc d;
    r = sn_read_struct(&d, sizeof d, desc, "desc");
    if (r != SINEW_OK) return r;
    sn_driver_resolve(&d);
    if ((r = check_options(&d)) != SINEW_OK || (r = check_outputs(out_positions, out_triangles)) != SINEW_OK ||
        (r = sn_check_points(&mesh->positions, "skin vertex")) != SINEW_OK)
        return r;
    sn_env env;
    sn_env_from_context(&env, ctx);
    driver_work w = {0};
    sinew_soffd_driver_report rep;
    memset(&rep, 0, sizeof rep);
    rep.struct_size = sizeof rep;
    r = sn_driver_joints_build(&env, &d, &w.joints);
    if (r == SINEW_OK) r = sn_driver_read_skin(&env, mesh, &w.skin);
    if (r == SINEW_OK) r = build(&env, &d, &w, &rep);
    if (r == SINEW_OK && out_positions &&
        (w.vertex_count > position_capacity || w.triangle_count > triangle_capacity))
        r = sn_fail(SINEW_ERROR_BUFFER_TOO_SMALL, "the driver has %zu vertices and %zu triangles; the buffers hold %zu "
                    "and %zu", w.vertex_count, w.triangle_count, position_capacity, triangle_capacity);
    if (r == SINEW_OK && out_positions) {
        memcpy(out_positions, w.pos, w.vertex_count * 3 * sizeof(float));
        memcpy(out_triangles, w.tris, w.triangle_count * 3 * sizeof(uint32_t));
    }
    if (r == SINEW_OK || r == SINEW_ERROR_BUFFER_TOO_SMALL) {
        rep.seconds = wall_seconds() - start;
        sn_write_struct(report, &rep, sizeof rep);
    }
    sn_driver_joints_free(&env, &w.joints);
    sn_driver_skin_free(&env, &w.skin);
    sn_free(&env, w.rep);
    sn_free(&env, w.pos);
    sn_free(&env, w.tris);
    return r;
}
