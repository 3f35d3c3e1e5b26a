/* The correctives of the workflow example, both offsets of driver points
 * applied to the driver's rest points before it is skinned:
 *   - the elbow: keyed at one bent pose over the elbow's swing-twist pose
 *     numbers (Gaussian kernel). Bound rigidly, the driver creases at the
 *     elbow: its inside folds into itself and loses volume. The key moves the
 *     points near the elbow to where a smooth bend puts them, each turned by
 *     a share of the angle that ramps from 0 on the upper arm to 1 on the
 *     forearm;
 *   - a muscle bulge: keyed against the elbow angle as a caller scalar
 *     (linear kernel, so it grows in proportion to the angle), swelling the
 *     inside of the upper arm. */
#ifndef SINEW_EXAMPLE_CHARACTER_KEYS_H
#define SINEW_EXAMPLE_CHARACTER_KEYS_H

#include <stdbool.h>

#include "arm_rig.h"
#include "character_driver.h"
#include "sinew.h"

/* Pose numbers of the elbow corrective: 3 (swing in two, twist). */
enum { ELBOW_POSE_SIZE = 3 };

/* The elbow's pose numbers at `angle` (sinew_corrective_swing_twist, the
 * twist axis along the forearm). */
bool character_elbow_pose(const arm_rig *rig, double angle, float pose[ELBOW_POSE_SIZE]);

/* Where the smooth bend puts each driver point at `angle` (3 per point):
 * what the elbow key reproduces at its pose. */
void character_elbow_target(const arm_rig *rig, const character_driver *d, double angle, float *target);

/* The elbow corrective keyed at key_angle; *offsets receives its key's
 * offsets (3 per driver point, malloc'ed, the caller frees them). */
sinew_corrective *character_elbow_corrective(const arm_rig *rig, const character_driver *d, double key_angle,
                                             float **offsets);

/* The bulge keyed at key_angle, full height `height` (world units). */
sinew_corrective *character_bulge_corrective(const arm_rig *rig, const character_driver *d, double key_angle,
                                             double height);

#endif
