/* Building a placement (§3.1): validate the desc, shoot rays along V from the
 * ruled surface between the offset curves, place the contact control points by
 * chord length along the middle (u) and arc length across (v), handle misses,
 * and make the lattice. */
#include <math.h>
#include <string.h>

#include "geom/bvh.h"
#include "lattice/lattice_defaults.h"
#include "lattice/placement/placement_internal.h"

typedef struct builder {
    const sinew_placement_desc *desc;
    const sn_env *env;
    double view[3];
    sn_place_path path;
    sn_bvh bvh;
    double *depth;    /* dense row/column scratch */
    uint8_t *ok;
    double *length;
    size_t rays;
} builder;

static sinew_result check_desc(const sinew_placement_desc *d, uint32_t count[3], uint32_t order[3])
{
    sinew_result r = sn_check_points(&d->path, "path point");
    if (r) return r;
    if (d->path.count < 2)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "the path has %zu point%s; at least 2 are needed",
                       d->path.count, d->path.count == 1 ? "" : "s");
    if ((unsigned)d->path_kind > SINEW_PLACEMENT_PATH_BSPLINE)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "unknown path kind %d", (int)d->path_kind);
    if (d->path_order != 0 && (d->path_order < 2 || d->path_order > SINEW_LATTICE_MAX_ORDER))
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "path order %u is outside 2..%d", d->path_order,
                       SINEW_LATTICE_MAX_ORDER);
    for (int c = 0; c < 3; ++c)
        if (!isfinite(d->view[c]))
            return sn_fail(SINEW_ERROR_NON_FINITE, "view direction %c is not finite (%g)", "xyz"[c],
                           (double)d->view[c]);
    if (!isfinite(d->width)) return sn_fail(SINEW_ERROR_NON_FINITE, "width is not finite (%g)", (double)d->width);
    if (!(d->width > 0.0f))
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "width is %g; it must be > 0", (double)d->width);
    if (!isfinite(d->height))
        return sn_fail(SINEW_ERROR_NON_FINITE, "height is not finite (%g)", (double)d->height);
    if (!(d->height > 0.0f))
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "height is %g; it must be > 0", (double)d->height);
    if ((r = sn_place_check_scalar(&d->width_scale, "width scale", false))) return r;
    if ((r = sn_place_check_scalar(&d->height_scale, "height scale", true))) return r;
    static const uint32_t default_count[2] = {SN_PLACE_DEFAULT_COUNT_U, SN_PLACE_DEFAULT_COUNT_V};
    for (int a = 0; a < 3; ++a) {
        order[a] = d->order[a] ? d->order[a] : SN_LAT_DEFAULT_ORDER;
        if (order[a] < 2 || order[a] > SINEW_LATTICE_MAX_ORDER)
            return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "order %u on axis %c is outside 2..%d", order[a],
                           "uvw"[a], SINEW_LATTICE_MAX_ORDER);
        count[a] = d->count[a] ? d->count[a] : (a < 2 ? default_count[a] : order[a]);
        if (count[a] < order[a])
            return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "axis %c has %u control points, fewer than its order %u",
                           "uvw"[a], count[a], order[a]);
        if (count[a] > SN_PLACE_MAX_COUNT)
            return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "axis %c has %u control points; at most %d",
                           "uvw"[a], count[a], SN_PLACE_MAX_COUNT);
    }
    if (d->oversample > SN_PLACE_MAX_OVERSAMPLE)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "oversample %u is outside 1..%u", d->oversample,
                       SN_PLACE_MAX_OVERSAMPLE);
    if ((unsigned)d->volume > SINEW_PLACEMENT_OFFSET)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "unknown volume kind %d", (int)d->volume);
    if ((unsigned)d->miss > SINEW_PLACEMENT_MISS_DEPTH)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "unknown miss policy %d", (int)d->miss);
    if (!isfinite(d->miss_depth))
        return sn_fail(SINEW_ERROR_NON_FINITE, "miss depth is not finite (%g)", (double)d->miss_depth);
    if (d->miss_depth < 0.0f)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "miss depth is %g; it must be >= 0", (double)d->miss_depth);
    if ((unsigned)d->outside > SINEW_LATTICE_OUTSIDE_EXTEND)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "unknown outside policy %d", (int)d->outside);
    if ((r = sn_check_points(&d->scene.positions, "scene vertex"))) return r;
    if (d->scene.triangle_count == 0) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "the scene has no triangles");
    if (d->scene.triangle_count > UINT32_MAX)
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "the scene has %zu triangles; at most %u", d->scene.triangle_count,
                       UINT32_MAX);
    return sn_check_index_view(d->scene.indices, d->scene.index_type, d->scene.index_stride, d->scene.triangle_count,
                               3, d->scene.positions.count, "scene triangle");
}

