/* Ear clipping in 2D: project the polygon onto the coordinate plane its Newell
 * normal is most aligned with, then cut off convex corners that contain no
 * other vertex until three remain. O(n^3) at worst, fine for cage faces. */
#include <math.h>

#include "geom/polygon.h"

static const float *vertex(const float *positions, size_t stride, uint32_t i)
{
    return (const float *)((const char *)positions + (size_t)i * stride);
}

/* Twice the signed area of (a, b, c) in the projection plane. */
static double cross2(const double a[2], const double b[2], const double c[2])
{
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

bool sn_triangulate_polygon(const float *positions, size_t stride, const uint32_t *face, size_t n,
                            uint32_t *triangles, size_t *written, uint32_t *scratch)
{
    stride = stride ? stride : 3 * sizeof(float);
    *written = 0;
    if (n < 3) return false;
    double normal[3] = {0, 0, 0};
    for (size_t i = 0; i < n; ++i) {
        const float *p = vertex(positions, stride, face[i]), *q = vertex(positions, stride, face[(i + 1) % n]);
        normal[0] += ((double)p[1] - q[1]) * ((double)p[2] + q[2]);
        normal[1] += ((double)p[2] - q[2]) * ((double)p[0] + q[0]);
        normal[2] += ((double)p[0] - q[0]) * ((double)p[1] + q[1]);
    }
    int drop = 0;
    for (int k = 1; k < 3; ++k)
        if (fabs(normal[k]) > fabs(normal[drop])) drop = k;
    if (!(fabs(normal[drop]) > 0)) return false;
    int ax = (drop + 1) % 3, ay = (drop + 2) % 3;
    double orientation = normal[drop] > 0 ? 1.0 : -1.0; /* makes ears positive */

    /* scratch[i] is the position in `face` of the i-th remaining corner. */
    for (size_t i = 0; i < n; ++i) scratch[i] = (uint32_t)i;
    size_t left = n;
#define P2(slot, out)                                                            \
    do {                                                                         \
        const float *v_ = vertex(positions, stride, face[scratch[(slot)]]);      \
        (out)[0] = v_[ax];                                                       \
        (out)[1] = orientation * v_[ay];                                         \
    } while (0)
    while (left > 3) {
        bool clipped = false;
        for (size_t i = 0; i < left && !clipped; ++i) {
            size_t ip = (i + left - 1) % left, in = (i + 1) % left;
            double a[2], b[2], c[2];
            P2(ip, a);
            P2(i, b);
            P2(in, c);
            if (cross2(a, b, c) <= 0) continue;
            bool empty = true;
            for (size_t j = 0; j < left && empty; ++j) {
                if (j == ip || j == i || j == in) continue;
                double q[2];
                P2(j, q);
                if ((q[0] == a[0] && q[1] == a[1]) || (q[0] == b[0] && q[1] == b[1]) ||
                    (q[0] == c[0] && q[1] == c[1]))
                    continue; /* a repeated corner touches the ear without entering it */
                if (cross2(a, b, q) >= 0 && cross2(b, c, q) >= 0 && cross2(c, a, q) >= 0) empty = false;
            }
            if (!empty) continue;
            uint32_t *t = &triangles[3 * *written];
            t[0] = face[scratch[ip]];
            t[1] = face[scratch[i]];
            t[2] = face[scratch[in]];
            ++*written;
            for (size_t j = i; j + 1 < left; ++j) scratch[j] = scratch[j + 1];
            --left;
            clipped = true;
        }
        if (clipped) continue;
        /* No ear: drop one corner that lies on the segment between its neighbours. */
        for (size_t i = 0; i < left && !clipped; ++i) {
            size_t ip = (i + left - 1) % left, in = (i + 1) % left;
            double a[2], b[2], c[2];
            P2(ip, a);
            P2(i, b);
            P2(in, c);
            double dot = (b[0] - a[0]) * (c[0] - b[0]) + (b[1] - a[1]) * (c[1] - b[1]);
            if (cross2(a, b, c) != 0 || dot <= 0) continue;
            for (size_t j = i; j + 1 < left; ++j) scratch[j] = scratch[j + 1];
            --left;
            clipped = true;
        }
        if (!clipped) return false;
    }
#undef P2
    uint32_t *t = &triangles[3 * *written];
    t[0] = face[scratch[0]];
    t[1] = face[scratch[1]];
    t[2] = face[scratch[2]];
    ++*written;
    return true;
}
