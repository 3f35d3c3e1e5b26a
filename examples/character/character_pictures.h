/* The workflow example's picture: the arm at one pose without and with the
 * correctives, side by side, the corrected one coloured by how far the
 * correctives moved each vertex. */
#ifndef SINEW_EXAMPLE_CHARACTER_PICTURES_H
#define SINEW_EXAMPLE_CHARACTER_PICTURES_H

#include <stdbool.h>

#include "arm_rig.h"

/* Writes <dir>/character_correctives.png; true (and a note) without libpng. */
bool character_picture(const char *dir, const arm_rig *rig, const float *plain, const float *corrected,
                       double angle_degrees);

#endif
