/* The unique undirected edges of a triangle mesh, for wireframe overlays. */
#include <stdlib.h>

#include "render.h"

static int compare_edges(const void *a, const void *b)
{
    const uint32_t *x = a, *y = b;
    if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
}

uint32_t *render_mesh_edges(const uint32_t *triangles, size_t triangle_count, size_t *edge_count)
{
    *edge_count = 0;
    if (triangle_count == 0) return NULL;
    uint32_t *e = malloc(6 * triangle_count * sizeof(uint32_t));
    if (!e) return NULL;
    for (size_t t = 0; t < triangle_count; ++t)
        for (int k = 0; k < 3; ++k) {
            uint32_t a = triangles[3 * t + k], b = triangles[3 * t + (k + 1) % 3];
            e[6 * t + 2 * k] = a < b ? a : b;
            e[6 * t + 2 * k + 1] = a < b ? b : a;
        }
    qsort(e, 3 * triangle_count, 2 * sizeof(uint32_t), compare_edges);
    size_t n = 0;
    for (size_t i = 0; i < 3 * triangle_count; ++i)
        if (n == 0 || e[2 * i] != e[2 * (n - 1)] || e[2 * i + 1] != e[2 * (n - 1) + 1]) {
            e[2 * n] = e[2 * i], e[2 * n + 1] = e[2 * i + 1];
            ++n;
        }
    *edge_count = n;
    return e;
}
