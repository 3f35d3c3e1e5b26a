/*
 * Handles become constraints on domain vertices. Every point handle, every
 * sample along a bone and every sample on a cage edge or face is located in
 * the domain and snapped to the nearest corner of its element; that vertex is
 * then fixed to the handle's weight row. A vertex claimed by several handles
 * gets the average of their rows, which is the paper's rule for joints (equal
 * weights for the bones that share one) applied everywhere; each handle
 * counts once per vertex however many of its samples land there. Cage
 * samples fix their vertex to the cage's linear interpolation evaluated at
 * the vertex itself, so the weights along a cage are linear wherever the
 * domain has vertices on it.
 */
#include <math.h>
#include <string.h>

#include "bbw/bbw_internal.h"
#include "bbw/clip.h"
#include "bbw/union_find.h"

typedef struct constrain_state {
    sinew_bbw *b;
    size_t m;
    double tolerance;     /* world units */
    double spacing;       /* sample spacing along bones and cages */
    uint32_t *claims;     /* number of sources that claimed each vertex */
    size_t *last_source;  /* the source that last claimed each vertex */
    int clip;             /* SINEW_BBW_OUTSIDE_CLIP: snap reports UINT32_MAX instead of failing */
    sn_bbw_clip_record clipped;
} constrain_state;

/* Locates q, snaps it to a vertex and returns that vertex; outside the
 * domain, UINT32_MAX when clipping, else fails naming the handle. */
static sinew_result snap(constrain_state *s, const double q[3], const char *what, size_t which, uint32_t *vertex)
{
    double bary[4];
    size_t e = sn_bbw_locate(s->b, q, s->tolerance, bary);
    if (e == SIZE_MAX && s->clip) {
        *vertex = UINT32_MAX;
        return SINEW_OK;
    }
    if (e == SIZE_MAX)
        return sn_fail(SINEW_ERROR_OUTSIDE_DOMAIN, "%s %zu at (%g, %g, %g) lies outside the domain", what, which, q[0],
                       q[1], q[2]);
    uint32_t best = 0;
    for (uint32_t k = 1; k < s->b->per; ++k)
        if (bary[k] > bary[best]) best = k;
    *vertex = s->b->elements[e * s->b->per + best];
    return SINEW_OK;
}

/* Adds row (m entries, given sparsely: up to 3 handles and their values) to
 * vertex v on behalf of `source`. */
static void claim(constrain_state *s, uint32_t v, size_t source, const size_t *handles, const double *values, int n)
{
    if (s->last_source[v] == source) return;
    s->last_source[v] = source;
    s->claims[v]++;
    double *row = s->b->fixed + (size_t)v * s->m;
    for (int k = 0; k < n; ++k) row[handles[k]] += values[k];
}

static sinew_result check_coords(const float *p, const char *what, size_t which)
{
    for (int a = 0; a < 3; ++a)
        if (!isfinite(p[a]))
            return sn_fail(SINEW_ERROR_NON_FINITE, "%s %zu has a non-finite coordinate %c (%g)", what, which, "xyz"[a],
                           (double)p[a]);
    return SINEW_OK;
}

static void to_double(const float *p, double out[3], uint32_t dim)
{
    out[0] = p[0];
    out[1] = p[1];
    out[2] = dim == 3 ? p[2] : 0.0;
}

/* Samples segment a-b at the state's spacing, ends included. */
static size_t segment_samples(const constrain_state *s, const double a[3], const double b[3])
{
    double len = sqrt((b[0] - a[0]) * (b[0] - a[0]) + (b[1] - a[1]) * (b[1] - a[1]) + (b[2] - a[2]) * (b[2] - a[2]));
    double n = ceil(len / s->spacing);
    return n < 1 ? 2 : (size_t)fmin(n, 1e6) + 1;
}

/* The parameter range [*t0, *t1] of segment a-c inside the domain's box
 * widened by the snapping tolerance (slab clipping); *t0 > *t1 when the
 * segment misses it. */
