/*
 * The automatic volume inside a surface: a regular grid whose cells are
 * inside when the generalised winding number at their centre is at least
 * 1/2 (at most -1/2 for a surface wound inwards), each split into six Kuhn tets around its main diagonal (all cells
 * share the diagonal's direction, so neighbouring faces are split alike and
 * the mesh is conforming). By default the volume is graded around the
 * handles: cells holding a point handle or crossed by a bone join it (a
 * handle a little inside a horn or a finger thinner than a cell), and the
 * tets near a handle are bisected (kuhn.h) until the handle is resolved, so
 * handles closer than a cell each still own vertices.
 */
#include <math.h>
#include <string.h>

#include "bbw/bbw_internal.h"
#include "bbw/closed.h"
#include "bbw/defaults.h"
#include "bbw/kuhn.h"
#include "core/small_math.h"
#include "geom/winding.h"

/* Largest accepted grid resolution: beyond it the volume alone outgrows
 * memory long before the solve could finish. */
#define SN_BBW_MAX_RESOLUTION 1024u
/* Refinement near handles: at most this many halvings of the grid cell, on a
 * lattice with room for the closure around them. */
#define SN_BBW_MAX_LEVELS 4u
#define SN_BBW_LATTICE_SHIFT 6u

/* A handle as the refinement sees it: a segment (a point has a == b), the
 * joints of a bone (UINT32_MAX for points) and the cell edge it asks for. */
typedef struct volume_handle {
    double a[3], b[3];        /* where cells are refined */
    double start[3], end[3];  /* the whole handle */
    uint32_t j0, j1;
    double need;
} volume_handle;

typedef struct volume_grid {
    uint32_t n[3];
    double origin[3];
    double h;
} volume_grid;

/* Distance from q to segment ab. */
static double point_segment(const double q[3], const double a[3], const double b[3])
{
    double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, w[3] = {q[0] - a[0], q[1] - a[1], q[2] - a[2]};
    double dd = sn_dot3(d, d), t = dd > 0.0 ? fmin(fmax(sn_dot3(w, d) / dd, 0.0), 1.0) : 0.0;
    double e[3] = {w[0] - t * d[0], w[1] - t * d[1], w[2] - t * d[2]};
    return sqrt(sn_dot3(e, e));
}

/* Distance between segments ab and cd: the smallest over the closest pair of
 * the unclamped lines (when it falls inside both) and the four
 * endpoint-to-segment distances, which covers every other case. */
static double segment_segment(const double a[3], const double b[3], const double c[3], const double d[3])
{
    double best = fmin(fmin(point_segment(a, c, d), point_segment(b, c, d)),
                       fmin(point_segment(c, a, b), point_segment(d, a, b)));
    double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, v[3] = {d[0] - c[0], d[1] - c[1], d[2] - c[2]};
    double w[3] = {a[0] - c[0], a[1] - c[1], a[2] - c[2]};
    double uu = sn_dot3(u, u), uv = sn_dot3(u, v), vv = sn_dot3(v, v), uw = sn_dot3(u, w), vw = sn_dot3(v, w);
    double den = uu * vv - uv * uv;
    if (den > 1e-12 * uu * vv) {
        double s = (uv * vw - vv * uw) / den, t = (uu * vw - uv * uw) / den;
        if (s > 0.0 && s < 1.0 && t > 0.0 && t < 1.0) {
            double e[3];
            for (int x = 0; x < 3; ++x) e[x] = w[x] + s * u[x] - t * v[x];
            best = fmin(best, sqrt(sn_dot3(e, e)));
        }
    }
    return best;
}

static int finite3(const float *p) { return isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]); }

/* The handles of desc the volume can read: finite points, and bones with
 * valid, finite joints (create reports the others when it constrains). Each
 * asks for cells no larger than half its distance to the nearest other
 * handle (bones sharing a joint do not count; a bone is measured from its
 * middle half), a bone also a quarter of its length: then no two handles can
 * snap onto the same vertex (a snap moves at most half a cell's diagonal,
 * 0.87 of its edge). */
