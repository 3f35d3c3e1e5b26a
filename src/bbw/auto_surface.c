/*
 * Preparing a user's surface for the automatic volume: what exporters hand
 * over is often a triangle soup (every triangle its own vertices), parts
 * wound inwards, or flat 2D art. Equal positions are merged first (the
 * winding number and the part structure need shared vertices), then each
 * closed, consistently wound part with negative signed volume is turned
 * outwards, and a surface whose vertices all lie in one plane becomes a 2D
 * domain in that plane's frame.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bbw/auto_surface.h"
#include "bbw/closed.h"
#include "bbw/union_find.h"

/* A surface is flat when every vertex lies within this fraction of its box's
 * longest side from the plane of its largest triangle (the create message's
 * criterion). */
#define SN_BBW_FLAT_TOLERANCE 1e-6
/* 2D triangles below this fraction of the squared box size are dropped
 * (create refuses zero-area triangles; a welded soup has slivers). */
#define SN_BBW_FLAT_MIN_AREA 1e-12

typedef struct keyed_vertex {
    float p[3];
    uint32_t id;
} keyed_vertex;

static int compare_keyed(const void *a, const void *b)
{
    const keyed_vertex *x = a, *y = b;
    for (int k = 0; k < 3; ++k)
        if (x->p[k] != y->p[k]) return x->p[k] < y->p[k] ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* Merges equal positions: vertex_map and the welded positions. */
static sinew_result weld(const sn_env *env, const sinew_trimesh *s, sn_bbw_prepared *p)
{
    size_t n = s->positions.count;
    keyed_vertex *keys = sn_alloc_array(env, n, sizeof *keys, "weld keys");
    p->vertex_map = sn_alloc_array(env, n, sizeof(uint32_t), "weld map");
    p->positions = sn_alloc_array(env, n, 3 * sizeof(float), "welded positions");
    if (!keys || !p->vertex_map || !p->positions) {
        sn_free(env, keys);
        return sn_alloc_failure();
    }
    for (size_t i = 0; i < n; ++i) {
        memcpy(keys[i].p, sn_point(&s->positions, i), sizeof keys[i].p);
        keys[i].id = (uint32_t)i;
    }
    qsort(keys, n, sizeof *keys, compare_keyed);
    size_t w = 0;
    for (size_t i = 0; i < n; ++i) {
        if (i == 0 || memcmp(keys[i].p, keys[i - 1].p, sizeof keys[i].p) != 0) {
            memcpy(p->positions + 3 * w, keys[i].p, sizeof keys[i].p);
            ++w;
        }
        p->vertex_map[keys[i].id] = (uint32_t)(w - 1);
    }
    p->vertex_count = w;
    sn_free(env, keys);
    return SINEW_OK;
}

/* Per triangle, the root of its part (component labels 0..count-1 in
 * *label), counting the parts. */
static sinew_result label_parts(const sn_env *env, sn_bbw_prepared *p, uint32_t *label)
{
    uint32_t *parent = sn_alloc_array(env, p->vertex_count, sizeof(uint32_t), "surface parts");
    if (!parent) return sn_alloc_failure();
    for (size_t v = 0; v < p->vertex_count; ++v) parent[v] = (uint32_t)v;
    for (size_t t = 0; t < p->triangle_count; ++t) {
        const uint32_t *x = p->triangles + 3 * t;
        uint32_t r0 = sn_bbw_find_root(parent, x[0]);
        for (int k = 1; k < 3; ++k) {
            uint32_t rk = sn_bbw_find_root(parent, x[k]);
            if (rk != r0) parent[rk] = r0;
        }
    }
    /* Number the roots in order of first appearance. */
    uint32_t *number = sn_alloc_array(env, p->vertex_count, sizeof(uint32_t), "part numbers");
    if (!number) {
        sn_free(env, parent);
        return sn_alloc_failure();
    }
    for (size_t v = 0; v < p->vertex_count; ++v) number[v] = UINT32_MAX;
    p->component_count = 0;
    for (size_t t = 0; t < p->triangle_count; ++t) {
        uint32_t root = sn_bbw_find_root(parent, p->triangles[3 * t]);
        if (number[root] == UINT32_MAX) number[root] = (uint32_t)p->component_count++;
        label[t] = number[root];
    }
    sn_free(env, number);
    sn_free(env, parent);
    return SINEW_OK;
}

/* Turns closed parts of negative signed volume outwards. */
static sinew_result orient_parts(const sn_env *env, sn_bbw_prepared *p)
{
    size_t t_count = p->triangle_count;
    uint32_t *label = sn_alloc_array(env, t_count ? t_count : 1, sizeof(uint32_t), "part labels");
    sinew_result r = label ? label_parts(env, p, label) : sn_alloc_failure();
    size_t parts = p->component_count ? p->component_count : 1;
    uint8_t *open = r == SINEW_OK ? sn_calloc_array(env, parts, 1, "open parts") : NULL;
    double *volume = r == SINEW_OK ? sn_calloc_array(env, parts, sizeof(double), "part volumes") : NULL;
    if (r == SINEW_OK && (!open || !volume)) r = sn_alloc_failure();
    if (r == SINEW_OK) r = sn_bbw_mark_open_parts(env, p->triangles, t_count, label, open);
    if (r == SINEW_OK) {
        /* Six times the signed volume, about a vertex of the surface (not
         * the origin, which may be far): a closed part's sum is exact. */
        for (size_t t = 0; t < t_count; ++t) {
            const float *o = p->positions + 3 * (size_t)p->triangles[0];
            double q[3][3];
            for (int k = 0; k < 3; ++k)
                for (int a = 0; a < 3; ++a) q[k][a] = (double)p->positions[3 * (size_t)p->triangles[3 * t + k] + a] - o[a];
            volume[label[t]] += q[0][0] * (q[1][1] * q[2][2] - q[1][2] * q[2][1]) -
                                q[0][1] * (q[1][0] * q[2][2] - q[1][2] * q[2][0]) +
                                q[0][2] * (q[1][0] * q[2][1] - q[1][1] * q[2][0]);
        }
        p->flipped_count = 0;
        for (size_t c = 0; c < p->component_count; ++c)
            if (!open[c] && volume[c] < 0.0) ++p->flipped_count;
        for (size_t t = 0; t < t_count; ++t)
            if (!open[label[t]] && volume[label[t]] < 0.0) {
                uint32_t swap = p->triangles[3 * t + 1];
                p->triangles[3 * t + 1] = p->triangles[3 * t + 2];
                p->triangles[3 * t + 2] = swap;
            }
    }
    sn_free(env, label);
    sn_free(env, open);
    sn_free(env, volume);
    return r;
}

static void cross3(const double u[3], const double v[3], double out[3])
{
    out[0] = u[1] * v[2] - u[2] * v[1];
    out[1] = u[2] * v[0] - u[0] * v[2];
    out[2] = u[0] * v[1] - u[1] * v[0];
}

/* Whether the welded surface is flat; if so the frame of its plane. */
static int find_plane(sn_bbw_prepared *p)
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, best = 0.0, n[3] = {0};
    for (size_t v = 0; v < p->vertex_count; ++v)
        for (int a = 0; a < 3; ++a) {
            lo[a] = fmin(lo[a], p->positions[3 * v + a]);
            hi[a] = fmax(hi[a], p->positions[3 * v + a]);
        }
    double longest = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
    for (size_t t = 0; t < p->triangle_count; ++t) {
        const float *q[3];
        for (int k = 0; k < 3; ++k) q[k] = p->positions + 3 * (size_t)p->triangles[3 * t + k];
        double e1[3], e2[3], c[3];
        for (int a = 0; a < 3; ++a) {
            e1[a] = (double)q[1][a] - q[0][a];
            e2[a] = (double)q[2][a] - q[0][a];
        }
        cross3(e1, e2, c);
        double area2 = c[0] * c[0] + c[1] * c[1] + c[2] * c[2];
        if (area2 > best) {
            best = area2;
            for (int a = 0; a < 3; ++a) {
                n[a] = c[a];
                p->origin[a] = q[0][a];
            }
        }
    }
    if (!(best > 0.0) || !(longest > 0.0)) return 0;
    double len = sqrt(best);
    for (int a = 0; a < 3; ++a) n[a] /= len;
    for (size_t v = 0; v < p->vertex_count; ++v) {
        double d = 0.0;
        for (int a = 0; a < 3; ++a) d += (p->positions[3 * v + a] - p->origin[a]) * n[a];
        if (fabs(d) > SN_BBW_FLAT_TOLERANCE * longest) return 0;
    }
    /* u along the axis least aligned with the normal, made perpendicular. */
    int axis = fabs(n[0]) <= fabs(n[1]) && fabs(n[0]) <= fabs(n[2]) ? 0 : fabs(n[1]) <= fabs(n[2]) ? 1 : 2;
    double e[3] = {0, 0, 0};
    e[axis] = 1.0;
    cross3(n, e, p->axis_u);
    double ul = sqrt(p->axis_u[0] * p->axis_u[0] + p->axis_u[1] * p->axis_u[1] + p->axis_u[2] * p->axis_u[2]);
    for (int a = 0; a < 3; ++a) p->axis_u[a] /= ul;
    cross3(n, p->axis_u, p->axis_v);
    return 1;
}