static void box_range(const constrain_state *s, const double a[3], const double c[3], double *t0, double *t1)
{
    const sn_bbw_locator *g = &s->b->locator;
    for (uint32_t x = 0; x < s->b->dim; ++x) {
        double lo = g->origin[x] - s->tolerance, hi = g->origin[x] + g->dims[x] * g->cell + s->tolerance;
        double d = c[x] - a[x];
        if (d == 0.0) {
            if (a[x] < lo || a[x] > hi) *t0 = 2.0, *t1 = -1.0;
            continue;
        }
        double ta = (lo - a[x]) / d, tb = (hi - a[x]) / d;
        *t0 = fmax(*t0, fmin(ta, tb));
        *t1 = fmin(*t1, fmax(ta, tb));
    }
}

/* Point handles: each fixes the vertex it snaps to, moved onto the point
 * first under SINEW_BBW_PLACE_MOVE_VERTEX (unless an earlier handle holds
 * it); then the locator and the operators follow the moved vertices. */
static sinew_result constrain_points(constrain_state *s, const sinew_bbw_desc *d)
{
    sinew_bbw *b = s->b;
    sn_bbw_incidence inc = {0};
    const int move = d->point_placement == SINEW_BBW_PLACE_MOVE_VERTEX && d->points.count;
    size_t moved = 0;
    sinew_result r = move ? sn_bbw_incidence_build(b, &inc) : SINEW_OK;
    double farthest = 0.0;
    for (size_t i = 0; i < d->points.count && r == SINEW_OK; ++i) {
        if ((r = check_coords(sn_point(&d->points, i), "point handle", i)) != SINEW_OK) break;
        double q[3];
        uint32_t v;
        to_double(sn_point(&d->points, i), q, b->dim);
        if ((r = snap(s, q, "point handle", i, &v)) != SINEW_OK) break;
        if (v == UINT32_MAX) {
            double moved_by;
            v = sn_bbw_nearest_vertex(b, q, q, s->claims, &moved_by);
            sn_bbw_clip_note(&s->clipped, i, moved_by);
        } else if (move && s->claims[v] == 0) moved += (size_t)sn_bbw_place_vertex(b, &inc, v, q);
        const double *p = b->positions + 3 * (size_t)v;
        farthest = fmax(farthest, sqrt((p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]) +
                                       (p[2] - q[2]) * (p[2] - q[2])));
        size_t h = i;
        double one = 1.0;
        claim(s, v, h, &h, &one, 1);
    }
    sn_bbw_incidence_free(b, &inc);
    b->info.max_snap_distance = farthest;
    if (r != SINEW_OK || !moved) return r;
    sn_bbw_locator_free(b);
    if ((r = sn_bbw_locator_build(b)) != SINEW_OK) return r;
    sn_sparse_free(&b->env, &b->stiffness);
    return sn_bbw_stiffness(b, NULL, &b->stiffness, b->mass);
}

/* Bones: samples along each, every one fixing the vertex it snaps to. */
static sinew_result constrain_bones(constrain_state *s, const sinew_bbw_desc *d)
{
    sinew_bbw *b = s->b;
    if (d->bone_count == 0) return SINEW_OK;
    for (size_t j = 0; j < d->joint_positions.count; ++j) {
        sinew_result r = check_coords(sn_point(&d->joint_positions, j), "joint", j);
        if (r != SINEW_OK) return r;
    }
    sinew_result r = sn_check_indices(d->bones, d->bone_count, 2, d->joint_positions.count, "bone");
    if (r != SINEW_OK) return r;
    for (size_t i = 0; i < d->bone_count; ++i) {
        double a[3], c[3];
        to_double(sn_point(&d->joint_positions, d->bones[2 * i]), a, b->dim);
        to_double(sn_point(&d->joint_positions, d->bones[2 * i + 1]), c, b->dim);
        double len = sqrt((c[0] - a[0]) * (c[0] - a[0]) + (c[1] - a[1]) * (c[1] - a[1]) + (c[2] - a[2]) * (c[2] - a[2]));
        if (!(len > 1e-9 * b->scale))
            return sn_fail(SINEW_ERROR_DEGENERATE, "bone %zu (joints %u, %u) has zero length", i, d->bones[2 * i],
                           d->bones[2 * i + 1]);
        /* Clipping samples only the part within reach of the domain's box: a
         * bone to a far-away joint would otherwise be sampled (and each sample
         * located) along all of its length. Refusal stops at the first sample
         * outside, so it samples the whole bone as given. */
        double t0 = 0.0, t1 = 1.0, pa[3], pc[3];
        if (s->clip) box_range(s, a, c, &t0, &t1);
        for (int x = 0; x < 3; ++x) {
            pa[x] = a[x] + t0 * (c[x] - a[x]);
            pc[x] = a[x] + t1 * (c[x] - a[x]);
        }
        size_t n = t0 <= t1 ? segment_samples(s, pa, pc) : 0, h = d->points.count + i;
        double one = 1.0, kept_from = 2.0, kept_to = -1.0;
        for (size_t k = 0; k < n; ++k) {
            double t = t0 + (t1 - t0) * ((double)k / (double)(n - 1)), q[3];
            for (int x = 0; x < 3; ++x) q[x] = a[x] + t * (c[x] - a[x]);
            uint32_t v;
            if ((r = snap(s, q, "bone", i, &v)) != SINEW_OK) return r;
            if (v == UINT32_MAX) continue;
            kept_from = fmin(kept_from, t);
            kept_to = fmax(kept_to, t);
            claim(s, v, h, &h, &one, 1);
        }
        if (kept_to < 0.0) {
            /* Wholly outside: the bone attaches at the vertex nearest to it. */
            double moved_by;
            uint32_t v = sn_bbw_nearest_vertex(b, a, c, s->claims, &moved_by);
            claim(s, v, h, &h, &one, 1);
            sn_bbw_clip_note(&s->clipped, h, moved_by);
        } else if (kept_from > 0.0 || kept_to < 1.0) {
            sn_bbw_clip_note(&s->clipped, h, len * fmax(kept_from, 1.0 - kept_to));
        }
    }
    return SINEW_OK;
}