static sinew_result gather_handles(const sn_env *env, const sinew_bbw_desc *d, volume_handle **out, size_t *count)
{
    size_t n = 0, cap = d->points.count + d->bone_count;
    *out = NULL;
    *count = 0;
    if (cap == 0) return SINEW_OK;
    volume_handle *hs = sn_alloc_array(env, cap, sizeof *hs, "volume handles");
    if (!hs) return sn_alloc_failure();
    for (size_t i = 0; i < d->points.count; ++i) {
        const float *p = sn_point(&d->points, i);
        if (!finite3(p)) continue;
        volume_handle *h = &hs[n++];
        for (int x = 0; x < 3; ++x) h->a[x] = h->b[x] = h->start[x] = h->end[x] = p[x];
        h->j0 = h->j1 = UINT32_MAX;
        h->need = INFINITY;
    }
    for (size_t i = 0; i < d->bone_count; ++i) {
        uint32_t j0 = d->bones[2 * i], j1 = d->bones[2 * i + 1];
        if (j0 >= d->joint_positions.count || j1 >= d->joint_positions.count) continue;
        const float *p = sn_point(&d->joint_positions, j0), *q = sn_point(&d->joint_positions, j1);
        if (!finite3(p) || !finite3(q)) continue;
        /* A bone needs a vertex of its own, not all of its length resolved:
         * the refinement follows its middle half only. */
        volume_handle *h = &hs[n++];
        for (int x = 0; x < 3; ++x) {
            h->start[x] = p[x];
            h->end[x] = q[x];
            h->a[x] = 0.75 * p[x] + 0.25 * q[x];
            h->b[x] = 0.25 * p[x] + 0.75 * q[x];
        }
        h->j0 = j0;
        h->j1 = j1;
        h->need = point_segment(h->a, h->b, h->b) / 2.0; /* a quarter of the bone's length */
        if (!(h->need > 0.0)) --n; /* a zero-length bone: create refuses it, nothing to refine for */
    }
    for (size_t i = 0; i < n; ++i)
        for (size_t j = i + 1; j < n; ++j) {
            volume_handle *p = &hs[i], *q = &hs[j];
            int linked = p->j0 != UINT32_MAX && q->j0 != UINT32_MAX &&
                         (p->j0 == q->j0 || p->j0 == q->j1 || p->j1 == q->j0 || p->j1 == q->j1);
            if (linked) continue;
            double dist = segment_segment(p->a, p->b, q->a, q->b) / 2.0;
            p->need = fmin(p->need, dist);
            q->need = fmin(q->need, dist);
        }
    *out = hs;
    *count = n;
    return SINEW_OK;
}

static size_t cell_index(const volume_grid *g, const uint32_t c[3])
{
    return ((size_t)c[2] * g->n[1] + c[1]) * g->n[0] + c[0];
}

/* The cell containing q; false when q is outside the grid. */
static int cell_of(const volume_grid *g, const double q[3], uint32_t c[3])
{
    for (int a = 0; a < 3; ++a) {
        double x = floor((q[a] - g->origin[a]) / g->h);
        if (!(x >= 0.0 && x < g->n[a])) return 0;
        c[a] = (uint32_t)x;
    }
    return 1;
}

/* Adds the cells along segment pq (samples a quarter cell apart) to the
 * volume; returns how many were not in it. */
