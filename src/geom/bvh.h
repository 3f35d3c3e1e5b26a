/*
 * Bounding volume hierarchy over a triangle soup: closest point, every triangle
 * within a (shrinkable) radius, and first ray hit. Built once, then read-only,
 * so queries are safe from many threads and never allocate.
 */
#ifndef SINEW_GEOM_BVH_H
#define SINEW_GEOM_BVH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/internal.h"

/* One node: its box, the contiguous range [first, first + count) of triangle
 * slots below it, and its right child (0 for a leaf; the left child always
 * follows its parent). */
typedef struct sn_bvh_node {
    float lo[3];
    uint32_t first;
    float hi[3];
    uint32_t count;
    uint32_t right;
} sn_bvh_node;

typedef struct sn_bvh {
    sn_bvh_node *nodes;
    size_t node_count;
    float *corners;       /* 9 floats per slot: the corners a, b, c in slot order */
    uint32_t *triangles;  /* slot -> caller's triangle index */
    size_t triangle_count;
} sn_bvh;

/* A query result. `triangle` is the caller's index; `point` and `bary` (weights
 * of the corners a, b, c as indexed by the caller) locate the hit; `dist2` is the
 * squared distance from the query point (closest/visit), `t` the ray parameter. */
typedef struct sn_bvh_hit {
    uint32_t triangle;
    float dist2;
    float t;
    float point[3];
    float bary[3];
} sn_bvh_hit;

/* Builds the tree over triangle_count triangles (3 indices each into
 * positions, whose stride is in bytes, 0 = packed). Indices must already be
 * validated. On failure (out of memory; none, or 2^32 - 1 or more triangles) *bvh is
 * left empty and the message is set. */
sinew_result sn_bvh_build(sn_bvh *bvh, const sn_env *env, const float *positions, size_t stride,
                          const uint32_t *indices, size_t triangle_count);
/* Releases the tree; an empty or zeroed tree is fine. */
void sn_bvh_free(sn_bvh *bvh, const sn_env *env);

/* Closest triangle to p not farther than sqrt(max_dist2) (INFINITY = any).
 * Returns false, leaving *hit alone, when none is that close. Ties go to the
 * triangle found first. */
bool sn_bvh_closest(const sn_bvh *bvh, const float p[3], float max_dist2, sn_bvh_hit *hit);

/* First intersection of the ray origin + t * dir, 0 <= t <= t_max, with any
 * triangle (both sides). Returns false, leaving *hit alone, on a miss. dist2 is
 * left 0. */
bool sn_bvh_raycast(const sn_bvh *bvh, const float origin[3], const float dir[3], float t_max,
                    sn_bvh_hit *hit);

/* Radius traversal. `hit` is called for every triangle whose closest point is
 * within the current radius and returns the squared radius to use from then on
 * (return the argument's radius unchanged to gather all; return a smaller one
 * to prune, as k-nearest and relative-threshold searches do). Every triangle not
 * passed to `hit` is accounted for exactly once through `culled` (optional):
 * the `count` triangles below `node`, all at squared distance >= dist2 from p
 * (its box distance), or, with node == SN_BVH_ONE_TRIANGLE, one triangle at
 * exactly dist2. Children are visited nearest first. */
#define SN_BVH_ONE_TRIANGLE UINT32_MAX
typedef struct sn_bvh_visitor {
    float (*hit)(void *user, const sn_bvh_hit *hit, float radius2);
    void (*culled)(void *user, uint32_t node, float dist2, size_t count);
    void *user;
} sn_bvh_visitor;
void sn_bvh_visit(const sn_bvh *bvh, const float p[3], float radius2, const sn_bvh_visitor *visitor);

/* Squared distances from p to the nearest and the farthest point of a node's
 * box: every triangle below the node lies between the two. */
float sn_bvh_box_near2(const sn_bvh *bvh, uint32_t node, const float p[3]);
float sn_bvh_box_far2(const sn_bvh *bvh, uint32_t node, const float p[3]);

#endif /* SINEW_GEOM_BVH_H */
