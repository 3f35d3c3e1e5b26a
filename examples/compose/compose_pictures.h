/* PNG images of the composed example (examples/render). Not part of the library. */
#ifndef SINEW_EXAMPLE_COMPOSE_PICTURES_H
#define SINEW_EXAMPLE_COMPOSE_PICTURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The cage as polygons (faces one after another) at rest and posed, the arm's
 * triangles at rest, posed by the basic and the extended algorithm. */
typedef struct compose_picture {
    const float *cage_rest, *cage_posed;
    size_t cage_vertex_count;
    const uint32_t *cage_indices, *cage_face_sizes;
    size_t cage_face_count;
    const float *arm_rest, *arm_basic, *arm_extended;
    size_t arm_vertex_count;
    const uint32_t *arm_triangles;
    size_t arm_triangle_count;
    float arm_radius;   /* for the zoom's scale */
} compose_picture;

/* Writes dir/compose_cage_arm.png: the arm in its cage at rest, bent by the
 * skinned cage with the basic SOFFD algorithm and with the extended one, and
 * a zoom on the elbow coloured by how far the two results lie apart.
 * Returns false when the file cannot be written or memory runs out; says so
 * and returns true when the examples were built without libpng. */
bool compose_pictures(const char *dir, const compose_picture *p);

#endif
