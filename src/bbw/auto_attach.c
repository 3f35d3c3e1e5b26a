/*
 * Weights for the surface vertices the domain does not weight (auto_weights):
 * a vertex outside the query reach of the volume (a part thinner than the
 * grid, a floating accessory whose cells did not survive) or in a region no
 * handle reaches takes the top-k row of the nearest domain vertex that a
 * handle reaches, so every vertex moves with the part of the body nearest to
 * it. The search walks the reached vertices sorted by x outwards from the
 * query until the x gap alone exceeds the best distance found.
 */
#include <math.h>
#include <stdlib.h>

#include "bbw/auto_attach.h"

typedef struct sorted_vertex {
    double x;
    uint32_t v;
} sorted_vertex;

static int compare_x(const void *a, const void *b)
{
    const sorted_vertex *p = a, *q = b;
    if (p->x != q->x) return p->x < q->x ? -1 : 1;
    return p->v < q->v ? -1 : p->v > q->v;
}

static uint32_t nearest_reached(const sinew_bbw *b, const sorted_vertex *s, size_t n, const float q[3])
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s[mid].x < q[0]) lo = mid + 1;
        else hi = mid;
    }
    double best = INFINITY;
    uint32_t at = s[lo < n ? lo : n - 1].v;
    for (size_t up = lo, down = lo; up < n || down > 0;) {
        int moved = 0;
        if (up < n && (s[up].x - q[0]) * (s[up].x - q[0]) < best) {
            const double *p = b->positions + 3 * (size_t)s[up].v;
            double d = (p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]) + (p[2] - q[2]) * (p[2] - q[2]);
            if (d < best) {
                best = d;
                at = s[up].v;
            }
            ++up;
            moved = 1;
        } else {
            up = n;
        }
        if (down > 0 && (s[down - 1].x - q[0]) * (s[down - 1].x - q[0]) < best) {
            const double *p = b->positions + 3 * (size_t)s[down - 1].v;
            double d = (p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]) + (p[2] - q[2]) * (p[2] - q[2]);
            if (d < best) {
                best = d;
                at = s[down - 1].v;
            }
            --down;
            moved = 1;
        } else {
            down = 0;
        }
        if (!moved) break;
    }
    return at;
}

sinew_result sn_bbw_attach_rows(const sinew_bbw *b, const float *positions, size_t count, uint32_t k,
                                uint32_t *joints, float *weights, size_t *attached, size_t *unweighted)
{
    *attached = *unweighted = 0;
    size_t missing = 0;
    for (size_t v = 0; v < count; ++v) missing += weights[v * k] == 0.0f;
    if (!missing) return SINEW_OK;
    sn_env env = b->env; /* scratch is not the handle's memory */
    env.held = NULL;
    sorted_vertex *s = sn_alloc_array(&env, b->vertex_count, sizeof *s, "reached domain vertices");
    if (!s) return sn_alloc_failure();
    size_t n = 0;
    for (size_t v = 0; v < b->vertex_count; ++v)
        if (b->state[v] != SN_BBW_UNREACHED) s[n++] = (sorted_vertex){b->positions[3 * v], (uint32_t)v};
    qsort(s, n, sizeof *s, compare_x);
    sinew_result r = SINEW_OK;
    for (size_t v = 0; v < count && r == SINEW_OK; ++v) {
        if (weights[v * k] != 0.0f) continue;
        if (n == 0) {
            ++*unweighted;
            continue;
        }
        const double *p = b->positions + 3 * (size_t)nearest_reached(b, s, n, positions + 3 * v);
        float at[3] = {(float)p[0], (float)p[1], (float)p[2]};
        sinew_points one = {.data = at, .count = 1};
        r = sinew_bbw_top_k(b, &one, k, joints + v * k, weights + v * k, 0, 1);
        if (r == SINEW_OK) {
            /* top_k indexes its outputs by point number: row 0 was written at v. */
            ++*attached;
            if (weights[v * k] == 0.0f) ++*unweighted;
        }
    }
    sn_free(&env, s);
    return r;
}