static size_t add_segment_cells(const volume_grid *g, const double p[3], const double q[3], uint8_t *inside)
{
    double len = sqrt((q[0] - p[0]) * (q[0] - p[0]) + (q[1] - p[1]) * (q[1] - p[1]) + (q[2] - p[2]) * (q[2] - p[2]));
    size_t steps = (size_t)fmin(ceil(4.0 * len / g->h), 1e6), added = 0;
    for (size_t s = 0; s <= steps; ++s) {
        double t = steps ? (double)s / (double)steps : 0.0, x[3];
        for (int a = 0; a < 3; ++a) x[a] = p[a] + t * (q[a] - p[a]);
        uint32_t c[3];
        if (!cell_of(g, x, c)) continue;
        uint8_t *flag = &inside[cell_index(g, c)];
        if (!*flag) {
            *flag = 1;
            ++added;
        }
    }
    return added;
}

/* Whether any cell along segment pq is in the volume. */
static int segment_meets_volume(const volume_grid *g, const double p[3], const double q[3], const uint8_t *inside)
{
    double len = point_segment(p, q, q);
    size_t steps = (size_t)fmin(ceil(4.0 * len / g->h), 1e6);
    for (size_t s = 0; s <= steps; ++s) {
        double t = steps ? (double)s / (double)steps : 0.0, x[3];
        uint32_t c[3];
        for (int a = 0; a < 3; ++a) x[a] = p[a] + t * (q[a] - p[a]);
        if (cell_of(g, x, c) && inside[cell_index(g, c)]) return 1;
    }
    return 0;
}

/* Puts the cells holding a handle (a point, or the cells a bone crosses)
 * into the volume. A handle none of whose cells the winding number kept (a
 * tip thinner than a cell, a bone or point beside the shape) is also joined
 * to the volume along the straight segment from its nearest end or quarter
 * point to the nearest inside cell's centre, so its weight spreads into the
 * rest of the shape rather than living on an island. Returns the count of
 * cells added. */
static size_t add_handle_cells(const volume_grid *g, const volume_handle *hs, size_t count, uint8_t *inside)
{
    size_t added = 0;
    for (size_t i = 0; i < count; ++i) {
        const volume_handle *h = &hs[i];
        int lone = !segment_meets_volume(g, h->start, h->end, inside);
        double target[3], best = INFINITY;
        for (uint32_t z = 0; lone && z < g->n[2]; ++z)
            for (uint32_t y = 0; y < g->n[1]; ++y)
                for (uint32_t x = 0; x < g->n[0]; ++x) {
                    if (!inside[cell_index(g, (uint32_t[3]){x, y, z})]) continue;
                    double m[3] = {g->origin[0] + (x + 0.5) * g->h, g->origin[1] + (y + 0.5) * g->h,
                                   g->origin[2] + (z + 0.5) * g->h};
                    double d = point_segment(m, h->start, h->end);
                    if (d < best) {
                        best = d;
                        memcpy(target, m, sizeof m);
                    }
                }
        added += add_segment_cells(g, h->start, h->end, inside);
        if (!lone || best == INFINITY) continue;
        const double *from = h->start, *options[3] = {h->a, h->b, h->end};
        for (int o = 0; o < 3; ++o)
            if (point_segment(options[o], target, target) < point_segment(from, target, target)) from = options[o];
        added += add_segment_cells(g, from, target, inside);
    }
    return added;
}

/* Centre and radius (farthest vertex) of tet t, in world units. */
static void tet_ball(const sn_kuhn *k, size_t t, const volume_grid *g, double unit, double c[3], double *radius)
{
    double p[4][3];
    for (int v = 0; v < 4; ++v)
        for (int a = 0; a < 3; ++a) p[v][a] = g->origin[a] + unit * k->coords[3 * (size_t)k->tets[4 * t + v] + a];
    for (int a = 0; a < 3; ++a) c[a] = 0.25 * (p[0][a] + p[1][a] + p[2][a] + p[3][a]);
    double r2 = 0.0;
    for (int v = 0; v < 4; ++v) {
        double d[3] = {p[v][0] - c[0], p[v][1] - c[1], p[v][2] - c[2]};
        r2 = fmax(r2, sn_dot3(d, d));
    }
    *radius = sqrt(r2);
}

