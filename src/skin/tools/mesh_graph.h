/*
 * The edge graph of a triangle mesh as compressed adjacency lists, built once
 * per call by the tools that walk the mesh (rogue removal, smoothing).
 */
#ifndef SINEW_SKIN_TOOLS_MESH_GRAPH_H
#define SINEW_SKIN_TOOLS_MESH_GRAPH_H

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
void sn_mesh_graph_free(const sn_env *env, sn_mesh_graph *g);

#endif /* SINEW_SKIN_TOOLS_MESH_GRAPH_H */
