/*
 * Handles outside the domain under SINEW_BBW_OUTSIDE_CLIP: the domain vertex
 * nearest to a point or a segment (a handle with nothing inside attaches
 * there), and the record of what was clipped for sinew_bbw_info. A linear
 * scan: it runs once per handle that lies wholly outside, which is rare.
 */
#include <math.h>

#include "bbw/bbw_internal.h"
#include "bbw/clip.h"

/* Squared distance from q to segment ab, and the parameter of the closest point. */
static double segment_distance2(const double q[3], const double a[3], const double c[3], double *t_out)
{
    double d[3], w[3], dd = 0.0, wd = 0.0;
    for (int x = 0; x < 3; ++x) {
        d[x] = c[x] - a[x];
        w[x] = q[x] - a[x];
        dd += d[x] * d[x];
        wd += w[x] * d[x];
    }
    double t = dd > 0.0 ? fmin(fmax(wd / dd, 0.0), 1.0) : 0.0, e2 = 0.0;
    for (int x = 0; x < 3; ++x) e2 += (w[x] - t * d[x]) * (w[x] - t * d[x]);
    if (t_out) *t_out = t;
    return e2;
}

uint32_t sn_bbw_nearest_vertex(const sinew_bbw *b, const double a[3], const double c[3], const uint32_t *taken,
                               double *distance)
{
    double best = INFINITY;
    uint32_t at = 0;
    for (int pass = 0; pass < 2 && best == INFINITY; ++pass)
        for (size_t v = 0; v < b->vertex_count; ++v) {
            if (pass == 0 && taken && taken[v]) continue;
            double d2 = segment_distance2(b->positions + 3 * v, a, c, NULL);
            if (d2 < best) {
                best = d2;
                at = (uint32_t)v;
            }
        }
    *distance = sqrt(best);
    return at;
}

void sn_bbw_clip_note(sn_bbw_clip_record *c, size_t handle, double distance)
{
    if (handle != c->last) {
        if (c->count == 0) c->first = handle;
        ++c->count;
        c->last = handle;
    }
    c->farthest = fmax(c->farthest, distance);
}
