/* PNG images of the SOFFD example (examples/render). Not part of the library. */
#ifndef SINEW_EXAMPLE_SOFFD_PICTURES_H
#define SINEW_EXAMPLE_SOFFD_PICTURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A triangle mesh at rest and deformed (3 floats per vertex each). */
typedef struct soffd_picture_mesh {
    const float *rest, *bent;
    size_t vertex_count;
    const uint32_t *triangles;
    size_t triangle_count;
} soffd_picture_mesh;

/* Writes dir/soffd_cage_bend.png: the detailed mesh shaded with the driver's
 * edges drawn over it at rest, the bent driver's edges, and the bent mesh
 * shaded on its own. Returns false when the file cannot
 * be written or memory runs out; says so and returns true when the examples
 * were built without libpng. */
bool soffd_pictures(const char *dir, const soffd_picture_mesh *driver, const soffd_picture_mesh *skin);

#endif