/* Clamped barycentric coordinates of p's projection onto triangle abc. */
static void triangle_coords(const double *a, const double *b, const double *c, const double *p, double t[3])
{
    double e0[3], e1[3], d[3];
    for (int x = 0; x < 3; ++x) {
        e0[x] = b[x] - a[x];
        e1[x] = c[x] - a[x];
        d[x] = p[x] - a[x];
    }
    double d00 = e0[0] * e0[0] + e0[1] * e0[1] + e0[2] * e0[2];
    double d01 = e0[0] * e1[0] + e0[1] * e1[1] + e0[2] * e1[2];
    double d11 = e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2];
    double d20 = d[0] * e0[0] + d[1] * e0[1] + d[2] * e0[2];
    double d21 = d[0] * e1[0] + d[1] * e1[1] + d[2] * e1[2];
    double den = d00 * d11 - d01 * d01;
    double v = den > 0 ? (d11 * d20 - d01 * d21) / den : 0.0;
    double w = den > 0 ? (d00 * d21 - d01 * d20) / den : 0.0;
    t[0] = fmax(1.0 - v - w, 0.0);
    t[1] = fmax(v, 0.0);
    t[2] = fmax(w, 0.0);
    double sum = t[0] + t[1] + t[2];
    for (int x = 0; x < 3; ++x) t[x] /= sum;
}

static sinew_result check_cage(const sinew_bbw *b, const sinew_bbw_cage *cage, size_t c)
{
    sinew_result r = sn_check_points(&cage->vertices, "cage vertex");
    if (r != SINEW_OK) return r;
    if (cage->edge_count && !cage->edges)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "cage %zu has %zu edges but no indices", c, cage->edge_count);
    if (cage->triangle_count && !cage->triangles)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "cage %zu has %zu triangles but no indices", c,
                       cage->triangle_count);
    if (cage->triangle_count && b->dim == 2)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "cage %zu has triangles, but the domain is 2D", c);
    if ((r = sn_check_indices(cage->edges, cage->edge_count, 2, cage->vertices.count, "cage edge")) != SINEW_OK)
        return r;
    return sn_check_indices(cage->triangles, cage->triangle_count, 3, cage->vertices.count, "cage triangle");
}

/* The vertices of every cage, before any cage edge or face: each fixes the
 * vertex it snaps to (moved onto it under SINEW_BBW_PLACE_MOVE_VERTEX, as a
 * point handle's), and marks it in `held`, so that the edges and faces
 * around it, interpolated at that vertex rather than at the cage vertex,
 * leave it at exactly its own handle's row. */
