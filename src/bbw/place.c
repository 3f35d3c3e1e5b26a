/*
 * Exact point handles (SINEW_BBW_PLACE_MOVE_VERTEX): the domain vertex a
 * point snapped to is moved onto the point, so the handle's weight is 1
 * exactly there, as far as the elements around the vertex allow.
 */
#include <math.h>
#include <string.h>

#include "bbw/bbw_internal.h"

/* A moved vertex keeps every element around it at least this fraction of its
 * measure, with its orientation. */
#define SN_BBW_PLACE_KEEP 0.1

sinew_result sn_bbw_incidence_build(sinew_bbw *b, sn_bbw_incidence *inc)
{
    memset(inc, 0, sizeof *inc);
    inc->start = sn_calloc_array(&b->env, b->vertex_count + 1, sizeof(size_t), "vertex incidence");
    inc->elements = sn_alloc_array(&b->env, b->element_count, b->per * sizeof(uint32_t), "vertex incidence");
    if (!inc->start || !inc->elements) return sn_alloc_failure();
    size_t total = b->element_count * b->per;
    for (size_t i = 0; i < total; ++i) inc->start[b->elements[i] + 1]++;
    for (size_t v = 0; v < b->vertex_count; ++v) inc->start[v + 1] += inc->start[v];
    for (size_t i = 0; i < total; ++i) inc->elements[inc->start[b->elements[i]]++] = (uint32_t)(i / b->per);
    for (size_t v = b->vertex_count; v > 0; --v) inc->start[v] = inc->start[v - 1];
    inc->start[0] = 0;
    return SINEW_OK;
}

void sn_bbw_incidence_free(sinew_bbw *b, sn_bbw_incidence *inc)
{
    sn_free(&b->env, inc->start);
    sn_free(&b->env, inc->elements);
    memset(inc, 0, sizeof *inc);
}

/* Signed area (2D) or volume (3D, times 6) of element e with vertex v at p. */
static double signed_measure(const sinew_bbw *b, size_t e, uint32_t v, const double p[3])
{
    const double *x[4];
    for (uint32_t k = 0; k < b->per; ++k) {
        uint32_t w = b->elements[e * b->per + k];
        x[k] = w == v ? p : b->positions + 3 * (size_t)w;
    }
    double u[3], w[3];
    for (int a = 0; a < 3; ++a) {
        u[a] = x[1][a] - x[0][a];
        w[a] = x[2][a] - x[0][a];
    }
    if (b->dim == 2) return u[0] * w[1] - u[1] * w[0];
    double t[3] = {x[3][0] - x[0][0], x[3][1] - x[0][1], x[3][2] - x[0][2]};
    return u[0] * (w[1] * t[2] - w[2] * t[1]) - u[1] * (w[0] * t[2] - w[2] * t[0]) + u[2] * (w[0] * t[1] - w[1] * t[0]);
}

int sn_bbw_place_vertex(sinew_bbw *b, const sn_bbw_incidence *inc, uint32_t v, const double q[3])
{
    double *p = b->positions + 3 * (size_t)v, target[3] = {q[0], q[1], b->dim == 3 ? q[2] : 0.0};
    /* All the way, else half, a quarter, an eighth of the way. */
    for (double f = 1.0; f >= 0.125; f *= 0.5) {
        double trial[3];
        for (int a = 0; a < 3; ++a) trial[a] = p[a] + f * (target[a] - p[a]);
        int ok = 1;
        for (size_t i = inc->start[v]; i < inc->start[v + 1] && ok; ++i) {
            double before = signed_measure(b, inc->elements[i], v, p);
            double after = signed_measure(b, inc->elements[i], v, trial);
            ok = after * before > 0.0 && fabs(after) >= SN_BBW_PLACE_KEEP * fabs(before);
        }
        if (ok) {
            memcpy(p, trial, sizeof trial);
            return 1;
        }
    }
    return 0;
}