/* Bisects the tets within one of their own cube edges of a handle that asks
 * for smaller cells, one generation per pass, closing the mesh after each. */
static sinew_result refine_near_handles(sinew_bbw *b, sn_kuhn *k, const volume_grid *g, const volume_handle *hs,
                                        size_t count)
{
    size_t cells = (size_t)g->n[0] * g->n[1] * g->n[2];
    double unit = g->h / (double)(1u << k->shift);
    uint8_t *near = sn_calloc_array(&b->env, cells, 1, "volume refinement cells");
    if (!near) return sn_alloc_failure();
    int any = 0;
    for (size_t i = 0; i < count; ++i) {
        if (!(hs[i].need < g->h)) continue;
        uint32_t lo[3], hi[3];
        int outside = 0;
        for (int a = 0; a < 3; ++a) {
            double l = floor((fmin(hs[i].a[a], hs[i].b[a]) - g->origin[a]) / g->h - 1.0);
            double u = floor((fmax(hs[i].a[a], hs[i].b[a]) - g->origin[a]) / g->h + 1.0);
            /* A handle may lie beyond the grid (create refuses it later, with
             * its name); its box then marks nothing, and the clamps keep the
             * conversions in range. */
            if (!(u >= 0.0 && l <= (double)g->n[a] - 1.0)) outside = 1;
            lo[a] = (uint32_t)fmin(fmax(l, 0.0), (double)g->n[a] - 1.0);
            hi[a] = (uint32_t)fmin(fmax(u, 0.0), (double)g->n[a] - 1.0);
        }
        if (outside) continue;
        any = 1;
        for (uint32_t z = lo[2]; z <= hi[2]; ++z)
            for (uint32_t y = lo[1]; y <= hi[1]; ++y)
                for (uint32_t x = lo[0]; x <= hi[0]; ++x) near[cell_index(g, (uint32_t[3]){x, y, z})] = 1;
    }
    sinew_result r = SINEW_OK;
    double finest = g->h / (double)(1u << SN_BBW_MAX_LEVELS);
    for (unsigned pass = 0; any && pass < 3 * SN_BBW_MAX_LEVELS; ++pass) {
        if ((r = sn_progress(&b->env, "bbw: refine", (float)pass / (3.0f * SN_BBW_MAX_LEVELS))) != SINEW_OK) break;
        int split = 0;
        size_t tets = k->tet_count;
        for (size_t t = 0; t < tets && r == SINEW_OK; ++t) {
            if (!near[k->cell[t]] || k->generation[t] >= 3 * SN_BBW_MAX_LEVELS) continue;
            double side = unit * sn_kuhn_side(k, t), c[3], radius;
            tet_ball(k, t, g, unit, c, &radius);
            for (size_t i = 0; i < count; ++i) {
                if (!(fmax(hs[i].need, finest) < side)) continue;
                if (point_segment(c, hs[i].a, hs[i].b) - radius < side) {
                    r = sn_kuhn_bisect(k, t);
                    split = 1;
                    break;
                }
            }
        }
        if (r == SINEW_OK && split) r = sn_kuhn_close(k);
        if (r != SINEW_OK || !split) break;
    }
    sn_free(&b->env, near);
    return r;
}

/* *open = 1 when the surface has an edge without its reverse. */
static sinew_result surface_openness(sinew_bbw *b, const sinew_trimesh *surface, uint8_t *open)
{
    sn_indices ix;
    sinew_result r = sn_indices_read(&b->env, surface->indices, surface->index_type, surface->index_stride,
                                     surface->triangle_count, 3, surface->positions.count, "surface triangle", &ix);
    if (r == SINEW_OK) r = sn_bbw_mark_open_parts(&b->env, ix.data, surface->triangle_count, NULL, open);
    sn_indices_free(&b->env, &ix);
    return r;
}