static sinew_result constrain_cage_vertices(constrain_state *s, const sinew_bbw_desc *d, uint8_t *held)
{
    sinew_bbw *b = s->b;
    sn_bbw_incidence inc = {0};
    const int move = d->point_placement == SINEW_BBW_PLACE_MOVE_VERTEX;
    size_t moved = 0, base = d->points.count + d->bone_count;
    sinew_result r = SINEW_OK;
    for (size_t c = 0; c < d->cage_count && r == SINEW_OK; ++c) {
        const sinew_bbw_cage *cage = &d->cages[c];
        if ((r = check_cage(b, cage, c)) != SINEW_OK) break;
        if (move && cage->vertices.count && !inc.start && (r = sn_bbw_incidence_build(b, &inc)) != SINEW_OK) break;
        for (size_t i = 0; i < cage->vertices.count && r == SINEW_OK; ++i) {
            double q[3];
            uint32_t v = UINT32_MAX;
            to_double(sn_point(&cage->vertices, i), q, b->dim);
            if ((r = snap(s, q, "cage vertex", i, &v)) != SINEW_OK) break;
            size_t h = base + i;
            if (v == UINT32_MAX) {
                double moved_by;
                v = sn_bbw_nearest_vertex(b, q, q, s->claims, &moved_by);
                sn_bbw_clip_note(&s->clipped, h, moved_by);
            } else if (move && s->claims[v] == 0) {
                moved += (size_t)sn_bbw_place_vertex(b, &inc, v, q);
            }
            double one = 1.0;
            claim(s, v, h, &h, &one, 1);
            held[v] = 1;
        }
        base += cage->vertices.count;
    }
    sn_bbw_incidence_free(b, &inc);
    if (r != SINEW_OK || !moved) return r;
    sn_bbw_locator_free(b);
    if ((r = sn_bbw_locator_build(b)) != SINEW_OK) return r;
    sn_sparse_free(&b->env, &b->stiffness);
    return sn_bbw_stiffness(b, NULL, &b->stiffness, b->mass);
}

/* Samples along a cage edge fix the vertices they snap to (except those a
 * cage vertex holds) to the edge's linear interpolation at the vertex. */
static sinew_result constrain_cage_edge(constrain_state *s, const sinew_bbw_cage *cage, size_t c, size_t e,
                                        size_t base, size_t source, const uint8_t *held)
{
    sinew_bbw *b = s->b;
    double a[3], c2[3];
    to_double(sn_point(&cage->vertices, cage->edges[2 * e]), a, b->dim);
    to_double(sn_point(&cage->vertices, cage->edges[2 * e + 1]), c2, b->dim);
    double len2 = (c2[0] - a[0]) * (c2[0] - a[0]) + (c2[1] - a[1]) * (c2[1] - a[1]) + (c2[2] - a[2]) * (c2[2] - a[2]);
    if (!(len2 > 0.0)) return sn_fail(SINEW_ERROR_DEGENERATE, "cage %zu edge %zu has zero length", c, e);
    size_t n = segment_samples(s, a, c2);
    size_t hs[2] = {base + cage->edges[2 * e], base + cage->edges[2 * e + 1]};
    for (size_t k = 0; k < n; ++k) {
        double t = (double)k / (double)(n - 1), q[3];
        for (int x = 0; x < 3; ++x) q[x] = a[x] + t * (c2[x] - a[x]);
        uint32_t v;
        sinew_result r = snap(s, q, "cage edge", e, &v);
        if (r != SINEW_OK) return r;
        if (v == UINT32_MAX) {
            sn_bbw_clip_note(&s->clipped, hs[0], 0.0);
            continue;
        }
        if (held[v]) continue;
        /* Interpolate at the vertex, not at the sample. */
        const double *p = b->positions + 3 * (size_t)v;
        double tv = ((p[0] - a[0]) * (c2[0] - a[0]) + (p[1] - a[1]) * (c2[1] - a[1]) + (p[2] - a[2]) * (c2[2] - a[2])) / len2;
        tv = fmin(fmax(tv, 0.0), 1.0);
        double vals[2] = {1.0 - tv, tv};
        claim(s, v, source, hs, vals, 2);
    }
    return SINEW_OK;
}

/* Samples on a cage triangle fix the vertices they snap to (except those a
 * cage vertex holds) to the triangle's linear interpolation at the vertex. */
