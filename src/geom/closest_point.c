/* Closest point on a triangle by Voronoi regions: test the vertex regions, then
 * the edge regions, else the face. Each test needs only dot products, so the
 * common case costs about as much as one projection. */
#include <stddef.h>

#include "geom/closest_point.h"
#include "core/small_math.h"

float sn_closest_point_triangle(const float p[3], const float a[3], const float b[3], const float c[3],
                                float closest[3], float bary[3])
{
    double ab[3], ac[3], ap[3];
    for (int i = 0; i < 3; ++i) {
        ab[i] = (double)b[i] - a[i];
        ac[i] = (double)c[i] - a[i];
        ap[i] = (double)p[i] - a[i];
    }
    double wa, wb, wc; /* barycentric weights of a, b, c */
    double d1 = sn_dot3(ab, ap), d2 = sn_dot3(ac, ap);
    if (d1 <= 0 && d2 <= 0) {
        wa = 1, wb = 0, wc = 0;
        goto done;
    }
    double bp[3];
    for (int i = 0; i < 3; ++i) bp[i] = (double)p[i] - b[i];
    double d3 = sn_dot3(ab, bp), d4 = sn_dot3(ac, bp);
    if (d3 >= 0 && d4 <= d3) {
        wa = 0, wb = 1, wc = 0;
        goto done;
    }
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0 && d1 >= 0 && d3 <= 0) {
        double v = d1 / (d1 - d3);
        wa = 1 - v, wb = v, wc = 0;
        goto done;
    }
    double cp[3];
    for (int i = 0; i < 3; ++i) cp[i] = (double)p[i] - c[i];
    double d5 = sn_dot3(ab, cp), d6 = sn_dot3(ac, cp);
    if (d6 >= 0 && d5 <= d6) {
        wa = 0, wb = 0, wc = 1;
        goto done;
    }
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0) {
        double w = d2 / (d2 - d6);
        wa = 1 - w, wb = 0, wc = w;
        goto done;
    }
    double va = d3 * d6 - d5 * d4;
    if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
        double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        wa = 0, wb = 1 - w, wc = w;
        goto done;
    }
    {
        double sum = va + vb + vc;
        if (!(sum > 0)) { /* collapsed triangle that slipped past every region test */
            wa = 1, wb = 0, wc = 0;
            goto done;
        }
        double v = vb / sum, w = vc / sum;
        wa = 1 - v - w, wb = v, wc = w;
    }
done:;
    double q[3], dist2 = 0;
    for (int i = 0; i < 3; ++i) {
        q[i] = wa * a[i] + wb * b[i] + wc * c[i];
        double d = (double)p[i] - q[i];
        dist2 += d * d;
    }
    if (closest)
        for (int i = 0; i < 3; ++i) closest[i] = (float)q[i];
    if (bary) {
        bary[0] = (float)wa;
        bary[1] = (float)wb;
        bary[2] = (float)wc;
    }
    return (float)dist2;
}
