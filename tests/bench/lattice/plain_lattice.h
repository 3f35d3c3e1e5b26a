/* The baseline of the lattice benchmarks: a plain loop that evaluates each
 * axis' basis by Cox-de Boor and sums the weighted world control points in
 * float, the way Blender's lattice deform works. Static functions for the
 * benchmark programs of this folder. */
#ifndef SINEW_BENCH_PLAIN_LATTICE_H
#define SINEW_BENCH_PLAIN_LATTICE_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sinew.h"

/* Clamped uniform knots of n control points of order o (n + o values). */
static inline void plain_knots(int n, int o, double *knots)
{
    const int p = o - 1;
    for (int j = 0; j < n + o; ++j) knots[j] = j <= p ? 0.0 : j >= n ? 1.0 : (double)(j - p) / (n - p);
}

/* The o nonzero basis values at x in [0, 1] by Cox-de Boor; returns the first
 * function's index. */
static inline int plain_basis(int n, int o, const double *knots, double x, float *w)
{
    const int p = o - 1;
    int s = p + (int)(x * (n - p));
    if (s > n - 1) s = n - 1;
    double left[8], right[8], v[8];
    v[0] = 1.0;
    for (int j = 1; j <= p; ++j) {
        left[j] = x - knots[s + 1 - j];
        right[j] = knots[s + j] - x;
        double saved = 0.0;
        for (int r = 0; r < j; ++r) {
            double tmp = v[r] / (right[r + 1] + left[j - r]);
            v[r] = saved + right[r + 1] * tmp;
            saved = left[j - r] * tmp;
        }
        v[j] = saved;
    }
    for (int k = 0; k < o; ++k) w[k] = (float)v[k];
    return s - p;
}

typedef struct plain_lattice {
    int n[3], o[3];
    double *knots[3];
    float *ctrl; /* world control points, 3 floats each */
} plain_lattice;

static inline plain_lattice plain_make(const sinew_lattice *lat)
{
    sinew_lattice_info info;
    SINEW_INIT(&info);
    sinew_lattice_get_info(lat, &info);
    plain_lattice pl;
    for (int a = 0; a < 3; ++a) {
        pl.n[a] = (int)info.count[a];
        pl.o[a] = (int)info.order[a];
        pl.knots[a] = malloc((size_t)(pl.n[a] + pl.o[a]) * sizeof(double));
        plain_knots(pl.n[a], pl.o[a], pl.knots[a]);
    }
    pl.ctrl = malloc(info.point_count * 3 * sizeof(float));
    sinew_lattice_points(lat, pl.ctrl, 0, 0, info.point_count);
    return pl;
}

static inline void plain_free(plain_lattice *pl)
{
    for (int a = 0; a < 3; ++a) free(pl->knots[a]);
    free(pl->ctrl);
}

/* F at parameters u in [0, 1]^3: the weighted sum of world control points. */
static inline void plain_eval(const plain_lattice *pl, const double u[3], float out[3])
{
    float b[3][8];
    int first[3];
    for (int a = 0; a < 3; ++a) first[a] = plain_basis(pl->n[a], pl->o[a], pl->knots[a], u[a], b[a]);
    float acc[3] = {0, 0, 0};
    for (int k = 0; k < pl->o[2]; ++k)
        for (int j = 0; j < pl->o[1]; ++j)
            for (int i = 0; i < pl->o[0]; ++i) {
                float w = b[0][i] * b[1][j] * b[2][k];
                size_t idx = (size_t)(first[0] + i) +
                             (size_t)pl->n[0] * ((size_t)(first[1] + j) + (size_t)pl->n[1] * (size_t)(first[2] + k));
                const float *c = pl->ctrl + 3 * idx;
                acc[0] += w * c[0];
                acc[1] += w * c[1];
                acc[2] += w * c[2];
            }
    memcpy(out, acc, sizeof acc);
}

/* World points of an axis-aligned box (origin, extents) through the lattice;
 * points outside the box are left where they are. */
static inline void plain_deform(const plain_lattice *pl, const double origin[3], const double extents[3],
                                const float *pts, size_t count, float *out)
{
    for (size_t i = 0; i < count; ++i) {
        const float *p = pts + 3 * i;
        double u[3];
        bool inside = true;
        for (int a = 0; a < 3; ++a) {
            u[a] = ((double)p[a] - origin[a]) / extents[a];
            inside = inside && u[a] >= 0.0 && u[a] <= 1.0;
        }
        if (inside) plain_eval(pl, u, out + 3 * i);
        else memcpy(out + 3 * i, p, 3 * sizeof(float));
    }
}

#endif /* SINEW_BENCH_PLAIN_LATTICE_H */