static sinew_result constrain_cage_face(constrain_state *s, const sinew_bbw_cage *cage, size_t f, size_t base,
                                        size_t source, const uint8_t *held)
{
    sinew_bbw *b = s->b;
    double p3[3][3];
    size_t hs[3];
    for (int k = 0; k < 3; ++k) {
        to_double(sn_point(&cage->vertices, cage->triangles[3 * f + k]), p3[k], b->dim);
        hs[k] = base + cage->triangles[3 * f + k];
    }
    /* Samples on a grid of the triangle's barycentric coordinates, as fine
     * along its longest edge as the bone sampling. */
    size_t n = 1;
    for (int k = 0; k < 3; ++k) {
        size_t nk = segment_samples(s, p3[k], p3[(k + 1) % 3]);
        if (nk > n) n = nk;
    }
    n = n > 2000 ? 2000 : n;
    for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; i + j < n; ++j) {
            double u = (double)i / (double)(n - 1), w = (double)j / (double)(n - 1), q[3];
            for (int x = 0; x < 3; ++x) q[x] = (1 - u - w) * p3[0][x] + u * p3[1][x] + w * p3[2][x];
            uint32_t v;
            sinew_result r = snap(s, q, "cage triangle", f, &v);
            if (r != SINEW_OK) return r;
            if (v == UINT32_MAX) {
                sn_bbw_clip_note(&s->clipped, hs[0], 0.0);
                continue;
            }
            if (held[v]) continue;
            double vals[3];
            triangle_coords(p3[0], p3[1], p3[2], b->positions + 3 * (size_t)v, vals);
            claim(s, v, source, hs, vals, 3);
        }
    return SINEW_OK;
}

static sinew_result constrain_cages(constrain_state *s, const sinew_bbw_desc *d)
{
    sinew_bbw *b = s->b;
    if (d->cage_count == 0) return SINEW_OK;
    uint8_t *held = sn_calloc_array(&b->env, b->vertex_count, 1, "cage vertex marks");
    if (!held) return sn_alloc_failure();
    sinew_result r = constrain_cage_vertices(s, d, held);
    size_t base = d->points.count + d->bone_count, source = s->m;
    for (size_t c = 0; c < d->cage_count && r == SINEW_OK; ++c) {
        const sinew_bbw_cage *cage = &d->cages[c];
        for (size_t e = 0; e < cage->edge_count && r == SINEW_OK; ++e, ++source)
            r = constrain_cage_edge(s, cage, c, e, base, source, held);
        for (size_t f = 0; f < cage->triangle_count && r == SINEW_OK; ++f, ++source)
            r = constrain_cage_face(s, cage, f, base, source, held);
        base += cage->vertices.count;
    }
    sn_free(&b->env, held);
    return r;
}

sinew_result sn_bbw_constrain(sinew_bbw *b, const sinew_bbw_desc *d, double tolerance)
{
    size_t n = b->vertex_count, m = b->handle_count, cells;
    if (!sn_mul_size(n, m, &cells)) return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "too many vertices times handles");
    b->fixed = sn_calloc_array(&b->env, cells, sizeof(double), "handle constraints");
    b->state = sn_calloc_array(&b->env, n, 1, "vertex states");
    constrain_state s = {.b = b, .m = m, .tolerance = tolerance, .clip = d->handle_outside == SINEW_BBW_OUTSIDE_CLIP};
    s.clipped.last = SIZE_MAX;
    s.claims = sn_calloc_array(&b->env, n, sizeof(uint32_t), "vertex claims");
    s.last_source = sn_alloc_array(&b->env, n, sizeof(size_t), "vertex claim sources");
    sinew_result r = SINEW_OK;
    if (!b->fixed || !b->state || !s.claims || !s.last_source) {
        r = sn_alloc_failure();
        goto done;
    }
    for (size_t v = 0; v < n; ++v) s.last_source[v] = SIZE_MAX;
    /* Half the typical element size: every element a handle crosses gets a
     * sample, so no handle skips over a vertex it should fix. */
    double total = 0.0;
    for (size_t v = 0; v < n; ++v) total += b->mass[v];
    s.spacing = 0.5 * pow(total / (double)b->element_count, 1.0 / b->dim);
    /* A graded volume's smallest tets (a cube's half diagonal at the finest
     * level is its shortest edge) need samples as close. */
    if (b->info.finest_cell_size > 0.0) s.spacing = fmin(s.spacing, 0.4 * b->info.finest_cell_size);
    if ((r = constrain_points(&s, d)) != SINEW_OK) goto done;
    if ((r = constrain_bones(&s, d)) != SINEW_OK) goto done;
    if ((r = constrain_cages(&s, d)) != SINEW_OK) goto done;
    b->info.clipped_handle_count = s.clipped.count;
    b->info.first_clipped_handle = s.clipped.count ? s.clipped.first : SIZE_MAX;
    b->info.max_clip_distance = s.clipped.farthest;
    size_t fixed = 0;
    for (size_t v = 0; v < n; ++v) {
        if (!s.claims[v]) continue;
        double *row = b->fixed + v * m;
        for (size_t j = 0; j < m; ++j) row[j] /= s.claims[v];
        b->state[v] = SN_BBW_FIXED;
        ++fixed;
    }
    if ((r = sn_bbw_check_handle_vertices(b, "")) != SINEW_OK) goto done;
    b->info.constrained_vertex_count = fixed;
