/* Test fixtures for the soffd suites: a welded cube cage of quads or
 * triangles, random points, smooth driver deformations, and a
 * library-side deform helper. */
#ifndef SINEW_TEST_SOFFD_FIXTURES_H
#define SINEW_TEST_SOFFD_FIXTURES_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sinew.h"
#include "support.h"

/* The exact formula, spelled out (the registration defaults prune and cap);
 * and the cap that means none, for a threshold alone. */
#define SOFFD_EXACT (&(sinew_soffd_register_desc){.struct_size = sizeof(sinew_soffd_register_desc), .exact = 1})
#define SOFFD_NO_CAP UINT32_MAX

typedef struct cage {
    float *pos;
    size_t nv;
    uint32_t *idx;      /* face indices */
    uint32_t *sizes;    /* face sizes (NULL when triangles) */
    size_t nf;
    uint32_t *tris;     /* the same faces as triangles (quads split 0-1-2, 0-2-3) */
    size_t nt;
} cage;

static inline uint32_t cage_vertex(cage *c, const float p[3])
{
    for (size_t v = 0; v < c->nv; ++v)
        if (c->pos[3 * v] == p[0] && c->pos[3 * v + 1] == p[1] && c->pos[3 * v + 2] == p[2]) return (uint32_t)v;
    memcpy(&c->pos[3 * c->nv], p, 3 * sizeof(float));
    return (uint32_t)c->nv++;
}

/* The surface of [-1, 1]^3, each side split into g x g quads (quads = 1) or
 * 2 g^2 triangles, outward facing, vertices welded. */
static inline cage make_cube_cage(int g, int quads)
{
    cage c = {0};
    size_t quads_total = 6 * (size_t)g * g;
    c.pos = malloc(6 * (size_t)(g + 1) * (g + 1) * 3 * sizeof(float));
    c.idx = malloc(quads_total * 6 * sizeof(uint32_t));
    c.tris = malloc(quads_total * 6 * sizeof(uint32_t));
    c.sizes = quads ? malloc(quads_total * sizeof(uint32_t)) : NULL;
    size_t ni = 0;
    for (int a = 0; a < 3; ++a)
        for (int s = -1; s <= 1; s += 2)
            for (int i = 0; i < g; ++i)
                for (int j = 0; j < g; ++j) {
                    uint32_t q[4];
                    const int di[4] = {0, 1, 1, 0}, dj[4] = {0, 0, 1, 1};
                    for (int k = 0; k < 4; ++k) {
                        float p[3];
                        p[a] = (float)s;
                        p[(a + 1) % 3] = -1.0f + 2.0f * (float)(i + di[k]) / (float)g;
                        p[(a + 2) % 3] = -1.0f + 2.0f * (float)(j + dj[k]) / (float)g;
                        q[s > 0 ? k : 3 - k] = cage_vertex(&c, p);
                    }
                    uint32_t t[6] = {q[0], q[1], q[2], q[0], q[2], q[3]};
                    memcpy(&c.tris[3 * c.nt], t, sizeof t);
                    c.nt += 2;
                    if (quads) {
                        memcpy(&c.idx[ni], q, sizeof q);
                        ni += 4;
                        c.sizes[c.nf++] = 4;
                    } else {
                        memcpy(&c.idx[ni], t, sizeof t);
                        ni += 6;
                        c.nf += 2;
                    }
                }
    return c;
}

static inline void cage_free(cage *c)
{
    free(c->pos);
    free(c->idx);
    free(c->sizes);
    free(c->tris);
    memset(c, 0, sizeof *c);
}

static inline sinew_polymesh cage_polymesh(const cage *c, const float *positions)
{
    sinew_polymesh m = {{positions ? positions : c->pos, c->nv, 0}, c->idx, c->sizes, c->nf, SINEW_INDEX_U32};
    return m;
}

static inline float *random_points(uint64_t seed, size_t n, float lo, float hi)
{
    support_rng r;
    support_rng_seed(&r, seed);
    float *p = malloc(3 * n * sizeof(float));
    for (size_t i = 0; i < 3 * n; ++i) p[i] = (float)support_rng_uniform(&r, lo, hi);
    return p;
}

