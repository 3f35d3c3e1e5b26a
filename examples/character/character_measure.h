/* What the workflow example measures on its skins: how close the skin comes
 * to the elbow joint, the largest distance between two poses of a mesh, and
 * the muscle's bulge. */
#ifndef SINEW_EXAMPLE_CHARACTER_MEASURE_H
#define SINEW_EXAMPLE_CHARACTER_MEASURE_H

#include <stddef.h>
#include <stdint.h>

#include "arm_rig.h"

/* The smallest distance from the elbow joint to a skin vertex: the arm's
 * thickness at the elbow, which a rigidly bound driver loses on the inside
 * of the bend as it folds into itself. (The enclosed volume would not show
 * it: where the surface passes through itself the overlap counts twice.) */
double measure_elbow_clearance(const arm_rig *rig, const float *skin);
/* Largest |a_i - b_i| over count points. */
double measure_largest_distance(const float *a, const float *b, size_t count);
/* How far the corrected skin stands out of the plain one toward the inside
 * of the arm, over the middle of the upper arm (largest over its vertices). */
double measure_bulge(const arm_rig *rig, const float *plain, const float *corrected);

#endif
