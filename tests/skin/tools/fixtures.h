/*
 * Small meshes and checks shared by the weight-tool tests: an open tube along
 * x split into rings, and row invariants of the k-slot influence layout.
 */
#ifndef SINEW_TEST_SKIN_TOOLS_FIXTURES_H
#define SINEW_TEST_SKIN_TOOLS_FIXTURES_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "sinew.h"

/* A tube of `rings` rings of `sides` vertices, from x = 0 to x = length,
 * radius r. Vertex (ring i, side j) is i * sides + j. */
typedef struct tube {
    float *positions;
    uint32_t *triangles;
    size_t vertex_count, triangle_count;
    size_t rings, sides;
} tube;

static inline tube tube_make(size_t rings, size_t sides, float length, float r)
{
    tube t = {0};
    t.rings = rings;
    t.sides = sides;
    t.vertex_count = rings * sides;
    t.triangle_count = 2 * (rings - 1) * sides;
    t.positions = (float *)malloc(3 * t.vertex_count * sizeof(float));
    t.triangles = (uint32_t *)malloc(3 * t.triangle_count * sizeof(uint32_t));
    const double pi = 3.14159265358979323846;
    for (size_t i = 0; i < rings; ++i)
        for (size_t j = 0; j < sides; ++j) {
            float *p = t.positions + 3 * (i * sides + j);
            double a = 2.0 * pi * (double)j / (double)sides;
            p[0] = length * (float)i / (float)(rings - 1);
            p[1] = r * (float)cos(a);
            p[2] = r * (float)sin(a);
        }
    uint32_t *tri = t.triangles;
    for (size_t i = 0; i + 1 < rings; ++i)
        for (size_t j = 0; j < sides; ++j) {
            uint32_t a = (uint32_t)(i * sides + j), b = (uint32_t)(i * sides + (j + 1) % sides);
            uint32_t c = (uint32_t)a + (uint32_t)sides, d = (uint32_t)b + (uint32_t)sides;
            *tri++ = a, *tri++ = b, *tri++ = d;
            *tri++ = a, *tri++ = d, *tri++ = c;
        }
    return t;
}

static inline void tube_free(tube *t)
{
    free(t->positions);
    free(t->triangles);
}

static inline sinew_trimesh tube_mesh(const tube *t)
{
    sinew_trimesh m = {{t->positions, t->vertex_count, 0}, t->triangles, t->triangle_count, SINEW_INDEX_U32, 0};
    return m;
}

/* Weight of `joint` in row v (0 when absent). */
static inline double row_weight(const uint32_t *joints, const float *weights, size_t k, size_t v, uint32_t joint)
{
    double w = 0.0;
    for (size_t s = 0; s < k; ++s)
        if (weights[v * k + s] > 0.0f && joints[v * k + s] == joint) w += weights[v * k + s];
    return w;
}

/* The layout contract every tool output keeps: rows sum to 1, weights sorted
 * decreasing, unused slots (weight 0) hold joint 0, no joint twice. Returns
 * the first vertex that breaks it, or SIZE_MAX. */
static inline size_t first_bad_row(const uint32_t *joints, const float *weights, size_t n, size_t k)
{
    for (size_t v = 0; v < n; ++v) {
        double sum = 0.0;
        for (size_t s = 0; s < k; ++s) {
            float w = weights[v * k + s];
            if (!(w >= 0.0f) || !isfinite(w)) return v;
            if (s > 0 && w > weights[v * k + s - 1]) return v;
            if (w == 0.0f && joints[v * k + s] != 0) return v;
            for (size_t t = 0; t < s && w > 0.0f; ++t)
                if (joints[v * k + t] == joints[v * k + s]) return v;
            sum += w;
        }
        if (fabs(sum - 1.0) > 1e-5) return v;
    }
    return SIZE_MAX;
}

#endif /* SINEW_TEST_SKIN_TOOLS_FIXTURES_H */
