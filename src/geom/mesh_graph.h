/*
 * The edge graph of a triangle mesh as compressed adjacency lists: each
 * vertex's distinct one-ring neighbours. Used by the skinning weight tools
 * (rogue removal, smoothing) and the SOFFD one-ring frames.
 */
#ifndef SINEW_GEOM_MESH_GRAPH_H
#define SINEW_GEOM_MESH_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "core/internal.h"

typedef struct sn_mesh_graph {
    size_t vertex_count;
    size_t *first;          /* vertex_count + 1 offsets into neighbours */
    uint32_t *neighbours;   /* each vertex's distinct neighbours, ascending */
    size_t max_valence;
} sn_mesh_graph;

/* Validates mesh (positions finite, indices in range, `what` names it) and
 * builds its graph. Edges of a triangle that repeats a vertex are skipped
 * where they would join a vertex to itself. On failure *g is left empty. */
sinew_result sn_mesh_graph_build(const sn_env *env, const sinew_trimesh *mesh, sn_mesh_graph *g);
/* Builds the graph of triangles already known to be valid (3 * triangle_count
 * indices, each < vertex_count <= UINT32_MAX). Fails only on allocation or
 * size overflow; on failure *g is left empty. */
sinew_result sn_mesh_graph_from_triangles(const sn_env *env, const uint32_t *triangles, size_t triangle_count,
                                          size_t vertex_count, sn_mesh_graph *g);
void sn_mesh_graph_free(const sn_env *env, sn_mesh_graph *g);

#endif /* SINEW_GEOM_MESH_GRAPH_H */