/* A triangle's bounding box is widened by this share of a cell before it
 * marks cells, so a triangle lying on a cell face marks the cells on both
 * sides whatever the division's rounding. */
#define SN_VOLUME_NEAR_MARGIN 1e-3

/* Sets near[c] = 1 for every cell that a triangle's widened bounding box
 * reaches (positions are finite, checked by the caller). */
static void mark_near_cells(const sinew_trimesh *surface, const volume_grid *g, uint8_t *near)
{
    for (size_t t = 0; t < surface->triangle_count; ++t) {
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (size_t v = 0; v < 3; ++v) {
            const float *p = sn_point(&surface->positions, sn_index_at(surface->indices, surface->index_type,
                                                                      surface->index_stride, 3, t, v));
            for (int a = 0; a < 3; ++a) {
                lo[a] = fmin(lo[a], p[a]);
                hi[a] = fmax(hi[a], p[a]);
            }
        }
        uint32_t c0[3], c1[3];
        for (int a = 0; a < 3; ++a) {
            double x0 = floor((lo[a] - g->origin[a]) / g->h - SN_VOLUME_NEAR_MARGIN);
            double x1 = floor((hi[a] - g->origin[a]) / g->h + SN_VOLUME_NEAR_MARGIN);
            c0[a] = !(x0 > 0.0) ? 0u : x0 >= g->n[a] - 1.0 ? g->n[a] - 1u : (uint32_t)x0;
            c1[a] = !(x1 > 0.0) ? 0u : x1 >= g->n[a] - 1.0 ? g->n[a] - 1u : (uint32_t)x1;
        }
        for (uint32_t z = c0[2]; z <= c1[2]; ++z)
            for (uint32_t y = c0[1]; y <= c1[1]; ++y)
                for (uint32_t x = c0[0]; x <= c1[0]; ++x) near[cell_index(g, (uint32_t[3]){x, y, z})] = 1;
    }
}

enum { SIDE_NONE = 0, SIDE_OUTWARD = 1, SIDE_INWARD = 2, SIDE_UNSET = 3 };

static uint8_t side_at(const sn_winding *wind, const volume_grid *g, uint32_t i, uint32_t j, uint32_t k)
{
    double q[3] = {g->origin[0] + (i + 0.5) * g->h, g->origin[1] + (j + 0.5) * g->h, g->origin[2] + (k + 0.5) * g->h};
    double w = sn_winding_number(wind, q);
    return w >= 0.5 ? SIDE_OUTWARD : w <= -0.5 ? SIDE_INWARD : SIDE_NONE;
}

/* Gives every cell of the face-connected region of cells no triangle's box
 * reaches, from cell `seed` on, the side at seed (stack: room for every
 * cell). Between two such neighbours' centres no triangle passes, so on a
 * closed surface the winding number does not change. */
static void fill_region(const volume_grid *g, const uint8_t *near, size_t seed, uint8_t side, uint8_t *out,
                        uint32_t *stack)
{
    size_t top = 0;
    out[seed] = side;
    stack[top++] = (uint32_t)seed;
    while (top) {
        size_t c = stack[--top];
        uint32_t at[3] = {(uint32_t)(c % g->n[0]), (uint32_t)(c / g->n[0] % g->n[1]),
                          (uint32_t)(c / ((size_t)g->n[0] * g->n[1]))};
        for (int a = 0; a < 3; ++a)
            for (int dir = -1; dir <= 1; dir += 2) {
                if ((dir < 0 && at[a] == 0) || (dir > 0 && at[a] + 1 >= g->n[a])) continue;
                uint32_t nb[3] = {at[0], at[1], at[2]};
                nb[a] = (uint32_t)((int64_t)nb[a] + dir);
                size_t d = cell_index(g, nb);
                if (near[d] || out[d] != SIDE_UNSET) continue;
                out[d] = side;
                stack[top++] = (uint32_t)d;
            }
    }
}