/* Offset distance d at path fraction s. */
static double width_at(const builder *b, double s)
{
    /* d(u) is one-dimensional: a count across v is ignored, never read. */
    sinew_placement_scalar along = b->desc->width_scale;
    along.count[1] = 0;
    return (double)b->desc->width * sn_place_scalar(&along, s, 0.0);
}

/* R(s, t): the ruled surface between the offset curves, in the view plane. */
static void ruled(const builder *b, double s, double t, double out[3])
{
    double c[3], n[3];
    sn_place_path_eval(&b->path, s, c, n);
    double off = (2.0 * t - 1.0) * width_at(b, s);
    for (int k = 0; k < 3; ++k) out[k] = c[k] + off * n[k];
}

/* First hit along V from R(s, t): its depth (distance along V). */
static bool shoot(builder *b, double s, double t, double *depth)
{
    double o[3];
    ruled(b, s, t, o);
    float of[3] = {(float)o[0], (float)o[1], (float)o[2]};
    float df[3] = {(float)b->view[0], (float)b->view[1], (float)b->view[2]};
    sn_bvh_hit hit;
    ++b->rays;
    if (!sn_bvh_raycast(&b->bvh, of, df, INFINITY, &hit)) return false;
    *depth = (double)hit.t;
    return true;
}

/* Fills values whose ok flag is 0 by linear interpolation in x (index when x is
 * NULL) between the nearest filled ones; the ends copy the nearest. Elements
 * are val[i * stride]. Returns how many were filled before (0 = none: nothing
 * changes). */
static size_t fill_gaps(double *val, const uint8_t *ok, const double *x, size_t n, size_t stride)
{
    size_t hits = 0, prev = SIZE_MAX;
    for (size_t i = 0; i < n; ++i) hits += ok[i * stride] != 0;
    if (hits == 0 || hits == n) return hits;
    for (size_t i = 0; i <= n; ++i) {
        if (i < n && !ok[i * stride]) continue;
        /* Fill the run (prev, i). */
        for (size_t g = prev == SIZE_MAX ? 0 : prev + 1; g < i; ++g) {
            if (prev == SIZE_MAX) val[g * stride] = val[i * stride];
            else if (i == n) val[g * stride] = val[prev * stride];
            else {
                double x0 = x ? x[prev * stride] : (double)prev, x1 = x ? x[i * stride] : (double)i;
                double xg = x ? x[g * stride] : (double)g;
                double t = x1 > x0 ? (xg - x0) / (x1 - x0) : 0.5;
                val[g * stride] = (1.0 - t) * val[prev * stride] + t * val[i * stride];
            }
        }
        prev = i;
    }
    return hits;
}

/* Shoots n rays along a line of the ruled surface: (s0 + ds * k, t0 + dt * k)
 * for k < n; leaves depths and hit flags in b->depth, b->ok and applies the miss
 * policy. Returns the number of hits (for the interpolate policy 0 means the
 * depths are meaningless). */
static sinew_result shoot_line(builder *b, double s0, double ds, double t0, double dt, size_t n, size_t *hits)
{
    *hits = 0;
    for (size_t k = 0; k < n; ++k) {
        double s = s0 + ds * (double)k, t = t0 + dt * (double)k;
        b->ok[k] = shoot(b, s, t, &b->depth[k]);
        if (b->ok[k]) {
            ++*hits;
        } else if (b->desc->miss == SINEW_PLACEMENT_MISS_FAIL) {
            return sn_fail(SINEW_ERROR_NO_RESULT,
                           "the ray at path fraction %.6g, across %.6g missed the scene (miss policy: fail)", s, t);
        } else if (b->desc->miss == SINEW_PLACEMENT_MISS_DEPTH) {
            b->depth[k] = (double)b->desc->miss_depth;
        }
    }
    if (b->desc->miss == SINEW_PLACEMENT_MISS_INTERPOLATE) fill_gaps(b->depth, b->ok, NULL, n, 1);
    if (b->desc->miss == SINEW_PLACEMENT_MISS_DEPTH) *hits = n;
    return SINEW_OK;
}

/* Cumulative 3D length along the points R(s_k, t_k) + depth_k V of the last
 * shoot_line, into b->length; returns the total. */
