/* PNG images of the lattice example (examples/render). Not part of the library. */
#ifndef SINEW_EXAMPLE_LATTICE_PICTURES_H
#define SINEW_EXAMPLE_LATTICE_PICTURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sinew.h"

/* Writes dir/lattice_refine.png: three panels, the cylinder at rest in the
 * rest lattice, bent by moving its vertices only (edges stay straight), and
 * refined then bent, with the edges refinement added drawn in orange.
 * Returns false when the file cannot be written or memory runs out; says so
 * and returns true when the examples were built without libpng. */
bool lattice_pictures(const char *dir, const sinew_lattice *lattice, const float *rest, const float *plain,
                      size_t vertex_count, const uint32_t *triangles, size_t triangle_count,
                      const sinew_lattice_refined_mesh *refined);

#endif