void sn_bbw_prepared_point(const sn_bbw_prepared *p, const float in[3], float out[3])
{
    if (p->dimension == 3) {
        memcpy(out, in, 3 * sizeof(float));
        return;
    }
    double u = 0.0, v = 0.0;
    for (int a = 0; a < 3; ++a) {
        u += (in[a] - p->origin[a]) * p->axis_u[a];
        v += (in[a] - p->origin[a]) * p->axis_v[a];
    }
    out[0] = (float)u;
    out[1] = (float)v;
    out[2] = 0.0f;
}

/* Projects a flat surface into its plane and drops triangles without area. */
static void flatten(sn_bbw_prepared *p)
{
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (size_t v = 0; v < p->vertex_count; ++v) {
        float q[3];
        sn_bbw_prepared_point(p, p->positions + 3 * v, q);
        memcpy(p->positions + 3 * v, q, sizeof q);
        for (int a = 0; a < 2; ++a) {
            lo[a] = fmin(lo[a], q[a]);
            hi[a] = fmax(hi[a], q[a]);
        }
    }
    double size2 = (hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]);
    size_t kept = 0;
    for (size_t t = 0; t < p->triangle_count; ++t) {
        const uint32_t *x = p->triangles + 3 * t;
        const float *a = p->positions + 3 * (size_t)x[0], *b = p->positions + 3 * (size_t)x[1],
                    *c = p->positions + 3 * (size_t)x[2];
        double area = 0.5 * (((double)b[0] - a[0]) * ((double)c[1] - a[1]) - ((double)b[1] - a[1]) * ((double)c[0] - a[0]));
        if (fabs(area) <= SN_BBW_FLAT_MIN_AREA * size2) continue;
        memmove(p->triangles + 3 * kept++, x, 3 * sizeof(uint32_t));
    }
    p->triangle_count = kept;
}