static double line_length(builder *b, double s0, double ds, double t0, double dt, size_t n)
{
    double prev[3] = {0, 0, 0};
    b->length[0] = 0.0;
    for (size_t k = 0; k < n; ++k) {
        double p[3];
        ruled(b, s0 + ds * (double)k, t0 + dt * (double)k, p);
        for (int c = 0; c < 3; ++c) p[c] += b->depth[k] * b->view[c];
        if (k > 0)
            b->length[k] = b->length[k - 1] + sqrt((p[0] - prev[0]) * (p[0] - prev[0]) +
                                                   (p[1] - prev[1]) * (p[1] - prev[1]) +
                                                   (p[2] - prev[2]) * (p[2] - prev[2]));
        memcpy(prev, p, sizeof p);
    }
    return b->length[n - 1];
}

static void builder_free(builder *b)
{
    sn_place_path_free(&b->path, b->env);
    sn_bvh_free(&b->bvh, b->env);
    sn_free(b->env, b->depth);
    sn_free(b->env, b->ok);
    sn_free(b->env, b->length);
}

void sn_place_free(sinew_placement *p)
{
    if (!p) return;
    sinew_lattice_destroy(p->lattice);
    sn_free(&p->env, p->hit);
    sn_free(&p->env, p->dof);
    sn_free(&p->env, p->ceiling);
    sn_free(&p->env, p->lift);
    sn_free(&p->env, p->layer_dir);
    sn_free(&p->env, p->height);
    sn_free(&p->env, p->points);
    sn_free(&p->env, p->params);
    sn_free(&p->env, p->jacobians);
    sn_env env = p->env;
    sn_free(&env, p);
}

void sinew_placement_destroy(sinew_placement *placement)
{
    sn_place_free(placement);
}

sinew_result sn_place_alloc(sinew_placement *p)
{
    size_t columns = (size_t)p->count[0] * p->count[1];
    size_t points = columns * p->count[2];
    const sn_env *e = &p->env;
    if (!(p->hit = sn_alloc_array(e, columns, 3 * sizeof(float), "placement hits")) ||
        !(p->dof = sn_alloc_array(e, columns, 3 * sizeof(float), "placement directions")) ||
        !(p->ceiling = sn_alloc_array(e, columns, sizeof(float), "placement ceilings")) ||
        !(p->lift = sn_calloc_array(e, columns, sizeof(float), "placement lifts")) ||
        !(p->layer_dir = sn_alloc_array(e, columns, 3 * sizeof(float), "placement layer directions")) ||
        !(p->height = sn_alloc_array(e, points, sizeof(float), "placement heights")) ||
        !(p->points = sn_alloc_array(e, points, 3 * sizeof(float), "placement lattice points")) ||
        !(p->params = sn_alloc_array(e, columns, 3 * sizeof(float), "placement parameters")) ||
        !(p->jacobians = sn_alloc_array(e, columns, 9 * sizeof(float), "placement jacobians")))
        return sn_alloc_failure();
    return SINEW_OK;
}

/* Rays from each contact point along its direction: how far it may rise before
 * it meets the scene above it. */
static void compute_ceilings(sinew_placement *p, builder *b, double scale)
{
    size_t columns = (size_t)p->count[0] * p->count[1];
    float eps = (float)(1e-5 * scale);
    for (size_t c = 0; c < columns; ++c) {
        const float *d = &p->dof[3 * c];
        float o[3];
        for (int k = 0; k < 3; ++k) o[k] = p->hit[3 * c + k] + eps * d[k];
        sn_bvh_hit hit;
        ++b->rays;
        p->ceiling[c] = sn_bvh_raycast(&b->bvh, o, d, INFINITY, &hit) ? hit.t : INFINITY;
    }
}

/* Shoots the contact grid: places columns by chord length along the middle and
 * rows by arc length across each column, and fills p->hit. */