/* A smooth non-affine map: bend about the z axis, twist about x. */
static inline void bend_twist(const float *in, float *out, size_t n, float amount)
{
    for (size_t v = 0; v < n; ++v) {
        double x = in[3 * v], y = in[3 * v + 1], z = in[3 * v + 2];
        double tw = amount * 0.5 * x, c = cos(tw), s = sin(tw);
        double y1 = c * y - s * z, z1 = s * y + c * z;
        double th = amount * 0.35 * x, cb = cos(th), sb = sin(th);
        out[3 * v] = (float)(x * cb - (y1 + 2) * sb);
        out[3 * v + 1] = (float)(x * sb + (y1 + 2) * cb - 2);
        out[3 * v + 2] = (float)z1;
    }
}

/* Applies the column-major affine 4x4 m to n points. */
static inline void apply_affine(const float m[16], const float *in, float *out, size_t n)
{
    for (size_t v = 0; v < n; ++v) {
        const float *p = &in[3 * v];
        float q[3];
        for (int r = 0; r < 3; ++r) q[r] = m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r];
        memcpy(&out[3 * v], q, sizeof q);
    }
}

/* Deforms every registered point with the basic algorithm. */
static inline sinew_result lib_deform(const sinew_soffd *h, const float *driver_now, size_t nv, float *out)
{
    sinew_soffd_info info;
    SINEW_INIT(&info);
    sinew_result r = sinew_soffd_get_info(h, &info);
    if (r != SINEW_OK) return r;
    float *frames = malloc(16 * info.element_count * sizeof(float));
    sinew_points d = {driver_now, nv, 0};
    r = sinew_soffd_element_frames(h, &d, frames, sinew_soffd_element_frames_size(h));
    if (r == SINEW_OK) r = sinew_soffd_deform(h, frames, sinew_soffd_element_frames_size(h), NULL, out, 0, NULL, 0, 0, info.point_count);
    free(frames);
    return r;
}

/* Deforms every registered point with the extended algorithm and estimated frames. */
static inline sinew_result lib_deform_extended(const sinew_soffd *h, const float *driver_now, size_t nv, float *out)
{
    sinew_soffd_info info;
    SINEW_INIT(&info);
    sinew_result r = sinew_soffd_get_info(h, &info);
    if (r != SINEW_OK) return r;
    float *frames = malloc(16 * nv * sizeof(float));
    sinew_points d = {driver_now, nv, 0};
    r = sinew_soffd_vertex_frames(h, &d, frames, sinew_soffd_vertex_frames_size(h));
    if (r == SINEW_OK) r = sinew_soffd_deform_extended(h, frames, sinew_soffd_vertex_frames_size(h), NULL, out, 0, NULL, 0, 0, info.point_count);
    free(frames);
    return r;
}

static inline double max_diff(const float *a, const float *b, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; ++i) {
        double dx = a[3 * i] - b[3 * i], dy = a[3 * i + 1] - b[3 * i + 1], dz = a[3 * i + 2] - b[3 * i + 2];
        m = fmax(m, sqrt(dx * dx + dy * dy + dz * dz));
    }
    return m;
}

/* The box of n packed points (lo, hi) and its diagonal. */
static inline double box_diagonal(const float *p, size_t n, double lo[3], double hi[3])
{
    for (int k = 0; k < 3; ++k) lo[k] = INFINITY, hi[k] = -INFINITY;
    for (size_t i = 0; i < n; ++i)
        for (int k = 0; k < 3; ++k) lo[k] = fmin(lo[k], p[3 * i + k]), hi[k] = fmax(hi[k], p[3 * i + k]);
    return sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                (hi[2] - lo[2]) * (hi[2] - lo[2]));
}

/* Maps the box of `points` (count of them, in place) onto the box of
 * `target` (lo, hi out), as beetle-alt is laid onto beetle; returns the
 * target box's diagonal. */
static inline double fit_box_onto(const float *target, size_t target_count, float *points, size_t count,
                                  double lo[3], double hi[3])
{
    double plo[3], phi[3], size = box_diagonal(target, target_count, lo, hi);
    box_diagonal(points, count, plo, phi);
    for (size_t i = 0; i < count; ++i)
        for (int k = 0; k < 3; ++k)
            points[3 * i + k] = (float)(lo[k] + (points[3 * i + k] - plo[k]) * (hi[k] - lo[k]) / (phi[k] - plo[k]));
    return size;
}

#endif /* SINEW_TEST_SOFFD_FIXTURES_H */