sinew_result sn_bbw_prepare_surface(const sn_env *env, const sinew_trimesh *s, sn_bbw_prepared *p)
{
    memset(p, 0, sizeof *p);
    if (!s) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "surface is NULL");
    if (s->positions.count == 0 || s->triangle_count == 0 || !s->indices)
        return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "the surface has %zu vertices and %zu triangles",
                       s->positions.count, s->triangle_count);
    if (s->positions.count > UINT32_MAX) return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "more than 2^32 surface vertices");
    sinew_result r = sn_check_points(&s->positions, "surface vertex");
    if (r == SINEW_OK)
        r = sn_check_index_view(s->indices, s->index_type, s->index_stride, s->triangle_count, 3, s->positions.count,
                                "surface triangle");
    if (r == SINEW_OK) r = weld(env, s, p);
    if (r == SINEW_OK && !(p->triangles = sn_alloc_array(env, s->triangle_count, 3 * sizeof(uint32_t), "welded triangles")))
        r = sn_alloc_failure();
    for (size_t t = 0; r == SINEW_OK && t < s->triangle_count; ++t) {
        uint32_t x[3];
        for (int k = 0; k < 3; ++k)
            x[k] = p->vertex_map[sn_index_at(s->indices, s->index_type, s->index_stride, 3, t, (size_t)k)];
        if (x[0] == x[1] || x[1] == x[2] || x[0] == x[2]) continue;
        memcpy(p->triangles + 3 * p->triangle_count++, x, sizeof x);
    }
    if (r == SINEW_OK && p->triangle_count == 0)
        r = sn_fail(SINEW_ERROR_DEGENERATE, "every surface triangle repeats a vertex (after merging equal positions)");
    if (r == SINEW_OK) r = orient_parts(env, p);
    p->dimension = 3;
    if (r == SINEW_OK && find_plane(p)) {
        p->dimension = 2;
        flatten(p);
        if (p->triangle_count == 0) r = sn_fail(SINEW_ERROR_DEGENERATE, "the flat surface has no triangle with area");
    }
    if (r != SINEW_OK) sn_bbw_prepared_free(env, p);
    return r;
}

void sn_bbw_prepared_free(const sn_env *env, sn_bbw_prepared *p)
{
    sn_free(env, p->positions);
    sn_free(env, p->triangles);
    sn_free(env, p->vertex_map);
    memset(p, 0, sizeof *p);
}
