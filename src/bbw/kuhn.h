/*
 * A locally refined Kuhn (Freudenthal) tet mesh on an integer lattice: the
 * cells of a regular grid, each split into six tets around its main
 * diagonal, refined by Maubach's bisection (each tet an ordered vertex list
 * with a tag; the refinement edge joins vertex 0 and vertex `tag`). Started
 * from the Kuhn tets with tag 3, bisection keeps every tet congruent to a
 * Kuhn tet of a cube of half, quarter, ... size after 3, 6, ... bisections,
 * and closing it (bisecting every tet with a vertex at the midpoint of one of
 * its edges, until none has) keeps the mesh conforming (Maubach 1995;
 * Stevenson 2008 shows the closure is finite from the Kuhn mesh).
 */
#ifndef SN_BBW_KUHN_H
#define SN_BBW_KUHN_H

#include "core/internal.h"

typedef struct sn_kuhn {
    const sn_env *env;
    uint32_t shift;            /* a grid cell is 1 << shift lattice units */
    uint32_t dims[3];          /* grid cells per axis */
    /* vertices: lattice coordinates, and a hash from packed coordinates */
    size_t vertex_count, vertex_cap;
    uint32_t *coords;          /* 3 per vertex */
    uint64_t *table_keys;      /* open addressing, UINT64_MAX = empty */
    uint32_t *table_ids;
    size_t table_cap;          /* a power of two, >= 2 vertex_cap */
    /* tets, in Maubach order */
    size_t tet_count, tet_cap;
    uint32_t *tets;            /* 4 per tet */
    uint8_t *tag;              /* 1..3 */
    uint8_t *generation;       /* bisections since the grid */
    uint32_t *cell;            /* grid cell (linear index) the tet lies in */
    /* closure bookkeeping: the tets of a grid cell seed the next closure
     * when a vertex was created on the cell or one of its tets bisected
     * since the last closure (cell_round == round + 1) */
    uint32_t *cell_round;
    uint32_t round;
    /* tets by the midpoints of their edges, built at the first closure and
     * kept by each bisection after it: a multimap from a packed lattice
     * point to the tets with an edge whose midpoint it is, so a vertex
     * created there finds the tets it leaves hanging at once. Entries go
     * stale when a tet is bisected (its index keeps the first child); they
     * are hints, each checked again. Open addressing, UINT64_MAX = empty. */
    uint64_t *edge_keys;
    uint32_t *edge_tets;
    size_t edge_count, edge_cap;
} sn_kuhn;

/* Empty mesh over a grid of dims cells, each 1 << shift units (shift <= 8). */
sinew_result sn_kuhn_init(sn_kuhn *k, const sn_env *env, const uint32_t dims[3], uint32_t shift);
void sn_kuhn_free(sn_kuhn *k);
/* Adds grid cell (i, j, l)'s six Kuhn tets. */
sinew_result sn_kuhn_add_cell(sn_kuhn *k, uint32_t i, uint32_t j, uint32_t l);
/* Bisects tet t (its first child keeps index t, the second is appended).
 * Fails with DEGENERATE only if t is already at the lattice's resolution. */
sinew_result sn_kuhn_bisect(sn_kuhn *k, size_t t);
/* Bisects tets until no tet has a vertex at the midpoint of an edge. */
sinew_result sn_kuhn_close(sn_kuhn *k);
/* Edge of the cube tet t belongs to, in lattice units. */
static inline uint32_t sn_kuhn_side(const sn_kuhn *k, size_t t)
{
    return (1u << k->shift) >> (k->generation[t] / 3);
}

#endif