done:
    sn_free(&b->env, s.claims);
    sn_free(&b->env, s.last_source);
    return r;
}

sinew_result sn_bbw_check_handle_vertices(const sinew_bbw *b, const char *prefix)
{
    /* Each handle must own a vertex where it dominates; otherwise two
     * handles are closer than the domain resolves. */
    size_t n = b->vertex_count, m = b->handle_count;
    for (size_t j = 0; j < m; ++j) {
        double best = 0.0;
        size_t at = 0;
        for (size_t v = 0; v < n; ++v)
            if (b->fixed[v * m + j] > best) {
                best = b->fixed[v * m + j];
                at = v;
            }
        if (best <= 0.5 + 1e-9) {
            const double *p = b->positions + 3 * at;
            return sn_fail(SINEW_ERROR_DEGENERATE,
                           "%shandle %zu shares every domain vertex it reaches with other handles (near %g, %g, %g): "
                           "refine the domain there or move the handles apart",
                           prefix, j, p[0], p[1], p[2]);
        }
    }
    return SINEW_OK;
}

sinew_result sn_bbw_find_unreached(sinew_bbw *b)
{
    size_t n = b->vertex_count;
    uint32_t *parent = sn_alloc_array(&b->env, n, sizeof(uint32_t), "region labels");
    uint8_t *reached = sn_calloc_array(&b->env, n, 1, "region reach");
    uint8_t *used = sn_calloc_array(&b->env, n, 1, "vertex use");
    sinew_result r = SINEW_OK;
    if (!parent || !reached || !used) {
        r = sn_alloc_failure();
        goto done;
    }
    for (size_t v = 0; v < n; ++v) parent[v] = (uint32_t)v;
    for (size_t e = 0; e < b->element_count; ++e) {
        const uint32_t *ev = b->elements + e * b->per;
        uint32_t r0 = sn_bbw_find_root(parent, ev[0]);
        used[ev[0]] = 1;
        for (uint32_t k = 1; k < b->per; ++k) {
            used[ev[k]] = 1;
            uint32_t rk = sn_bbw_find_root(parent, ev[k]);
            if (rk != r0) parent[rk] = r0;
        }
    }
    for (size_t v = 0; v < n; ++v)
        if (b->state[v] == SN_BBW_FIXED && used[v]) reached[sn_bbw_find_root(parent, (uint32_t)v)] = 1;
    b->info.unreached_vertex_count = 0;
    b->info.unreached_region_count = 0;
    b->info.first_unreached_vertex = SIZE_MAX;
    for (size_t v = 0; v < n; ++v) {
        uint32_t root = sn_bbw_find_root(parent, (uint32_t)v);
        if (used[v] && reached[root]) continue;
        /* A vertex in no element cannot be weighted either. */
        if (b->state[v] == SN_BBW_FIXED && used[v]) continue;
        b->state[v] = SN_BBW_UNREACHED;
        b->info.unreached_vertex_count++;
        if (b->info.first_unreached_vertex == SIZE_MAX) b->info.first_unreached_vertex = v;
        if (root == v || !used[v]) {
            b->info.unreached_region_count++;
        }
    }
done:
    sn_free(&b->env, parent);
    sn_free(&b->env, reached);
    sn_free(&b->env, used);
    return r;
}
