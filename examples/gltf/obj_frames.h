/* OBJ output of the glTF example. Not part of the library. */
#ifndef SINEW_EXAMPLE_OBJ_FRAMES_H
#define SINEW_EXAMPLE_OBJ_FRAMES_H

#include "character.h"

/* Writes every part of the character (packed positions, and normals when
 * every part has them, per part) as one OBJ with a comment giving the time.
 * Returns false when the file cannot be written. */
bool obj_write_frame(const char *path, const character *c, float *const *positions, float *const *normals, double time);

#endif