static sinew_result shoot_contact(sinew_placement *p, builder *b, uint32_t over, double *s_col, double *t_grid,
                                  double *depth_grid, uint8_t *ok_grid)
{
    const uint32_t cu = p->count[0], cv = p->count[1];
    const sinew_placement_desc *d = b->desc;
    size_t mu = (size_t)(cu - 1) * over + 1, mv = (size_t)(cv - 1) * over + 1;
    size_t hits;
    /* Middle of the ruled surface: chord length fixes the columns. */
    sinew_result r = shoot_line(b, 0.0, 1.0 / (double)(mu - 1), 0.5, 0.0, mu, &hits);
    if (r) return r;
    double total = hits ? line_length(b, 0.0, 1.0 / (double)(mu - 1), 0.5, 0.0, mu) : 0.0;
    for (uint32_t i = 0; i < cu; ++i)
        s_col[i] = total > 0.0 ? sn_place_invert(b->length, mu, p->greville[0][i] * total) : p->greville[0][i];
    p->contact_length = (float)(total > 0.0 ? total : b->path.length);
    /* Each column: arc length across it fixes the rows; then the contact rays. */
    for (uint32_t i = 0; i < cu; ++i) {
        if ((r = sn_progress(b->env, "placement: rays", (float)i / (float)cu))) return r;
        if ((r = shoot_line(b, s_col[i], 0.0, 0.0, 1.0 / (double)(mv - 1), mv, &hits))) return r;
        double across = hits ? line_length(b, s_col[i], 0.0, 0.0, 1.0 / (double)(mv - 1), mv) : 0.0;
        for (uint32_t j = 0; j < cv; ++j) {
            size_t c = i + (size_t)cu * j;
            t_grid[c] = across > 0.0 ? sn_place_invert(b->length, mv, p->greville[1][j] * across) : p->greville[1][j];
            ok_grid[c] = shoot(b, s_col[i], t_grid[c], &depth_grid[c]);
            if (ok_grid[c]) continue;
            ++p->misses;
            if (d->miss == SINEW_PLACEMENT_MISS_FAIL)
                return sn_fail(SINEW_ERROR_NO_RESULT,
                               "the ray of contact point (%u, %u) missed the scene (miss policy: fail)", i, j);
            if (d->miss == SINEW_PLACEMENT_MISS_DEPTH) depth_grid[c] = (double)d->miss_depth;
        }
    }
    size_t columns = (size_t)cu * cv;
    if (p->misses == columns && d->miss != SINEW_PLACEMENT_MISS_DEPTH)
        return sn_fail(SINEW_ERROR_NO_RESULT, "no ray hit the scene (%zu contact rays, %zu in all)", columns, b->rays);
    if (p->misses == columns)
        return sn_fail(SINEW_ERROR_NO_RESULT, "no contact ray hit the scene (%zu rays)", columns);
    if (d->miss == SINEW_PLACEMENT_MISS_INTERPOLATE && p->misses) {
        /* Along each column first, then across columns for the empty ones. */
        uint8_t *column_ok = ok_grid + columns; /* cu flags after the grid */
        for (uint32_t i = 0; i < cu; ++i)
            column_ok[i] = fill_gaps(&depth_grid[i], &ok_grid[i], &t_grid[i], cv, cu) != 0;
        for (uint32_t j = 0; j < cv; ++j) fill_gaps(&depth_grid[(size_t)cu * j], column_ok, s_col, cu, 1);
    }
    for (uint32_t i = 0; i < cu; ++i)
        for (uint32_t j = 0; j < cv; ++j) {
            size_t c = i + (size_t)cu * j;
            double o[3];
            ruled(b, s_col[i], t_grid[c], o);
            for (int k = 0; k < 3; ++k) p->hit[3 * c + k] = (float)(o[k] + depth_grid[c] * b->view[k]);
        }
    return SINEW_OK;
}