/* Marks the inside cells by the winding number at their centres: at least
 * 1/2; or, for a closed surface with no cell there but some at most -1/2,
 * those (a closed surface wound inwards has winding number -1 inside; an
 * open sheet's negative side is no inside). On a closed surface the winding
 * number is an integer, constant off the surface: only the cells a
 * triangle's box reaches are evaluated one by one, and each face-connected
 * region of the others once (most of a coarse grid's cells on a detailed
 * mesh are of the first kind, most of a fine grid's of the second). An open
 * surface's winding number varies smoothly, so every cell is evaluated. */
static sinew_result classify_cells(sinew_bbw *b, const sinew_trimesh *surface, const volume_grid *g,
                                   uint8_t *inside, size_t *inside_count)
{
    size_t cells = (size_t)g->n[0] * g->n[1] * g->n[2];
    uint8_t open = 0, *near = NULL;
    uint32_t *stack = NULL;
    sinew_result r = surface_openness(b, surface, &open);
    if (r != SINEW_OK) return r;
    if (!open) {
        near = sn_calloc_array(&b->env, cells, 1, "voxel cells near the surface");
        stack = sn_alloc_array(&b->env, cells, sizeof(uint32_t), "voxel region stack");
        if (!near || !stack) r = sn_alloc_failure();
        else mark_near_cells(surface, g, near);
    }
    sn_winding wind = {0};
    if (r == SINEW_OK) r = sn_winding_build(&b->env, surface, &wind);
    memset(inside, SIDE_UNSET, cells);
    size_t count[3] = {0, 0, 0};
    for (uint32_t k = 0; k < g->n[2] && r == SINEW_OK; ++k) {
        r = sn_progress(&b->env, "bbw: voxelise", (float)k / (float)g->n[2]);
        for (uint32_t j = 0; j < g->n[1] && r == SINEW_OK; ++j)
            for (uint32_t i = 0; i < g->n[0]; ++i) {
                size_t c = cell_index(g, (uint32_t[3]){i, j, k});
                if (inside[c] == SIDE_UNSET) {
                    uint8_t side = side_at(&wind, g, i, j, k);
                    if (near && !near[c]) fill_region(g, near, c, side, inside, stack);
                    else inside[c] = side;
                }
                count[inside[c]]++;
            }
    }
    sn_winding_free(&b->env, &wind);
    sn_free(&b->env, near);
    sn_free(&b->env, stack);
    const uint8_t keep = count[SIDE_OUTWARD] || open ? SIDE_OUTWARD : SIDE_INWARD;
    for (size_t c = 0; c < cells; ++c) inside[c] = inside[c] == keep;
    *inside_count = count[keep];
    return r;
}

/* Copies the Kuhn mesh into the handle: world positions, and the tets with
 * the two last corners swapped where Maubach's order is negatively oriented. */
static sinew_result emit(sinew_bbw *b, const sn_kuhn *k, const volume_grid *g)
{
    double unit = g->h / (double)(1u << k->shift);
    b->positions = sn_alloc_array(&b->env, k->vertex_count, 3 * sizeof(double), "voxel positions");
    b->elements = sn_alloc_array(&b->env, k->tet_count, 4 * sizeof(uint32_t), "voxel tets");
    if (!b->positions || !b->elements) return sn_alloc_failure();
    for (size_t v = 0; v < k->vertex_count; ++v)
        for (int a = 0; a < 3; ++a) b->positions[3 * v + a] = g->origin[a] + unit * k->coords[3 * v + a];
    for (size_t t = 0; t < k->tet_count; ++t) {
        const uint32_t *x = k->tets + 4 * t;
        int64_t e[3][3];
        for (int r = 0; r < 3; ++r)
            for (int a = 0; a < 3; ++a)
                e[r][a] = (int64_t)k->coords[3 * (size_t)x[r + 1] + a] - (int64_t)k->coords[3 * (size_t)x[0] + a];
        int64_t det = e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) -
                      e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
                      e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0]);
        uint32_t *out = b->elements + 4 * t;
        out[0] = x[0];
        out[1] = x[1];
        out[2] = det > 0 ? x[2] : x[3];
        out[3] = det > 0 ? x[3] : x[2];
    }
    b->vertex_count = k->vertex_count;
    b->element_count = k->tet_count;
    return SINEW_OK;
}

