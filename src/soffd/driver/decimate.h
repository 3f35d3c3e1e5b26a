/* The state of one decimation, shared by the collapse loop (decimate.c) and
 * the collapse evaluation (collapse.c). */
#ifndef SN_SOFFD_DRIVER_DECIMATE_H
#define SN_SOFFD_DRIVER_DECIMATE_H

#include <stdbool.h>

#include "soffd/driver/driver_internal.h"

#define SN_DRIVER_NONE UINT32_MAX

/* A symmetric quadric v^T A v + 2 b.v + c (a: xx xy xz yy yz zz, b, c) and the
 * area of the triangles it stands for. */
typedef struct sn_quadric {
    double a[6], b[3], c, area;
} sn_quadric;

/* A candidate collapse: b goes into a, which moves to p. */
typedef struct sn_collapse {
    double cost;       /* the heap's key: quadric error (+ length term) times joint factor */
    double rms;        /* root mean square distance of p to the planes merged, world units */
    float p[3];
    uint32_t a, b;
    uint32_t version_a, version_b;
    uint32_t removes;  /* triangles the collapse removes (1 or 2) */
} sn_collapse;

typedef struct sn_decimator {
    const sn_env *env;
    float *pos;
    size_t vertex_count;
    uint32_t *tris;
    size_t tri_count;
    size_t live_tris;
    uint8_t *tri_alive;
    /* Incidence lists: node 3 t + k stands for corner k of triangle t, whose
     * vertex is tris[node]; head[v] starts v's list, next[] links it. */
    uint32_t *head, *next;
    sn_quadric *quadric;
    double *factor;           /* joint factor per vertex at its current position */
    uint32_t *version;        /* bumped whenever a vertex's neighbourhood changes */
    uint32_t *mark;           /* neighbour marks of collapse.c, stamped with `stamp` */
    uint32_t stamp;
    uint32_t *seen;           /* the collapse loop's own marks, stamped with `seen_stamp` */
    uint32_t seen_stamp;
    uint32_t *ring;           /* scratch: a vertex's neighbours */
    size_t ring_capacity;
    const sn_driver_joints *joints;
    double length_weight;     /* of the length term, per unit length^4 */
    sn_collapse *heap;
    size_t heap_count, heap_capacity;
    bool failed;              /* a scratch array could not grow (message set) */
} sn_decimator;

/* The neighbours of v into d->ring (marked with a fresh stamp); returns how
 * many, or SIZE_MAX when the scratch could not grow (message set). */
size_t sn_driver_ring(sn_decimator *d, uint32_t v);
/* Evaluates the collapse of edge (a, b) into *c: false when the edge is gone
 * or the collapse would harm the surface's topology or orientation. */
bool sn_driver_evaluate(sn_decimator *d, uint32_t a, uint32_t b, sn_collapse *c);
/* Adds the quadric of the plane through p with unit normal n, times w. */
void sn_quadric_add_plane(sn_quadric *q, const double n[3], const double p[3], double w);
void sn_quadric_add(sn_quadric *q, const sn_quadric *r);

#endif /* SN_SOFFD_DRIVER_DECIMATE_H */
