/* Mesh edge graph: count, fill, then sort and deduplicate each list. */
#include "geom/mesh_graph.h"

#include <stdlib.h>
#include <string.h>

static int by_index(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

sinew_result sn_mesh_graph_build(const sn_env *env, const sinew_trimesh *mesh, sn_mesh_graph *g)
{
    memset(g, 0, sizeof *g);
    if (!mesh) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "mesh is NULL");
    sinew_result r = sn_check_points(&mesh->positions, "mesh vertex");
    if (r != SINEW_OK) return r;
    size_t n = mesh->positions.count;
    if (n == 0) return sn_fail(SINEW_ERROR_INVALID_ARGUMENT, "mesh has no vertices");
    if (n > UINT32_MAX) return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "mesh has %zu vertices, more than 32-bit indices reach", n);
    sn_indices tri;
    r = sn_indices_read(env, mesh->indices, mesh->index_type, mesh->index_stride, mesh->triangle_count, 3, n,
                        "triangle", &tri);
    if (r != SINEW_OK) return r;
    r = sn_mesh_graph_from_triangles(env, tri.data, mesh->triangle_count, n, g);
    sn_indices_free(env, &tri);
    return r;
}

sinew_result sn_mesh_graph_from_triangles(const sn_env *env, const uint32_t *triangles, size_t triangle_count,
                                          size_t vertex_count, sn_mesh_graph *g)
{
    memset(g, 0, sizeof *g);
    const size_t n = vertex_count;
    size_t directed;   /* each triangle gives at most 6 directed edges */
    if (!sn_mul_size(triangle_count, 6, &directed))
        return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "%zu triangles overflow the edge count", triangle_count);
    size_t n1;
    if (!sn_add_size(n, 1, &n1)) return sn_fail(SINEW_ERROR_SIZE_OVERFLOW, "vertex count overflows");
    size_t *first = (size_t *)sn_calloc_array(env, n1, sizeof *first, "mesh graph offsets");
    if (!first) return sn_alloc_failure();
    uint32_t *nb = (uint32_t *)sn_alloc_array(env, directed, sizeof *nb, "mesh graph neighbours");
    if (!nb) {
        sn_free(env, first);
        return sn_alloc_failure();
    }

    const uint32_t *tri = triangles;
    for (size_t t = 0; t < triangle_count; ++t)
        for (int e = 0; e < 3; ++e) {
            uint32_t a = tri[3 * t + e], b = tri[3 * t + (e + 1) % 3];
            if (a == b) continue;
            first[a + 1]++;
            first[b + 1]++;
        }
    for (size_t v = 0; v < n; ++v) first[v + 1] += first[v];
    /* Fill using first[v] as a cursor, then shift back. */
    for (size_t t = 0; t < triangle_count; ++t)
        for (int e = 0; e < 3; ++e) {
            uint32_t a = tri[3 * t + e], b = tri[3 * t + (e + 1) % 3];
            if (a == b) continue;
            nb[first[a]++] = b;
            nb[first[b]++] = a;
        }
    for (size_t v = n; v > 0; --v) first[v] = first[v - 1];
    first[0] = 0;

    /* Sort and deduplicate in place, compacting the lists towards the front. */
    size_t out = 0, max_valence = 0;
    for (size_t v = 0; v < n; ++v) {
        size_t begin = first[v], end = first[v + 1];
        qsort(nb + begin, end - begin, sizeof *nb, by_index);
        size_t start = out;
        for (size_t i = begin; i < end; ++i)
            if (i == begin || nb[i] != nb[i - 1]) nb[out++] = nb[i];
        first[v] = start;
        if (out - start > max_valence) max_valence = out - start;
    }
    first[n] = out;

    g->vertex_count = n;
    g->first = first;
    g->neighbours = nb;
    g->max_valence = max_valence;
    return SINEW_OK;
}

void sn_mesh_graph_free(const sn_env *env, sn_mesh_graph *g)
{
    if (!g) return;
    sn_free(env, g->first);
    sn_free(env, g->neighbours);
    memset(g, 0, sizeof *g);
}
