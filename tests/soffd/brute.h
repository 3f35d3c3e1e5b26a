/*
 * Independent brute-force implementation of Singh & Kokkevis's formulas, for
 * tests and benchmarks to compare the library against. Written from the paper
 * with a different closest-point method (plane projection, else the nearest of
 * the three edges) and a 3x3 inverse for the frames, all in double.
 */
#ifndef SINEW_TEST_SOFFD_BRUTE_H
#define SINEW_TEST_SOFFD_BRUTE_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static inline void bf_sub(const double *a, const double *b, double *o)
{
    o[0] = a[0] - b[0], o[1] = a[1] - b[1], o[2] = a[2] - b[2];
}
static inline double bf_dot(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static inline void bf_cross(const double *a, const double *b, double *o)
{
    o[0] = a[1] * b[2] - a[2] * b[1], o[1] = a[2] * b[0] - a[0] * b[2], o[2] = a[0] * b[1] - a[1] * b[0];
}
static inline void bf_load(const float *f, double *d)
{
    d[0] = f[0], d[1] = f[1], d[2] = f[2];
}

/* Squared distance from p to segment ab. */
static inline double bf_segment_dist2(const double *p, const double *a, const double *b)
{
    double ab[3], ap[3];
    bf_sub(b, a, ab);
    bf_sub(p, a, ap);
    double t = bf_dot(ap, ab) / bf_dot(ab, ab);
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    double q[3] = {a[0] + t * ab[0] - p[0], a[1] + t * ab[1] - p[1], a[2] + t * ab[2] - p[2]};
    return bf_dot(q, q);
}

/* Squared distance from p to triangle abc: projection if it falls inside, else
 * the nearest edge. */
static inline double bf_triangle_dist2(const double *p, const double *a, const double *b, const double *c)
{
    double ab[3], ac[3], n[3], ap[3];
    bf_sub(b, a, ab);
    bf_sub(c, a, ac);
    bf_cross(ab, ac, n);
    bf_sub(p, a, ap);
    double nn = bf_dot(n, n);
    double h = bf_dot(ap, n) / nn;
    double q[3] = {p[0] - h * n[0], p[1] - h * n[1], p[2] - h * n[2]};
    /* inside test by the signs of sub-triangle normals */
    const double *v[3] = {a, b, c};
    int inside = 1;
    for (int i = 0; i < 3; ++i) {
        double e[3], w[3], x[3];
        bf_sub(v[(i + 1) % 3], v[i], e);
        bf_sub(q, v[i], w);
        bf_cross(e, w, x);
        if (bf_dot(x, n) < 0) inside = 0;
    }
    if (inside) return h * h * nn;
    double d = bf_segment_dist2(p, a, b), d2 = bf_segment_dist2(p, b, c), d3 = bf_segment_dist2(p, c, a);
    return fmin(d, fmin(d2, d3));
}

/* The paper's frame of triangle abc (eq. 2): columns e1, e2, e3 and origin a. */
static inline void bf_frame(const double *a, const double *b, const double *c, double m[4][3])
{
    bf_sub(b, a, m[0]);
    bf_sub(c, a, m[1]);
    bf_cross(m[0], m[1], m[2]);
    double l = sqrt(bf_dot(m[2], m[2]));
    for (int i = 0; i < 3; ++i) m[2][i] /= l, m[3][i] = a[i];
}

/* Local coordinates of p in frame m: solve [e1 e2 e3] x = p - origin (Cramer). */
static inline void bf_local(double m[4][3], const double *p, double *x)
{
    double q[3], c12[3], c20[3], c01[3];
    bf_sub(p, m[3], q);
    bf_cross(m[1], m[2], c12);
    bf_cross(m[2], m[0], c20);
    bf_cross(m[0], m[1], c01);
    double det = bf_dot(m[0], c12);
    x[0] = bf_dot(q, c12) / det;
    x[1] = bf_dot(q, c20) / det;
    x[2] = bf_dot(q, c01) / det;
}

/* f(d, local) with d in units of L. */
static inline double bf_weight(double dist2, double L, double local)
{
    return 1.0 / (1.0 + pow(sqrt(dist2) / L, local));
}

static inline int bf_ascending(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The fade of a pruned registration, straight from its definition: with
 * cut = threshold * max w and e the distance of the (cap + 1)-th nearest
 * element (cap 0 = none: no ramp), each weight becomes
 * max(w - cut, 0) * clamp((e - d) / width, 0, 1). w and d: n weights and
 * distances; w is replaced by the faded weights (unnormalised). */
static inline void bf_fade(double *w, const double *d, size_t n, double threshold, size_t cap, double width)
{
    double wmax = 0, edge = INFINITY;
    for (size_t t = 0; t < n; ++t) wmax = w[t] > wmax ? w[t] : wmax;
    if (cap && cap < n) {
        double *sorted = (double *)malloc(n * sizeof(double));
        memcpy(sorted, d, n * sizeof(double));
        qsort(sorted, n, sizeof(double), bf_ascending);
        edge = sorted[cap];
        free(sorted);
    }
    for (size_t t = 0; t < n; ++t) {
        double ramp = edge == INFINITY ? 1 : (edge - d[t]) / width;
        ramp = ramp < 0 ? 0 : ramp > 1 ? 1 : ramp;
        w[t] = w[t] > threshold * wmax ? (w[t] - threshold * wmax) * ramp : 0;
    }
}

/* Deforms one point by the exact all-elements formula (eq. 3), or, when
 * threshold > 0 or cap > 0, with the faded weights of bf_fade (ramp width
 * `width`). rest/now: 3 floats per vertex; tris: 3 per triangle. */
static inline void bf_deform_point(const float *rest, const float *now, const uint32_t *tris, size_t tri_count,
                                   double L, double local, double threshold, size_t cap, double width,
                                   const float *p_in, double *out)
{
    double p[3], total = 0;
    double *w = (double *)malloc(2 * tri_count * sizeof(double)), *d = w + tri_count;
    bf_load(p_in, p);
    out[0] = out[1] = out[2] = 0;
    for (size_t t = 0; t < tri_count; ++t) {
        double a[3], b[3], c[3];
        bf_load(&rest[3 * tris[3 * t]], a);
        bf_load(&rest[3 * tris[3 * t + 1]], b);
        bf_load(&rest[3 * tris[3 * t + 2]], c);
        double d2 = bf_triangle_dist2(p, a, b, c);
        w[t] = bf_weight(d2, L, local);
        d[t] = sqrt(d2);
    }
    if (threshold > 0 || cap > 0) bf_fade(w, d, tri_count, threshold, cap, width);
    for (size_t t = 0; t < tri_count; ++t) {
        if (!(w[t] > 0)) continue;
        double a[3], b[3], c[3], mr[4][3], md[4][3], x[3], da[3], db[3], dc[3];
        bf_load(&rest[3 * tris[3 * t]], a);
        bf_load(&rest[3 * tris[3 * t + 1]], b);
        bf_load(&rest[3 * tris[3 * t + 2]], c);
        bf_frame(a, b, c, mr);
        bf_local(mr, p, x);
        bf_load(&now[3 * tris[3 * t]], da);
        bf_load(&now[3 * tris[3 * t + 1]], db);
        bf_load(&now[3 * tris[3 * t + 2]], dc);
        bf_frame(da, db, dc, md);
        for (int i = 0; i < 3; ++i)
            out[i] += w[t] * (md[3][i] + x[0] * md[0][i] + x[1] * md[1][i] + x[2] * md[2][i]);
        total += w[t];
    }
    for (int i = 0; i < 3; ++i) out[i] /= total;
    free(w);
}

#endif /* SINEW_TEST_SOFFD_BRUTE_H */
