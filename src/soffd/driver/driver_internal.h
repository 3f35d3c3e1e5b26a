/* Private interfaces of src/soffd/driver/: the skin read into triangles, the
 * weld, the joint emphasis and the edge-collapse decimator. */
#ifndef SN_SOFFD_DRIVER_INTERNAL_H
#define SN_SOFFD_DRIVER_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "core/internal.h"
#include "sinew/soffd_driver.h"

/* The skin as triangles: faces checked and n-gons ear-clipped. */
typedef struct sn_driver_skin {
    const float *positions;  /* the caller's, 3 floats at `stride` bytes */
    size_t stride;
    size_t vertex_count;
    uint32_t *triangles;     /* 3 per triangle, skin vertex indices (owned) */
    size_t triangle_count;
} sn_driver_skin;

/* Checks skin's faces and triangulates them into out (the positions are
 * checked by the caller). INVALID_ARGUMENT, SIZE_OVERFLOW,
 * INDEX_OUT_OF_RANGE, INVALID_TOPOLOGY, OUT_OF_MEMORY, each naming the face. */
sinew_result sn_driver_read_skin(const sn_env *env, const sinew_polymesh *skin, sn_driver_skin *out);
void sn_driver_skin_free(const sn_env *env, sn_driver_skin *s);

/* Welds the skin's vertices: rep[v] is the smallest index of the vertices
 * joined to v by chains of pairs closer than `tolerance` (world units, > 0),
 * lo the corner of the skin's box. *welded = vertices with rep[v] != v. */
sinew_result sn_driver_weld(const sn_env *env, const sn_driver_skin *s, double tolerance, const double lo[3],
                            uint32_t *rep, size_t *welded);

/* The cost factor of joint emphasis at every point: (1 + emphasis * b)^4,
 * b a smooth bump that is 1 at a joint where two or more bones meet and 0
 * beyond radius times the shortest bone there. */
typedef struct sn_driver_joints {
    double *centre;   /* 3 per emphasised joint */
    double *reach;    /* per emphasised joint: radius * shortest bone */
    size_t count;
    double emphasis;
} sn_driver_joints;
/* Checks the skeleton of a resolved desc (NON_FINITE, INDEX_OUT_OF_RANGE,
 * INVALID_ARGUMENT naming the joint or bone) and builds *j. */
sinew_result sn_driver_joints_build(const sn_env *env, const sinew_soffd_driver_desc *d, sn_driver_joints *j);
void sn_driver_joints_free(const sn_env *env, sn_driver_joints *j);
double sn_driver_joint_factor(const sn_driver_joints *j, const float p[3]);

/* The decimation: in are the welded triangles (indices into pos, which holds
 * vertex_count points and is moved in place). On success the live triangles
 * are compacted to the front of tris and their number is *tri_count. */
typedef struct sn_driver_decimate_args {
    float *pos;
    size_t vertex_count;
    uint32_t *tris;
    size_t tri_count;
    size_t target;            /* 0 = none */
    double max_rms;           /* world units; 0 = none */
    const sn_driver_joints *joints;
} sn_driver_decimate_args;
sinew_result sn_driver_decimate(const sn_env *env, sn_driver_decimate_args *a);

#endif /* SN_SOFFD_DRIVER_INTERNAL_H */