/* Figures of the volume for sinew_bbw_info. */
static void report(sinew_bbw *b, sn_kuhn *k, const volume_grid *g, uint32_t resolution, size_t handle_cells)
{
    size_t cells = (size_t)g->n[0] * g->n[1] * g->n[2], refined = 0;
    unsigned deepest = 0;
    /* The closure is over: its cell marks count the refined cells now. */
    memset(k->cell_round, 0, cells * sizeof(uint32_t));
    for (size_t t = 0; t < k->tet_count; ++t) {
        if (k->generation[t] == 0) continue;
        if (k->generation[t] > deepest) deepest = k->generation[t];
        if (!k->cell_round[k->cell[t]]) {
            k->cell_round[k->cell[t]] = 1;
            ++refined;
        }
    }
    b->info.grid_resolution = resolution;
    b->info.grid_cell_size = g->h;
    b->info.finest_cell_size = g->h / (double)(1u << (deepest / 3));
    b->info.refined_cell_count = refined;
    b->info.handle_cell_count = handle_cells;
}

/* Whether every vertex of the surface lies within 1e-6 of its size
 * (longest) from the plane of its largest triangle. */
static int surface_is_flat(const sinew_trimesh *surface, double longest)
{
    double best = 0.0, normal[3] = {0, 0, 0}, origin[3] = {0, 0, 0};
    for (size_t t = 0; t < surface->triangle_count; ++t) {
        const float *p[3];
        for (size_t k = 0; k < 3; ++k)
            p[k] = sn_point(&surface->positions, sn_index_at(surface->indices, surface->index_type,
                                                              surface->index_stride, 3, t, k));
        double e1[3], e2[3];
        for (int a = 0; a < 3; ++a) {
            e1[a] = (double)p[1][a] - p[0][a];
            e2[a] = (double)p[2][a] - p[0][a];
        }
        double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        double area2 = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
        if (area2 > best) {
            best = area2;
            for (int a = 0; a < 3; ++a) {
                normal[a] = n[a];
                origin[a] = p[0][a];
            }
        }
    }
    if (!(best > 0.0)) return 1; /* every triangle degenerate: no plane, no volume either */
    double length = sqrt(best);
    for (size_t i = 0; i < surface->positions.count; ++i) {
        const float *q = sn_point(&surface->positions, i);
        double distance = 0.0;
        for (int a = 0; a < 3; ++a) distance += (q[a] - origin[a]) * normal[a] / length;
        if (fabs(distance) > 1e-6 * longest) return 0;
    }
    return 1;
}

