/* PNG images of the skinning demo (examples/render). Not part of the library. */
#ifndef SINEW_EXAMPLE_LIMB_PICTURES_H
#define SINEW_EXAMPLE_LIMB_PICTURES_H

#include <stdbool.h>

#include "sinew.h"

/* Poses the limb with world (joint_count matrices) through skins[0] (linear)
 * and skins[1] (dual quaternion) and writes into dir:
 *   limb_rest_posed.png   the limb at rest and posed (dual quaternions)
 *   limb_lbs_vs_dqs.png   the same pose, linear blend beside dual quaternions
 *   limb_capsule_weights.png  the forearm's weight from capsule binding, then smoothed
 * The limb is painted with bands along its length, so twist shows as helices.
 * Returns false when a file cannot be written or memory runs out; says so and
 * returns true when the examples were built without libpng. */
bool limb_pictures(const char *dir, sinew_skin *const skins[2], const float *world, size_t joint_count,
                   const float *rest_positions, size_t vertex_count, const uint32_t *triangles, size_t triangle_count);

#endif