sinew_result sinew_placement_create(sinew_context *ctx, const sinew_placement_desc *caller_desc,
                                    sinew_placement **out)
{
    sn_clear_error();
    if (!out) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "placement out pointer is NULL");
    sinew_placement_desc local;
    sinew_result r = sn_read_struct(&local, sizeof local, caller_desc, "placement desc");
    if (r != SINEW_OK) return r;
    const sinew_placement_desc *desc = &local;
    uint32_t count[3], order[3];
    r = check_desc(desc, count, order);
    if (r) return r;

    sn_env env;
    sn_env_from_context(&env, ctx);
    builder b;
    memset(&b, 0, sizeof b);
    b.desc = desc;
    b.env = &env;
    double vlen = 0.0;
    for (int c = 0; c < 3; ++c) vlen += (double)desc->view[c] * desc->view[c];
    vlen = sqrt(vlen);
    for (int c = 0; c < 3; ++c) b.view[c] = vlen > 0.0 ? desc->view[c] / vlen : (c == 2 ? -1.0 : 0.0);

    sinew_placement *p = sn_calloc(&env, sizeof *p, "placement");
    if (!p) return sn_alloc_failure();
    p->held_bytes = sizeof *p;
    env.held = &p->held_bytes;
    p->env = sn_env_kept(&env);
    memcpy(p->count, count, sizeof count);
    p->volume = desc->volume;
    for (int c = 0; c < 3; ++c) p->up[c] = -b.view[c];
    for (int a = 0; a < 3; ++a)
        for (uint32_t i = 0; i < count[a]; ++i) p->greville[a][i] = sn_place_greville(count[a], order[a], i);

    const uint32_t cu = count[0], cv = count[1], cw = count[2];
    const uint32_t over = desc->oversample ? desc->oversample : SN_PLACE_DEFAULT_OVERSAMPLE;
    size_t columns = (size_t)cu * cv;
    size_t dense = (size_t)((cu > cv ? cu : cv) - 1) * over + 1;
    double *s_col = NULL, *t_grid = NULL, *depth_grid = NULL;
    uint8_t *ok_grid = NULL;
    if ((r = sn_place_alloc(p))) goto fail;
    if ((r = sn_place_path_build(&b.path, &env, desc, b.view))) goto fail;
    sn_indices scene;
    if ((r = sn_indices_read(&env, desc->scene.indices, desc->scene.index_type, desc->scene.index_stride,
                             desc->scene.triangle_count, 3, desc->scene.positions.count, "scene triangle", &scene)))
        goto fail;
    r = sn_bvh_build(&b.bvh, &env, desc->scene.positions.data, desc->scene.positions.stride, scene.data,
                     desc->scene.triangle_count);
    sn_indices_free(&env, &scene);
    if (r) goto fail;
    if (!(b.depth = sn_alloc_array(&env, dense, sizeof(double), "placement ray depths")) ||
        !(b.ok = sn_alloc_array(&env, dense, 1, "placement ray flags")) ||
        !(b.length = sn_alloc_array(&env, dense, sizeof(double), "placement ray lengths")) ||
        !(s_col = sn_alloc_array(&env, cu, sizeof(double), "placement columns")) ||
        !(t_grid = sn_alloc_array(&env, columns, sizeof(double), "placement rows")) ||
        !(depth_grid = sn_alloc_array(&env, columns, sizeof(double), "placement depths")) ||
        !(ok_grid = sn_alloc_array(&env, columns + cu, 1, "placement hit flags"))) {
        r = sn_alloc_failure();
        goto fail;
    }
    if ((r = shoot_contact(p, &b, over, s_col, t_grid, depth_grid, ok_grid))) goto fail;

    /* Width and heights. */
    p->path_length = (float)b.path.length;
    double dmax = 0.0, hmax = 0.0;
    for (size_t k = 0; k < dense; ++k) dmax = fmax(dmax, width_at(&b, (double)k / (double)(dense - 1)));
    for (uint32_t j = 0; j < cv; ++j)
        for (uint32_t i = 0; i < cu; ++i) {
            double h = (double)desc->height *
                       sn_place_scalar(&desc->height_scale, p->greville[0][i], p->greville[1][j]);
            hmax = fmax(hmax, h);
            for (uint32_t k = 0; k < cw; ++k)
                p->height[i + (size_t)cu * (j + (size_t)cv * k)] = (float)(p->greville[2][k] * h);
        }
    p->max_width = (float)dmax;
    p->max_height = (float)hmax;

    sinew_lattice_desc ld;
    SINEW_INIT(&ld);
    memcpy(ld.count, count, sizeof count);
    memcpy(ld.order, order, sizeof order);
    ld.origin[1] = (float)-dmax;
    ld.extents[0] = p->contact_length;
    ld.extents[1] = (float)(2.0 * dmax);
    ld.extents[2] = (float)hmax;
    ld.outside = desc->outside;
    sinew_context lctx = {env};
    if ((r = sinew_lattice_create(&lctx, &ld, &p->lattice))) goto fail;

    /* Directions: up for F1; for F2 the contact surface's normals. */
    for (size_t c = 0; c < columns; ++c)
        for (int k = 0; k < 3; ++k) p->dof[3 * c + k] = p->layer_dir[3 * c + k] = (float)p->up[k];
    if ((r = sn_place_update_lattice(p, desc->volume == SINEW_PLACEMENT_OFFSET))) goto fail;
    if (desc->volume == SINEW_PLACEMENT_OFFSET) memcpy(p->dof, p->layer_dir, columns * 3 * sizeof(float));
    compute_ceilings(p, &b, (double)p->contact_length + 2.0 * dmax + hmax);
    p->rays_cast = b.rays;
    if ((r = sn_progress(&env, "placement: rays", 1.0f))) goto fail;

    builder_free(&b);
    sn_free(&env, s_col);
    sn_free(&env, t_grid);
    sn_free(&env, depth_grid);
    sn_free(&env, ok_grid);
    *out = p;
    return SINEW_OK;
fail:
    builder_free(&b);
    sn_free(&env, s_col);
    sn_free(&env, t_grid);
    sn_free(&env, depth_grid);
    sn_free(&env, ok_grid);
    sn_place_free(p);
    return r;
}