sinew_result sn_bbw_domain_from_surface(sinew_bbw *b, const sinew_bbw_desc *desc, double *cell_size)
{
    const sinew_trimesh *surface = desc->surface;
    uint32_t resolution = desc->grid_resolution;
    b->dim = 3;
    b->per = 4;
    if (surface->positions.count == 0 || surface->triangle_count == 0 || !surface->indices)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "the surface has %zu vertices and %zu triangles",
                       surface->positions.count, surface->triangle_count);
    if (resolution > SN_BBW_MAX_RESOLUTION)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "grid resolution %u exceeds %u", resolution,
                       SN_BBW_MAX_RESOLUTION);
    if (resolution == 0) resolution = SN_BBW_DEFAULT_GRID_RESOLUTION;
    sinew_result r = sn_check_points(&surface->positions, "surface vertex");
    if (r != SINEW_OK) return r;
    r = sn_check_index_view(surface->indices, surface->index_type, surface->index_stride, surface->triangle_count, 3,
                            surface->positions.count, "surface triangle");
    if (r != SINEW_OK) return r;

    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < surface->positions.count; ++i) {
        const float *p = sn_point(&surface->positions, i);
        for (int a = 0; a < 3; ++a) {
            if (p[a] < lo[a]) lo[a] = p[a];
            if (p[a] > hi[a]) hi[a] = p[a];
        }
    }
    double longest = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
    if (!(longest > 0.0)) return sn_fail(SINEW_ERROR_DEGENERATE, "the surface's vertices all coincide");
    volume_grid g = {.h = longest / resolution};
    for (int a = 0; a < 3; ++a) {
        /* One spare cell on each side, the grid centred on the box. */
        g.n[a] = (uint32_t)ceil((hi[a] - lo[a]) / g.h - 1e-9) + 2;
        if (g.n[a] < 1) g.n[a] = 1;
        g.origin[a] = 0.5 * (lo[a] + hi[a]) - 0.5 * g.n[a] * g.h;
    }
    *cell_size = g.h;
    const int graded = !(desc->volume_flags & SINEW_BBW_VOLUME_UNIFORM);
    size_t cells = (size_t)g.n[0] * g.n[1] * g.n[2], inside_count = 0, handle_cells = 0, hcount = 0;
    volume_handle *hs = NULL;
    sn_kuhn k = {0};
    uint8_t *inside = sn_calloc_array(&b->env, cells, 1, "voxel inside flags");
    if (!inside) return sn_alloc_failure();
    if ((r = classify_cells(b, surface, &g, inside, &inside_count)) != SINEW_OK) goto done;
    /* Handle cells extend a volume; they do not make one of a surface that
     * encloses nothing. Users hit this with flat meshes (2D art exported
     * as OBJ) and open sheets: the message says which and what to do. */
    if (inside_count == 0) {
        if (surface_is_flat(surface, longest))
            r = sn_fail(SINEW_ERROR_DEGENERATE,
                        "the surface encloses no cell of the %u x %u x %u grid: all its vertices lie in one plane, "
                        "so it bounds no volume (a flat mesh is a 2D domain: give it as triangles in the xy plane)",
                        g.n[0], g.n[1], g.n[2]);
        else
            r = sn_fail(SINEW_ERROR_DEGENERATE,
                        "the surface encloses no cell of the %u x %u x %u grid: an open sheet bounds no volume (close "
                        "its holes), and a shell thinner than a cell needs a larger grid_resolution",
                        g.n[0], g.n[1], g.n[2]);
        goto done;
    }
    if (graded) {
        if ((r = gather_handles(&b->env, desc, &hs, &hcount)) != SINEW_OK) goto done;
        handle_cells = add_handle_cells(&g, hs, hcount, inside);
    }
    if ((r = sn_kuhn_init(&k, &b->env, g.n, SN_BBW_LATTICE_SHIFT)) != SINEW_OK) goto done;
    for (uint32_t z = 0; z < g.n[2] && r == SINEW_OK; ++z)
        for (uint32_t y = 0; y < g.n[1] && r == SINEW_OK; ++y)
            for (uint32_t x = 0; x < g.n[0] && r == SINEW_OK; ++x)
                if (inside[cell_index(&g, (uint32_t[3]){x, y, z})]) r = sn_kuhn_add_cell(&k, x, y, z);
    if (r == SINEW_OK && graded) r = refine_near_handles(b, &k, &g, hs, hcount);
    if (r == SINEW_OK) r = emit(b, &k, &g);
    if (r != SINEW_OK) goto done;
    report(b, &k, &g, resolution, handle_cells);
    r = sn_bbw_check_domain(b, "");
done:
    sn_kuhn_free(&k);
    sn_free(&b->env, hs);
    sn_free(&b->env, inside);
    return r;
}
