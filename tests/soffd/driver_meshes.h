/* Test meshes for the driver decimation: a box of separate quad patches, a
 * planar grid, a UV sphere and an open cylinder along x, each as arrays the
 * caller frees. */
#ifndef SINEW_TEST_DRIVER_MESHES_H
#define SINEW_TEST_DRIVER_MESHES_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct test_mesh {
    float *pos;
    size_t vertex_count;
    uint32_t *idx;        /* face_size indices per face */
    size_t face_count;
    uint32_t face_size;   /* 3 or 4 */
} test_mesh;

static inline void test_mesh_free(test_mesh *m)
{
    free(m->pos);
    free(m->idx);
}

/* A (n x n)-quad grid over [0,1]^2 mapped through corner o and axes u, v. */
static inline void grid_patch(test_mesh *m, int n, const float o[3], const float u[3], const float v[3])
{
    size_t base = m->vertex_count;
    for (int j = 0; j <= n; ++j)
        for (int i = 0; i <= n; ++i) {
            float *p = &m->pos[3 * m->vertex_count++];
            for (int k = 0; k < 3; ++k) p[k] = o[k] + u[k] * (float)i / (float)n + v[k] * (float)j / (float)n;
        }
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
            uint32_t a = (uint32_t)(base + (size_t)j * (n + 1) + i), b = a + 1, c = b + (uint32_t)n + 1,
                     d = a + (uint32_t)n + 1;
            uint32_t *q = &m->idx[4 * m->face_count++];
            q[0] = a, q[1] = b, q[2] = c, q[3] = d;
        }
}

/* The unit box [0,1]^3 as six separate n x n quad patches (border vertices
 * repeated, as a modelling tool exports them), outward normals. */
static inline test_mesh make_box(int n)
{
    test_mesh m = {malloc(sizeof(float) * 3 * 6 * (n + 1) * (n + 1)), 0,
                   malloc(sizeof(uint32_t) * 4 * 6 * n * n), 0, 4};
    static const float o[6][3] = {{0, 0, 0}, {0, 0, 1}, {0, 0, 0}, {0, 1, 0}, {0, 0, 0}, {1, 0, 0}};
    static const float u[6][3] = {{0, 1, 0}, {1, 0, 0}, {1, 0, 0}, {0, 0, 1}, {0, 0, 1}, {0, 1, 0}};
    static const float v[6][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (int f = 0; f < 6; ++f) grid_patch(&m, n, o[f], u[f], v[f]);
    return m;
}

/* An n x n grid of triangles (quads split) over the unit square, z = 0. */
static inline test_mesh make_plane(int n)
{
    test_mesh m = {malloc(sizeof(float) * 3 * (n + 1) * (n + 1)), 0, malloc(sizeof(uint32_t) * 6 * n * n), 0, 3};
    for (int j = 0; j <= n; ++j)
        for (int i = 0; i <= n; ++i) {
            float *p = &m.pos[3 * m.vertex_count++];
            p[0] = (float)i / (float)n, p[1] = (float)j / (float)n, p[2] = 0;
        }
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
            uint32_t a = (uint32_t)(j * (n + 1) + i), b = a + 1, c = b + (uint32_t)n + 1, d = a + (uint32_t)n + 1;
            uint32_t *t = &m.idx[3 * m.face_count];
            t[0] = a, t[1] = b, t[2] = c, t[3] = a, t[4] = c, t[5] = d;
            m.face_count += 2;
        }
    return m;
}

/* A closed UV sphere of radius 1: `rings` latitude bands, `segs` around. */
static inline test_mesh make_sphere(int rings, int segs)
{
    size_t nv = 2 + (size_t)(rings - 1) * segs;
    test_mesh m = {malloc(sizeof(float) * 3 * nv), 0, malloc(sizeof(uint32_t) * 3 * 2 * rings * segs), 0, 3};
    const double pi = 3.14159265358979323846;
    float *p = m.pos;
    p[0] = 0, p[1] = 0, p[2] = 1;
    m.vertex_count = 1;
    for (int r = 1; r < rings; ++r)
        for (int s = 0; s < segs; ++s) {
            double th = pi * r / rings, ph = 2 * pi * s / segs;
            float *q = &m.pos[3 * m.vertex_count++];
            q[0] = (float)(sin(th) * cos(ph)), q[1] = (float)(sin(th) * sin(ph)), q[2] = (float)cos(th);
        }
    uint32_t south = (uint32_t)m.vertex_count++;
    float *q = &m.pos[3 * south];
    q[0] = 0, q[1] = 0, q[2] = -1;
#define RING(r, s) ((uint32_t)(1 + ((r) - 1) * segs + ((s) % segs)))
    for (int s = 0; s < segs; ++s) {
        uint32_t *t = &m.idx[3 * m.face_count++];
        t[0] = 0, t[1] = RING(1, s), t[2] = RING(1, s + 1);
    }
    for (int r = 1; r < rings - 1; ++r)
        for (int s = 0; s < segs; ++s) {
            uint32_t a = RING(r, s), b = RING(r + 1, s), c = RING(r + 1, s + 1), d = RING(r, s + 1);
            uint32_t *t = &m.idx[3 * m.face_count];
            t[0] = a, t[1] = b, t[2] = c, t[3] = a, t[4] = c, t[5] = d;
            m.face_count += 2;
        }
    for (int s = 0; s < segs; ++s) {
        uint32_t *t = &m.idx[3 * m.face_count++];
        t[0] = RING(rings - 1, s), t[1] = south, t[2] = RING(rings - 1, s + 1);
    }
#undef RING
    return m;
}

/* An open tube of radius r along x over [0, length]: `rings` + 1 circles of
 * `segs` vertices. */
static inline test_mesh make_tube(float length, float r, int rings, int segs)
{
    size_t nv = (size_t)(rings + 1) * segs;
    test_mesh m = {malloc(sizeof(float) * 3 * nv), 0, malloc(sizeof(uint32_t) * 6 * rings * segs), 0, 3};
    const double pi = 3.14159265358979323846;
    for (int i = 0; i <= rings; ++i)
        for (int s = 0; s < segs; ++s) {
            float *p = &m.pos[3 * m.vertex_count++];
            p[0] = length * (float)i / (float)rings;
            p[1] = r * (float)cos(2 * pi * s / segs), p[2] = r * (float)sin(2 * pi * s / segs);
        }
    for (int i = 0; i < rings; ++i)
        for (int s = 0; s < segs; ++s) {
            uint32_t a = (uint32_t)(i * segs + s), b = (uint32_t)(i * segs + (s + 1) % segs), c = b + (uint32_t)segs,
                     d = a + (uint32_t)segs;
            uint32_t *t = &m.idx[3 * m.face_count];
            t[0] = a, t[1] = b, t[2] = c, t[3] = a, t[4] = c, t[5] = d;
            m.face_count += 2;
        }
    return m;
}

#endif /* SINEW_TEST_DRIVER_MESHES_H */
