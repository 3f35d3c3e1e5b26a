/* PNG image of the glTF player (examples/render). Not part of the library. */
#ifndef SINEW_EXAMPLE_GLTF_PICTURES_H
#define SINEW_EXAMPLE_GLTF_PICTURES_H

#include "character.h"

/* Writes folder/frame.png: the character at rest beside one deformed frame
 * (positions packed, one array per part), with the time as a label. Returns
 * false when the file cannot be written or memory runs out; says so and
 * returns true when the examples were built without libpng. */
bool gltf_picture(const char *folder, const character *c, float *const *positions, double time);

#endif
