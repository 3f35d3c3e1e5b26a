/*
 * Generalised winding numbers of triangle soups (Jacobson, Kavan and
 * Sorkine-Hornung 2013), evaluated hierarchically: a bounding-volume tree
 * over the triangles, where a cluster far enough from the query point
 * contributes through its area-weighted normal as one dipole (Barill et al.
 * 2018) and near clusters contribute their exact solid angles. The result is
 * about 1 inside a closed surface and 0 outside, and degrades gracefully for
 * open, non-manifold or self-intersecting surfaces, which is what makes it a
 * usable inside test for messy input.
 */
#ifndef SN_GEOM_WINDING_H
#define SN_GEOM_WINDING_H

#include "core/internal.h"

typedef struct sn_winding_node {
    double centre[3];    /* area-weighted centroid of the cluster */
    double normal[3];    /* sum of area-weighted normals (area vector) */
    double radius;       /* largest distance from centre to a cluster vertex */
    uint32_t first, count; /* triangle range for leaves; count 0 = inner */
    uint32_t left, right;  /* children of inner nodes */
} sn_winding_node;

typedef struct sn_winding {
    double *corners;      /* 9 doubles per triangle, in tree order */
    sn_winding_node *nodes;
    size_t node_count;
    size_t triangle_count;
} sn_winding;

/* Builds the tree for a validated triangle mesh (indices in range, finite
 * positions). Zero-area triangles are kept: they contribute nothing. */
sinew_result sn_winding_build(const sn_env *env, const sinew_trimesh *mesh, sn_winding *out);

/* Winding number at q. Thread-safe on a built tree. */
double sn_winding_number(const sn_winding *w, const double q[3]);

void sn_winding_free(const sn_env *env, sn_winding *w);

#endif /* SN_GEOM_WINDING_H */
